/**
 * The deterministic profile: where a run's fuel went, by function and by call path. It counts
 * fuel, not samples, so it is the same on every run and every machine, and the functions'
 * self fuel adds up to the fuel the run consumed exactly.
 *
 * The interpreter tells the profiler at every change of function — a call's entry, a return,
 * a tail call, an exception unwinding frames — with the frame depth and the fuel left then;
 * the fuel spent since the last change belongs to the function that was running. (A profiled
 * run stays in the interpreter: the JavaScript tier would not say.) The call paths form a tree
 * whose nodes hold self fuel; the per-function table, the folded stacks, speedscope's format and
 * Chrome's `.cpuprofile` are views of it.
 */
import type { Instance } from '../interpreter/instance.js';
import { functionAt } from '../interpreter/execution.js';
import { frameName } from '../interpreter/errors.js';

/** One function's line of the profile. */
export interface FunctionProfile {
  readonly funcIndex: number;
  /** `module!function` from the `name` section, else `<wasm function N>` (as backtraces name it). */
  readonly funcName: string;
  /** Times it was entered (a tail call counts as an entry). */
  readonly calls: number;
  /** Fuel spent in its own code. */
  readonly selfFuel: number;
  /** Fuel spent in it and everything it called (an activation inside another of itself counted once). */
  readonly totalFuel: number;
}

class PathNode {
  readonly children = new Map<string, PathNode>();
  self = 0;
  calls = 0;
  /** The child last entered, and from where (an instance and its entry position): most calls repeat the last. */
  lastChild: PathNode | null = null;
  lastInst: Instance | null = null;
  lastPc = -1;
  constructor(readonly parent: PathNode | null, readonly key: string, readonly name: string, readonly funcIndex: number, readonly depth: number) {}
}

/** What the interpreter calls (execution.ts: Execution.profiler). */
export class FuelProfiler {
  private readonly root = new PathNode(null, '', '(root)', -1, 0);
  private node = this.root;
  private lastFuel: number;

  constructor(startFuel: number) {
    this.lastFuel = startFuel;
  }

  /** Fuel spent down to `fuel` left belongs to the node running; fuel below zero never counts (a run that ran out). */
  private spend(fuel: number): void {
    const left = Math.max(0, fuel);
    this.node.self += this.lastFuel - left;
    this.lastFuel = left;
  }

  /** A function is entered at frame depth `depth` (its frame's), at code position `pc` of `inst`. */
  enter(depth: number, inst: Instance, pc: number, fuel: number): void {
    this.spend(fuel);
    while (this.node.depth >= depth && this.node.parent !== null) this.node = this.node.parent;
    const node = this.node;
    let child = node.lastChild;
    if (child === null || node.lastPc !== pc || node.lastInst !== inst) {
      child = this.childOf(node, inst, pc);
      node.lastChild = child;
      node.lastInst = inst;
      node.lastPc = pc;
    }
    child.calls++;
    this.node = child;
  }

  /** The child of `node` for the function of `inst` whose code starts at `pc`, made the first time. */
  private childOf(node: PathNode, inst: Instance, pc: number): PathNode {
    const frame = functionAt(inst, pc);
    const key = `${inst.id}:${frame.funcIndex}`;
    let child = node.children.get(key);
    if (child === undefined) {
      child = new PathNode(node, key, frameName(frame), frame.funcIndex, node.depth + 1);
      node.children.set(key, child);
    }
    return child;
  }

  /** Frames above `depth` are gone (returns, an exception's unwinding, the run's end). */
  leaveTo(depth: number, fuel: number): void {
    this.spend(fuel);
    while (this.node.depth > depth && this.node.parent !== null) this.node = this.node.parent;
  }

  /** The profile so far. */
  profile(): Profile {
    return new Profile(this.root);
  }
}

export class Profile {
  /** Per function, by self fuel, most first. */
  readonly functions: readonly FunctionProfile[];
  /** All the fuel the profile accounts for (the run's fuel consumed). */
  readonly totalFuel: number;

  constructor(private readonly root: PathNode) {
    const byKey = new Map<string, { funcIndex: number; funcName: string; calls: number; selfFuel: number; totalFuel: number }>();
    const walk = (node: PathNode, open: ReadonlySet<string>): number => {
      let inclusive = node.self;
      const inside = node === root ? open : new Set([...open, node.key]);
      for (const child of node.children.values()) inclusive += walk(child, inside);
      if (node !== root) {
        const line = byKey.get(node.key) ?? { funcIndex: node.funcIndex, funcName: node.name, calls: 0, selfFuel: 0, totalFuel: 0 };
        line.calls += node.calls;
        line.selfFuel += node.self;
        if (!open.has(node.key)) line.totalFuel += inclusive;
        byKey.set(node.key, line);
      }
      return inclusive;
    };
    this.totalFuel = walk(root, new Set());
    this.functions = Object.freeze([...byKey.values()].sort((a, b) => b.selfFuel - a.selfFuel || a.funcIndex - b.funcIndex));
  }

  private paths(): Array<{ stack: PathNode[]; self: number }> {
    const out: Array<{ stack: PathNode[]; self: number }> = [];
    const walk = (node: PathNode, stack: PathNode[]): void => {
      const here = node === this.root ? stack : [...stack, node];
      if (node !== this.root && node.self > 0) out.push({ stack: here, self: node.self });
      for (const child of node.children.values()) walk(child, here);
    };
    walk(this.root, []);
    return out;
  }

  /** Folded stacks (Brendan Gregg's format, for flame graphs): `a;b;c FUEL` per call path. */
  toFolded(): string {
    return this.paths().map(({ stack, self }) => `${stack.map((n) => n.name).join(';')} ${self}`).join('\n');
  }

  /** speedscope's file format: one sampled profile whose weights are fuel. */
  toSpeedscope(name = 'sandboxd-ts fuel profile'): object {
    const frames: Array<{ name: string }> = [];
    const index = new Map<string, number>();
    const frameOf = (n: PathNode): number => {
      let i = index.get(n.name);
      if (i === undefined) {
        i = frames.length;
        frames.push({ name: n.name });
        index.set(n.name, i);
      }
      return i;
    };
    const paths = this.paths();
    return {
      $schema: 'https://www.speedscope.app/file-format-schema.json',
      shared: { frames },
      profiles: [{
        type: 'sampled', name, unit: 'none', startValue: 0, endValue: this.totalFuel,
        samples: paths.map(({ stack }) => stack.map(frameOf)),
        weights: paths.map(({ self }) => self),
      }],
      exporter: 'sandboxd-ts',
    };
  }

  /** Chrome's `.cpuprofile` (DevTools' Performance panel): one sample per call path, fuel as microseconds. */
  toCpuProfile(): object {
    type CpuNode = { id: number; callFrame: object; hitCount: number; children: number[] };
    const nodes: CpuNode[] = [];
    const samples: number[] = [];
    const timeDeltas: number[] = [];
    const visit = (node: PathNode): number => {
      const id = nodes.length + 1;
      const entry: CpuNode = {
        id,
        callFrame: { functionName: node.name, scriptId: '0', url: '', lineNumber: -1, columnNumber: -1 },
        hitCount: node.self > 0 ? 1 : 0,
        children: [],
      };
      nodes.push(entry);
      if (node.self > 0) {
        samples.push(id);
        timeDeltas.push(node.self);
      }
      for (const child of node.children.values()) entry.children.push(visit(child));
      return id;
    };
    visit(this.root);
    return { nodes, startTime: 0, endTime: this.totalFuel, samples, timeDeltas };
  }
}
