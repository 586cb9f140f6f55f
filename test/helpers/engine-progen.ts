/**
 * A seeded generator of random, always-terminating WebAssembly functions over i32 and i64, for
 * differential tests of the translator (compiler.ts). The text is flat (not folded), so a
 * `local.get` pushed early can still be on the stack when a later sub-expression (a tee, or a
 * block containing statements) overwrites the same local: exactly the hazard of reading
 * locals in place.
 *
 * Each function has parameters (i32 i32 i64 i64), extra locals, returns (i32 i64), and may use:
 * constants, local.get/set/tee, unary/binary/compare/convert operators (division included,
 * so some runs trap), select (typed and untyped), blocks and ifs with one or two results or
 * parameters, br/br_if/br_table carrying values, bounded loops (with loop parameters), early
 * returns, calls to multi-value helpers, globals and memory.
 */
import { Rng } from './engine-oracle.js';

type T = 'i32' | 'i64';
type F = 'f32' | 'f64';

const I32_LOCALS = [0, 1, 4, 5, 6];
const I64_LOCALS = [2, 3, 7, 8, 9];
const FLOAT_LOCALS: Record<F, number[]> = { f64: [13, 14], f32: [15, 16] };
/** Loop counters (one per loop nesting depth), never touched by anything else. */
const COUNTERS = [10, 11, 12];

const BIN: Record<T, string[]> = {
  i32: ['add', 'sub', 'mul', 'and', 'or', 'xor', 'shl', 'shr_s', 'shr_u', 'rotl', 'rotr', 'div_s', 'div_u', 'rem_s', 'rem_u'],
  i64: ['add', 'sub', 'mul', 'and', 'or', 'xor', 'shl', 'shr_s', 'shr_u', 'rotl', 'rotr', 'div_s', 'div_u', 'rem_s', 'rem_u'],
};
const UN: Record<T, string[]> = {
  i32: ['clz', 'ctz', 'popcnt', 'eqz', 'extend8_s', 'extend16_s'],
  i64: ['clz', 'ctz', 'popcnt', 'extend8_s', 'extend16_s', 'extend32_s'],
};
const CMP = ['eq', 'ne', 'lt_s', 'lt_u', 'gt_s', 'gt_u', 'le_s', 'le_u', 'ge_s', 'ge_u'];

/** Helper functions the generated code calls, as [header, flat body]. */
const HELPER_FUNCS: ReadonlyArray<[string, string]> = [
  ['(func $h_swap (param i32 i64) (result i64 i32)', 'local.get 1 local.get 0'],
  ['(func $h_mix (param i32 i64 i32) (result i32)', 'local.get 0 local.get 2 i32.xor local.get 1 i32.wrap_i64 i32.add'],
  ['(func $h_three (param i64) (result i32 i64 i32)',
    'local.get 0 i32.wrap_i64 local.get 0 i64.const 7 i64.mul local.get 0 i64.const 32 i64.shr_u i32.wrap_i64'],
  ['(func $h_side (param i32) (result i32)', 'global.get $g32 local.get 0 i32.add global.set $g32 global.get $g32'],
];

/**
 * Globals, memory and helpers for a module of generated functions, plus an exported `state`
 * (globals and a hash of memory). With `countFuel`, every function body is instrumented (see
 * instrumentFuel) and the module has an exported mutable i64 global `fuelc`.
 */
export function helpers(countFuel = false): string {
  const fns = HELPER_FUNCS.map(([head, body]) => `${head} ${countFuel ? instrumentFuel(body) : body})`);
  return `
  (global $g32 (mut i32) (i32.const 17))
  (global $g64 (mut i64) (i64.const -99))
  ${countFuel ? '(global $fuelc (export "fuelc") (mut i64) (i64.const 0))' : ''}
  (memory 1)
  ${fns.join('\n  ')}
  (func (export "state") (result i32 i64 i64) (local $i i32) (local $acc i64)
    (block $d (loop $l
      local.get $i i32.const 128 i32.ge_u br_if $d
      local.get $acc i64.const 1099511628211 i64.mul local.get $i i64.load i64.xor local.set $acc
      local.get $i i32.const 8 i32.add local.set $i br $l))
    global.get $g32 global.get $g64 local.get $acc)`;
}

export const HELPERS = helpers(false);

/** Operators that cost no fuel in wasmtime's model. */
const FREE = new Set(['nop', 'drop', 'block', 'loop', 'unreachable', 'return', 'else', 'end']);
const COUNT = 'global.get $fuelc i64.const 1 i64.add global.set $fuelc';

/**
 * Instruments a flat function body so that it counts, in the global $fuelc, the fuel it spends
 * under wasmtime's model: one before every operator that costs 1, and one at the start for the
 * invocation. The counting code has no net stack effect, so the function computes the same.
 */
export function instrumentFuel(body: string): string {
  // Tokens: parenthesised groups ("(result i32)") stay whole.
  const tokens: string[] = [];
  const re = /\([^()]*\)|[^\s()]+/g;
  for (let m = re.exec(body); m !== null; m = re.exec(body)) tokens.push(m[0]);
  const out: string[] = [COUNT];
  let previous = '';
  for (const t of tokens) {
    // An operator name, unless it is a constant's immediate (inf, nan).
    const isOperator = /^[a-z][a-z0-9_]*(\.[a-z0-9_]+)?$/.test(t) && !previous.endsWith('.const');
    if (isOperator && !FREE.has(t)) out.push(COUNT);
    out.push(t);
    previous = t;
  }
  return out.join(' ');
}

export class ProgramGenerator {
  private out: string[] = [];
  private loopDepth = 0;
  /** Labels enclosing the current position, innermost last: their branch types, or null for a
   * loop (branching back to a loop header could loop forever, so only its own counter does). */
  private labels: Array<T[] | null> = [];

  constructor(private readonly rng: Rng) {}

  /** A function `(func (export name) (param i32 i32 i64 i64) (result i32 i64) ...)`. */
  func(name: string, size: number, countFuel = false): string {
    this.out = [];
    this.loopDepth = 0;
    this.labels = [];
    const n = 3 + this.rng.int(size);
    for (let k = 0; k < n; k++) this.stmt(3);
    // Fold every local into the results, so that wrong locals show.
    this.expr('i32', 3);
    for (const l of I32_LOCALS) this.emit(`local.get ${l} i32.xor`);
    this.expr('i64', 3);
    for (const l of I64_LOCALS) this.emit(`local.get ${l} i64.add`);
    // Floats only ever reach the results through saturating truncation and comparisons, so
    // NaN payloads (which may differ between engines) never show.
    for (const l of FLOAT_LOCALS.f64) this.emit(`local.get ${l} i64.trunc_sat_f64_s i64.add`);
    for (const l of FLOAT_LOCALS.f32) this.emit(`local.get ${l} i64.trunc_sat_f32_u i64.add`);
    const body = this.out.join('\n      ');
    return `(func (export "${name}") (param i32 i32 i64 i64) (result i32 i64)
      (local i32 i32 i32 i64 i64 i64 i32 i32 i32 f64 f64 f32 f32)
      ${countFuel ? instrumentFuel(body) : body})`;
  }

  private emit(s: string): void {
    this.out.push(s);
  }

  private local(t: T): number {
    return this.rng.pick(t === 'i32' ? I32_LOCALS : I64_LOCALS);
  }

  private other(t: T): T {
    return t === 'i32' ? 'i64' : 'i32';
  }

  private constant(t: T): string {
    const r = this.rng;
    if (t === 'i32') return `i32.const ${r.pick([0, 1, 2, 3, -1, 31, 32, 33, 63, 64, 0x7fffffff, -0x80000000, r.i32(), r.int(100)])}`;
    return `i64.const ${r.pick([0n, 1n, 2n, -1n, 63n, 64n, 65n, 0x7fffffffffffffffn, -0x8000000000000000n, 0xffffffffn, r.i64(), BigInt(r.int(100))])}`;
  }

  private floatConstant(t: F): string {
    const r = this.rng;
    const common = ['0', '-0', '1', '-1', '0.5', '-2.25', '3', 'inf', '-inf', 'nan', '-nan', '1e30', '-7e-30', String(r.i32() / 7)];
    const wide = t === 'f64' ? ['1e300', '5e-324', '9007199254740993', '-2147483648.5'] : ['3.4e38', '1e-45', '16777217', '4294967040'];
    return `${t}.const ${r.pick([...common, ...wide])}`;
  }

  /** Emits code that pushes exactly one value of float type t. */
  private fexpr(t: F, depth: number): void {
    const r = this.rng;
    const locals = FLOAT_LOCALS[t];
    if (depth <= 0) {
      this.emit(r.chance(0.6) ? `local.get ${r.pick(locals)}` : this.floatConstant(t));
      return;
    }
    const d = depth - 1;
    const o: F = t === 'f32' ? 'f64' : 'f32';
    switch (r.int(12)) {
      case 0: case 1:
        this.emit(`local.get ${r.pick(locals)}`);
        return;
      case 2:
        this.emit(this.floatConstant(t));
        return;
      case 3: case 4:
        this.fexpr(t, d);
        this.fexpr(t, d);
        this.emit(`${t}.${r.pick(['add', 'sub', 'mul', 'div', 'min', 'max', 'copysign'])}`);
        return;
      case 5:
        this.fexpr(t, d);
        this.emit(`${t}.${r.pick(['abs', 'neg', 'sqrt', 'ceil', 'floor', 'trunc', 'nearest'])}`);
        return;
      case 6: {
        const it = r.pick<T>(['i32', 'i64']);
        this.expr(it, d);
        const same = t === 'f32' ? 'i32' : 'i64';
        if (it === same && r.chance(0.2)) this.emit(`${t}.reinterpret_${it}`);
        else this.emit(`${t}.convert_${it}_${r.pick(['s', 'u'])}`);
        return;
      }
      case 7:
        this.fexpr(o, d);
        this.emit(t === 'f64' ? 'f64.promote_f32' : 'f32.demote_f64');
        return;
      case 8:
        this.fexpr(t, d);
        this.emit(`local.tee ${r.pick(locals)}`);
        return;
      case 9:
        this.fexpr(t, d);
        this.fexpr(t, d);
        this.cond(d);
        this.emit(r.chance(0.5) ? 'select' : `select (result ${t})`);
        return;
      case 10:
        this.cond(d);
        this.emit(`if (result ${t})`);
        this.labels.push(null);
        this.fexpr(t, d);
        this.emit('else');
        this.stmt(d);
        this.fexpr(t, d);
        this.labels.pop();
        this.emit('end');
        return;
      default:
        this.emit(`i32.const ${8 * r.int(15)} ${t}.load offset=${r.int(8)}`);
    }
  }

  /** Emits code that pushes exactly one value of type t. */
  private expr(t: T, depth: number): void {
    const r = this.rng;
    if (depth <= 0) {
      if (r.chance(0.6)) this.emit(`local.get ${this.local(t)}`);
      else this.emit(this.constant(t));
      return;
    }
    const d = depth - 1;
    switch (r.int(23)) {
      case 0: case 1: case 2:
        this.emit(`local.get ${this.local(t)}`);
        return;
      case 3:
        this.emit(this.constant(t));
        return;
      case 4: case 5: case 6: { // binary
        const op = r.pick(BIN[t]);
        this.expr(t, d);
        this.expr(t, d);
        // Keep most divisions from trapping: or-ing 1 into the divisor.
        if (/div|rem/.test(op) && r.chance(0.8)) this.emit(`${t}.const 1 ${t}.or`);
        this.emit(`${t}.${op}`);
        return;
      }
      case 7: { // unary or conversion
        if (r.chance(0.3)) { // from a float: saturating truncation, or a comparison
          const f = r.pick<F>(['f32', 'f64']);
          this.fexpr(f, d);
          if (r.chance(0.7)) {
            this.emit(`${t}.trunc_sat_${f}_${r.pick(['s', 'u'])}`);
          } else {
            this.fexpr(f, d);
            this.emit(`${f}.${r.pick(['eq', 'ne', 'lt', 'gt', 'le', 'ge'])}`);
            if (t === 'i64') this.emit('i64.extend_i32_u');
          }
        } else if (t === 'i32' && r.chance(0.4)) {
          this.expr('i64', d);
          this.emit(r.pick(['i32.wrap_i64', 'i64.eqz', 'i64.clz i32.wrap_i64']));
        } else if (t === 'i64' && r.chance(0.4)) {
          this.expr('i32', d);
          this.emit(r.pick(['i64.extend_i32_s', 'i64.extend_i32_u']));
        } else {
          this.expr(t, d);
          const op = r.pick(UN[t]);
          this.emit(`${t}.${op}`);
          if (op === 'eqz' && t === 'i64') this.emit('i64.extend_i32_u');
        }
        return;
      }
      case 8: { // comparison
        const u = r.pick<T>(['i32', 'i64']);
        this.expr(u, d);
        this.expr(u, d);
        this.emit(`${u}.${r.pick(CMP)}`);
        if (t === 'i64') this.emit('i64.extend_i32_u');
        return;
      }
      case 9: case 10: { // tee
        this.expr(t, d);
        this.emit(`local.tee ${this.local(t)}`);
        return;
      }
      case 11: { // select
        this.expr(t, d);
        this.expr(t, d);
        this.cond(d);
        this.emit(r.chance(0.5) ? 'select' : `select (result ${t})`);
        return;
      }
      case 12: { // block with statements and maybe a br_if carrying a value out
        this.emit(`block (result ${t})`);
        this.labels.push([t]);
        this.stmt(d);
        if (r.chance(0.5)) {
          this.expr(t, d);
          this.cond(d);
          this.emit('br_if 0');
          this.emit('drop');
        }
        this.stmt(d);
        this.expr(t, d);
        this.labels.pop();
        this.emit('end');
        return;
      }
      case 13: { // if/else with a result, or with a parameter
        if (r.chance(0.5)) {
          this.cond(d);
          this.emit(`if (result ${t})`);
          this.labels.push([t]);
          this.stmt(d);
          this.expr(t, d);
          this.emit('else');
          this.expr(t, d);
          this.labels.pop();
          this.emit('end');
        } else {
          this.expr(t, d);
          this.cond(d);
          this.emit(`if (param ${t}) (result ${t})`);
          this.labels.push([t]);
          this.expr(t, d);
          this.emit(`${t}.${r.pick(['add', 'sub', 'xor', 'mul'])}`);
          if (r.chance(0.5)) {
            this.emit('else');
            this.stmt(d);
          }
          this.labels.pop();
          this.emit('end');
        }
        return;
      }
      case 14: { // two-result block, one result stored, the other is the value
        const u = this.other(t);
        const order = r.chance(0.5);
        this.emit(order ? `block (result ${t} ${u})` : `block (result ${u} ${t})`);
        this.labels.push(order ? [t, u] : [u, t]);
        this.expr(order ? t : u, d);
        this.expr(order ? u : t, d);
        if (r.chance(0.5)) {
          this.cond(d);
          this.emit('br_if 0');
          this.emit(`${order ? u : t}.const 3 ${order ? u : t}.add`);
        }
        this.labels.pop();
        this.emit('end');
        if (order) this.emit(`local.set ${this.local(u)}`);
        else {
          const tmp = this.local(t);
          this.emit(`local.set ${tmp}`);
          this.emit(`local.set ${this.local(u)}`);
          this.emit(`local.get ${tmp}`);
        }
        return;
      }
      case 15: { // br_table out of two nested blocks
        this.emit(`block (result ${t})`);
        this.emit(`block (result ${t})`);
        this.labels.push([t], [t]);
        this.expr(t, d);
        this.expr('i32', d);
        const targets = Array.from({ length: 1 + r.int(6) }, () => r.int(2));
        this.emit(`br_table ${targets.join(' ')} ${r.int(2)}`);
        this.labels.pop();
        this.emit('end');
        this.expr(t, d);
        this.emit(`${t}.${r.pick(['add', 'xor', 'sub'])}`);
        this.labels.pop();
        this.emit('end');
        return;
      }
      case 16: { // loop with a parameter and result
        if (this.loopDepth >= COUNTERS.length) {
          this.emit(`local.get ${this.local(t)}`);
          return;
        }
        const c = COUNTERS[this.loopDepth]!;
        this.expr(t, d);
        this.emit(`i32.const ${1 + r.int(4)} local.set ${c}`);
        this.emit(`loop (param ${t}) (result ${t})`);
        this.loopDepth++;
        this.labels.push(null);
        this.expr(t, d);
        this.emit(`${t}.${r.pick(['add', 'xor', 'mul', 'rotl'])}`);
        this.stmt(d);
        this.emit(`local.get ${c} i32.const 1 i32.sub local.tee ${c}`);
        this.emit('br_if 0');
        this.labels.pop();
        this.loopDepth--;
        this.emit('end');
        return;
      }
      case 17: { // calls to multi-value helpers
        const which = r.int(4);
        if (which === 0) {
          this.expr('i32', d);
          this.expr('i64', d);
          this.emit('call $h_swap'); // (i64 i32)
          if (t === 'i64') this.emit('drop');
          else {
            const tmp = this.local('i32');
            this.emit(`local.set ${tmp} local.set ${this.local('i64')} local.get ${tmp}`);
          }
        } else if (which === 1) {
          this.expr('i32', d);
          this.expr('i64', d);
          this.expr('i32', d);
          this.emit('call $h_mix');
          if (t === 'i64') this.emit('i64.extend_i32_s');
        } else if (which === 2) {
          this.expr('i64', d);
          this.emit('call $h_three');
          this.emit(`local.set ${this.local('i32')}`);
          if (t === 'i32') this.emit(`local.set ${this.local('i64')}`);
          else {
            const tmp = this.local('i64');
            this.emit(`local.set ${tmp} drop local.get ${tmp}`);
          }
        } else {
          this.expr('i32', d);
          this.emit('call $h_side');
          if (t === 'i64') this.emit('i64.extend_i32_u');
        }
        return;
      }
      case 18: { // globals and memory
        if (t === 'i32') {
          this.emit(r.chance(0.5) ? 'global.get $g32' : `i32.const ${8 * r.int(16)} i32.load offset=${r.int(4)}`);
        } else {
          this.emit(r.chance(0.5) ? 'global.get $g64' : `i32.const ${8 * r.int(15)} ${r.pick(['i64.load', 'i64.load32_s', 'i64.load16_u', 'i64.load8_s'])} offset=${r.int(8)}`);
        }
        return;
      }
      case 20: { // an unconditional br carrying a value out through an if with a parameter
        this.emit(`block (result ${t})`);
        this.labels.push([t]);
        this.expr(t, d);
        this.cond(d);
        this.emit(`if (param ${t}) (result ${t})`);
        this.labels.push([t]);
        this.emit('br 1');
        this.emit('else');
        this.expr(t, d);
        this.emit(`${t}.${r.pick(['add', 'xor', 'sub'])}`);
        this.labels.pop();
        this.emit('end');
        this.expr(t, d);
        this.emit(`${t}.${r.pick(['add', 'xor', 'mul'])}`);
        this.labels.pop();
        this.emit('end');
        return;
      }
      case 21: { // a block with two parameters and two results (swapped), maybe left by br_if
        this.expr('i32', d);
        this.expr('i64', d);
        this.emit('block (param i32 i64) (result i64 i32)');
        this.labels.push(['i64', 'i32']);
        if (r.chance(0.5)) {
          this.emit('call $h_swap');
          this.stmt(d);
        } else {
          const a = this.local('i32');
          const b = this.local('i64');
          this.emit(`local.set ${b} local.set ${a} local.get ${b} local.get ${a}`);
          this.cond(d);
          this.emit('br_if 0');
          this.emit('i32.const 1 i32.add');
        }
        this.labels.pop();
        this.emit('end');
        if (t === 'i32') {
          const tmp = this.local('i32');
          this.emit(`local.set ${tmp} local.set ${this.local('i64')} local.get ${tmp}`);
        } else {
          this.emit('drop');
        }
        return;
      }
      case 22: { // a loop with two parameters, counting down
        if (this.loopDepth >= COUNTERS.length) {
          this.emit(this.constant(t));
          return;
        }
        const c = COUNTERS[this.loopDepth]!;
        this.expr('i64', d);
        this.expr('i32', d);
        this.emit(`i32.const ${1 + r.int(4)} local.set ${c}`);
        this.emit('loop (param i64 i32) (result i64 i32)');
        this.loopDepth++;
        this.labels.push(null);
        this.emit('i32.const 3 i32.mul');
        this.emit(`local.set ${I32_LOCALS[4]} i64.const 5 i64.add local.get ${I32_LOCALS[4]}`);
        this.emit(`local.get ${c} i32.const 1 i32.sub local.tee ${c}`);
        this.emit('br_if 0');
        this.labels.pop();
        this.loopDepth--;
        this.emit('end');
        if (t === 'i32') {
          const tmp = this.local('i32');
          this.emit(`local.set ${tmp} drop local.get ${tmp}`);
        } else {
          this.emit('drop');
        }
        return;
      }
      default: { // a statement inside an expression, via a block
        this.emit(`block (result ${t})`);
        this.labels.push([t]);
        this.expr(t, d);
        this.stmt(d);
        this.labels.pop();
        this.emit('end');
      }
    }
  }

  /**
   * Emits a condition: often an i32 comparison of simple operands (which the translator fuses
   * with the branch that uses it), otherwise any i32 expression.
   */
  private cond(depth: number): void {
    const r = this.rng;
    if (r.chance(0.5)) {
      this.expr('i32', depth);
      return;
    }
    const operand = (): void => {
      if (r.chance(0.6)) this.emit(`local.get ${this.local('i32')}`);
      else this.emit(this.constant('i32'));
    };
    operand();
    if (r.chance(0.15)) {
      this.emit('i32.eqz');
      return;
    }
    operand();
    this.emit(`i32.${r.pick(CMP)}`);
  }

  /** Emits code with no net stack effect. */
  private stmt(depth: number): void {
    const r = this.rng;
    const d = Math.max(depth - 1, 0);
    switch (r.int(depth <= 0 ? 4 : 11)) {
      case 0: case 1: {
        if (r.chance(0.25)) {
          const f = r.pick<F>(['f32', 'f64']);
          this.fexpr(f, d);
          this.emit(`local.set ${r.pick(FLOAT_LOCALS[f])}`);
          return;
        }
        const t = r.pick<T>(['i32', 'i64']);
        this.expr(t, d);
        this.emit(`local.set ${this.local(t)}`);
        return;
      }
      case 2: {
        const t = r.pick<T>(['i32', 'i64']);
        this.expr(t, d);
        this.emit(t === 'i32' ? 'global.set $g32' : 'global.set $g64');
        return;
      }
      case 3: {
        const t = r.pick<T>(['i32', 'i64']);
        this.emit(`i32.const ${8 * r.int(16)}`);
        this.expr(t, d);
        this.emit(t === 'i32' ? r.pick(['i32.store', 'i32.store8', 'i32.store16']) : r.pick(['i64.store', 'i64.store32', 'i64.store8']));
        return;
      }
      case 4: case 5: {
        this.cond(d);
        this.emit('if');
        this.labels.push([]);
        this.stmt(d);
        this.stmt(d);
        if (r.chance(0.5)) {
          this.emit('else');
          this.stmt(d);
        }
        this.labels.pop();
        this.emit('end');
        return;
      }
      case 6: { // bounded loop
        if (this.loopDepth >= COUNTERS.length) return;
        const c = COUNTERS[this.loopDepth]!;
        this.emit(`i32.const ${1 + r.int(5)} local.set ${c}`);
        this.emit('loop');
        this.loopDepth++;
        this.labels.push(null);
        this.stmt(d);
        this.stmt(d);
        this.emit(`local.get ${c} i32.const 1 i32.sub local.tee ${c} br_if 0`);
        this.labels.pop();
        this.loopDepth--;
        this.emit('end');
        return;
      }
      case 7: { // block left early by br_if, or by br from an if
        this.emit('block');
        this.labels.push([]);
        this.stmt(d);
        this.cond(d);
        if (r.chance(0.5)) this.emit('br_if 0');
        else this.emit('if br 1 end');
        this.stmt(d);
        this.labels.pop();
        this.emit('end');
        return;
      }
      case 8: { // early return
        this.cond(d);
        this.emit('if');
        this.labels.push([]);
        this.expr('i32', d);
        this.expr('i64', d);
        this.emit('return');
        this.labels.pop();
        this.emit('end');
        return;
      }
      case 9: { // branch to an enclosing label with its values (br_if, keeping them on fall-through)
        const k = r.int(this.labels.length + 1);
        // k === labels.length is the function's own label: a conditional return.
        const types = k === this.labels.length ? ['i32', 'i64'] as T[] : this.labels[this.labels.length - 1 - k]!;
        if (types === null) return this.stmt(0);
        for (const t of types) this.expr(t, d);
        this.cond(d);
        this.emit(`br_if ${k}`);
        for (let i = 0; i < types.length; i++) this.emit('drop');
        return;
      }
      default: {
        const t = r.pick<T>(['i32', 'i64']);
        this.expr(t, d);
        this.emit('drop');
      }
    }
  }
}
