/**
 * Execution of the internal `Atomic` instruction: every 0xFE instruction of the threads
 * proposal (atomic-ops.ts) goes through this one function, so the dispatch loop gains one
 * case. The semantics are those of one agent: nothing else runs against the memory, so an
 * atomic access is the ordinary access plus the alignment check, a wait can never be woken,
 * and notify wakes nobody. See docs/atomics.md.
 *
 * Layout: `Atomic sub operands...`, where `sub` is the WebAssembly sub-opcode after 0xFE.
 * Operand words by entry (AtomicOpInfo.entry, AtomicOpInfo.operands):
 *
 * | entry          | operands                             | words after `Atomic` |
 * | -------------- | ------------------------------------ | -------------------- |
 * | load           | d addr offset                        | 4                    |
 * | store          | addr value offset                    | 4                    |
 * | rmw            | d addr value offset                  | 5                    |
 * | cmpxchg        | d addr expected replacement offset   | 6                    |
 * | wait32, wait64 | d addr expected timeout offset       | 6                    |
 * | notify         | d addr count offset                  | 5                    |
 * | fence          | (none)                               | 1                    |
 *
 * `d`, `addr`, `value`, `expected`, `replacement`, `timeout`, `count` are frame word offsets
 * (from `base`): an i32 in one word, an i64 as (low word, high word) at an even offset, as
 * everywhere in the engine. `offset` is the memarg offset itself, as an unsigned 32-bit word.
 * The result is written last, so `d` may be any operand's slot.
 *
 * Checks, in wasmtime's order: the effective address (address + offset, unsigned, no
 * wrapping) must be a multiple of the access size, else `UnalignedAtomic`; then the access
 * must lie within the memory, else `MemoryOutOfBounds`; then, for a wait only, the memory must
 * be shared, else `AtomicWaitNonSharedMemory`. atomic.fence checks nothing (and needs no
 * memory).
 *
 * ## Waiting without blocking the host
 *
 * `memory.atomic.wait32/64` first compares the loaded value with `expected`: different, it
 * returns 1 ("not-equal"). Equal, the agent would be suspended until notified or until the
 * timeout (i64 nanoseconds, negative = none) expires. With one agent nobody can notify, so the
 * outcome is already known: 2 ("timed-out"), once the timeout has passed — or never, with no
 * timeout. So the instruction completes at once in every respect but time: it writes 2 to `d`
 * and, unless the timeout is 0, asks the `AtomicWaitHook` to let the time pass:
 *
 * - `hook.atomicWaitSuspend(ns)` is called with the timeout in nanoseconds (a finite number
 *   ≥ 1, exact below 2^53; or `Infinity` for a negative timeout, a wait that can never end).
 * - The hook returns true to pause: `atomicOperation` then returns `~next` (a negative number;
 *   `next` is the pc after the instruction, `~~next === next`). The dispatch loop saves its
 *   state with `pc = ~returned` and returns `'pending'`, having set up — in the hook — a
 *   promise that settles after `ns` nanoseconds (for `Infinity`: one that never settles). The
 *   driver already races a pending execution's promise against the run's deadline, so a finite
 *   wait resumes with 2 in `d` after its timeout without blocking the event loop, and an
 *   infinite one (or one longer than the time left) ends as the run's Timeout at the deadline.
 * - The hook returns false to go on at once: the timeout counts as elapsed (e.g. a
 *   synchronous embedding with no clock to wait on). It may also throw (e.g. a Trap for an
 *   infinite wait where there is no deadline to end it); nothing is left half done.
 *
 * A timeout of exactly 0 never calls the hook: the result is 2 at once.
 */
import { Trap, TrapKind } from './errors.js';
import { ATOMIC_OPS, type AtomicEntry, type AtomicRmwOp } from './atomic-ops.js';
import type { MemoryInst } from './store.js';
import { I64 } from './types.js';

/** The i32 results of memory.atomic.wait32/64. */
export const WAIT_OK = 0;
export const WAIT_NOT_EQUAL = 1;
export const WAIT_TIMED_OUT = 2;

/** What a wait that would suspend the agent asks of the execution (see the module comment). */
export interface AtomicWaitHook {
  /**
   * The wait's result (2, "timed-out") is already written; `timeoutNs` (≥ 1, or Infinity for
   * no timeout) must pass before execution goes on. Return true to pause the execution here
   * (atomicOperation returns `~next`), false to go on at once as if the time had passed.
   */
  atomicWaitSuspend(timeoutNs: number): boolean;
}

/**
 * Whether `mem` is a shared memory. MemoryType has no `shared` field yet; this reads
 * `type.shared` (true for `(memory n m shared)`), so that adding `readonly shared: boolean`
 * (or an optional one) to MemoryType is all the integration must do; absent, it is unshared.
 */
export function isSharedMemory(mem: MemoryInst): boolean {
  return (mem.type as { readonly shared?: boolean }).shared === true;
}

const ENTRY_CODES: Record<AtomicEntry, number> = {
  load: 1, store: 2, rmw: 3, cmpxchg: 4, wait32: 5, wait64: 6, notify: 7, fence: 8,
};
const RMW_CODES: Record<AtomicRmwOp, number> = { add: 0, sub: 1, and: 2, or: 3, xor: 4, xchg: 5 };

/** Entry code by `sub` (0 for none); bytes accessed; 1 when the value type is i64; the rmw step. */
const ENTRY_OF = new Uint8Array(0x50);
const BYTES_OF = new Uint8Array(0x50);
const WIDE_OF = new Uint8Array(0x50);
const RMW_OF = new Uint8Array(0x50);
for (const info of ATOMIC_OPS) {
  ENTRY_OF[info.op] = ENTRY_CODES[info.entry];
  BYTES_OF[info.op] = info.accessBytes;
  WIDE_OF[info.op] = info.valueType === I64 ? 1 : 0;
  RMW_OF[info.op] = info.rmw === null ? 0 : RMW_CODES[info.rmw];
}

/**
 * The effective address for an access of `bytes` at address value `addr` (an i32, taken
 * unsigned) plus `offset`: aligned, then in bounds, or a trap.
 */
function effectiveAddress(mem: MemoryInst | null, addr: number, offset: number, bytes: number): number {
  const ea = (addr >>> 0) + (offset >>> 0);
  // `&` takes ea modulo 2^32, which keeps its low bits.
  if ((ea & (bytes - 1)) !== 0) throw new Trap(TrapKind.UnalignedAtomic);
  if (mem === null || ea + bytes > mem.size) throw new Trap(TrapKind.MemoryOutOfBounds);
  return ea;
}

/** The `bytes` (1, 2 or 4) at `ea`, zero-extended (4: the word as an i32). */
function load32(view: DataView, ea: number, bytes: number): number {
  if (bytes === 1) return view.getUint8(ea);
  if (bytes === 2) return view.getUint16(ea, true);
  return view.getInt32(ea, true);
}

/** Stores the low `bytes` (1, 2 or 4) of `v`. */
function store32(view: DataView, ea: number, bytes: number, v: number): void {
  if (bytes === 1) view.setUint8(ea, v);
  else if (bytes === 2) view.setUint16(ea, v, true);
  else view.setInt32(ea, v, true);
}

/** The modify step on 32 bits (narrower widths keep the low bits when stored). */
function modify32(op: number, old: number, v: number): number {
  switch (op) {
    case 0: return (old + v) | 0;
    case 1: return (old - v) | 0;
    case 2: return old & v;
    case 3: return old | v;
    case 4: return old ^ v;
    default: return v;
  }
}

/** The 64-bit read-modify-write at `ea`; the old value goes to words d, d + 1. */
function rmw64(op: number, view: DataView, ea: number, vlo: number, vhi: number, s32: Int32Array, d: number): void {
  const lo = view.getInt32(ea, true);
  const hi = view.getInt32(ea + 4, true);
  let rlo: number, rhi: number;
  switch (op) {
    case 0:
      rlo = (lo + vlo) | 0;
      rhi = (hi + vhi + ((lo >>> 0) + (vlo >>> 0) > 0xffffffff ? 1 : 0)) | 0;
      break;
    case 1:
      rlo = (lo - vlo) | 0;
      rhi = (hi - vhi - ((lo >>> 0) < (vlo >>> 0) ? 1 : 0)) | 0;
      break;
    case 2: rlo = lo & vlo; rhi = hi & vhi; break;
    case 3: rlo = lo | vlo; rhi = hi | vhi; break;
    case 4: rlo = lo ^ vlo; rhi = hi ^ vhi; break;
    default: rlo = vlo; rhi = vhi; break;
  }
  view.setInt32(ea, rlo, true);
  view.setInt32(ea + 4, rhi, true);
  s32[d] = lo;
  s32[d + 1] = hi;
}

/**
 * Runs the `Atomic` instruction at `pc` on `mem` (null when the instance has no memory:
 * only atomic.fence can run then; anything else traps as out of bounds). Returns the pc of
 * the next instruction, or `~pc` of it when a wait asked to pause (see the module comment).
 */
export function atomicOperation(
  mem: MemoryInst | null, code: Int32Array, pc: number, s32: Int32Array, base: number, wait: AtomicWaitHook,
): number {
  const sub = code[pc + 1]!;
  switch (ENTRY_OF[sub]) {
    case 1: { // load: d addr offset
      const bytes = BYTES_OF[sub]!;
      const ea = effectiveAddress(mem, s32[base + code[pc + 3]!]!, code[pc + 4]!, bytes);
      const view = mem!.view;
      const d = base + code[pc + 2]!;
      if (bytes === 8) {
        const lo = view.getInt32(ea, true);
        s32[d + 1] = view.getInt32(ea + 4, true);
        s32[d] = lo;
      } else {
        s32[d] = load32(view, ea, bytes);
        if (WIDE_OF[sub] === 1) s32[d + 1] = 0;
      }
      return pc + 5;
    }
    case 2: { // store: addr value offset
      const bytes = BYTES_OF[sub]!;
      const ea = effectiveAddress(mem, s32[base + code[pc + 2]!]!, code[pc + 4]!, bytes);
      const view = mem!.view;
      const a = base + code[pc + 3]!;
      if (bytes === 8) {
        view.setInt32(ea, s32[a]!, true);
        view.setInt32(ea + 4, s32[a + 1]!, true);
      } else {
        store32(view, ea, bytes, s32[a]!);
      }
      return pc + 5;
    }
    case 3: { // rmw: d addr value offset
      const bytes = BYTES_OF[sub]!;
      const a = base + code[pc + 4]!;
      const ea = effectiveAddress(mem, s32[base + code[pc + 3]!]!, code[pc + 5]!, bytes);
      const view = mem!.view;
      const d = base + code[pc + 2]!;
      if (bytes === 8) {
        rmw64(RMW_OF[sub]!, view, ea, s32[a]!, s32[a + 1]!, s32, d);
      } else {
        const old = load32(view, ea, bytes);
        store32(view, ea, bytes, modify32(RMW_OF[sub]!, old, s32[a]!));
        s32[d] = old;
        if (WIDE_OF[sub] === 1) s32[d + 1] = 0;
      }
      return pc + 6;
    }
    case 4: { // cmpxchg: d addr expected replacement offset
      const bytes = BYTES_OF[sub]!;
      const e = base + code[pc + 4]!;
      const r = base + code[pc + 5]!;
      const ea = effectiveAddress(mem, s32[base + code[pc + 3]!]!, code[pc + 6]!, bytes);
      const view = mem!.view;
      const d = base + code[pc + 2]!;
      if (bytes === 8) {
        const lo = view.getInt32(ea, true);
        const hi = view.getInt32(ea + 4, true);
        if (lo === s32[e] && hi === s32[e + 1]) {
          view.setInt32(ea, s32[r]!, true);
          view.setInt32(ea + 4, s32[r + 1]!, true);
        }
        s32[d] = lo;
        s32[d + 1] = hi;
      } else {
        const old = load32(view, ea, bytes);
        // The expected value wrapped to the access width (the high word of an i64 never counts).
        const expected = bytes === 4 ? s32[e]! : s32[e]! & ((1 << (bytes * 8)) - 1);
        if (old === expected) store32(view, ea, bytes, s32[r]!);
        s32[d] = old;
        if (WIDE_OF[sub] === 1) s32[d + 1] = 0;
      }
      return pc + 7;
    }
    case 5: // wait32: d addr expected timeout offset
    case 6: { // wait64
      const bytes = BYTES_OF[sub]!;
      const e = base + code[pc + 4]!;
      const t = base + code[pc + 5]!;
      const ea = effectiveAddress(mem, s32[base + code[pc + 3]!]!, code[pc + 6]!, bytes);
      if (!isSharedMemory(mem!)) throw new Trap(TrapKind.AtomicWaitNonSharedMemory);
      const view = mem!.view;
      const d = base + code[pc + 2]!;
      const next = pc + 7;
      const equal = view.getInt32(ea, true) === s32[e] && (bytes === 4 || view.getInt32(ea + 4, true) === s32[e + 1]);
      const tlo = s32[t]!;
      const thi = s32[t + 1]!;
      if (!equal) {
        s32[d] = WAIT_NOT_EQUAL;
        return next;
      }
      s32[d] = WAIT_TIMED_OUT;
      if (tlo === 0 && thi === 0) return next;
      const ns = thi < 0 ? Infinity : thi * 4294967296 + (tlo >>> 0);
      return wait.atomicWaitSuspend(ns) ? ~next : next;
    }
    case 7: { // notify: d addr count offset
      effectiveAddress(mem, s32[base + code[pc + 3]!]!, code[pc + 5]!, 4);
      // One agent: no waiter exists, shared memory or not.
      s32[base + code[pc + 2]!] = 0;
      return pc + 6;
    }
    case 8: // fence
      return pc + 2;
    default:
      throw new Error(`internal error: no atomic instruction 0x${sub.toString(16)} at pc ${pc}`);
  }
}
