/**
 * Links that reproduce a run. The query holds the module — an example by name
 * (`?example=fib`), or the text compressed (`code=`: deflate-raw, then base64url), or a binary
 * module likewise (`wasm=`) — and the export, the arguments, the limits and the grants:
 *
 *     ?example=fib&invoke=fib&args=30&fuel=100000000&timeout=1000&memory=16&log=0&seed=&run
 *
 * (`seed=` empty: no `host::random`; `wasi=1&wasiargs=a,b`: WASI granted, with those arguments). Only
 * what a link names replaces the example's settings.
 * `run` runs it as the page opens (`run=profile`: with the profile and coverage).
 */
import type { RunSettings } from './examples.js';

export type ModuleRef =
  | { readonly kind: 'example'; readonly id: string }
  | { readonly kind: 'text'; readonly text: string }
  | { readonly kind: 'binary'; readonly bytes: Uint8Array; readonly name: string };

export interface SharedState {
  readonly module: ModuleRef | null;
  /** The settings the link gives (only those it names). */
  readonly settings: Partial<RunSettings>;
  /** `run`: run at once; `profile`: run profiled at once. */
  readonly autorun: 'run' | 'profile' | null;
}

export function toBase64Url(bytes: Uint8Array): string {
  let binary = '';
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

export function fromBase64Url(text: string): Uint8Array {
  if (!/^[A-Za-z0-9_-]*$/.test(text)) throw new Error('not base64url');
  const b64 = text.replace(/-/g, '+').replace(/_/g, '/') + '='.repeat((4 - (text.length % 4)) % 4);
  const binary = atob(b64);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

async function pipe(bytes: Uint8Array, stream: CompressionStream | DecompressionStream): Promise<Uint8Array> {
  const out = new Blob([bytes as BlobPart]).stream().pipeThrough(stream);
  return new Uint8Array(await new Response(out).arrayBuffer());
}

export async function compress(bytes: Uint8Array): Promise<string> {
  return toBase64Url(await pipe(bytes, new CompressionStream('deflate-raw')));
}

/** The most a link's module may inflate to: a few kilobytes of link can deflate to gigabytes. */
export const MAX_SHARED_BYTES = 16 * 1024 * 1024;

/** A link's module, inflated a chunk at a time and refused past MAX_SHARED_BYTES. */
export async function decompress(text: string): Promise<Uint8Array> {
  const inflated = new Blob([fromBase64Url(text) as BlobPart]).stream().pipeThrough(new DecompressionStream('deflate-raw'));
  const reader = inflated.getReader();
  const chunks: Uint8Array[] = [];
  let length = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    length += value.length;
    if (length > MAX_SHARED_BYTES) {
      await reader.cancel();
      throw new Error(`the link's module inflates to more than ${MAX_SHARED_BYTES} bytes`);
    }
    chunks.push(value);
  }
  const out = new Uint8Array(length);
  let at = 0;
  for (const chunk of chunks) {
    out.set(chunk, at);
    at += chunk.length;
  }
  return out;
}

/** The link for `module` and `settings` on the page at `base` (its query replaced). */
export async function shareUrl(base: string, module: ModuleRef, settings: RunSettings, autorun: 'run' | 'profile' | null): Promise<string> {
  const q = new URLSearchParams();
  if (module.kind === 'example') q.set('example', module.id);
  else if (module.kind === 'text') q.set('code', await compress(new TextEncoder().encode(module.text)));
  else {
    q.set('wasm', await compress(module.bytes));
    q.set('name', module.name);
  }
  q.set('invoke', settings.invoke);
  q.set('args', settings.args.split(/[\s,]+/).filter((a) => a !== '').join(','));
  q.set('fuel', settings.fuel.trim());
  q.set('timeout', settings.timeoutMs.trim());
  q.set('memory', settings.memoryMb.trim());
  // Both always, so that a link to an example says when its grants are off.
  q.set('log', settings.log ? '1' : '0');
  q.set('seed', settings.seed?.trim() ?? '');
  q.set('wasi', settings.wasi === null ? '0' : '1');
  if (settings.wasi !== null) q.set('wasiargs', settings.wasi.split(/[\s,]+/).filter((a) => a !== '').join(','));
  const url = new URL(base);
  // `run` alone reads better than `run=`.
  url.search = q.toString() + (autorun === null ? '' : autorun === 'run' ? '&run' : '&run=profile');
  url.hash = '';
  return url.href;
}

/** What a link asks for; throws when its module cannot be read. */
export async function readShared(search: string): Promise<SharedState> {
  const q = new URLSearchParams(search);
  let module: ModuleRef | null = null;
  const code = q.get('code');
  const wasm = q.get('wasm');
  const example = q.get('example');
  if (code !== null) {
    let bytes: Uint8Array;
    try {
      bytes = await decompress(code);
    } catch (e) {
      throw new Error(`the link's module text (code=) cannot be read: ${e instanceof Error ? e.message : String(e)}`);
    }
    module = { kind: 'text', text: new TextDecoder().decode(bytes) };
  } else if (wasm !== null) {
    try {
      module = { kind: 'binary', bytes: await decompress(wasm), name: q.get('name') ?? 'shared.wasm' };
    } catch (e) {
      throw new Error(`the link's binary module (wasm=) cannot be read: ${e instanceof Error ? e.message : String(e)}`);
    }
  } else if (example !== null) {
    module = { kind: 'example', id: example };
  }
  const settings: Partial<RunSettings> = {};
  const invoke = q.get('invoke');
  if (invoke !== null) settings.invoke = invoke;
  const args = q.get('args') ?? (q.has('arg') ? q.getAll('arg').join(' ') : null);
  if (args !== null) settings.args = args.split(/[\s,]+/).filter((a) => a !== '').join(' ');
  const fuel = q.get('fuel');
  if (fuel !== null) settings.fuel = fuel;
  const timeout = q.get('timeout') ?? q.get('timeout-ms');
  if (timeout !== null) settings.timeoutMs = timeout;
  const memory = q.get('memory') ?? q.get('memory-mb');
  if (memory !== null) settings.memoryMb = memory;
  if (q.has('log')) settings.log = q.get('log') !== '0';
  const seed = q.get('seed');
  if (seed !== null) settings.seed = seed.trim() === '' ? null : seed;
  if (q.has('wasi')) settings.wasi = q.get('wasi') === '0' ? null : (q.get('wasiargs') ?? '').split(',').filter((a) => a !== '').join(' ');
  const run = q.get('run');
  const autorun = run === null ? null : run === 'profile' ? 'profile' : 'run';
  return { module, settings, autorun };
}
