#!/usr/bin/env node
'use strict';
// The `sandboxd` command. `npm run build` (run by `npm install`) bundles the CLI into one
// CommonJS file, which Node starts faster than the ES modules it is built from.
let cli;
try {
  cli = require('../dist/sandboxd.cjs');
} catch (error) {
  if (error && error.code === 'MODULE_NOT_FOUND' && String(error.message).includes('sandboxd.cjs')) {
    process.stderr.write("sandboxd: host error: the CLI is not built; run 'npm run build' first\n");
    process.exitCode = 1;
    return;
  }
  throw error;
}
cli.runProcess(require('../package.json').version);
