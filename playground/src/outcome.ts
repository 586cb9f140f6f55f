/**
 * A run's outcome as the `sandboxd` CLI prints it (src/cli/run.ts): `[guest log] LINE` for each
 * logged line, then `result: I32(832040)` (values joined with `, `) or `ok (no return value)`,
 * `fuel consumed: N`, and `peak linear memory: N bytes` when memory grew; on failure
 * `sandboxd: <message>` (a trap's message goes on with its wasm backtrace). A WASI program's
 * stdout and stderr come first, as written, and its exit code after them (`--wasi` prints
 * the program's own output).
 */
import { HostAbi, type LogSink, resultLine, type RunOutput, SandboxError } from '../../src/index.js';
import { InputError, parseSeed, splitArgs } from './args.js';
import type { RunSettings } from './examples.js';

/** What the outcome panel shows: the kind (`ok`, or the error's kind), the CLI's text, a detail line. */
export interface Outcome {
  readonly kind: string;
  readonly text: string;
  readonly detail: string;
}

/** A WASI program's stdout and stderr, as text in the order written. */
class ProgramOutput {
  text = '';
  private readonly decoder = new TextDecoder();
  readonly write = (bytes: Uint8Array): void => {
    this.text += this.decoder.decode(bytes, { stream: true });
  };
}

/** What the grants give a run: the host ABI, `host::log`'s lines, a WASI program's output. */
export interface Grants {
  readonly host: HostAbi;
  readonly logs: LogSink | null;
  readonly program: ProgramOutput | null;
}

/** The host ABI the grants ask for (WASI's arguments after the program's name `program`). */
export function hostFor(settings: RunSettings): Grants {
  let host = HostAbi.denyAll();
  let logs: LogSink | null = null;
  let program: ProgramOutput | null = null;
  if (settings.log) ({ host, logs } = host.allowLog());
  if (settings.seed !== null) host = host.allowRandom(parseSeed(settings.seed));
  if (settings.wasi !== null) {
    program = new ProgramOutput();
    host = host.allowWasi({ args: ['program', ...splitArgs(settings.wasi)], onStdout: program.write, onStderr: program.write }).host;
  }
  return { host, logs, program };
}

/** What the guest wrote: its log lines, a WASI program's output. */
function guestLines(grants: Grants | null): string[] {
  const lines = grants?.logs?.lines.map((line) => `[guest log] ${line}`) ?? [];
  const written = grants?.program?.text ?? '';
  if (written !== '') lines.push(written.endsWith('\n') ? written.slice(0, -1) : written);
  return lines;
}

export function succeeded(output: RunOutput, grants: Grants | null, elapsedMs: number): Outcome {
  const lines = guestLines(grants);
  if (grants?.program != null && output.values.length === 0) lines.push(`exit code: ${output.exitCode}`);
  else lines.push(resultLine(output.values));
  lines.push(`fuel consumed: ${output.fuelConsumed}`);
  if (output.peakMemoryBytes > 0) lines.push(`peak linear memory: ${output.peakMemoryBytes} bytes`);
  return { kind: 'ok', text: lines.join('\n'), detail: `exit 0 · ${formatMs(elapsedMs)}` };
}

export function failed(error: unknown, grants: Grants | null, elapsedMs: number | null): Outcome {
  if (error instanceof InputError) {
    return { kind: 'InputError', text: `sandboxd: error: ${error.message}`, detail: 'nothing ran' };
  }
  const e = error instanceof SandboxError ? error : SandboxError.host(`internal error: ${error instanceof Error ? error.message : String(error)}`);
  const lines = guestLines(grants);
  lines.push(`sandboxd: ${e.message}`);
  const parts = [`exit ${e.exitCode}`];
  if (e.fuelConsumed > 0) parts.push(`${e.fuelConsumed} fuel consumed`);
  if (elapsedMs !== null) parts.push(formatMs(elapsedMs));
  return { kind: e.kind, text: lines.join('\n'), detail: parts.join(' · ') };
}

export function formatMs(ms: number): string {
  return ms < 10 ? `${ms.toFixed(1)} ms` : `${Math.round(ms)} ms`;
}
