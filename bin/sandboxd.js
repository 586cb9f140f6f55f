#!/usr/bin/env node
// The `sandboxd` command: runs the compiled CLI (build it with `npm run build`).
import('../dist/src/cli/main.js').catch((error) => {
  if (error && error.code === 'ERR_MODULE_NOT_FOUND' && String(error.message).includes('dist/src/cli/main.js')) {
    process.stderr.write("sandboxd: host error: the CLI is not built; run 'npm run build' first\n");
  } else {
    process.stderr.write(`sandboxd: host error: ${error && error.stack ? error.stack : error}\n`);
  }
  process.exitCode = 1;
});
