/**
 * Arguments and limits as the run form holds them, read as the CLI reads `--arg`, `--fuel`,
 * `--timeout-ms`, `--memory-mb` and `--seed` (src/cli/args.ts): a plain integer is an i32;
 * `i32:N`, `i64:N`, `f32:X`, `f64:X` and `v128:0x` + 32 hex digits (byte 15 first) give the
 * type; floats take Rust's syntax (`1.5`, `-2e10`, `inf`, `NaN`).
 */
import { Limits, parseValueText, type Value, ValueTextError } from '../../src/index.js';
import type { RunSettings } from './examples.js';

/** A value the form cannot use; the message says which and why, as the CLI would. */
export class InputError extends Error {
  override readonly name = 'InputError';
}

/** The arguments typed in one field: separated by whitespace or commas. */
export function splitArgs(text: string): string[] {
  return text.split(/[\s,]+/).filter((t) => t !== '');
}

export function parseArgs(text: string): Value[] {
  return splitArgs(text).map((t) => parseValue(t));
}

/** One argument, as `--arg` reads it (the library's parseValueText). */
export function parseValue(text: string): Value {
  try {
    return parseValueText(text);
  } catch (e) {
    if (e instanceof ValueTextError) throw new InputError(`invalid argument '${text}': ${e.message}`);
    throw e;
  }
}

const U64_MAX = 2n ** 64n - 1n;

function unsigned(text: string, what: string, max: bigint = U64_MAX): bigint {
  const t = text.trim().replace(/[_\s]/g, '');
  if (!/^\+?[0-9]+$/.test(t)) throw new InputError(`invalid ${what} '${text}': expected a non-negative integer`);
  const n = BigInt(t);
  if (n > max) throw new InputError(`invalid ${what} '${text}': the number is too large (at most ${max})`);
  return n;
}

/** The limits the form asks for: fuel, the deadline (`inf`, `none` or empty: none) and the memory cap. */
export function parseLimits(settings: RunSettings): Limits {
  const fuel = unsigned(settings.fuel, 'fuel');
  const timeoutText = settings.timeoutMs.trim().toLowerCase();
  const timeoutMs = timeoutText === '' || timeoutText === 'inf' || timeoutText === 'none' || timeoutText === '∞'
    ? Infinity
    : Number(unsigned(settings.timeoutMs, 'timeout (ms)'));
  const mbText = settings.memoryMb.trim();
  if (!/^\+?([0-9]+\.?[0-9]*|\.[0-9]+)$/.test(mbText)) throw new InputError(`invalid memory (MB) '${settings.memoryMb}': expected a non-negative number`);
  const memoryBytes = Math.floor(Number(mbText) * 1024 * 1024);
  if (!Number.isSafeInteger(memoryBytes)) throw new InputError(`invalid memory (MB) '${settings.memoryMb}': the number is too large`);
  return new Limits({ fuel, timeoutMs, memoryBytes });
}

/** The seed of `host::random`, as `--seed` reads it. */
export function parseSeed(text: string): bigint {
  return unsigned(text, 'seed');
}
