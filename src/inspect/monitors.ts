/**
 * The monitors that watch instructions: coverage (which instructions ran) and the trace (the
 * first N instructions run, with the values on top of the operand stack). They need a module
 * compiled with probes (probes.ts); the interpreter tells the store's monitor at every probe.
 * The probes change the code, not its meaning: the same results and the same fuel (tested on
 * the core suite), only slower; a watched run stays in the interpreter.
 */
import type { Execution, InstructionMonitor } from '../interpreter/execution.js';
import type { ProbedModule } from './probes.js';

/** Per function, the instructions that ran. */
export interface FunctionCoverage {
  readonly funcIndex: number;
  /** As a backtrace names it: `module!function`. */
  readonly funcName: string;
  /** Byte offsets in the module of the instructions that ran, in order. */
  readonly covered: readonly number[];
  /** How many instructions the function has (its final `end` included). */
  readonly instructions: number;
}

/** One instruction of the trace. */
export interface TraceEntry {
  readonly funcIndex: number;
  readonly funcName: string;
  /** Byte offset of the instruction in the module. */
  readonly offset: number;
  /** The instruction as the text format writes it. */
  readonly instruction: string;
  /** The operand stack's top values before it ran (at most TRACE_STACK_VALUES), bottom first, as `type:value`. */
  readonly stack: readonly string[];
}

/** How many of the operand stack's top values a trace entry shows. */
export const TRACE_STACK_VALUES = 4;

/** Coverage and the trace, for one run (or one instance call). */
export class InstructionWatch implements InstructionMonitor {
  /** Per probe site, whether it was reached (coverage on). */
  private readonly hits: Uint8Array | null;
  private readonly entries: TraceEntry[] = [];
  private traceLeft: number;
  /** Whether a trace was asked for (a limit of 0 asks for an empty one). */
  readonly tracing: boolean;

  /** `traceLimit`: how many instructions to trace, or null for no trace. */
  constructor(private readonly probed: ProbedModule, options: { coverage: boolean; traceLimit: number | null }) {
    this.hits = options.coverage ? new Uint8Array(probed.sites.length) : null;
    this.traceLeft = options.traceLimit ?? 0;
    this.tracing = options.traceLimit !== null;
  }

  probe(site: number, ex: Execution, base: number): null {
    const inst = ex.inst!;
    // Only the module's own instructions: another instance's module has no probes to report.
    if (inst.module !== this.probed.module) return null;
    if (this.hits !== null) this.hits[site] = 1;
    if (this.traceLeft > 0) {
      this.traceLeft--;
      const p = this.probed.sites[site]!;
      this.entries.push({
        funcIndex: p.funcIndex,
        funcName: this.probed.qualifiedName(p.funcIndex),
        offset: p.offset,
        instruction: this.probed.instructions(p.funcIndex).get(p.offset) ?? '?',
        stack: this.probed.stack(site, inst.store, ex.s32, base, TRACE_STACK_VALUES).map(String),
      });
    }
    return null;
  }

  /** The trace: the first `traceLimit` instructions run. */
  trace(): readonly TraceEntry[] {
    return this.entries;
  }

  /** Coverage per defined function, in index order (null without coverage). */
  coverage(): FunctionCoverage[] | null {
    const hits = this.hits;
    if (hits === null) return null;
    const covered = new Map<number, number[]>();
    this.probed.sites.forEach((p, site) => {
      if (hits[site] === 1) {
        const list = covered.get(p.funcIndex);
        if (list === undefined) covered.set(p.funcIndex, [p.offset]);
        else list.push(p.offset);
      }
    });
    const module = this.probed.module;
    return module.ir.codes.map((_, i) => {
      const funcIndex = i + module.numImportedFuncs;
      return {
        funcIndex,
        funcName: this.probed.qualifiedName(funcIndex),
        covered: covered.get(funcIndex) ?? [],
        instructions: this.probed.instructions(funcIndex).size,
      };
    });
  }
}
