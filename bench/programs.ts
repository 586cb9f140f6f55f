/**
 * Real programs for the bench, nobody here wrote: modules from npm packages driven through
 * their own calling conventions, in Node's engine and in ours (sandbox.instantiate, then calls
 * on the instance and its memory). One run is a fresh instance and the program's whole job.
 *
 * - dprint-json: dprint-plugin-json 0.24.0 (Rust; `@dprint/json` on npm, MIT), a JSON formatter,
 *   through dprint's plugin protocol (schema 4): pretty-prints 200 KB of minified JSON.
 * - lz4: lz4-wasm-nodejs 0.9.2 (Rust, wasm-bindgen; MIT), compress and decompress 1 MiB of text.
 *
 * bench/programs/ holds the modules and their licences.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { wasm } from './native.js';

/** What a program needs of an engine's instance. */
export interface ProgramInstance {
  call(name: string, args: readonly number[]): Promise<number>;
  read(ptr: number, length: number): Uint8Array;
  write(ptr: number, bytes: Uint8Array): void;
}

/** An engine: instantiate a module with one grant, `__wbindgen_placeholder__::__wbindgen_string_new` (returns 0). */
export type ProgramEngine = (bytes: Uint8Array) => Promise<ProgramInstance>;

export interface Program {
  name: string;
  what: string;
  file: string;
  /** Runs the job once on a fresh instance; returns a digest of its output. */
  run(engine: ProgramEngine, bytes: Uint8Array): Promise<string>;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** FNV-1a of bytes, as hex: the runs' outputs compared between engines. */
function digest(bytes: Uint8Array): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < bytes.length; i++) h = Math.imul(h ^ bytes[i]!, 0x01000193);
  return `${bytes.length}:${(h >>> 0).toString(16)}`;
}

/** A deterministic xorshift stream, for the inputs. */
function stream(seed: number): () => number {
  let x = seed | 0 || 1;
  return () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return (x >>> 0) / 4294967296;
  };
}

const WORDS = ['alpha', 'beta', 'gamma', 'delta', 'sandbox', 'fuel', 'epoch', 'memory', 'table', 'value', 'frame', 'slice'];

/** About `bytes` of minified JSON: nested objects, arrays, strings and numbers. */
export function jsonInput(bytes: number): string {
  const random = stream(7);
  const node = (depth: number): unknown => {
    const r = random();
    if (depth > 3 || r < 0.3) return r < 0.15 ? Math.floor(random() * 1e6) / 100 : WORDS[Math.floor(random() * WORDS.length)];
    if (r < 0.6) return Array.from({ length: 1 + Math.floor(random() * 5) }, () => node(depth + 1));
    return Object.fromEntries(Array.from({ length: 1 + Math.floor(random() * 5) }, (_, i) => [`${WORDS[Math.floor(random() * WORDS.length)]}${i}`, node(depth + 1)]));
  };
  const items: unknown[] = [];
  let size = 0;
  while (size < bytes) {
    const item = node(0);
    items.push(item);
    size += JSON.stringify(item).length + 1;
  }
  return JSON.stringify(items);
}

/** About `bytes` of text with repetition in it, as logs have. */
export function textInput(bytes: number): Uint8Array {
  const random = stream(11);
  let text = '';
  while (text.length < bytes) text += `${WORDS[Math.floor(random() * WORDS.length)]} ${Math.floor(random() * 1000)} ${random() < 0.2 ? '\n' : ''}`;
  return encoder.encode(text.slice(0, bytes));
}

const JSON_TEXT = jsonInput(200_000);
const LZ4_INPUT = textInput(1 << 20);

export const PROGRAMS: Program[] = [
  {
    name: 'dprint-json',
    what: 'dprint-plugin-json (Rust): format 200 KB of minified JSON',
    file: 'dprint-json.wasm',
    async run(engine, bytes) {
      const inst = await engine(bytes);
      const send = async (text: string): Promise<void> => {
        const data = encoder.encode(text);
        const ptr = await inst.call('clear_shared_bytes', [data.length]);
        inst.write(ptr, data);
      };
      const receive = async (length: number): Promise<Uint8Array> => inst.read(await inst.call('get_shared_bytes_ptr', []), length);
      await send(JSON.stringify({ global: {}, plugin: {} }));
      await inst.call('register_config', [1]);
      await send('input.json');
      await inst.call('set_file_path', []);
      await send(JSON_TEXT);
      const code = await inst.call('format', [1]);
      if (code === 2) throw new Error(`dprint-json: ${decoder.decode(await receive(await inst.call('get_error_text', [])))}`);
      if (code !== 1) throw new Error(`dprint-json: format answered ${code}`);
      return digest(await receive(await inst.call('get_formatted_text', [])));
    },
  },
  {
    name: 'lz4',
    what: 'lz4-wasm (Rust, wasm-bindgen): compress and decompress 1 MiB of text',
    file: 'lz4.wasm',
    async run(engine, bytes) {
      const inst = await engine(bytes);
      // wasm-bindgen's convention: results through a return area on the shadow stack.
      const through = async (name: string, input: Uint8Array): Promise<Uint8Array> => {
        const ret = await inst.call('__wbindgen_add_to_stack_pointer', [-16]);
        const ptr = await inst.call('__wbindgen_malloc', [input.length]);
        inst.write(ptr, input);
        await inst.call(name, [ret, ptr, input.length]);
        const area = new DataView(inst.read(ret, 8).buffer);
        const out = inst.read(area.getInt32(0, true), area.getInt32(4, true));
        await inst.call('__wbindgen_free', [area.getInt32(0, true), area.getInt32(4, true)]);
        await inst.call('__wbindgen_add_to_stack_pointer', [16]);
        return out.slice();
      };
      const packed = await through('compress', LZ4_INPUT);
      const unpacked = await through('decompress', packed);
      if (digest(unpacked) !== digest(LZ4_INPUT)) throw new Error('lz4: the round trip changed the text');
      return digest(packed);
    },
  },
];

export const programBytes = (dir: string, p: Program): Uint8Array => new Uint8Array(readFileSync(join(dir, p.file)));

/** Node's own WebAssembly as a ProgramEngine. */
export const nativeEngine: ProgramEngine = async (bytes) => {
  const instance = await wasm.instantiate(await wasm.compile(bytes), {
    __wbindgen_placeholder__: { __wbindgen_string_new: () => 0 },
  });
  const exports = instance.exports;
  const memory = exports['memory'] as { buffer: ArrayBuffer };
  return {
    call: async (name, args) => Number((exports[name] as (...a: number[]) => unknown)(...args) ?? 0),
    read: (ptr, length) => new Uint8Array(memory.buffer, ptr, length).slice(),
    write: (ptr, data) => new Uint8Array(memory.buffer).set(data, ptr),
  };
};
