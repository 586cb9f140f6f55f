#!/usr/bin/env node
/**
 * Entry point of the `sandboxd` command (bin/sandboxd.js imports the built copy of this file;
 * `npx tsx src/cli/main.ts` runs it from source). Runs the CLI on `process.argv` and sets the
 * exit code. Loads nothing it does not need: wabt only when the module is text.
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runCli } from './run.js';

/** The version from the nearest package.json above this file (src/cli or dist/src/cli). */
function packageVersion(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 5; i++) {
    try {
      const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { version?: unknown };
      if (typeof pkg.version === 'string') return pkg.version;
    } catch {
      // not here; look one level up
    }
    dir = dirname(dir);
  }
  return 'unknown';
}

const write = (stream: NodeJS.WriteStream) => (line: string): void => {
  stream.write(`${line}\n`);
};

process.exitCode = await runCli(
  process.argv.slice(2),
  { stdout: write(process.stdout), stderr: write(process.stderr) },
  { version: packageVersion() },
);
