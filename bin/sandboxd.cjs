#!/usr/bin/env node
'use strict';
// The `sandboxd` command. `npm run build` (run by `npm install`) bundles the CLI into one
// CommonJS file, which Node starts faster than the ES modules it is built from, and writes V8's
// code cache for it (load-cli.cjs).
const loaded = require('./load-cli.cjs').loadBundle(true);
if (loaded !== null) loaded.exports.runProcess(require('../package.json').version);
