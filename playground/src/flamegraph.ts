/**
 * The fuel profile drawn: a flame graph from the profile's folded stacks
 * (`Profile.toFolded()`: `a;b;c FUEL` per call path), each frame a rectangle as wide as the fuel
 * spent in it and everything it called, the callers below; and the per-function table. Click
 * a frame to zoom into it, the bottom one to zoom out.
 */
import type { FunctionProfile } from '../../src/index.js';
import { h } from './dom.js';

interface FlameNode {
  readonly name: string;
  /** Fuel in this frame and below it. */
  total: number;
  /** Fuel in this frame's own code. */
  self: number;
  readonly children: Map<string, FlameNode>;
  readonly parent: FlameNode | null;
}

/** The call tree of folded stacks. A name may hold spaces (`<wasm function 1>`): the fuel is after the last. */
export function parseFolded(folded: string, rootName = 'all'): FlameNode {
  const root: FlameNode = { name: rootName, total: 0, self: 0, children: new Map(), parent: null };
  for (const line of folded.split('\n')) {
    const cut = line.lastIndexOf(' ');
    if (cut <= 0) continue;
    const fuel = Number(line.slice(cut + 1));
    if (!Number.isFinite(fuel)) continue;
    let node = root;
    node.total += fuel;
    for (const name of line.slice(0, cut).split(';')) {
      let child = node.children.get(name);
      if (child === undefined) {
        child = { name, total: 0, self: 0, children: new Map(), parent: node };
        node.children.set(name, child);
      }
      child.total += fuel;
      node = child;
    }
    node.self += fuel;
  }
  return root;
}

const ROW = 20;

/** A warm colour from the name, the same for a function wherever it appears. */
function colour(name: string): string {
  let x = 0;
  for (let i = 0; i < name.length; i++) x = (x * 31 + name.charCodeAt(i)) >>> 0;
  return `hsl(${10 + (x % 45)}, ${70 + (x % 20)}%, ${58 + ((x >> 8) % 12)}%)`;
}

export class FlameGraph {
  private root: FlameNode | null = null;
  private zoom: FlameNode | null = null;
  private label: (name: string) => string = (n) => n;

  constructor(private readonly el: HTMLElement) {
    el.addEventListener('click', (event) => {
      const frame = (event.target as HTMLElement).closest<HTMLElement>('.frame');
      if (frame === null || this.root === null) return;
      const path = frame.dataset.path!;
      this.zoom = path === '' ? null : this.find(path);
      this.render();
    });
  }

  /** Draws `folded`; `label` names a frame on screen (the full name stays in its title). */
  show(folded: string, totalFuel: number, label: (name: string) => string): void {
    this.root = parseFolded(folded);
    // Fuel the profile does not place on a path (none, normally) still counts in the whole.
    this.root.total = Math.max(this.root.total, totalFuel);
    this.zoom = null;
    this.label = label;
    this.render();
  }

  clear(message = ''): void {
    this.root = null;
    this.zoom = null;
    this.el.replaceChildren(...(message === '' ? [] : [h('div', { class: 'empty' }, message)]));
  }

  private find(path: string): FlameNode | null {
    let node: FlameNode | undefined = this.root!;
    for (const name of JSON.parse(path) as string[]) node = node?.children.get(name);
    return node ?? null;
  }

  private pathOf(node: FlameNode): string[] {
    const names: string[] = [];
    for (let n: FlameNode | null = node; n !== null && n.parent !== null; n = n.parent) names.unshift(n.name);
    return names;
  }

  private render(): void {
    const root = this.root;
    if (root === null) return;
    if (root.total === 0) {
      this.clear('The run consumed no fuel.');
      return;
    }
    const focus = this.zoom ?? root;
    // The frames to draw: the focus's ancestors full width, the focus and its subtree scaled to it.
    const frames: Array<{ node: FlameNode; depth: number; x: number; w: number }> = [];
    const ancestors: FlameNode[] = [];
    for (let n: FlameNode | null = focus; n !== null; n = n.parent) ancestors.unshift(n);
    ancestors.forEach((node, depth) => frames.push({ node, depth, x: 0, w: 1 }));
    const walk = (node: FlameNode, depth: number, x: number): void => {
      let at = x;
      for (const child of node.children.values()) {
        const w = child.total / focus.total;
        frames.push({ node: child, depth, x: at, w });
        walk(child, depth + 1, at);
        at += w;
      }
    };
    walk(focus, ancestors.length, 0);
    const depth = Math.max(...frames.map((f) => f.depth)) + 1;
    const graph = h('div', { class: 'flame', style: `height:${depth * ROW}px` });
    for (const { node, depth: d, x, w } of frames) {
      if (w < 0.001) continue;
      const pct = (100 * node.total) / root.total;
      const isRoot = node.parent === null;
      const name = isRoot ? `all (${root.total} fuel)` : this.label(node.name);
      const title = isRoot
        ? `all: ${root.total} fuel`
        : `${node.name}\n${node.total} fuel (${pct.toFixed(1)}%), ${node.self} in its own code`;
      const el = h('div', {
        class: `frame${isRoot ? ' root' : ''}${node === focus && !isRoot ? ' focus' : ''}`,
        title,
        'data-name': isRoot ? '' : node.name,
        'data-fuel': node.total,
        'data-path': isRoot ? '' : JSON.stringify(this.pathOf(node)),
        style: `left:${(x * 100).toFixed(4)}%;width:${(w * 100).toFixed(4)}%;top:${d * ROW}px;` +
          (isRoot ? '' : `background:${colour(node.name)}`),
      }, h('span', {}, `${name}${isRoot ? '' : ` · ${node.total}`}`));
      graph.append(el);
    }
    this.el.replaceChildren(graph);
  }
}

/** The per-function table: self and total fuel, calls. */
export function functionTable(el: HTMLElement, functions: readonly FunctionProfile[], totalFuel: number, label: (name: string) => string): void {
  const head = h('tr', {}, h('th', {}, 'function'), h('th', {}, 'calls'), h('th', {}, 'self fuel'), h('th', {}, 'total fuel'), h('th', {}, 'self %'));
  const rows = functions.map((f) => h('tr', { 'data-func': f.funcIndex },
    h('td', { title: f.funcName }, label(f.funcName)),
    h('td', { class: 'num' }, String(f.calls)),
    h('td', { class: 'num' }, String(f.selfFuel)),
    h('td', { class: 'num' }, String(f.totalFuel)),
    h('td', { class: 'num' }, totalFuel > 0 ? `${((100 * f.selfFuel) / totalFuel).toFixed(1)}%` : '–')));
  el.replaceChildren(h('thead', {}, head), h('tbody', {}, ...rows));
}
