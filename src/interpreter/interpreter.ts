/**
 * The dispatch loop. Everything an instruction touches is held in local variables so that
 * V8 keeps them in registers: the code array, the value stack views, the frame base, the
 * current instance's memory view. Operands are word offsets from `base` (see opcodes.ts).
 *
 * Every ordinary case ends in `continue`; only the call instructions `break` out of the
 * switch, into the one shared sequence that enters a WebAssembly function.
 *
 * Case labels are numeric literals, with the opcodes.ts name beside each: V8 compiles a
 * switch into a jump table only when every label is a small integer literal; with `Op.X`
 * labels it tests them one by one, which made dispatch several times slower.
 */
import { Trap, TrapKind } from './errors.js';
import type { Execution, Status, TailCallOutcome } from './execution.js';
import type { Instance } from './instance.js';
import { bulkOperation } from './bulk.js';
import * as N from './numeric.js';
import { Narrow, Op } from './opcodes.js';
import { simdOperation } from './simd-dispatch.js';
import { simdCanonicalize } from './simd.js';
import { CANONICALIZE_SIMD } from './compiler.js';
import { atomicOperation } from './atomic-dispatch.js';
import type { MemoryInst } from './store.js';
import { LOOP_HEAT } from '../jit/policy.js';
import { type JitTable, jitTableOf, runTranslated, translatedFunction } from '../jit/tier.js';
import { CLOCK_FUEL, EXIT, NO_ENTRY, OUT_OF_TIME, PAUSE, RETURNED } from '../jit/translate.js';

const EMPTY_VIEW = new DataView(new ArrayBuffer(0));

/** The most fuel one call of runLoop spends before it pauses (2^30: a small integer in V8). */
export const MAX_SLICE_FUEL = 2 ** 30;

export function memoryTrap(): Trap {
  return new Trap(TrapKind.MemoryOutOfBounds);
}

/**
 * The function that call_indirect (or return_call_indirect) of type `typeIndex` reaches
 * through element `i` of table `tableIndex` of `inst`, as a store function id; traps as the
 * specification says when there is none or its type differs.
 */
export function indirectCallee(inst: Instance, typeIndex: number, tableIndex: number, i: number): number {
  const table = inst.tables[tableIndex]!;
  if (i >= table.size) throw new Trap(TrapKind.TableOutOfBounds);
  const fid = table.elements[i]!;
  if (fid === 0) throw new Trap(TrapKind.UninitializedElement); // NULL_REF
  if (inst.store.funcs[fid]!.sig !== inst.sigIds[typeIndex]) throw new Trap(TrapKind.IndirectCallTypeMismatch);
  return fid;
}

/** `Canonicalize kind d` (opcodes.ts): a NaN at word `d` made the canonical NaN of its width or lanes. */
export function canonicalizeNaN(kind: number, s32: Int32Array, f32: Float32Array, f64: Float64Array, d: number): void {
  if (kind === 32) {
    if (f32[d] !== f32[d]) s32[d] = 0x7fc00000;
  } else if (kind === 64) {
    if (f64[d >> 1] !== f64[d >> 1]) {
      s32[d] = 0;
      s32[d + 1] = 0x7ff80000;
    }
  } else {
    simdCanonicalize(kind - CANONICALIZE_SIMD, s32, d);
  }
}

/** `Narrow64 mode d a` (opcodes.ts): the i64 at word `a` checked, or clamped into `d`. */
export function narrow64(mode: number, s32: Int32Array, d: number, a: number): void {
  const high = s32[a + 1]!;
  if (mode === Narrow.Clamp) {
    s32[d] = high !== 0 ? -1 : s32[a]!;
    return;
  }
  if (high !== 0 || mode === Narrow.MemoryAlwaysTraps) {
    throw new Trap(mode === Narrow.TableCheck ? TrapKind.TableOutOfBounds : TrapKind.MemoryOutOfBounds);
  }
}

/**
 * Rejoins between two looks at the clock in runLoop. A chain of returns passes no check point,
 * and each return into a translated caller that had been left to the interpreter re-enters it,
 * loading its locals (a microsecond for 150 i64 locals): 12,000 of them in a row held the event
 * loop for 10-13 ms (2026-12-01). Pausing there changes no count: the run goes on from the same
 * rejoin on resuming.
 */
const REJOINS_PER_CLOCK = 256;

/**
 * Whether the slice's time is up (Execution.sliceDeadline), at a look at the clock; if so, the
 * state where the run stands is saved, for the caller to pause.
 */
function outOfTime(ex: Execution, pc: number, base: number, fsp: number, inst: Instance): boolean {
  if (performance.now() < ex.sliceDeadline) return false;
  ex.pc = pc;
  ex.base = base;
  ex.fsp = fsp;
  ex.inst = inst;
  return true;
}

/**
 * A check point (loop header, function entry) that found the slice's fuel spent: traps when
 * the store's `fuel` is gone too, else pauses (the caller has saved the state), marked as at a
 * check point (Execution.pausedAtCheckPoint: where a deadline seen on resuming ends the run).
 */
function pauseOrRunOut(ex: Execution, fuel: number): 'paused' {
  if (fuel <= 0) throw new Trap(TrapKind.OutOfFuel);
  ex.pausedAtCheckPoint = true;
  return 'paused';
}

/**
 * Runs `ex` until it finishes, pauses (its slice of fuel spent, a host call) or traps.
 * The slice ends when the store's fuel is down to `checkpoint`; it may span several
 * stretches (runStretch).
 */
export function runLoop(ex: Execution): Status {
  const store = ex.store;
  // At least one fuel, so that a slice makes progress; none for a run going on past its deadline
  // to its next check point (Execution.step), which must pause there.
  const slice = ex.sliceFuel === 0 ? 0 : Math.min(MAX_SLICE_FUEL, Math.max(1, ex.sliceFuel));
  const checkpoint = Math.max(0, store.fuel - slice);
  let rejoins = 0;
  if (tierUsableHere(ex)) {
    // A translation under way goes on as each slice starts, wherever the run stands, for half the
    // slice. The slice's pace is not the guest's, then (the driver measures it anew: freshCode);
    // and where new code is made, the run pauses before it may enter it (pausesForNewCode).
    const waited = jitTableOf(ex.inst!.module).advanceWaiting(ex.sliceMs / 2, ex.sliceDeadline);
    if (waited !== 'none') ex.freshCode = true;
    if (waited === 'done') {
      ex.rejoin = true;
      return 'paused';
    }
  }
  for (;;) {
    if (ex.rejoin) {
      // Back into the JavaScript tier where the interpreter stands, if its function is
      // translated (Execution.rejoin): the execution's own function at its start, as a callee
      // is entered at the call instruction; a paused callee's entry; after an instruction
      // translated code left to the interpreter; where it paused for a translation (a step of
      // it, or the new code entered).
      if (++rejoins % REJOINS_PER_CLOCK === 0 && performance.now() >= ex.sliceDeadline) return 'paused';
      ex.rejoin = false;
      const status = startTranslated(ex, checkpoint);
      if (status !== null) return status;
      if (ex.meter.due) return 'paused';
    }
    const status = runStretch(ex, checkpoint);
    if (status !== SWITCH) return status;
    // Much bulk work since the last pause, or an instruction left to finish in pieces: pause,
    // so the driver looks at the clock (pieces.ts).
    if (ex.meter.due) return 'paused';
  }
}

/**
 * The interpreter pauses where it stands (a function's entry or loop header) for the JavaScript
 * tier when translatedFunction answered undefined (a step of the function's translation spent
 * the slice: the run goes on with it on resuming), or when this says so: the function was just
 * translated (`jit.translated` has moved from `translatedBefore`) under a driver that paces by
 * the clock, and the run enters the new code on resuming — V8 runs new code slowly until it has
 * optimised it, so a slice sized for the interpreter's pace would hold the event loop; the new
 * pace is measured on short slices (Execution.freshCode).
 */
function pausesForNewCode(ex: Execution, jit: JitTable, translatedBefore: number): boolean {
  return jit.translated !== translatedBefore && ex.sliceDeadline !== Infinity;
}

/**
 * Whether the run may go into the JavaScript tier where it stands: the store uses the tier, and
 * no UseMemory has chosen a memory for the instruction that follows (that choice lives in the
 * execution, and translated code is not entered between the two: translate.ts).
 */
function tierUsableHere(ex: Execution): boolean {
  return ex.mayUseTier() && ex.memoryIndex === 0;
}

/**
 * Runs the function the execution stands in (at its entry, or at a point where a translated
 * function can be entered) in the JavaScript tier, when the store uses the tier and the
 * function is (or now gets) translated. Returns null for the interpreter to go on from `ex.pc`
 * (nothing translated, or the translated code left the rest to it), or the status when the
 * execution paused.
 */
function startTranslated(ex: Execution, checkpoint: number): Status | null {
  const store = ex.store;
  if (!tierUsableHere(ex)) return null;
  const jit = jitTableOf(ex.inst!.module);
  const translatedBefore = jit.translated;
  const translated = translatedFunction(jit, ex.inst!.module.functionIndexAt(ex.pc), 1, store.jitThreshold, ex.sliceDeadline);
  if (translated === null) {
    // Not here, then at the return into the function's caller (runStretch's Return).
    ex.rejoin = true;
    return null;
  }
  if (translated === undefined || pausesForNewCode(ex, jit, translatedBefore)) {
    // (ex is where the function can be entered: back here on resuming.)
    ex.rejoin = true;
    ex.freshCode = true;
    return 'paused';
  }
  ex.jitLeft = (store.fuel - checkpoint) | 0;
  let answer: number;
  try {
    answer = runTranslated(translated, ex, ex.base, ex.pc, ex.fsp);
  } finally {
    store.fuel = checkpoint + ex.jitLeft;
  }
  if (answer === NO_ENTRY) {
    ex.rejoin = true;
    return null;
  }
  jit.noteRejoined();
  if (answer === EXIT || answer === PAUSE) ex.rejoin = true;
  if (answer === PAUSE) return pauseOrRunOut(ex, store.fuel);
  return answer === OUT_OF_TIME ? 'paused' : null;
}

/**
 * The answers after which runStretch goes on where translated code left it (NO_ENTRY, EXIT,
 * RETURNED), as a mask: one test that every answer passes through, so that V8 has its type
 * feedback from the first answer on (a comparison first reached after V8 had optimised the
 * loop, for RETURNED, threw the optimised code away: "insufficient type feedback").
 */
const GOES_ON = (1 << NO_ENTRY) | (1 << EXIT) | (1 << RETURNED);

/** runStretch's answer when something it holds constant has changed: call it again. */
const SWITCH = 'switch';

/**
 * Why the dispatch loop left its switch for the entering code at its end: a call (the callee's
 * frame is set up there), a loop header, or a return into a function that translated code had
 * left (Execution.rejoin).
 */
const ENTER_CALL = 0;
const ENTER_LOOP = 1;
const ENTER_AFTER_EXIT = 2;

/**
 * The dispatch loop proper, for one stretch of execution in which its context does not
 * change: the instance (code, function table, memory), the value stack and frame arrays, the
 * memory's view and size. Whatever changes one of them — a call or return across instances,
 * a stack or frame array that must grow, memory.grow — saves the state in `ex` and returns
 * SWITCH, and runLoop calls again. Held constant, they cost V8 no checks per instruction
 * (as loop variables, each dispatch re-checked the code array's type), and leave registers
 * for the four values that do change: pc, base, fsp and the fuel.
 */
function runStretch(ex: Execution, checkpoint: number): Status | typeof SWITCH {
  const store = ex.store;
  const s32 = ex.s32;
  const f32 = ex.f32;
  const f64 = ex.f64;
  const frames = ex.frames;
  // `| 0` tells V8 these are 32-bit integers from the start, so their loop variables are too.
  let fsp = ex.fsp | 0;
  let pc = ex.pc | 0;
  let base = ex.base | 0;
  const inst: Instance = ex.inst!;
  const instId = inst.id;
  const code = inst.code;
  const { info, constants } = inst.module.functions;
  const mem: MemoryInst | null = ex.memoryIndex === 0 ? inst.memory : inst.memories[ex.memoryIndex]!;
  const view = mem !== null ? mem.view : EMPTY_VIEW;
  const memLen = mem !== null ? mem.size : 0;
  // Fuel is counted as `left`, what this slice may still spend, rather than as the store's
  // total: a slice is at most MAX_SLICE_FUEL, so `left` stays a small integer, which V8 keeps
  // unboxed. A double total, in some of V8's compilations of this loop, was boxed into a new
  // heap number on every branch (a garbage collection every few ms, 35% slower).
  // The store's fuel is `checkpoint + left` throughout; `left <= 0` is the pause check.
  // (Fuel is a whole number; a fraction, which only the engine API could give, is dropped.)
  let left = (store.fuel - checkpoint) | 0;

  // Parameters of the function being entered (set by the call instructions).
  let callIndex = 0;
  let callBase = 0;
  let returnPc = 0;
  // The JavaScript tier (src/jit), when the store uses it: a loop header sets `entering` and
  // callIndex to its function and leaves the switch, as a call does, to enter translated code;
  // so does a return into a function the tier had left (Execution.rejoin).
  // A watched execution (a profile, a monitor: src/inspect) stays here; a profiled one tells
  // its profiler of every change of function.
  const prof = ex.profiler;
  const jit = ex.mayUseTier() ? jitTableOf(inst.module) : null;
  let entering = ENTER_CALL;
  let clockAt = left - CLOCK_FUEL;

  try {
    for (;;) {
      switch (code[pc]) {
        // ---- control ------------------------------------------------------------------
        case 0x00: /* Unreachable */
          throw new Trap(TrapKind.Unreachable);
        // A branch that lands on a loop header does the header's check itself, and skips
        // the header when the check would let it pass (fuel left in the slice): one
        // dispatch fewer per loop iteration. The same test appears in the fused branches.
        case 0x01: /* Jump */
          left -= code[pc + 2]!;
          pc = code[pc + 1]!;
          if (code[pc] === 0x09 && left > 0) pc += 2;
          continue;
        case 0x02: /* BranchIfNonZero */
          left -= code[pc + 3]!;
          if (s32[base + code[pc + 1]!] !== 0) {
            pc = code[pc + 2]!;
            if (code[pc] === 0x09 && left > 0) pc += 2;
          } else pc += 4;
          continue;
        case 0x03: /* BranchIfZero */
          left -= code[pc + 3]!;
          if (s32[base + code[pc + 1]!] === 0) {
            pc = code[pc + 2]!;
            if (code[pc] === 0x09 && left > 0) pc += 2;
          } else pc += 4;
          continue;
        case 0x04: /* BranchTable */ {
          left -= code[pc + 2]!;
          const i = s32[base + code[pc + 1]!]! >>> 0;
          const n = code[pc + 3]!;
          pc = code[pc + 4 + (i < n ? i : n)]!;
          continue;
        }
        case 0x05: /* Copy */ {
          const d = base + code[pc + 1]!;
          const a = base + code[pc + 2]!;
          s32[d] = s32[a]!;
          s32[d + 1] = s32[a + 1]!;
          pc += 3;
          continue;
        }
        case 0x06: /* Const32 */
          s32[base + code[pc + 1]!] = code[pc + 2]!;
          pc += 3;
          continue;
        case 0x07: /* Const64 */ {
          const d = base + code[pc + 1]!;
          s32[d] = code[pc + 2]!;
          s32[d + 1] = code[pc + 3]!;
          pc += 4;
          continue;
        }
        case 0x08: /* Fuel */
          left -= code[pc + 1]!;
          pc += 2;
          continue;
        case 0x09: /* Loop */
          if (left <= 0) {
            ex.pc = pc;
            ex.base = base;
            ex.fsp = fsp;
            ex.inst = inst;
            return pauseOrRunOut(ex, checkpoint + left);
          }
          if (jit !== null || left < clockAt) {
            callIndex = code[pc + 1]!;
            entering = ENTER_LOOP;
            break;
          }
          pc += 2;
          continue;
        case 0x0a: /* Call */
          callIndex = code[pc + 1]!;
          callBase = base + code[pc + 2]!;
          left -= code[pc + 3]!;
          returnPc = pc + 4;
          break;
        case 0x0c: /* CallImport */
        case 0x0b: /* CallIndirect */ {
          let fid: number;
          if (code[pc] === Op.CallImport) {
            fid = inst.funcIds[code[pc + 1]!]!;
            callBase = base + code[pc + 2]!;
            left -= code[pc + 3]!;
            returnPc = pc + 4;
          } else {
            left -= code[pc + 5]!;
            fid = indirectCallee(inst, code[pc + 1]!, code[pc + 2]!, s32[base + code[pc + 4]!]! >>> 0);
            callBase = base + code[pc + 3]!;
            returnPc = pc + 6;
          }
          const callee = store.funcs[fid]!;
          if (callee.instance === null) {
            // Host functions run outside the loop; pause so the driver sees the clock.
            store.fuel = checkpoint + left;
            ex.pc = returnPc;
            ex.base = base;
            ex.fsp = fsp;
            ex.inst = inst;
            let finished: boolean;
            try {
              finished = ex.callHost(callee, callBase);
            } finally {
              // The host may have re-entered the store or changed its fuel.
              left = store.fuel - checkpoint;
            }
            return finished ? 'paused' : 'pending';
          }
          callIndex = callee.index;
          if (callee.instance !== inst) {
            ex.enterFunction(callee.instance, callIndex, callBase, returnPc, base, fsp);
            if (prof !== null) prof.enter(ex.fsp / 3, callee.instance, ex.pc, checkpoint + left);
            return (left -= 1) > 0 ? SWITCH : pauseOrRunOut(ex, checkpoint + left);
          }
          break;
        }
        case 0x0d: /* Return */ {
          left -= code[pc + 3]!;
          const src = base + code[pc + 1]!;
          const end = base + code[pc + 2]!;
          for (let d = base, s = src; d < end; d++, s++) s32[d] = s32[s]!;
          fsp -= 3;
          pc = frames[fsp]!;
          base = frames[fsp + 1]!;
          if (prof !== null) prof.leaveTo(fsp / 3, checkpoint + left);
          if (pc < 0) {
            ex.fsp = fsp;
            return 'done';
          }
          const id = frames[fsp + 2]!;
          if (id !== instId) {
            ex.pc = pc;
            ex.base = base;
            ex.fsp = fsp;
            ex.inst = store.instances[id]!;
            return SWITCH;
          }
          // A chain of returns passes no check point, so it looks at the clock too, every
          // CLOCK_FUEL: 12,000 returns in dispatch code V8 had just deoptimised took 7-15 ms
          // (2026-12-01). Only the time: fuel is checked where wasmtime checks it, and the run
          // goes on from here on resuming (through the tier, if the callee left it a rejoin).
          if (left < clockAt) {
            clockAt = left - CLOCK_FUEL;
            if (outOfTime(ex, pc, base, fsp, inst)) return 'paused';
          }
          if (ex.rejoin) {
            // The callee left its return to the interpreter, or was left the call: the caller
            // goes on in the tier from here if it is translated (Execution.rejoin).
            ex.rejoin = false;
            if (jit !== null) {
              callIndex = inst.module.functionIndexAt(pc);
              entering = ENTER_AFTER_EXIT;
              break;
            }
          }
          continue;
        }
        case 0x0e: /* Select */ {
          // Each operand addressed as it is written (no address computed from the condition),
          // so that the JavaScript tier can keep these words in variables (src/jit/translate.ts).
          const d = base + code[pc + 1]!;
          if (s32[base + code[pc + 2]!] !== 0) {
            s32[d] = s32[base + code[pc + 3]!]!;
            s32[d + 1] = s32[base + code[pc + 3]! + 1]!;
          } else {
            s32[d] = s32[base + code[pc + 4]!]!;
            s32[d + 1] = s32[base + code[pc + 4]! + 1]!;
          }
          pc += 5;
          continue;
        }
        case 0x0f: /* GlobalGet */ {
          const d = base + code[pc + 1]!;
          const g = inst.globals[code[pc + 2]!]!;
          s32[d] = g.lo;
          s32[d + 1] = g.hi;
          pc += 3;
          continue;
        }
        case 0x10: /* GlobalSet */ {
          const g = inst.globals[code[pc + 1]!]!;
          const a = base + code[pc + 2]!;
          g.lo = s32[a]!;
          g.hi = s32[a + 1]!;
          pc += 3;
          continue;
        }
        case 0x11: /* MemorySize */
          s32[base + code[pc + 1]!] = memLen / 65536;
          pc += 2;
          continue;
        case 0x12: /* MemoryGrow */ {
          s32[base + code[pc + 1]!] = mem!.grow(s32[base + code[pc + 2]!]! >>> 0, ex.meter);
          ex.pc = pc + 3;
          ex.base = base;
          ex.fsp = fsp;
          ex.inst = inst;
          return SWITCH; // for the new view and size
        }
        case 0x13: /* RefNull */
          s32[base + code[pc + 1]!] = 0; // NULL_REF
          pc += 2;
          continue;
        case 0x14: /* RefIsNull */
          s32[base + code[pc + 1]!] = s32[base + code[pc + 2]!] === 0 ? 1 : 0; // NULL_REF
          pc += 3;
          continue;
        case 0x15: /* RefFunc */
          s32[base + code[pc + 1]!] = inst.funcIds[code[pc + 2]!]!;
          pc += 3;
          continue;
        case 0x23: /* TailCall */ {
          left -= code[pc + 6]!;
          ex.pc = pc;
          ex.base = base;
          ex.fsp = fsp;
          ex.inst = inst;
          store.fuel = checkpoint + left;
          let outcome: TailCallOutcome;
          try {
            outcome = ex.tailCall(code, pc);
          } finally {
            left = store.fuel - checkpoint;
          }
          if (outcome === 'entered') {
            if (prof !== null) prof.enter(ex.fsp / 3, ex.inst!, ex.pc, checkpoint + left);
            return (left -= 1) > 0 ? SWITCH : pauseOrRunOut(ex, checkpoint + left);
          }
          return outcome === 'host-done' ? 'paused' : 'pending';
        }
        case 0x22: /* Simd */
          pc = simdOperation(inst, mem, code, pc, s32, f32, f64, base);
          continue;
        case 0x26: /* Throw */
        case 0x27: /* ThrowRef */
          left -= code[pc + 3]!;
          ex.base = base;
          ex.fsp = fsp;
          ex.inst = inst;
          ex.throwFrom(code, pc);
          if (prof !== null) prof.leaveTo(ex.fsp / 3, checkpoint + left);
          return left > 0 ? SWITCH : pauseOrRunOut(ex, checkpoint + left);
        case 0x3f: /* Atomic */ {
          const next = atomicOperation(mem, code, pc, s32, base, ex);
          if (next >= 0) {
            pc = next;
            continue;
          }
          // A wait that must let its timeout pass: the execution is pending until it has.
          ex.pc = ~next;
          ex.base = base;
          ex.fsp = fsp;
          ex.inst = inst;
          return 'pending';
        }
        case 0x41: /* Probe */ {
          // A module compiled with probes (CompileOptions.probes): the monitor sees the
          // instruction before it runs, and may hold the execution here (a debugger's pause).
          const hold = ex.monitor === null ? null : ex.monitor.probe(code[pc + 1]!, ex, base, fsp);
          if (hold !== null) {
            ex.pc = pc;
            ex.base = base;
            ex.fsp = fsp;
            ex.inst = inst;
            ex.pending = hold;
            return 'pending';
          }
          pc += 2;
          continue;
        }
        case 0x40: /* Canonicalize */
          canonicalizeNaN(code[pc + 1]!, s32, f32, f64, base + code[pc + 2]!);
          pc += 3;
          continue;
        case 0x25: /* Narrow64 */
          narrow64(code[pc + 1]!, s32, base + code[pc + 2]!, base + code[pc + 3]!);
          pc += 4;
          continue;
        case 0x24: /* UseMemory */
          ex.memoryIndex = code[pc + 1]!;
          ex.pc = pc + 2;
          ex.base = base;
          ex.fsp = fsp;
          ex.inst = inst;
          return SWITCH;
        case 0x16: /* TableGet */
        case 0x17: /* TableSet */
        case 0x18: /* TableSize */
        case 0x19: /* TableGrow */
        case 0x1a: /* TableFill */
        case 0x1b: /* TableCopy */
        case 0x1c: /* TableInit */
        case 0x1d: /* ElemDrop */
        case 0x1e: /* MemoryInit */
        case 0x1f: /* DataDrop */
        case 0x20: /* MemoryCopy */
        case 0x21: /* MemoryFill */
          pc = bulkOperation(ex.meter, inst, code, pc, s32, base);
          if (ex.meter.due) {
            ex.pc = pc;
            ex.base = base;
            ex.fsp = fsp;
            ex.inst = inst;
            return SWITCH;
          }
          continue;

        // ---- memory -------------------------------------------------------------------
        case 0x28: // i32.load
        case 0x2a: { // f32.load
          const ea = ((s32[base + code[pc + 2]!]! + code[pc + 4]!) >>> 0) + (code[pc + 3]! >>> 0);
          if (ea + 4 > memLen) throw memoryTrap();
          s32[base + code[pc + 1]!] = view.getInt32(ea, true);
          pc += 5;
          continue;
        }
        case 0x29: { // i64.load
          const ea = ((s32[base + code[pc + 2]!]! + code[pc + 4]!) >>> 0) + (code[pc + 3]! >>> 0);
          if (ea + 8 > memLen) throw memoryTrap();
          const d = base + code[pc + 1]!;
          s32[d] = view.getInt32(ea, true);
          s32[d + 1] = view.getInt32(ea + 4, true);
          pc += 5;
          continue;
        }
        // An f64 moves as one double, not as two words: the f64 view read right after two
        // 32-bit writes to the same slot waited on the processor's store forwarding, which
        // made an f64 matrix product three times slower in the tier. A double read and
        // written without arithmetic keeps every bit, a NaN's payload too (an f32 would not:
        // widening a signalling NaN quiets it, so f32 moves stay 32-bit words).
        case 0x2b: { // f64.load
          const ea = ((s32[base + code[pc + 2]!]! + code[pc + 4]!) >>> 0) + (code[pc + 3]! >>> 0);
          if (ea + 8 > memLen) throw memoryTrap();
          f64[(base + code[pc + 1]!) >> 1] = view.getFloat64(ea, true);
          pc += 5;
          continue;
        }
        case 0x2c: { // i32.load8_s
          const ea = ((s32[base + code[pc + 2]!]! + code[pc + 4]!) >>> 0) + (code[pc + 3]! >>> 0);
          if (ea + 1 > memLen) throw memoryTrap();
          s32[base + code[pc + 1]!] = view.getInt8(ea);
          pc += 5;
          continue;
        }
        case 0x2d: { // i32.load8_u
          const ea = ((s32[base + code[pc + 2]!]! + code[pc + 4]!) >>> 0) + (code[pc + 3]! >>> 0);
          if (ea + 1 > memLen) throw memoryTrap();
          s32[base + code[pc + 1]!] = view.getUint8(ea);
          pc += 5;
          continue;
        }
        case 0x2e: { // i32.load16_s
          const ea = ((s32[base + code[pc + 2]!]! + code[pc + 4]!) >>> 0) + (code[pc + 3]! >>> 0);
          if (ea + 2 > memLen) throw memoryTrap();
          s32[base + code[pc + 1]!] = view.getInt16(ea, true);
          pc += 5;
          continue;
        }
        case 0x2f: { // i32.load16_u
          const ea = ((s32[base + code[pc + 2]!]! + code[pc + 4]!) >>> 0) + (code[pc + 3]! >>> 0);
          if (ea + 2 > memLen) throw memoryTrap();
          s32[base + code[pc + 1]!] = view.getUint16(ea, true);
          pc += 5;
          continue;
        }
        case 0x30: // i64.load8_s
        case 0x31: // i64.load8_u
        case 0x32: // i64.load16_s
        case 0x33: // i64.load16_u
        case 0x34: // i64.load32_s
        case 0x35: { // i64.load32_u
          const op = code[pc]!;
          const ea = ((s32[base + code[pc + 2]!]! + code[pc + 4]!) >>> 0) + (code[pc + 3]! >>> 0);
          const size = op < 0x32 ? 1 : op < 0x34 ? 2 : 4;
          if (ea + size > memLen) throw memoryTrap();
          let lo: number;
          switch (op) {
            case 0x30: lo = view.getInt8(ea); break;
            case 0x31: lo = view.getUint8(ea); break;
            case 0x32: lo = view.getInt16(ea, true); break;
            case 0x33: lo = view.getUint16(ea, true); break;
            default: lo = view.getInt32(ea, true);
          }
          const d = base + code[pc + 1]!;
          s32[d] = lo;
          s32[d + 1] = (op & 1) === 1 ? 0 : lo >> 31; // odd opcodes are the unsigned loads
          pc += 5;
          continue;
        }
        case 0x36: // i32.store
        case 0x38: // f32.store
        case 0x3e: { // i64.store32
          const ea = ((s32[base + code[pc + 1]!]! + code[pc + 4]!) >>> 0) + (code[pc + 3]! >>> 0);
          if (ea + 4 > memLen) throw memoryTrap();
          view.setInt32(ea, s32[base + code[pc + 2]!]!, true);
          pc += 5;
          continue;
        }
        case 0x37: { // i64.store
          const ea = ((s32[base + code[pc + 1]!]! + code[pc + 4]!) >>> 0) + (code[pc + 3]! >>> 0);
          if (ea + 8 > memLen) throw memoryTrap();
          const a = base + code[pc + 2]!;
          view.setInt32(ea, s32[a]!, true);
          view.setInt32(ea + 4, s32[a + 1]!, true);
          pc += 5;
          continue;
        }
        case 0x39: { // f64.store (as one double: f64.load says why)
          const ea = ((s32[base + code[pc + 1]!]! + code[pc + 4]!) >>> 0) + (code[pc + 3]! >>> 0);
          if (ea + 8 > memLen) throw memoryTrap();
          view.setFloat64(ea, f64[(base + code[pc + 2]!) >> 1]!, true);
          pc += 5;
          continue;
        }
        case 0x3a: // i32.store8
        case 0x3c: { // i64.store8
          const ea = ((s32[base + code[pc + 1]!]! + code[pc + 4]!) >>> 0) + (code[pc + 3]! >>> 0);
          if (ea + 1 > memLen) throw memoryTrap();
          view.setInt8(ea, s32[base + code[pc + 2]!]!);
          pc += 5;
          continue;
        }
        case 0x3b: // i32.store16
        case 0x3d: { // i64.store16
          const ea = ((s32[base + code[pc + 1]!]! + code[pc + 4]!) >>> 0) + (code[pc + 3]! >>> 0);
          if (ea + 2 > memLen) throw memoryTrap();
          view.setInt16(ea, s32[base + code[pc + 2]!]!, true);
          pc += 5;
          continue;
        }

        // ---- i32 ----------------------------------------------------------------------
        case 0x45:
          s32[base + code[pc + 1]!] = s32[base + code[pc + 2]!] === 0 ? 1 : 0;
          pc += 3;
          continue;
        case 0x46:
          s32[base + code[pc + 1]!] = s32[base + code[pc + 2]!] === s32[base + code[pc + 3]!] ? 1 : 0;
          pc += 4;
          continue;
        case 0x47:
          s32[base + code[pc + 1]!] = s32[base + code[pc + 2]!] !== s32[base + code[pc + 3]!] ? 1 : 0;
          pc += 4;
          continue;
        case 0x48:
          s32[base + code[pc + 1]!] = s32[base + code[pc + 2]!]! < s32[base + code[pc + 3]!]! ? 1 : 0;
          pc += 4;
          continue;
        case 0x49:
          s32[base + code[pc + 1]!] = (s32[base + code[pc + 2]!]! >>> 0) < (s32[base + code[pc + 3]!]! >>> 0) ? 1 : 0;
          pc += 4;
          continue;
        case 0x4a:
          s32[base + code[pc + 1]!] = s32[base + code[pc + 2]!]! > s32[base + code[pc + 3]!]! ? 1 : 0;
          pc += 4;
          continue;
        case 0x4b:
          s32[base + code[pc + 1]!] = (s32[base + code[pc + 2]!]! >>> 0) > (s32[base + code[pc + 3]!]! >>> 0) ? 1 : 0;
          pc += 4;
          continue;
        case 0x4c:
          s32[base + code[pc + 1]!] = s32[base + code[pc + 2]!]! <= s32[base + code[pc + 3]!]! ? 1 : 0;
          pc += 4;
          continue;
        case 0x4d:
          s32[base + code[pc + 1]!] = (s32[base + code[pc + 2]!]! >>> 0) <= (s32[base + code[pc + 3]!]! >>> 0) ? 1 : 0;
          pc += 4;
          continue;
        case 0x4e:
          s32[base + code[pc + 1]!] = s32[base + code[pc + 2]!]! >= s32[base + code[pc + 3]!]! ? 1 : 0;
          pc += 4;
          continue;
        case 0x4f:
          s32[base + code[pc + 1]!] = (s32[base + code[pc + 2]!]! >>> 0) >= (s32[base + code[pc + 3]!]! >>> 0) ? 1 : 0;
          pc += 4;
          continue;

        // ---- i64 comparisons ----------------------------------------------------------
        case 0x50: {
          const a = base + code[pc + 2]!;
          s32[base + code[pc + 1]!] = (s32[a]! | s32[a + 1]!) === 0 ? 1 : 0;
          pc += 3;
          continue;
        }
        case 0x51:
        case 0x52: {
          const a = base + code[pc + 2]!;
          const b = base + code[pc + 3]!;
          const eq = s32[a] === s32[b] && s32[a + 1] === s32[b + 1];
          s32[base + code[pc + 1]!] = eq === (code[pc] === 0x51) ? 1 : 0;
          pc += 4;
          continue;
        }
        case 0x53: case 0x54: case 0x55: case 0x56: case 0x57: case 0x58: case 0x59: case 0x5a: {
          const op = code[pc]!;
          const a = base + code[pc + 2]!;
          const b = base + code[pc + 3]!;
          const ahi = s32[a + 1]!;
          const bhi = s32[b + 1]!;
          // Compare high halves (signed or unsigned), then low halves unsigned: -1, 0 or 1.
          let c: number;
          if (ahi !== bhi) {
            const signed = (op & 1) === 1; // 0x53 lt_s, 0x55 gt_s, 0x57 le_s, 0x59 ge_s
            c = signed ? (ahi < bhi ? -1 : 1) : ((ahi >>> 0) < (bhi >>> 0) ? -1 : 1);
          } else {
            const alo = s32[a]! >>> 0;
            const blo = s32[b]! >>> 0;
            c = alo < blo ? -1 : alo > blo ? 1 : 0;
          }
          let r: boolean;
          if (op <= 0x54) r = c < 0;
          else if (op <= 0x56) r = c > 0;
          else if (op <= 0x58) r = c <= 0;
          else r = c >= 0;
          s32[base + code[pc + 1]!] = r ? 1 : 0;
          pc += 4;
          continue;
        }

        // ---- float comparisons --------------------------------------------------------
        case 0x5b:
          s32[base + code[pc + 1]!] = f32[base + code[pc + 2]!] === f32[base + code[pc + 3]!] ? 1 : 0;
          pc += 4;
          continue;
        case 0x5c:
          s32[base + code[pc + 1]!] = f32[base + code[pc + 2]!] !== f32[base + code[pc + 3]!] ? 1 : 0;
          pc += 4;
          continue;
        case 0x5d:
          s32[base + code[pc + 1]!] = f32[base + code[pc + 2]!]! < f32[base + code[pc + 3]!]! ? 1 : 0;
          pc += 4;
          continue;
        case 0x5e:
          s32[base + code[pc + 1]!] = f32[base + code[pc + 2]!]! > f32[base + code[pc + 3]!]! ? 1 : 0;
          pc += 4;
          continue;
        case 0x5f:
          s32[base + code[pc + 1]!] = f32[base + code[pc + 2]!]! <= f32[base + code[pc + 3]!]! ? 1 : 0;
          pc += 4;
          continue;
        case 0x60:
          s32[base + code[pc + 1]!] = f32[base + code[pc + 2]!]! >= f32[base + code[pc + 3]!]! ? 1 : 0;
          pc += 4;
          continue;
        case 0x61:
          s32[base + code[pc + 1]!] = f64[(base + code[pc + 2]!) >> 1] === f64[(base + code[pc + 3]!) >> 1] ? 1 : 0;
          pc += 4;
          continue;
        case 0x62:
          s32[base + code[pc + 1]!] = f64[(base + code[pc + 2]!) >> 1] !== f64[(base + code[pc + 3]!) >> 1] ? 1 : 0;
          pc += 4;
          continue;
        case 0x63:
          s32[base + code[pc + 1]!] = f64[(base + code[pc + 2]!) >> 1]! < f64[(base + code[pc + 3]!) >> 1]! ? 1 : 0;
          pc += 4;
          continue;
        case 0x64:
          s32[base + code[pc + 1]!] = f64[(base + code[pc + 2]!) >> 1]! > f64[(base + code[pc + 3]!) >> 1]! ? 1 : 0;
          pc += 4;
          continue;
        case 0x65:
          s32[base + code[pc + 1]!] = f64[(base + code[pc + 2]!) >> 1]! <= f64[(base + code[pc + 3]!) >> 1]! ? 1 : 0;
          pc += 4;
          continue;
        case 0x66:
          s32[base + code[pc + 1]!] = f64[(base + code[pc + 2]!) >> 1]! >= f64[(base + code[pc + 3]!) >> 1]! ? 1 : 0;
          pc += 4;
          continue;

        // ---- i32 arithmetic -----------------------------------------------------------
        case 0x67:
          s32[base + code[pc + 1]!] = Math.clz32(s32[base + code[pc + 2]!]!);
          pc += 3;
          continue;
        case 0x68:
          s32[base + code[pc + 1]!] = N.ctz32(s32[base + code[pc + 2]!]!);
          pc += 3;
          continue;
        case 0x69:
          s32[base + code[pc + 1]!] = N.popcnt32(s32[base + code[pc + 2]!]!);
          pc += 3;
          continue;
        case 0x6a:
          s32[base + code[pc + 1]!] = (s32[base + code[pc + 2]!]! + s32[base + code[pc + 3]!]!) | 0;
          pc += 4;
          continue;
        case 0x6b:
          s32[base + code[pc + 1]!] = (s32[base + code[pc + 2]!]! - s32[base + code[pc + 3]!]!) | 0;
          pc += 4;
          continue;
        case 0x6c:
          s32[base + code[pc + 1]!] = Math.imul(s32[base + code[pc + 2]!]!, s32[base + code[pc + 3]!]!);
          pc += 4;
          continue;
        case 0x6d: { // div_s
          const a = s32[base + code[pc + 2]!]!;
          const b = s32[base + code[pc + 3]!]!;
          if (b === 0) throw new Trap(TrapKind.IntegerDivideByZero);
          if (a === -0x80000000 && b === -1) throw new Trap(TrapKind.IntegerOverflow);
          s32[base + code[pc + 1]!] = (a / b) | 0;
          pc += 4;
          continue;
        }
        case 0x6e: { // div_u
          const b = s32[base + code[pc + 3]!]! >>> 0;
          if (b === 0) throw new Trap(TrapKind.IntegerDivideByZero);
          s32[base + code[pc + 1]!] = ((s32[base + code[pc + 2]!]! >>> 0) / b) | 0;
          pc += 4;
          continue;
        }
        case 0x6f: { // rem_s
          const b = s32[base + code[pc + 3]!]!;
          if (b === 0) throw new Trap(TrapKind.IntegerDivideByZero);
          s32[base + code[pc + 1]!] = (s32[base + code[pc + 2]!]! % b) | 0;
          pc += 4;
          continue;
        }
        case 0x70: { // rem_u
          const b = s32[base + code[pc + 3]!]! >>> 0;
          if (b === 0) throw new Trap(TrapKind.IntegerDivideByZero);
          s32[base + code[pc + 1]!] = ((s32[base + code[pc + 2]!]! >>> 0) % b) | 0;
          pc += 4;
          continue;
        }
        case 0x71:
          s32[base + code[pc + 1]!] = s32[base + code[pc + 2]!]! & s32[base + code[pc + 3]!]!;
          pc += 4;
          continue;
        case 0x72:
          s32[base + code[pc + 1]!] = s32[base + code[pc + 2]!]! | s32[base + code[pc + 3]!]!;
          pc += 4;
          continue;
        case 0x73:
          s32[base + code[pc + 1]!] = s32[base + code[pc + 2]!]! ^ s32[base + code[pc + 3]!]!;
          pc += 4;
          continue;
        case 0x74:
          s32[base + code[pc + 1]!] = s32[base + code[pc + 2]!]! << s32[base + code[pc + 3]!]!;
          pc += 4;
          continue;
        case 0x75:
          s32[base + code[pc + 1]!] = s32[base + code[pc + 2]!]! >> s32[base + code[pc + 3]!]!;
          pc += 4;
          continue;
        case 0x76:
          s32[base + code[pc + 1]!] = s32[base + code[pc + 2]!]! >>> s32[base + code[pc + 3]!]!;
          pc += 4;
          continue;
        case 0x77: { // rotl
          const a = s32[base + code[pc + 2]!]!;
          const b = s32[base + code[pc + 3]!]!;
          s32[base + code[pc + 1]!] = (a << b) | (a >>> (32 - b));
          pc += 4;
          continue;
        }
        case 0x78: { // rotr
          const a = s32[base + code[pc + 2]!]!;
          const b = s32[base + code[pc + 3]!]!;
          s32[base + code[pc + 1]!] = (a >>> b) | (a << (32 - b));
          pc += 4;
          continue;
        }

        // ---- i64 arithmetic -----------------------------------------------------------
        case 0x79: N.i64Clz(s32, base + code[pc + 1]!, base + code[pc + 2]!); pc += 3; continue;
        case 0x7a: N.i64Ctz(s32, base + code[pc + 1]!, base + code[pc + 2]!); pc += 3; continue;
        case 0x7b: N.i64Popcnt(s32, base + code[pc + 1]!, base + code[pc + 2]!); pc += 3; continue;
        case 0x7c: { // add
          const a = base + code[pc + 2]!;
          const b = base + code[pc + 3]!;
          const alo = s32[a]!;
          const lo = (alo + s32[b]!) | 0;
          const carry = (lo >>> 0) < (alo >>> 0) ? 1 : 0;
          const d = base + code[pc + 1]!;
          s32[d + 1] = (s32[a + 1]! + s32[b + 1]! + carry) | 0;
          s32[d] = lo;
          pc += 4;
          continue;
        }
        case 0x7d: { // sub
          const a = base + code[pc + 2]!;
          const b = base + code[pc + 3]!;
          const alo = s32[a]!;
          const blo = s32[b]!;
          const borrow = (alo >>> 0) < (blo >>> 0) ? 1 : 0;
          const d = base + code[pc + 1]!;
          s32[d + 1] = (s32[a + 1]! - s32[b + 1]! - borrow) | 0;
          s32[d] = (alo - blo) | 0;
          pc += 4;
          continue;
        }
        case 0x7e: N.i64Mul(s32, base + code[pc + 1]!, base + code[pc + 2]!, base + code[pc + 3]!); pc += 4; continue;
        case 0x7f: N.i64DivS(s32, base + code[pc + 1]!, base + code[pc + 2]!, base + code[pc + 3]!); pc += 4; continue;
        case 0x80: N.i64DivU(s32, base + code[pc + 1]!, base + code[pc + 2]!, base + code[pc + 3]!); pc += 4; continue;
        case 0x81: N.i64RemS(s32, base + code[pc + 1]!, base + code[pc + 2]!, base + code[pc + 3]!); pc += 4; continue;
        case 0x82: N.i64RemU(s32, base + code[pc + 1]!, base + code[pc + 2]!, base + code[pc + 3]!); pc += 4; continue;
        case 0x83: {
          const d = base + code[pc + 1]!;
          const a = base + code[pc + 2]!;
          const b = base + code[pc + 3]!;
          s32[d] = s32[a]! & s32[b]!;
          s32[d + 1] = s32[a + 1]! & s32[b + 1]!;
          pc += 4;
          continue;
        }
        case 0x84: {
          const d = base + code[pc + 1]!;
          const a = base + code[pc + 2]!;
          const b = base + code[pc + 3]!;
          s32[d] = s32[a]! | s32[b]!;
          s32[d + 1] = s32[a + 1]! | s32[b + 1]!;
          pc += 4;
          continue;
        }
        case 0x85: {
          const d = base + code[pc + 1]!;
          const a = base + code[pc + 2]!;
          const b = base + code[pc + 3]!;
          s32[d] = s32[a]! ^ s32[b]!;
          s32[d + 1] = s32[a + 1]! ^ s32[b + 1]!;
          pc += 4;
          continue;
        }
        case 0x86: N.i64Shl(s32, base + code[pc + 1]!, base + code[pc + 2]!, base + code[pc + 3]!); pc += 4; continue;
        case 0x87: N.i64ShrS(s32, base + code[pc + 1]!, base + code[pc + 2]!, base + code[pc + 3]!); pc += 4; continue;
        case 0x88: N.i64ShrU(s32, base + code[pc + 1]!, base + code[pc + 2]!, base + code[pc + 3]!); pc += 4; continue;
        case 0x89: N.i64Rotl(s32, base + code[pc + 1]!, base + code[pc + 2]!, base + code[pc + 3]!); pc += 4; continue;
        case 0x8a: N.i64Rotr(s32, base + code[pc + 1]!, base + code[pc + 2]!, base + code[pc + 3]!); pc += 4; continue;

        // ---- f32 arithmetic --------------------------------------------------------------
        // abs, neg and copysign work on the bits (they keep NaN payloads, signalling or not).
        // Everything that can produce a NaN stores its JS result only when that is not a NaN;
        // a NaN result is computed from the operands' bits (numeric.ts, docs/determinism.md).
        // `r <= Infinity` is false only for a NaN (unordered): V8 compiles it to one compare
        // and one branch, where `r === r` takes two.
        case 0x8b:
          s32[base + code[pc + 1]!] = s32[base + code[pc + 2]!]! & 0x7fffffff;
          pc += 3;
          continue;
        case 0x8c:
          s32[base + code[pc + 1]!] = s32[base + code[pc + 2]!]! ^ -0x80000000;
          pc += 3;
          continue;
        case 0x8d: { // f32.ceil
          const x = f32[base + code[pc + 2]!]!;
          const r = Math.ceil(x);
          if (r <= Infinity) f32[base + code[pc + 1]!] = r;
          else N.f32NaN1(s32, base + code[pc + 1]!, base + code[pc + 2]!);
          pc += 3;
          continue;
        }
        case 0x8e: { // f32.floor
          const x = f32[base + code[pc + 2]!]!;
          const r = Math.floor(x);
          if (r <= Infinity) f32[base + code[pc + 1]!] = r;
          else N.f32NaN1(s32, base + code[pc + 1]!, base + code[pc + 2]!);
          pc += 3;
          continue;
        }
        case 0x8f: { // f32.trunc
          const x = f32[base + code[pc + 2]!]!;
          const r = Math.trunc(x);
          if (r <= Infinity) f32[base + code[pc + 1]!] = r;
          else N.f32NaN1(s32, base + code[pc + 1]!, base + code[pc + 2]!);
          pc += 3;
          continue;
        }
        case 0x90: { // f32.nearest
          const x = f32[base + code[pc + 2]!]!;
          const r = N.f32Nearest(x);
          if (r <= Infinity) f32[base + code[pc + 1]!] = r;
          else N.f32NaN1(s32, base + code[pc + 1]!, base + code[pc + 2]!);
          pc += 3;
          continue;
        }
        case 0x91: { // f32.sqrt
          const x = f32[base + code[pc + 2]!]!;
          const r = Math.sqrt(x);
          if (r <= Infinity) f32[base + code[pc + 1]!] = r;
          else N.f32NaN1(s32, base + code[pc + 1]!, base + code[pc + 2]!);
          pc += 3;
          continue;
        }
        case 0x92: { // f32.add
          const r = f32[base + code[pc + 2]!]! + f32[base + code[pc + 3]!]!;
          if (r <= Infinity) f32[base + code[pc + 1]!] = r;
          else N.f32NaN2(s32, base + code[pc + 1]!, base + code[pc + 2]!, base + code[pc + 3]!);
          pc += 4;
          continue;
        }
        case 0x93: { // f32.sub
          const r = f32[base + code[pc + 2]!]! - f32[base + code[pc + 3]!]!;
          if (r <= Infinity) f32[base + code[pc + 1]!] = r;
          else N.f32NaN2(s32, base + code[pc + 1]!, base + code[pc + 2]!, base + code[pc + 3]!);
          pc += 4;
          continue;
        }
        case 0x94: { // f32.mul
          const r = f32[base + code[pc + 2]!]! * f32[base + code[pc + 3]!]!;
          if (r <= Infinity) f32[base + code[pc + 1]!] = r;
          else N.f32NaN2(s32, base + code[pc + 1]!, base + code[pc + 2]!, base + code[pc + 3]!);
          pc += 4;
          continue;
        }
        case 0x95: { // f32.div
          const r = f32[base + code[pc + 2]!]! / f32[base + code[pc + 3]!]!;
          if (r <= Infinity) f32[base + code[pc + 1]!] = r;
          else N.f32NaN2(s32, base + code[pc + 1]!, base + code[pc + 2]!, base + code[pc + 3]!);
          pc += 4;
          continue;
        }
        case 0x96: { // f32.min
          const r = N.f32Min(f32[base + code[pc + 2]!]!, f32[base + code[pc + 3]!]!);
          if (r <= Infinity) f32[base + code[pc + 1]!] = r;
          else N.f32NaNMinMax(s32, base + code[pc + 1]!, base + code[pc + 2]!, base + code[pc + 3]!);
          pc += 4;
          continue;
        }
        case 0x97: { // f32.max
          const r = N.f32Max(f32[base + code[pc + 2]!]!, f32[base + code[pc + 3]!]!);
          if (r <= Infinity) f32[base + code[pc + 1]!] = r;
          else N.f32NaNMinMax(s32, base + code[pc + 1]!, base + code[pc + 2]!, base + code[pc + 3]!);
          pc += 4;
          continue;
        }
        case 0x98:
          s32[base + code[pc + 1]!] = (s32[base + code[pc + 2]!]! & 0x7fffffff) | (s32[base + code[pc + 3]!]! & -0x80000000);
          pc += 4;
          continue;

        // ---- f64 arithmetic -----------------------------------------------------------
        case 0x99: {
          const d = base + code[pc + 1]!;
          const a = base + code[pc + 2]!;
          s32[d] = s32[a]!;
          s32[d + 1] = s32[a + 1]! & 0x7fffffff;
          pc += 3;
          continue;
        }
        case 0x9a: {
          const d = base + code[pc + 1]!;
          const a = base + code[pc + 2]!;
          s32[d] = s32[a]!;
          s32[d + 1] = s32[a + 1]! ^ -0x80000000;
          pc += 3;
          continue;
        }
        case 0x9b: { // f64.ceil
          const x = f64[(base + code[pc + 2]!) >> 1]!;
          const r = Math.ceil(x);
          if (r <= Infinity) f64[(base + code[pc + 1]!) >> 1] = r;
          else N.f64NaN1(s32, base + code[pc + 1]!, base + code[pc + 2]!);
          pc += 3;
          continue;
        }
        case 0x9c: { // f64.floor
          const x = f64[(base + code[pc + 2]!) >> 1]!;
          const r = Math.floor(x);
          if (r <= Infinity) f64[(base + code[pc + 1]!) >> 1] = r;
          else N.f64NaN1(s32, base + code[pc + 1]!, base + code[pc + 2]!);
          pc += 3;
          continue;
        }
        case 0x9d: { // f64.trunc
          const x = f64[(base + code[pc + 2]!) >> 1]!;
          const r = Math.trunc(x);
          if (r <= Infinity) f64[(base + code[pc + 1]!) >> 1] = r;
          else N.f64NaN1(s32, base + code[pc + 1]!, base + code[pc + 2]!);
          pc += 3;
          continue;
        }
        case 0x9e: { // f64.nearest
          const x = f64[(base + code[pc + 2]!) >> 1]!;
          const r = N.f64Nearest(x);
          if (r <= Infinity) f64[(base + code[pc + 1]!) >> 1] = r;
          else N.f64NaN1(s32, base + code[pc + 1]!, base + code[pc + 2]!);
          pc += 3;
          continue;
        }
        case 0x9f: { // f64.sqrt
          const x = f64[(base + code[pc + 2]!) >> 1]!;
          const r = Math.sqrt(x);
          if (r <= Infinity) f64[(base + code[pc + 1]!) >> 1] = r;
          else N.f64NaN1(s32, base + code[pc + 1]!, base + code[pc + 2]!);
          pc += 3;
          continue;
        }
        case 0xa0: { // f64.add
          const r = f64[(base + code[pc + 2]!) >> 1]! + f64[(base + code[pc + 3]!) >> 1]!;
          if (r <= Infinity) f64[(base + code[pc + 1]!) >> 1] = r;
          else N.f64NaN2(s32, base + code[pc + 1]!, base + code[pc + 2]!, base + code[pc + 3]!);
          pc += 4;
          continue;
        }
        case 0xa1: { // f64.sub
          const r = f64[(base + code[pc + 2]!) >> 1]! - f64[(base + code[pc + 3]!) >> 1]!;
          if (r <= Infinity) f64[(base + code[pc + 1]!) >> 1] = r;
          else N.f64NaN2(s32, base + code[pc + 1]!, base + code[pc + 2]!, base + code[pc + 3]!);
          pc += 4;
          continue;
        }
        case 0xa2: { // f64.mul
          const r = f64[(base + code[pc + 2]!) >> 1]! * f64[(base + code[pc + 3]!) >> 1]!;
          if (r <= Infinity) f64[(base + code[pc + 1]!) >> 1] = r;
          else N.f64NaN2(s32, base + code[pc + 1]!, base + code[pc + 2]!, base + code[pc + 3]!);
          pc += 4;
          continue;
        }
        case 0xa3: { // f64.div
          const r = f64[(base + code[pc + 2]!) >> 1]! / f64[(base + code[pc + 3]!) >> 1]!;
          if (r <= Infinity) f64[(base + code[pc + 1]!) >> 1] = r;
          else N.f64NaN2(s32, base + code[pc + 1]!, base + code[pc + 2]!, base + code[pc + 3]!);
          pc += 4;
          continue;
        }
        case 0xa4: { // f64.min
          const r = N.f64Min(f64[(base + code[pc + 2]!) >> 1]!, f64[(base + code[pc + 3]!) >> 1]!);
          if (r <= Infinity) f64[(base + code[pc + 1]!) >> 1] = r;
          else N.f64NaNMinMax(s32, base + code[pc + 1]!, base + code[pc + 2]!, base + code[pc + 3]!);
          pc += 4;
          continue;
        }
        case 0xa5: { // f64.max
          const r = N.f64Max(f64[(base + code[pc + 2]!) >> 1]!, f64[(base + code[pc + 3]!) >> 1]!);
          if (r <= Infinity) f64[(base + code[pc + 1]!) >> 1] = r;
          else N.f64NaNMinMax(s32, base + code[pc + 1]!, base + code[pc + 2]!, base + code[pc + 3]!);
          pc += 4;
          continue;
        }
        case 0xa6: {
          const d = base + code[pc + 1]!;
          const a = base + code[pc + 2]!;
          const b = base + code[pc + 3]!;
          s32[d] = s32[a]!;
          s32[d + 1] = (s32[a + 1]! & 0x7fffffff) | (s32[b + 1]! & -0x80000000);
          pc += 4;
          continue;
        }

        // ---- conversions --------------------------------------------------------------
        case 0xa7: // i32.wrap_i64
          s32[base + code[pc + 1]!] = s32[base + code[pc + 2]!]!;
          pc += 3;
          continue;
        case 0xa8: s32[base + code[pc + 1]!] = N.i32TruncF32S(f32[base + code[pc + 2]!]!); pc += 3; continue;
        case 0xa9: s32[base + code[pc + 1]!] = N.i32TruncF32U(f32[base + code[pc + 2]!]!); pc += 3; continue;
        case 0xaa: s32[base + code[pc + 1]!] = N.i32TruncF64S(f64[(base + code[pc + 2]!) >> 1]!); pc += 3; continue;
        case 0xab: s32[base + code[pc + 1]!] = N.i32TruncF64U(f64[(base + code[pc + 2]!) >> 1]!); pc += 3; continue;
        case 0xac: { // i64.extend_i32_s
          const lo = s32[base + code[pc + 2]!]!;
          const d = base + code[pc + 1]!;
          s32[d] = lo;
          s32[d + 1] = lo >> 31;
          pc += 3;
          continue;
        }
        case 0xad: { // i64.extend_i32_u
          const d = base + code[pc + 1]!;
          s32[d] = s32[base + code[pc + 2]!]!;
          s32[d + 1] = 0;
          pc += 3;
          continue;
        }
        case 0xae: N.i64TruncF32S(s32, base + code[pc + 1]!, f32[base + code[pc + 2]!]!); pc += 3; continue;
        case 0xaf: N.i64TruncF32U(s32, base + code[pc + 1]!, f32[base + code[pc + 2]!]!); pc += 3; continue;
        case 0xb0: N.i64TruncF64S(s32, base + code[pc + 1]!, f64[(base + code[pc + 2]!) >> 1]!); pc += 3; continue;
        case 0xb1: N.i64TruncF64U(s32, base + code[pc + 1]!, f64[(base + code[pc + 2]!) >> 1]!); pc += 3; continue;
        case 0xb2: f32[base + code[pc + 1]!] = s32[base + code[pc + 2]!]!; pc += 3; continue;
        case 0xb3: f32[base + code[pc + 1]!] = s32[base + code[pc + 2]!]! >>> 0; pc += 3; continue;
        case 0xb4: {
          const a = base + code[pc + 2]!;
          f32[base + code[pc + 1]!] = N.f32ConvertI64S(s32[a]!, s32[a + 1]!);
          pc += 3;
          continue;
        }
        case 0xb5: {
          const a = base + code[pc + 2]!;
          f32[base + code[pc + 1]!] = N.f32ConvertI64U(s32[a]!, s32[a + 1]!);
          pc += 3;
          continue;
        }
        case 0xb6: { // f32.demote_f64
          const x = f64[(base + code[pc + 2]!) >> 1]!;
          if (x <= Infinity) f32[base + code[pc + 1]!] = x;
          else N.f32DemoteNaN(s32, base + code[pc + 1]!, base + code[pc + 2]!);
          pc += 3;
          continue;
        }
        case 0xb7: f64[(base + code[pc + 1]!) >> 1] = s32[base + code[pc + 2]!]!; pc += 3; continue;
        case 0xb8: f64[(base + code[pc + 1]!) >> 1] = s32[base + code[pc + 2]!]! >>> 0; pc += 3; continue;
        case 0xb9: {
          const a = base + code[pc + 2]!;
          f64[(base + code[pc + 1]!) >> 1] = N.f64ConvertI64S(s32[a]!, s32[a + 1]!);
          pc += 3;
          continue;
        }
        case 0xba: {
          const a = base + code[pc + 2]!;
          f64[(base + code[pc + 1]!) >> 1] = N.f64ConvertI64U(s32[a]!, s32[a + 1]!);
          pc += 3;
          continue;
        }
        case 0xbb: { // f64.promote_f32
          const x = f32[base + code[pc + 2]!]!;
          if (x <= Infinity) f64[(base + code[pc + 1]!) >> 1] = x;
          else N.f64PromoteNaN(s32, base + code[pc + 1]!, base + code[pc + 2]!);
          pc += 3;
          continue;
        }
        case 0xc0: s32[base + code[pc + 1]!] = (s32[base + code[pc + 2]!]! << 24) >> 24; pc += 3; continue;
        case 0xc1: s32[base + code[pc + 1]!] = (s32[base + code[pc + 2]!]! << 16) >> 16; pc += 3; continue;
        case 0xc2: // i64.extend8_s
        case 0xc3: // i64.extend16_s
        case 0xc4: { // i64.extend32_s
          const shift = code[pc] === 0xc2 ? 24 : code[pc] === 0xc3 ? 16 : 0;
          const lo = (s32[base + code[pc + 2]!]! << shift) >> shift;
          const d = base + code[pc + 1]!;
          s32[d] = lo;
          s32[d + 1] = lo >> 31;
          pc += 3;
          continue;
        }
        case 0xe0: /* TruncSatBase + 0 */ s32[base + code[pc + 1]!] = N.i32TruncSatF32S(f32[base + code[pc + 2]!]!); pc += 3; continue;
        case 0xe1: /* TruncSatBase + 1 */ s32[base + code[pc + 1]!] = N.i32TruncSatF32U(f32[base + code[pc + 2]!]!); pc += 3; continue;
        case 0xe2: /* TruncSatBase + 2 */ s32[base + code[pc + 1]!] = N.i32TruncSatF64S(f64[(base + code[pc + 2]!) >> 1]!); pc += 3; continue;
        case 0xe3: /* TruncSatBase + 3 */ s32[base + code[pc + 1]!] = N.i32TruncSatF64U(f64[(base + code[pc + 2]!) >> 1]!); pc += 3; continue;
        case 0xe4: /* TruncSatBase + 4 */ N.i64TruncSatF32S(s32, base + code[pc + 1]!, f32[base + code[pc + 2]!]!); pc += 3; continue;
        case 0xe5: /* TruncSatBase + 5 */ N.i64TruncSatF32U(s32, base + code[pc + 1]!, f32[base + code[pc + 2]!]!); pc += 3; continue;
        case 0xe6: /* TruncSatBase + 6 */ N.i64TruncSatF64S(s32, base + code[pc + 1]!, f64[(base + code[pc + 2]!) >> 1]!); pc += 3; continue;
        case 0xe7: /* TruncSatBase + 7 */ N.i64TruncSatF64U(s32, base + code[pc + 1]!, f64[(base + code[pc + 2]!) >> 1]!); pc += 3; continue;
        // ---- i32 with a constant right operand -----------------------------------------
        case 0xc5: /* add */ s32[base + code[pc + 1]!] = (s32[base + code[pc + 2]!]! + code[pc + 3]!) | 0; pc += 4; continue;
        case 0xc6: /* sub */ s32[base + code[pc + 1]!] = (s32[base + code[pc + 2]!]! - code[pc + 3]!) | 0; pc += 4; continue;
        case 0xc7: /* mul */ s32[base + code[pc + 1]!] = Math.imul(s32[base + code[pc + 2]!]!, code[pc + 3]!); pc += 4; continue;
        case 0xc8: /* and */ s32[base + code[pc + 1]!] = s32[base + code[pc + 2]!]! & code[pc + 3]!; pc += 4; continue;
        case 0xc9: /* or */ s32[base + code[pc + 1]!] = s32[base + code[pc + 2]!]! | code[pc + 3]!; pc += 4; continue;
        case 0xca: /* xor */ s32[base + code[pc + 1]!] = s32[base + code[pc + 2]!]! ^ code[pc + 3]!; pc += 4; continue;
        case 0xcb: /* shl */ s32[base + code[pc + 1]!] = s32[base + code[pc + 2]!]! << code[pc + 3]!; pc += 4; continue;
        case 0xcc: /* shr_s */ s32[base + code[pc + 1]!] = s32[base + code[pc + 2]!]! >> code[pc + 3]!; pc += 4; continue;
        case 0xcd: /* shr_u */ s32[base + code[pc + 1]!] = s32[base + code[pc + 2]!]! >>> code[pc + 3]!; pc += 4; continue;
        case 0xce: /* rotl */ {
          const a = s32[base + code[pc + 2]!]!;
          const k = code[pc + 3]!;
          s32[base + code[pc + 1]!] = (a << k) | (a >>> (32 - k));
          pc += 4;
          continue;
        }
        case 0xcf: /* rotr */ {
          const a = s32[base + code[pc + 2]!]!;
          const k = code[pc + 3]!;
          s32[base + code[pc + 1]!] = (a >>> k) | (a << (32 - k));
          pc += 4;
          continue;
        }
        case 0xd0: /* eq */ s32[base + code[pc + 1]!] = s32[base + code[pc + 2]!] === code[pc + 3] ? 1 : 0; pc += 4; continue;
        case 0xd1: /* ne */ s32[base + code[pc + 1]!] = s32[base + code[pc + 2]!] !== code[pc + 3] ? 1 : 0; pc += 4; continue;
        case 0xd2: /* lt_s */ s32[base + code[pc + 1]!] = s32[base + code[pc + 2]!]! < code[pc + 3]! ? 1 : 0; pc += 4; continue;
        case 0xd3: /* lt_u */ s32[base + code[pc + 1]!] = (s32[base + code[pc + 2]!]! >>> 0) < (code[pc + 3]! >>> 0) ? 1 : 0; pc += 4; continue;
        case 0xd4: /* gt_s */ s32[base + code[pc + 1]!] = s32[base + code[pc + 2]!]! > code[pc + 3]! ? 1 : 0; pc += 4; continue;
        case 0xd5: /* gt_u */ s32[base + code[pc + 1]!] = (s32[base + code[pc + 2]!]! >>> 0) > (code[pc + 3]! >>> 0) ? 1 : 0; pc += 4; continue;
        case 0xd6: /* le_s */ s32[base + code[pc + 1]!] = s32[base + code[pc + 2]!]! <= code[pc + 3]! ? 1 : 0; pc += 4; continue;
        case 0xd7: /* le_u */ s32[base + code[pc + 1]!] = (s32[base + code[pc + 2]!]! >>> 0) <= (code[pc + 3]! >>> 0) ? 1 : 0; pc += 4; continue;
        case 0xd8: /* ge_s */ s32[base + code[pc + 1]!] = s32[base + code[pc + 2]!]! >= code[pc + 3]! ? 1 : 0; pc += 4; continue;
        case 0xd9: /* ge_u */ s32[base + code[pc + 1]!] = (s32[base + code[pc + 2]!]! >>> 0) >= (code[pc + 3]! >>> 0) ? 1 : 0; pc += 4; continue;

        // ---- branches on an i32 comparison: op a b target fuel ----------------------------
        case 0x100: /* eq */ left -= code[pc + 4]!; if (s32[base + code[pc + 1]!] === s32[base + code[pc + 2]!]) { pc = code[pc + 3]!; if (code[pc] === 0x09 && left > 0) pc += 2; } else pc += 5; continue;
        case 0x101: /* ne */ left -= code[pc + 4]!; if (s32[base + code[pc + 1]!] !== s32[base + code[pc + 2]!]) { pc = code[pc + 3]!; if (code[pc] === 0x09 && left > 0) pc += 2; } else pc += 5; continue;
        case 0x102: /* lt_s */ left -= code[pc + 4]!; if (s32[base + code[pc + 1]!]! < s32[base + code[pc + 2]!]!) { pc = code[pc + 3]!; if (code[pc] === 0x09 && left > 0) pc += 2; } else pc += 5; continue;
        case 0x103: /* lt_u */ left -= code[pc + 4]!; if ((s32[base + code[pc + 1]!]! >>> 0) < (s32[base + code[pc + 2]!]! >>> 0)) { pc = code[pc + 3]!; if (code[pc] === 0x09 && left > 0) pc += 2; } else pc += 5; continue;
        case 0x104: /* gt_s */ left -= code[pc + 4]!; if (s32[base + code[pc + 1]!]! > s32[base + code[pc + 2]!]!) { pc = code[pc + 3]!; if (code[pc] === 0x09 && left > 0) pc += 2; } else pc += 5; continue;
        case 0x105: /* gt_u */ left -= code[pc + 4]!; if ((s32[base + code[pc + 1]!]! >>> 0) > (s32[base + code[pc + 2]!]! >>> 0)) { pc = code[pc + 3]!; if (code[pc] === 0x09 && left > 0) pc += 2; } else pc += 5; continue;
        case 0x106: /* le_s */ left -= code[pc + 4]!; if (s32[base + code[pc + 1]!]! <= s32[base + code[pc + 2]!]!) { pc = code[pc + 3]!; if (code[pc] === 0x09 && left > 0) pc += 2; } else pc += 5; continue;
        case 0x107: /* le_u */ left -= code[pc + 4]!; if ((s32[base + code[pc + 1]!]! >>> 0) <= (s32[base + code[pc + 2]!]! >>> 0)) { pc = code[pc + 3]!; if (code[pc] === 0x09 && left > 0) pc += 2; } else pc += 5; continue;
        case 0x108: /* ge_s */ left -= code[pc + 4]!; if (s32[base + code[pc + 1]!]! >= s32[base + code[pc + 2]!]!) { pc = code[pc + 3]!; if (code[pc] === 0x09 && left > 0) pc += 2; } else pc += 5; continue;
        case 0x109: /* ge_u */ left -= code[pc + 4]!; if ((s32[base + code[pc + 1]!]! >>> 0) >= (s32[base + code[pc + 2]!]! >>> 0)) { pc = code[pc + 3]!; if (code[pc] === 0x09 && left > 0) pc += 2; } else pc += 5; continue;
        // ---- the same against a constant: op a imm target fuel ----------------------------
        case 0x10a: /* eq */ left -= code[pc + 4]!; if (s32[base + code[pc + 1]!] === code[pc + 2]) { pc = code[pc + 3]!; if (code[pc] === 0x09 && left > 0) pc += 2; } else pc += 5; continue;
        case 0x10b: /* ne */ left -= code[pc + 4]!; if (s32[base + code[pc + 1]!] !== code[pc + 2]) { pc = code[pc + 3]!; if (code[pc] === 0x09 && left > 0) pc += 2; } else pc += 5; continue;
        case 0x10c: /* lt_s */ left -= code[pc + 4]!; if (s32[base + code[pc + 1]!]! < code[pc + 2]!) { pc = code[pc + 3]!; if (code[pc] === 0x09 && left > 0) pc += 2; } else pc += 5; continue;
        case 0x10d: /* lt_u */ left -= code[pc + 4]!; if ((s32[base + code[pc + 1]!]! >>> 0) < (code[pc + 2]! >>> 0)) { pc = code[pc + 3]!; if (code[pc] === 0x09 && left > 0) pc += 2; } else pc += 5; continue;
        case 0x10e: /* gt_s */ left -= code[pc + 4]!; if (s32[base + code[pc + 1]!]! > code[pc + 2]!) { pc = code[pc + 3]!; if (code[pc] === 0x09 && left > 0) pc += 2; } else pc += 5; continue;
        case 0x10f: /* gt_u */ left -= code[pc + 4]!; if ((s32[base + code[pc + 1]!]! >>> 0) > (code[pc + 2]! >>> 0)) { pc = code[pc + 3]!; if (code[pc] === 0x09 && left > 0) pc += 2; } else pc += 5; continue;
        case 0x110: /* le_s */ left -= code[pc + 4]!; if (s32[base + code[pc + 1]!]! <= code[pc + 2]!) { pc = code[pc + 3]!; if (code[pc] === 0x09 && left > 0) pc += 2; } else pc += 5; continue;
        case 0x111: /* le_u */ left -= code[pc + 4]!; if ((s32[base + code[pc + 1]!]! >>> 0) <= (code[pc + 2]! >>> 0)) { pc = code[pc + 3]!; if (code[pc] === 0x09 && left > 0) pc += 2; } else pc += 5; continue;
        case 0x112: /* ge_s */ left -= code[pc + 4]!; if (s32[base + code[pc + 1]!]! >= code[pc + 2]!) { pc = code[pc + 3]!; if (code[pc] === 0x09 && left > 0) pc += 2; } else pc += 5; continue;
        case 0x113: /* ge_u */ left -= code[pc + 4]!; if ((s32[base + code[pc + 1]!]! >>> 0) >= (code[pc + 2]! >>> 0)) { pc = code[pc + 3]!; if (code[pc] === 0x09 && left > 0) pc += 2; } else pc += 5; continue;
        // ---- i64 shifts and rotations by a constant count (I64ShiftImmBase; compiler.ts, i64ShiftForm) --
        // Each form is one case of the generic operation, its count k fixed: no test of the count
        // here, and in a translation (templates.generated.ts) a few shifts V8 folds.
        case 0x114: /* shl, k 1..31 */ {
          const d = base + code[pc + 1]!;
          const a = base + code[pc + 2]!;
          const k = code[pc + 3]!;
          const l = s32[a]!;
          const h = s32[a + 1]!;
          s32[d] = l << k;
          s32[d + 1] = (h << k) | (l >>> (32 - k));
          pc += 4;
          continue;
        }
        case 0x115: /* shl by 32 + k, k 0..31 */ {
          const d = base + code[pc + 1]!;
          const a = base + code[pc + 2]!;
          s32[d + 1] = s32[a]! << code[pc + 3]!;
          s32[d] = 0;
          pc += 4;
          continue;
        }
        case 0x116: /* shr_s, k 1..31 */ {
          const d = base + code[pc + 1]!;
          const a = base + code[pc + 2]!;
          const k = code[pc + 3]!;
          const l = s32[a]!;
          const h = s32[a + 1]!;
          s32[d] = (l >>> k) | (h << (32 - k));
          s32[d + 1] = h >> k;
          pc += 4;
          continue;
        }
        case 0x117: /* shr_s by 32 + k, k 0..31 */ {
          const d = base + code[pc + 1]!;
          const a = base + code[pc + 2]!;
          const h = s32[a + 1]!;
          s32[d] = h >> code[pc + 3]!;
          s32[d + 1] = h >> 31;
          pc += 4;
          continue;
        }
        case 0x118: /* shr_u, k 1..31 */ {
          const d = base + code[pc + 1]!;
          const a = base + code[pc + 2]!;
          const k = code[pc + 3]!;
          const l = s32[a]!;
          const h = s32[a + 1]!;
          s32[d] = (l >>> k) | (h << (32 - k));
          s32[d + 1] = h >>> k;
          pc += 4;
          continue;
        }
        case 0x119: /* shr_u by 32 + k, k 0..31 */ {
          const d = base + code[pc + 1]!;
          const a = base + code[pc + 2]!;
          s32[d] = s32[a + 1]! >>> code[pc + 3]!;
          s32[d + 1] = 0;
          pc += 4;
          continue;
        }
        case 0x11a: /* rotl, k 1..31 */ {
          const d = base + code[pc + 1]!;
          const a = base + code[pc + 2]!;
          const k = code[pc + 3]!;
          const l = s32[a]!;
          const h = s32[a + 1]!;
          s32[d] = (l << k) | (h >>> (32 - k));
          s32[d + 1] = (h << k) | (l >>> (32 - k));
          pc += 4;
          continue;
        }
        case 0x11b: /* rotl by 32 + k, k 1..31: the halves swapped, then rotated by k */ {
          const d = base + code[pc + 1]!;
          const a = base + code[pc + 2]!;
          const k = code[pc + 3]!;
          const l = s32[a]!;
          const h = s32[a + 1]!;
          s32[d] = (h << k) | (l >>> (32 - k));
          s32[d + 1] = (l << k) | (h >>> (32 - k));
          pc += 4;
          continue;
        }
        case 0x11c: /* rotl by 32: the halves swapped (count operand unused) */ {
          const d = base + code[pc + 1]!;
          const a = base + code[pc + 2]!;
          const l = s32[a]!;
          const h = s32[a + 1]!;
          s32[d] = h;
          s32[d + 1] = l;
          pc += 4;
          continue;
        }
        default:
          throw new Error(`internal error: bad opcode ${code[pc]} at ${pc}`);
      }

      // ---- entering a WebAssembly function (the call instructions get here) ----------
      const mode = entering;
      entering = ENTER_CALL;
      if (mode === ENTER_CALL) {
      const at = callIndex << 3; // FUNC_INFO_STRIDE
      if (callBase + info[at + 6]! > s32.length || fsp === frames.length) {
        // The value stack or the frame array must grow first, or the frame is a large one
        // (FuncInfo.FastFrameEnd).
        ex.enterFunction(inst, callIndex, callBase, returnPc, base, fsp);
        if (prof !== null) prof.enter(ex.fsp / 3, inst, ex.pc, checkpoint + left);
        if (jit !== null) ex.rejoin = true; // the callee may be translated
        return (left -= 1) > 0 ? SWITCH : pauseOrRunOut(ex, checkpoint + left);
      }
      frames[fsp] = returnPc;
      frames[fsp + 1] = base;
      frames[fsp + 2] = instId;
      fsp += 3;
      for (let i = callBase + info[at + 1]!, e = callBase + info[at + 2]!; i < e; i++) s32[i] = 0;
      // The function's constant slots (compiler.ts readyFrame, inlined here).
      for (let c = info[at + 4]!, e = info[at + 5]!; c < e; c += 3) {
        const w = callBase + constants[c]!;
        s32[w] = constants[c + 1]!;
        s32[w + 1] = constants[c + 2]!;
      }
      base = callBase;
      pc = info[at]!;
      if (prof !== null) prof.enter(fsp / 3, inst, pc, checkpoint + left);
      if (--left <= 0) {
        ex.pc = pc;
        ex.base = base;
        ex.fsp = fsp;
        ex.inst = inst;
        if (jit !== null) ex.rejoin = true; // the callee may be translated
        return pauseOrRunOut(ex, checkpoint + left);
      }
      }

      // ---- at a function's entry or a loop header: the clock, and the JavaScript tier ------
      // Every CLOCK_FUEL, a look at the clock: a slice is sized in fuel from the pace so far,
      // and the pace can fall far below it — in code V8 has just deoptimised (this loop's own,
      // in a fresh process) or not optimised yet (new translations); past the slice's
      // deadline (execution.ts, sliceDeadline) it pauses here.
      if (left < clockAt) {
        clockAt = left - CLOCK_FUEL;
        if (outOfTime(ex, pc, base, fsp, inst)) return 'paused';
      }
      if (jit === null) {
        if (mode === ENTER_LOOP) pc += 2;
        continue;
      }
      const translatedBefore = jit.translated;
      const translated = mode === ENTER_AFTER_EXIT
        ? jit.fns[callIndex] ?? null
        : translatedFunction(jit, callIndex, mode === ENTER_LOOP ? LOOP_HEAT : 1, store.jitThreshold, ex.sliceDeadline);
      if (translated === undefined || pausesForNewCode(ex, jit, translatedBefore)) {
        // Back here on resuming (runLoop's rejoin), with the code read afresh: grown, if the
        // translation translated callees waiting for their first call.
        ex.pc = pc;
        ex.base = base;
        ex.fsp = fsp;
        ex.inst = inst;
        ex.rejoin = true;
        ex.freshCode = true;
        return 'paused';
      }
      if (inst.code !== code) {
        // A step of a translation translated callees waiting for their first call (compiler.ts,
        // CompiledFunctions): the code grew. Go on with it: past the header, or from the
        // entry, where the function stays interpreted for now; into the translation where
        // there is one (runLoop's rejoin).
        ex.pc = translated === null && mode === ENTER_LOOP ? pc + 2 : pc;
        ex.base = base;
        ex.fsp = fsp;
        ex.inst = inst;
        if (translated !== null) ex.rejoin = true;
        return SWITCH;
      }
      if (translated === null) {
        if (mode === ENTER_LOOP) pc += 2;
        continue;
      }
      ex.jitLeft = left;
      ex.inst = inst;
      let answer: number;
      try {
        answer = runTranslated(translated, ex, base, pc, fsp);
      } finally {
        left = ex.jitLeft;
      }
      if (answer !== NO_ENTRY) {
        if (mode === ENTER_AFTER_EXIT) jit.noteRejoined();
        pc = ex.pc;
        base = ex.base;
        fsp = ex.fsp;
        // The interpreter goes on from ex.pc; back into the tier after that instruction.
        if (answer === EXIT) ex.rejoin = true;
      }
      if (((1 << answer) & GOES_ON) !== 0) {
        // (pc, base, fsp are as they were for NO_ENTRY; the caller's after RETURNED.) As above:
        // translated code may have had callees translated.
        if (inst.code === code) continue;
        ex.pc = pc;
        ex.base = base;
        ex.fsp = fsp;
        return SWITCH;
      }
      if (answer === PAUSE) {
        // At a callee's entry: it enters the tier when the execution resumes.
        ex.rejoin = true;
        return pauseOrRunOut(ex, checkpoint + left);
      }
      if (answer === OUT_OF_TIME) return 'paused'; // at a loop header
      return SWITCH; // bulk work left in pieces
    }
  } catch (error) {
    // Where it threw, for the backtrace (translated code called from here has said so first).
    if (ex.trapAt === null) ex.trapAt = { pc, fsp, inst };
    throw error;
  } finally {
    store.fuel = checkpoint + left;
  }
}
