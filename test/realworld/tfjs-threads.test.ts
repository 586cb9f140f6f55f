/**
 * A real-world module with shared memory and atomics: @tensorflow/tfjs-backend-wasm 4.22.0's
 * tfjs-backend-wasm-threaded-simd.wasm, TensorFlow.js's WebAssembly backend (XNNPACK kernels,
 * pthreadpool) built by Emscripten 3.1.26 with -pthread and -msimd128. It imports its memory
 * from env.memory as a *shared* memory (256 pages, at most 65536), initialises its passive data
 * segments in its start function under an atomic compare-and-exchange and memory.atomic.notify
 * (Emscripten's __wasm_init_memory), and takes locks with atomic read-modify-writes (192 atomic
 * instructions); its kernels are SIMD (14,265 instructions).
 *
 * No second thread is needed: the backend runs with a thread pool of one
 * (init_with_threads_count(1)), so __pthread_create_js is never called. Emscripten's 20
 * imports are written by hand from wasm-out/tfjs-backend-wasm-threaded-simd.js, with a fake,
 * deterministic clock, and the workload is what the backend's JavaScript does for three
 * kernels: tensors allocated with malloc and registered (register_tensor), then BatchMatMul,
 * Conv2D (XNNPACK convolution, SAME padding) and Softmax.
 *
 * The same workload runs in Node's WebAssembly and in our engine: every output tensor (bit for
 * bit), the sequence of host calls, and the whole shared memory afterwards must be the same.
 * Node's outputs are first checked against plain JavaScript references.
 *
 * PENDING: the engine refuses SIMD (and, until issue 9 lands, shared memory) today. Rename to
 * tfjs-threads.test.ts once it runs both.
 */
import { describe, expect, it } from 'vitest';

import { engineGuest, fixture, hex, nodeGuest, type Guest, type GuestOptions, type HostImports, type Num } from './harness.js';

const WASM = fixture('tfjs-backend-wasm-threaded-simd.wasm');
const SLOW = 300_000;

/** INITIAL_MEMORY 16 MiB, maximum 4 GiB, shared: what the glue creates for env.memory. */
const OPTIONS: GuestOptions = { importedMemory: { module: 'env', name: 'memory', initial: 256, maximum: 65536, shared: true } };

/** Host imports as the glue defines them for Node's main thread, and a log of every call. */
function makeImports(log: string[]): HostImports {
  let clock = 1_000;
  const u32 = (g: Guest, p: number): number => {
    const b = g.read(p, 4);
    return (b[0]! | (b[1]! << 8) | (b[2]! << 16) | (b[3]! << 24)) >>> 0;
  };
  const unexpected = (name: string) => (): never => {
    throw new Error(`tfjs: unexpected call of ${name} (a second thread or an abort)`);
  };
  const env: Record<string, (g: Guest, ...a: Num[]) => Num | void> = {
    abort: unexpected('abort'),
    emscripten_num_logical_cores: () => 1,
    // A fake clock, one millisecond a call: the same on both sides.
    emscripten_get_now: () => (clock += 1),
    emscripten_unwind_to_js_event_loop: unexpected('emscripten_unwind_to_js_event_loop'),
    emscripten_memcpy_big: (g, dest, src, num) => {
      g.write(Number(dest) >>> 0, g.read(Number(src) >>> 0, Number(num) >>> 0));
    },
    _emscripten_set_offscreencanvas_size: () => -1,
    emscripten_receive_on_main_thread_js: unexpected('emscripten_receive_on_main_thread_js'),
    // ___emscripten_init_main_thread_js(tb): __emscripten_thread_init(tb, !ENVIRONMENT_IS_WORKER,
    // 1, !ENVIRONMENT_IS_WEB), then PThread.threadInitTLS() runs _emscripten_tls_init. Both call
    // back into the guest from inside a host call.
    __emscripten_init_main_thread_js: (g, tb) => {
      g.call('_emscripten_thread_init', tb, 1, 1, 1, 0);
      g.call('_emscripten_tls_init');
    },
    _emscripten_notify_task_queue: unexpected('_emscripten_notify_task_queue'),
    emscripten_check_blocking_allowed: () => {},
    _emscripten_default_pthread_stack_size: () => 65536,
    __pthread_create_js: unexpected('__pthread_create_js'),
    __emscripten_thread_cleanup: unexpected('__emscripten_thread_cleanup'),
    exit: unexpected('exit'),
    emscripten_get_heap_max: () => 4294901760,
    // The glue grows to at least the requested size (overgrowing by up to 20%, in whole pages).
    emscripten_resize_heap: (g, requested) => {
      const req = Number(requested) >>> 0;
      const old = g.memoryBytes();
      if (req <= old) return 0;
      const target = Math.min(4294901760, Math.max(req, old + Math.floor(old / 5)));
      return g.grow(Math.ceil((target - old) / 65536)) >= 0 ? 1 : 0;
    },
  };
  const wasi: Record<string, (g: Guest, ...a: Num[]) => Num | void> = {
    fd_close: () => 0,
    fd_seek: () => 70, // ESPIPE
    // Output (warnings) collected into the log; the number of bytes written goes to *pnum.
    fd_write: (g, fd, iov, iovcnt, pnum) => {
      let n = 0;
      let text = '';
      for (let i = 0; i < Number(iovcnt); i++) {
        const ptr = u32(g, Number(iov) + 8 * i);
        const len = u32(g, Number(iov) + 8 * i + 4);
        text += Buffer.from(g.read(ptr, len)).toString('latin1');
        n += len;
      }
      log.push(`fd_write(${fd}): ${JSON.stringify(text)}`);
      g.write(Number(pnum), Uint8Array.of(n & 0xff, (n >>> 8) & 0xff, (n >>> 16) & 0xff, n >>> 24));
      return 0;
    },
  };
  const logged = (ns: Record<string, (g: Guest, ...a: Num[]) => Num | void>): HostImports[string] =>
    Object.fromEntries(Object.entries(ns).map(([name, f]) => [name, (g: Guest, ...a: Num[]) => {
      log.push(`${name}(${a.join(', ')})`);
      return f(g, ...a);
    }]));
  return { env: logged(env), wasi_snapshot_preview1: logged(wasi) };
}

// ---------------------------------------------------------------------------------------------
// The backend's JavaScript, for three kernels

/** Deterministic floats in [-1, 1): a fixed xorshift, multiples of 2^-12, so sums are exact-ish. */
function floats(n: number, seed: number): Float32Array {
  const out = new Float32Array(n);
  let s = seed >>> 0 || 1;
  for (let i = 0; i < n; i++) {
    s ^= s << 13; s >>>= 0;
    s ^= s >>> 17;
    s ^= s << 5; s >>>= 0;
    out[i] = ((s >>> 20) - 2048) / 2048;
  }
  return out;
}

const bytesOf = (a: Float32Array | Int32Array): Uint8Array => new Uint8Array(a.buffer, a.byteOffset, a.byteLength);

class Backend {
  private nextId = 1;
  constructor(readonly g: Guest) {}

  malloc(bytes: number): number {
    const p = Number(this.g.call('malloc', bytes)) >>> 0;
    expect(p).not.toBe(0);
    return p;
  }

  /** backend.write + move: malloc, register_tensor(id, size, offset), copy the values in. */
  tensor(values: Float32Array): { id: number; ptr: number; size: number } {
    const id = this.nextId++;
    const ptr = this.malloc(values.byteLength);
    this.g.call('register_tensor', id, values.length, ptr);
    this.g.write(ptr, bytesOf(values));
    return { id, ptr, size: values.length };
  }

  output(size: number): { id: number; ptr: number; size: number } {
    return this.tensor(new Float32Array(size));
  }

  /** An 'array' argument of cwrap: the bytes in guest memory (here by malloc, freed after). */
  ints(values: number[]): number {
    const p = this.malloc(values.length * 4);
    this.g.write(p, bytesOf(Int32Array.from(values)));
    return p;
  }

  read(t: { ptr: number; size: number }): Float32Array {
    return new Float32Array(this.g.read(t.ptr, t.size * 4).buffer);
  }

  dispose(t: { id: number; ptr: number }): void {
    this.g.call('free', t.ptr);
    this.g.call('dispose_data', t.id);
  }
}

interface Outcome {
  threads: number;
  /** The output tensors' bytes, compared bit for bit (-0, NaN payloads and all). */
  bits: string[];
  matmul: number[];
  conv: number[];
  softmax: number[];
  log: string[];
  memory: string;
}

const M = 24, K = 40, N = 16;
const H = 10, W = 9, CI = 3, CO = 8, FH = 3, FW = 3;
const ROWS = 6, COLS = 33;

function workload(g: Guest, log: string[]): Outcome {
  g.call('__wasm_call_ctors');
  g.call('init_with_threads_count', 1);
  const threads = Number(g.call('get_threads_count'));
  const be = new Backend(g);

  // BatchMatMul(aId, aShape, aRank, bId, bShape, bRank, transposeA, transposeB, outId)
  const a = be.tensor(floats(M * K, 1)), b = be.tensor(floats(K * N, 2)), mm = be.output(M * N);
  const aShape = be.ints([1, M, K]), bShape = be.ints([1, K, N]);
  g.call('BatchMatMul', a.id, aShape, 3, b.id, bShape, 3, 0, 0, mm.id);
  const matmul = Array.from(be.read(mm));

  // Conv2D, NHWC input, HWIO filter, SAME padding, stride 1: the glue's 19 arguments
  const x = be.tensor(floats(H * W * CI, 3)), f = be.tensor(floats(FH * FW * CI * CO, 4)), cv = be.output(H * W * CO);
  g.call('Conv2D', x.id, 1, H, W, f.id, FH, FW, /* pad t r b l */ 1, 1, 1, 1, /* same */ 1,
    /* dilation */ 1, 1, /* stride */ 1, 1, CI, CO, cv.id);
  const conv = Array.from(be.read(cv));

  // Softmax(xId, outId, channels, batch)
  const logits = be.tensor(floats(ROWS * COLS, 5).map((v) => v * 8)), sm = be.output(ROWS * COLS);
  g.call('Softmax', logits.id, sm.id, COLS, ROWS);
  const softmax = Array.from(be.read(sm));

  const bits = [mm, cv, sm].map((t) => hex(g.read(t.ptr, t.size * 4)));

  for (const t of [a, b, mm, x, f, cv, logits, sm]) be.dispose(t);
  g.call('free', aShape);
  g.call('free', bShape);
  return { threads, bits, matmul, conv, softmax, log: [...log], memory: g.memoryDigest() };
}

// ---------------------------------------------------------------------------------------------
// References in plain JavaScript (f64), for Node's outputs

function refMatmul(): number[] {
  const A = floats(M * K, 1), B = floats(K * N, 2);
  const out: number[] = [];
  for (let i = 0; i < M; i++)
    for (let j = 0; j < N; j++) {
      let s = 0;
      for (let k = 0; k < K; k++) s += A[i * K + k]! * B[k * N + j]!;
      out.push(s);
    }
  return out;
}

function refConv(): number[] {
  const X = floats(H * W * CI, 3), F = floats(FH * FW * CI * CO, 4);
  const out: number[] = [];
  for (let y = 0; y < H; y++)
    for (let x = 0; x < W; x++)
      for (let o = 0; o < CO; o++) {
        let s = 0;
        for (let dy = 0; dy < FH; dy++)
          for (let dx = 0; dx < FW; dx++) {
            const iy = y + dy - 1, ix = x + dx - 1;
            if (iy < 0 || iy >= H || ix < 0 || ix >= W) continue;
            for (let c = 0; c < CI; c++) s += X[(iy * W + ix) * CI + c]! * F[((dy * FW + dx) * CI + c) * CO + o]!;
          }
        out.push(s);
      }
  return out;
}

function refSoftmax(): number[] {
  const L = floats(ROWS * COLS, 5).map((v) => v * 8);
  const out: number[] = [];
  for (let r = 0; r < ROWS; r++) {
    const row = Array.from(L.subarray(r * COLS, (r + 1) * COLS));
    const max = Math.max(...row);
    const e = row.map((v) => Math.exp(v - max));
    const sum = e.reduce((p, q) => p + q, 0);
    out.push(...e.map((v) => v / sum));
  }
  return out;
}

function expectClose(actual: number[], expected: number[], tol: number): void {
  expect(actual.length).toBe(expected.length);
  const worst = actual.reduce((w, v, i) => Math.max(w, Math.abs(v - expected[i]!)), 0);
  expect(worst).toBeLessThan(tol);
}

describe('real-world shared memory + atomics: @tensorflow/tfjs-backend-wasm 4.22.0 (threaded-simd)', () => {
  it('runs BatchMatMul, Conv2D and Softmax the same in our engine as in Node, on one thread', () => {
    const nodeLog: string[] = [];
    const expected = workload(nodeGuest(WASM, makeImports(nodeLog), OPTIONS), nodeLog);

    // The workload is right: one thread, no thread ever created, outputs match plain JavaScript.
    expect(expected.threads).toBe(1);
    expect(expected.log.some((l) => l.startsWith('__pthread_create_js'))).toBe(false);
    expect(expected.log.some((l) => l.startsWith('__emscripten_init_main_thread_js'))).toBe(true);
    expectClose(expected.matmul, refMatmul(), 1e-4);
    expectClose(expected.conv, refConv(), 1e-4);
    expectClose(expected.softmax, refSoftmax(), 1e-5);
    // ...and deterministic: a second run in Node leaves the same outputs, host calls and memory.
    const againLog: string[] = [];
    expect(workload(nodeGuest(WASM, makeImports(againLog), OPTIONS), againLog)).toEqual(expected);
    if (process.env['REALWORLD_VERBOSE']) console.log(expected.log.join('\n'), expected.memory, expected.matmul.slice(0, 4));

    const ourLog: string[] = [];
    expect(workload(engineGuest(WASM, makeImports(ourLog), OPTIONS), ourLog)).toEqual(expected);
  }, SLOW);
});

