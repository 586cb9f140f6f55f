/**
 * The `sandboxd` process: runs the CLI on `process.argv` and sets the exit code. It is the
 * entry point of the one-file CommonJS bundle `dist/sandboxd.cjs` that `bin/sandboxd.cjs`
 * loads (one file starts faster than a graph of ES modules), and `main.ts` calls it when the
 * CLI runs from source. It loads nothing it does not need: wabt only when the module is text.
 */
import { runCli } from './run.js';

const write = (stream: NodeJS.WriteStream) => (line: string): void => {
  stream.write(`${line}\n`);
};

export function runProcess(version: string): void {
  runCli(process.argv.slice(2), { stdout: write(process.stdout), stderr: write(process.stderr) }, { version }).then(
    (code) => {
      process.exitCode = code;
    },
    (error: unknown) => {
      process.stderr.write(`sandboxd: host error: ${error instanceof Error ? error.message : String(error)}\n`);
      process.exitCode = 1;
    },
  );
}
