/**
 * The `sandboxd` process: runs the CLI on `process.argv` and sets the exit code. It is the
 * entry point of the one-file CommonJS bundle `dist/sandboxd.cjs` that `bin/sandboxd.cjs`
 * loads (one file starts faster than a graph of ES modules), and `main.ts` calls it when the
 * CLI runs from source. It loads nothing it does not need: wabt only when the module is text.
 */
import { readFileSync, writeSync } from 'node:fs';
import { runCli } from './run.js';

/** For the build, which runs the CLI once to write V8's code cache of the bundle (scripts/cli-code-cache.cjs). */
export { runCli };

/**
 * Writes lines to file descriptor `fd` directly. Touching `process.stdout` when it is a pipe
 * loads Node's stream and socket modules: 6 ms of a 130 ms cold start, measured. Should the
 * descriptor refuse a write (a non-blocking pipe that is full, say), this line and every
 * later one go through the stream instead, so nothing is lost or reordered.
 */
export function lineWriter(fd: number, stream: () => Pick<NodeJS.WritableStream, 'write'>): (line: string) => void {
  return linesTo(bytesWriter(fd, stream));
}

function linesTo(write: (bytes: Uint8Array) => void): (line: string) => void {
  return (line) => write(Buffer.from(`${line}\n`));
}

/** Writes bytes to `fd` as `lineWriter` writes lines (a WASI program's own output goes so). */
export function bytesWriter(fd: number, stream: () => Pick<NodeJS.WritableStream, 'write'>): (bytes: Uint8Array) => void {
  let direct = true;
  return (data) => {
    let bytes = data;
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

/** All of our stdin (empty when there is none to read). */
function readStdin(): Uint8Array {
  try {
    return readFileSync(0);
  } catch {
    return new Uint8Array(0);
  }
}

/** Our stdin a line at a time (the debugger's commands); node:readline loads only when asked. */
async function* readLines(): AsyncIterable<string> {
  const { createInterface } = await import('node:readline');
  const input = createInterface({ input: process.stdin, terminal: false });
  const prompt = process.stdin.isTTY === true;
  if (prompt) process.stdout.write('(sandboxd) ');
  for await (const line of input) {
    yield line;
    if (prompt) process.stdout.write('(sandboxd) ');
  }
}

export function runProcess(version: string): void {
  // One writer per descriptor, for lines and bytes alike, so that they keep their order.
  const stdout = bytesWriter(1, () => process.stdout);
  const stderr = bytesWriter(2, () => process.stderr);
  const io = { stdout: linesTo(stdout), stderr: linesTo(stderr), writeStdout: stdout, writeStderr: stderr, readStdin, readLines };
  runCli(process.argv.slice(2), io, { version }).then(
    (code) => {
      process.exitCode = code;
    },
    (error: unknown) => {
      process.stderr.write(`sandboxd: host error: ${error instanceof Error ? error.message : String(error)}\n`);
      process.exitCode = 1;
    },
  );
}
