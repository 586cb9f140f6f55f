/**
 * A run's outcome as the `sandboxd` CLI prints it (src/cli/run.ts): `[guest log] LINE` for each
 * logged line, then `result: I32(832040)` (values joined with `, `) or `ok (no return value)`,
 * `fuel consumed: N`, and `peak linear memory: N bytes` when memory grew; on failure
 * `sandboxd: <message>` (a trap's message goes on with its wasm backtrace).
 */
import { HostAbi, type LogSink, type RunOutput, SandboxError } from '../../src/index.js';
import { InputError, parseSeed } from './args.js';
import type { RunSettings } from './examples.js';

/** What the outcome panel shows: the kind (`ok`, or the error's kind), the CLI's text, a detail line. */
export interface Outcome {
  readonly kind: string;
  readonly text: string;
  readonly detail: string;
}

/** The host ABI the grants ask for, and the log sink when `host::log` is granted. */
export function hostFor(settings: RunSettings): { host: HostAbi; logs: LogSink | null } {
  let host = HostAbi.denyAll();
  let logs: LogSink | null = null;
  if (settings.log) ({ host, logs } = host.allowLog());
  if (settings.seed !== null) host = host.allowRandom(parseSeed(settings.seed));
  return { host, logs };
}

function logLines(logs: LogSink | null): string[] {
  return logs === null ? [] : logs.lines.map((line) => `[guest log] ${line}`);
}

export function succeeded(output: RunOutput, logs: LogSink | null, elapsedMs: number): Outcome {
  const lines = logLines(logs);
  lines.push(output.values.length === 0 ? 'ok (no return value)' : `result: ${output.values.map(String).join(', ')}`);
  lines.push(`fuel consumed: ${output.fuelConsumed}`);
  if (output.peakMemoryBytes > 0) lines.push(`peak linear memory: ${output.peakMemoryBytes} bytes`);
  return { kind: 'ok', text: lines.join('\n'), detail: `exit 0 · ${formatMs(elapsedMs)}` };
}

export function failed(error: unknown, logs: LogSink | null, elapsedMs: number | null): Outcome {
  if (error instanceof InputError) {
    return { kind: 'InputError', text: `sandboxd: error: ${error.message}`, detail: 'nothing ran' };
  }
  const e = error instanceof SandboxError ? error : SandboxError.host(`internal error: ${error instanceof Error ? error.message : String(error)}`);
  const lines = logLines(logs);
  lines.push(`sandboxd: ${e.message}`);
  const parts = [`exit ${e.exitCode}`];
  if (e.fuelConsumed > 0) parts.push(`${e.fuelConsumed} fuel consumed`);
  if (elapsedMs !== null) parts.push(formatMs(elapsedMs));
  return { kind: e.kind, text: lines.join('\n'), detail: parts.join(' · ') };
}

export function formatMs(ms: number): string {
  return ms < 10 ? `${ms.toFixed(1)} ms` : `${Math.round(ms)} ms`;
}
