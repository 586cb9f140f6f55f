/**
 * WebAssembly text → binary, through the `wabt` package with the WebAssembly 2.0 features
 * enabled. wabt is loaded lazily, on the first text module, so that running a `.wasm` never
 * pays for it (the CLI's cold start depends on this).
 */
import { SandboxError } from './errors.js';

/** The features of WebAssembly 2.0 (wabt's names). */
export const WAT_FEATURES = Object.freeze({
  mutable_globals: true,
  sat_float_to_int: true,
  sign_extension: true,
  multi_value: true,
  bulk_memory: true,
  reference_types: true,
  simd: true,
});

const WASM_MAGIC = [0x00, 0x61, 0x73, 0x6d] as const;

interface WabtModule {
  parseWat(filename: string, buffer: string | Uint8Array, options?: Record<string, boolean>): {
    toBinary(options: Record<string, boolean>): { buffer: Uint8Array };
    destroy(): void;
  };
}

let wabtInstance: Promise<WabtModule> | null = null;

function loadWabt(): Promise<WabtModule> {
  wabtInstance ??= import('wabt').then((m) => (m.default as unknown as () => Promise<WabtModule>)());
  return wabtInstance;
}

/** Whether `bytes` starts with the binary format's magic number `\0asm`. */
export function isWasmBinary(bytes: Uint8Array): boolean {
  return WASM_MAGIC.every((b, i) => bytes[i] === b);
}

/**
 * The binary form of a module given as `.wasm` bytes, `.wat` bytes or `.wat` text. Throws
 * `SandboxError` kind `InvalidModule` when the input is neither, or the text does not parse.
 */
export async function toBinary(input: Uint8Array | ArrayBuffer | string, filename = 'module.wat'): Promise<Uint8Array> {
  let text: string;
  if (input instanceof ArrayBuffer) input = new Uint8Array(input);
  if (typeof input === 'string') {
    text = input;
  } else if (input instanceof Uint8Array) {
    if (isWasmBinary(input)) return input;
    const decoded = decodeText(input);
    if (decoded === null) {
      throw SandboxError.invalidModule('the input is neither a WebAssembly binary (no `\\0asm` magic number) nor WebAssembly text');
    }
    text = decoded;
  } else {
    throw SandboxError.invalidModule('expected the module as a Uint8Array or ArrayBuffer (.wasm or .wat) or a string (.wat)');
  }
  const wabt = await loadWabt();
  let module: ReturnType<WabtModule['parseWat']> | undefined;
  try {
    module = wabt.parseWat(filename, text, WAT_FEATURES);
    return module.toBinary({}).buffer;
  } catch (e) {
    throw SandboxError.invalidModule(cleanWabtMessage(e), 0, e);
  } finally {
    module?.destroy();
  }
}

/** Strict UTF-8 without NUL bytes, or null when the bytes cannot be text. */
function decodeText(bytes: Uint8Array): string | null {
  if (bytes.includes(0)) return null;
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return null;
  }
}

/** wabt says "parseWat failed:\nfile:1:2: error: ...\n<source line>\n^^^": keep the error lines. */
function cleanWabtMessage(e: unknown): string {
  const raw = e instanceof Error ? e.message : String(e);
  const errors = raw.split('\n').filter((line) => /: error: /.test(line)).map((line) => line.trim());
  if (errors.length > 0) return errors.join('; ');
  return raw.replace(/^parseWat failed:\s*/, '').trim() || 'the WebAssembly text does not parse';
}
