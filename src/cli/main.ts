#!/usr/bin/env node
/**
 * Runs the `sandboxd` command from source (`npx tsx src/cli/main.ts ...`). The installed
 * command is `bin/sandboxd.cjs`, over the bundle of `process.ts`.
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runProcess } from './process.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string };
runProcess(pkg.version);
