/**
 * The `sandboxd` process: runs the CLI on `process.argv` and sets the exit code. It is the
 * entry point of the one-file CommonJS bundle `dist/sandboxd.cjs` that `bin/sandboxd.cjs`
 * loads (one file starts faster than a graph of ES modules), and `main.ts` calls it when the
 * CLI runs from source. It loads nothing it does not need: wabt only when the module is text.
 */
import { writeSync } from 'node:fs';
import { runCli } from './run.js';

/**
 * Writes lines to file descriptor `fd` directly. Touching `process.stdout` when it is a pipe
 * loads Node's stream and socket modules: 6 ms of a 130 ms cold start, measured. Should the
 * descriptor refuse a write (a non-blocking pipe that is full, say), this line and every
 * later one go through the stream instead, so nothing is lost or reordered.
 */
export function lineWriter(fd: number, stream: () => Pick<NodeJS.WritableStream, 'write'>): (line: string) => void {
  let direct = true;
  return (line) => {
    let bytes = Buffer.from(`${line}\n`);
    while (direct && bytes.length > 0) {
      try {
        bytes = bytes.subarray(writeSync(fd, bytes));
      } catch {
        direct = false;
      }
    }
    if (bytes.length > 0) stream().write(bytes);
  };
}

export function runProcess(version: string): void {
  const stdout = lineWriter(1, () => process.stdout);
  const stderr = lineWriter(2, () => process.stderr);
  runCli(process.argv.slice(2), { stdout, stderr }, { version }).then(
    (code) => {
      process.exitCode = code;
    },
    (error: unknown) => {
      process.stderr.write(`sandboxd: host error: ${error instanceof Error ? error.message : String(error)}\n`);
      process.exitCode = 1;
    },
  );
}
