/**
 * Reading a module compiled with probes (CompileOptions.probes), for the monitors and the
 * debugger: where each instruction is, what it is, and the values of the operand stack and
 * the locals in a frame. The compiler puts a probe before every instruction that can run and
 * records, per probe, the function, the instruction's byte offset and where each operand
 * stack entry is — a slot of the frame or a constant (compiler.ts, ProbeSite) — so the values
 * here are the specification's operand stack, entry for entry, although the translation keeps
 * `local.get`s and constants out of the code.
 */
import type { CompiledModule as EngineModule } from '../interpreter/module.js';
import type { ProbeSite } from '../interpreter/compiler.js';
import type { StackNode } from '../interpreter/operand-stack.js';
import type { Store } from '../interpreter/store.js';
import { disassembleInstructions } from '../interpreter/disassemble.js';
import { isRefType, V128, type ValType, valueWords } from '../interpreter/types.js';
import { WasmValue } from '../interpreter/values.js';
import { frameName } from '../interpreter/errors.js';

const readers = new WeakMap<EngineModule, ProbedModule>();

export class ProbedModule {
  /** Each defined function's instructions by offset, as the text format writes them (made when first asked). */
  private readonly texts = new Map<number, Map<number, string>>();
  /** Probe sites by function and offset (made when first asked). */
  private siteIndex: Map<number, Map<number, number>> | null = null;

  constructor(readonly module: EngineModule) {
    if (!module.probed) throw new TypeError('ProbedModule: the module was not compiled with probes');
  }

  /** The reader of `module` (one per module), or null when it was not compiled with probes. */
  static of(module: EngineModule): ProbedModule | null {
    if (!module.probed) return null;
    let probed = readers.get(module);
    if (probed === undefined) readers.set(module, (probed = new ProbedModule(module)));
    return probed;
  }

  get sites(): readonly ProbeSite[] {
    return this.module.functions.probes;
  }

  /** The function as a backtrace names it: `module!function` (frameName). */
  qualifiedName(funcIndex: number): string {
    const { functionNames, moduleName } = this.module.ir;
    return frameName({ funcIndex, funcName: functionNames.get(funcIndex), moduleName: moduleName ?? undefined });
  }

  /** Whether `funcIndex` is a function the module defines (not an import). */
  defines(funcIndex: number): boolean {
    return Number.isInteger(funcIndex) && funcIndex >= this.module.numImportedFuncs && funcIndex < this.module.funcTypes.length;
  }

  /** A defined function's instructions by module offset, as the text format writes them. */
  instructions(funcIndex: number): ReadonlyMap<number, string> {
    let texts = this.texts.get(funcIndex);
    if (texts === undefined) {
      const body = this.module.ir.codes[funcIndex - this.module.numImportedFuncs]!;
      const list = disassembleInstructions(this.module.ir.bytes, body.codeStart, body.codeEnd);
      texts = new Map(list.map((i) => [i.offset, i.text.trim()]));
      this.texts.set(funcIndex, texts);
    }
    return texts;
  }

  /** The probe before the instruction at `offset` of `funcIndex`, or -1 (no such instruction, or it can never run). */
  siteAt(funcIndex: number, offset: number): number {
    return this.sitesOf(funcIndex)?.get(offset) ?? -1;
  }

  /** The first probe of a defined function (before its first instruction), or -1. */
  entrySite(funcIndex: number): number {
    const byOffset = this.sitesOf(funcIndex);
    // Sites are made in code order: a function's first is its entry.
    return byOffset === undefined ? -1 : byOffset.values().next().value ?? -1;
  }

  private sitesOf(funcIndex: number): ReadonlyMap<number, number> | undefined {
    if (this.siteIndex === null) {
      const index = new Map<number, Map<number, number>>();
      this.sites.forEach((p, site) => {
        let byOffset = index.get(p.funcIndex);
        if (byOffset === undefined) index.set(p.funcIndex, (byOffset = new Map()));
        byOffset.set(p.offset, site);
      });
      this.siteIndex = index;
    }
    return this.siteIndex.get(funcIndex);
  }

  /**
   * The operand stack at probe `site` in the frame at `base`, bottom first: all of it, or its
   * top `limit` entries.
   */
  stack(site: number, store: Store, s32: Int32Array, base: number, limit = Infinity): WasmValue[] {
    const values: WasmValue[] = [];
    for (let node: StackNode | null = this.sites[site]!.stack; node !== null && values.length < limit; node = node.below) {
      values.push(node.word < 0 ? constantValue(node, store) : readValue(node.type, store, s32, base + node.word));
    }
    return values.reverse();
  }

  /** How deep the operand stack is at probe `site`. */
  stackDepth(site: number): number {
    return this.sites[site]!.stack?.depth ?? 0;
  }

  /** The parameters and locals of defined function `funcIndex` in the frame at `base`, in index order. */
  locals(funcIndex: number, store: Store, s32: Int32Array, base: number): WasmValue[] {
    const types = [...this.module.funcTypes[funcIndex]!.params, ...this.module.ir.codes[funcIndex - this.module.numImportedFuncs]!.locals];
    const values: WasmValue[] = [];
    // Laid out in order from the frame's base, each taking its words (operand-stack.ts, layOut).
    let word = base;
    for (const type of types) {
      values.push(readValue(type, store, s32, word));
      word += valueWords(type);
    }
    return values;
  }
}

/** The value of `type` at word `word`. */
export function readValue(type: ValType, store: Store, s32: Int32Array, word: number): WasmValue {
  if (isRefType(type)) return store.idToRef(type, s32[word]!);
  if (type === V128) return WasmValue.v128Words(s32[word]!, s32[word + 1]!, s32[word + 2]!, s32[word + 3]!);
  return WasmValue.fromSlot(type, s32[word]!, s32[word + 1]!);
}

function constantValue(node: StackNode, store: Store): WasmValue {
  return isRefType(node.type) ? store.idToRef(node.type, node.lo) : WasmValue.fromSlot(node.type, node.lo, node.hi);
}
