/**
 * The calls about the process rather than files: arguments and environment, clocks, random
 * bytes, poll_oneoff, sched_yield, proc_exit — and the socket calls, which have no sockets to
 * work on (EBADF for a closed descriptor, ENOTSOCK for any other).
 */
import { nextMacrotask } from '../../sandbox/macrotask.js';
import { GuestExit } from '../host-errors.js';
import { EVENTTYPE, LAYOUT, RIGHTS, SUBSCRIPTION_CLOCK_ABSTIME } from './abi.js';
import type { WasiContext } from './context.js';
import type { WasiMemory } from './guest-memory.js';
import { Errno, fail, WasiError } from './errno.js';
import { syscall, u32, type Syscall } from './syscall.js';

/** The most subscriptions one poll_oneoff may pass. */
export const MAX_SUBSCRIPTIONS = 4096;
/** random_get's bytes made in one go, between two looks at the clock (a multiple of 8: whole outputs). */
const RANDOM_CHUNK_BYTES = 4096;
/**
 * How long random_get makes bytes before it gives the event loop a turn (ms). Bounded by time,
 * not bytes: a fixed 256 KiB took 30-44 ms in a process whose generator V8 had not optimised yet
 * (2026-12-01, a slow VM), about 1.6 ms once it had.
 */
const RANDOM_PIECE_MS = 2;

export const processCalls: Readonly<Record<string, Syscall>> = {
  args_get: syscall(['i32', 'i32'], (ctx, [argv, buf]) => writeStrings(ctx, ctx.args, u32(argv!), u32(buf!))),
  args_sizes_get: syscall(['i32', 'i32'], (ctx, [count, size]) => writeSizes(ctx, ctx.args, u32(count!), u32(size!))),
  environ_get: syscall(['i32', 'i32'], (ctx, [environ, buf]) => writeStrings(ctx, ctx.environ, u32(environ!), u32(buf!))),
  environ_sizes_get: syscall(['i32', 'i32'], (ctx, [count, size]) => writeSizes(ctx, ctx.environ, u32(count!), u32(size!))),

  clock_res_get: syscall(['i32', 'i32'], (ctx, [id, ptr]) => {
    ctx.memory.setU64(u32(ptr!), ctx.clock.resolution(u32(id!)));
    return Errno.SUCCESS;
  }),

  clock_time_get: syscall(['i32', 'i64', 'i32'], (ctx, [id, , ptr]) => {
    ctx.memory.setU64(u32(ptr!), ctx.clock.now(u32(id!)));
    return Errno.SUCCESS;
  }),

  random_get: syscall(['i32', 'i32'], (ctx, [buf, len]) => {
    const memory = ctx.memory;
    const ptr = u32(buf!);
    const length = u32(len!);
    // Checked before the bytes are made, so that a bad length costs nothing.
    memory.checkRange(ptr, length);
    return fillRandom(ctx, memory, ptr, length);
  }),

  poll_oneoff: syscall(['i32', 'i32', 'i32', 'i32'], (ctx, [inPtr, outPtr, count, neventsPtr]) => pollOneoff(ctx, u32(inPtr!), u32(outPtr!), u32(count!), u32(neventsPtr!))),

  proc_exit: { params: ['i32'], results: [], run: (_ctx, [code]) => { throw new GuestExit(u32(code!)); } },

  // Signals are not delivered to a sandboxed guest.
  proc_raise: syscall(['i32'], () => Errno.NOSYS),

  // Gives the event loop a turn, as a thread yielding its processor would.
  sched_yield: syscall([], () => new Promise<Errno>((done) => nextMacrotask(() => done(Errno.SUCCESS)))),

  sock_accept: syscall(['i32', 'i32', 'i32'], (ctx, [fd]) => notASocket(ctx, u32(fd!))),
  sock_recv: syscall(['i32', 'i32', 'i32', 'i32', 'i32', 'i32'], (ctx, [fd]) => notASocket(ctx, u32(fd!))),
  sock_send: syscall(['i32', 'i32', 'i32', 'i32', 'i32'], (ctx, [fd]) => notASocket(ctx, u32(fd!))),
  sock_shutdown: syscall(['i32', 'i32'], (ctx, [fd]) => notASocket(ctx, u32(fd!))),
};

/** argv or environ: the pointers at `table`, the NUL-terminated strings from `buf` on. */
function writeStrings(ctx: WasiContext, strings: readonly Uint8Array[], table: number, buf: number): Errno {
  const memory = ctx.memory;
  const pointers = memory.struct(strings.length * 4);
  let at = buf;
  strings.forEach((s, i) => {
    pointers.u32(i * 4, at);
    memory.write(at, s);
    at += s.length;
  });
  memory.write(table, pointers.bytes);
  return Errno.SUCCESS;
}

function writeSizes(ctx: WasiContext, strings: readonly Uint8Array[], countPtr: number, sizePtr: number): Errno {
  const memory = ctx.memory;
  memory.setU32(countPtr, strings.length);
  memory.setU32(sizePtr, strings.reduce((sum, s) => sum + s.length, 0));
  return Errno.SUCCESS;
}

/**
 * Writes `length` bytes of the run's stream at `ptr`, for RANDOM_PIECE_MS at a time: a large
 * request (16 MiB takes about 100 ms) gives the event loop its turns, and the deadline its
 * chance, between the pieces. The chunks are whole outputs, so the bytes are the same.
 */
function fillRandom(ctx: WasiContext, memory: WasiMemory, ptr: number, length: number): Errno | Promise<Errno> {
  const started = performance.now();
  let done = 0;
  do {
    const chunk = Math.min(length - done, RANDOM_CHUNK_BYTES);
    memory.write(ptr + done, randomBytes(ctx, chunk));
    done += chunk;
  } while (done < length && performance.now() - started < RANDOM_PIECE_MS);
  if (done === length) return Errno.SUCCESS;
  const signal = ctx.signal;
  return new Promise<void>((next) => nextMacrotask(next)).then(() =>
    // A run that ended meanwhile gets no more bytes: its memory is no longer this call's.
    signal.aborted ? Errno.SUCCESS : fillRandom(ctx, memory, ptr + done, length - done));
}

/** `length` bytes of the run's seeded stream: eight from each splitmix64 output, little-endian. */
function randomBytes(ctx: WasiContext, length: number): Uint8Array {
  const out = new Uint8Array(Math.ceil(length / 8) * 8);
  const words = new DataView(out.buffer);
  for (let at = 0; at < out.length; at += 8) {
    const [lo, hi] = ctx.random.nextHalves();
    words.setUint32(at, lo, true);
    words.setUint32(at + 4, hi, true);
  }
  return out.subarray(0, length);
}

function notASocket(ctx: WasiContext, fd: number): Errno {
  ctx.fds.get(fd);
  return Errno.NOTSOCK;
}

interface Event {
  readonly userdata: Uint8Array;
  readonly type: number;
  readonly error: Errno;
  readonly nbytes: number;
}

/**
 * poll_oneoff: descriptors are always ready (files and stdin hold all their data, outputs
 * take any write), so a poll that asks about one returns at once with every ready descriptor,
 * and the clocks already due. A poll on clocks alone sleeps until the earliest is due —
 * in virtual time at once, in host time for real — and reports every clock due by then.
 */
function pollOneoff(ctx: WasiContext, inPtr: number, outPtr: number, count: number, neventsPtr: number): Errno | Promise<Errno> {
  if (count === 0 || count > MAX_SUBSCRIPTIONS) fail(Errno.INVAL);
  const memory = ctx.memory;
  const subs = memory.read(inPtr, count * LAYOUT.SUBSCRIPTION);
  const view = new DataView(subs.buffer, subs.byteOffset, subs.byteLength);
  const ready: Event[] = [];
  const clocks: { userdata: Uint8Array; remaining: bigint }[] = [];
  for (let i = 0; i < count; i++) {
    const at = i * LAYOUT.SUBSCRIPTION;
    const userdata = subs.slice(at, at + 8);
    const type = view.getUint8(at + 8);
    if (type === EVENTTYPE.CLOCK) {
      const id = view.getUint32(at + 16, true);
      const timeout = view.getBigUint64(at + 24, true);
      const absolute = (view.getUint16(at + 40, true) & SUBSCRIPTION_CLOCK_ABSTIME) !== 0;
      try {
        const now = ctx.clock.now(id);
        clocks.push({ userdata, remaining: absolute ? timeout - now : timeout });
      } catch (e) {
        if (!(e instanceof WasiError)) throw e;
        ready.push({ userdata, type, error: e.errno, nbytes: 0 });
      }
    } else if (type === EVENTTYPE.FD_READ || type === EVENTTYPE.FD_WRITE) {
      ready.push(descriptorEvent(ctx, userdata, type, view.getUint32(at + 16, true)));
    } else {
      fail(Errno.INVAL);
    }
  }
  const finish = (waited: bigint): Errno => {
    const events = ready.concat(clocks.filter((c) => c.remaining <= waited).map((c) => ({ userdata: c.userdata, type: EVENTTYPE.CLOCK, error: Errno.SUCCESS, nbytes: 0 })));
    const out = memory.struct(events.length * LAYOUT.EVENT);
    events.forEach((e, i) => {
      out.bytes.set(e.userdata, i * LAYOUT.EVENT);
      out.u16(i * LAYOUT.EVENT + 8, e.error).u8(i * LAYOUT.EVENT + 10, e.type).u64(i * LAYOUT.EVENT + 16, e.nbytes);
    });
    memory.write(outPtr, out.bytes);
    memory.setU32(neventsPtr, events.length);
    return Errno.SUCCESS;
  };
  if (ready.length > 0) return finish(0n);
  const earliest = clocks.reduce((min, c) => (c.remaining < min ? c.remaining : min), clocks[0]!.remaining);
  const wait = earliest > 0n ? earliest : 0n;
  const signal = ctx.signal;
  const slept = ctx.clock.sleep(wait, signal);
  if (slept === undefined) return finish(wait);
  // A run that ended while it waited gets no answer: its memory is no longer this call's.
  return slept.then(() => (signal.aborted ? Errno.SUCCESS : finish(wait)));
}

function descriptorEvent(ctx: WasiContext, userdata: Uint8Array, type: number, fd: number): Event {
  try {
    const d = ctx.fds.get(fd);
    d.require(RIGHTS.POLL_FD_READWRITE);
    const target = d.target;
    let nbytes = 0;
    if (type === EVENTTYPE.FD_READ) {
      if (target.kind === 'file') nbytes = Math.max(0, target.node.size - d.offset);
      else if (target.kind === 'stdin') nbytes = target.stream.remaining;
      else fail(Errno.BADF);
    } else if (target.kind !== 'file' && target.kind !== 'output') {
      fail(Errno.BADF);
    }
    return { userdata, type, error: Errno.SUCCESS, nbytes };
  } catch (e) {
    if (!(e instanceof WasiError)) throw e;
    return { userdata, type, error: e.errno, nbytes: 0 };
  }
}
