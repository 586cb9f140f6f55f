/**
 * A translation's blocks as structured JavaScript: labelled blocks and loops in place of the
 * `for (;;) switch (blk)` that runs them in translate.ts.
 *
 * Why: V8's optimising compiler sees one loop in the switch form, whose header merges every
 * variable the function keeps from every jump: its graph, and its compile time, grow with the
 * blocks times the variables, and a straight run of blocks still pays a dispatch at each jump.
 * Structured, a jump is a `break` or `continue` to a label, and a variable merges only where
 * the code it came from meets. Code compiled from WebAssembly is structured, so its blocks nest
 * (a loop is contiguous, and nothing jumps into one but at its header); anything else makes
 * this answer null and the switch form stays.
 *
 * The input is the translator's lines as it writes them: `case K:` alone on a line starts block
 * K (blocks numbered in code order), a jump is `blk = K; continue;`, and block `leave` (written
 * by the caller after the blocks) is where every way out goes. It changes nothing but those: the
 * code of every block is the same, so the two forms do the same.
 *
 * Forward jumps to block T leave a labelled block `toT: { ... }` that ends just before T's code;
 * backward jumps, to a loop header H, continue `loopH: for (;;) { ... break loopH; }`, whose
 * body runs to the last block that jumps back to H. Each labelled block opens as late as it can:
 * before its first jump's block, or before the outermost loop that jump is in and T is not.
 *
 * Entries. The function is entered at its first block, and also at other blocks (loop headers
 * after a pause, the points after calls where the interpreter hands a frame back): entry k, in
 * the order of their blocks, sets `enter = k` before the body starts. A run of statements and
 * scopes with an entry past its first one starts with `switch (enter) { default: ... case k: ...
 * }`: no entry falls through all of it (a jump table, one look), entry k starts at the scope or
 * block that holds its block, and the innermost such switch on its way resets `enter` to 0.
 */

const BLOCK_START = /^case (\d+):$/;
const JUMP = /blk = (\d+); continue;/g;
/**
 * Scopes nest at most this deep (a br_table over many blocks nests one in another): V8's parser
 * recurses on each, and a deeper function keeps the switch form.
 */
const MAX_DEPTH = 100;

interface Scope {
  readonly kind: 'to' | 'loop';
  /** The block it opens before. */
  readonly from: number;
  /** The block it closes before (a loop: after its last block). */
  readonly end: number;
  /** The block it names: a forward target, or a loop's header. */
  readonly target: number;
  readonly items: Item[];
}

/** What a run of code holds: a block's code, or a scope and what it holds. */
type Item = { readonly block: number } | Scope;

const firstBlock = (item: Item): number => ('kind' in item ? item.from : item.block);
const endBlock = (item: Item): number => ('kind' in item ? item.end : item.block + 1);
/** The index of the item in `items` that holds block `b`. */
const holding = (items: readonly Item[], b: number): number => items.findIndex((item) => firstBlock(item) <= b && b < endBlock(item));

/**
 * The lines of blocks 0 … leave−1 (each block's first line `case K:`) as one structured body
 * whose every way out breaks to where block `leave` is to follow, entered at block 0 or, with
 * `enter` = k, at `entries[k − 1]` (blocks in increasing order, none of them 0); null where the
 * blocks do not nest.
 */
export function structuredBlocks(lines: readonly string[], leave: number, entries: readonly number[]): string[] | null {
  // Each block's lines, and its jumps.
  const blocks: string[][] = [];
  const jumps: Array<[from: number, to: number]> = [];
  for (const line of lines) {
    const start = line.startsWith('case ') ? BLOCK_START.exec(line) : null;
    if (start !== null) {
      if (Number(start[1]) !== blocks.length) return null;
      blocks.push([]);
      continue;
    }
    if (blocks.length === 0) return null;
    const b = blocks.length - 1;
    blocks[b]!.push(line);
    if (line.includes('blk = ')) for (const m of line.matchAll(JUMP)) jumps.push([b, Number(m[1])]);
  }
  if (blocks.length !== leave || leave === 0) return null;

  // Loops: from a header to its last back-edge, widened to hold any loop that starts inside.
  const loopEnd = new Map<number, number>();
  for (const [from, to] of jumps) if (to <= from) loopEnd.set(to, Math.max(loopEnd.get(to) ?? 0, from));
  const headers = [...loopEnd.keys()].sort((a, b) => a - b);
  for (const h of [...headers].reverse()) {
    for (const inner of headers) if (inner > h && inner <= loopEnd.get(h)!) loopEnd.set(h, Math.max(loopEnd.get(h)!, loopEnd.get(inner)!));
  }
  const loops = headers.map((h) => ({ header: h, last: loopEnd.get(h)! }));

  // Forward targets: each one's labelled block, opened before its first jump, then widened
  // until it holds whole every loop it starts in and every labelled block it starts in.
  const opensAt = new Map<number, number>();
  for (const [from, to] of jumps) if (to > from) opensAt.set(to, Math.min(opensAt.get(to) ?? from, from));
  const targets = [...opensAt.keys()].sort((a, b) => a - b);
  for (let changed = true; changed; ) {
    changed = false;
    for (const t of targets) {
      let open = opensAt.get(t)!;
      for (const { header, last } of loops) {
        if (header < open && open <= last && last < t) open = header;
      }
      for (const u of targets) {
        if (u < t && opensAt.get(u)! < open && open < u) open = opensAt.get(u)!;
      }
      if (open !== opensAt.get(t)) {
        opensAt.set(t, open);
        changed = true;
      }
    }
  }

  const scopes: Scope[] = [
    ...targets.map((t): Scope => ({ kind: 'to', from: opensAt.get(t)!, end: t, target: t, items: [] })),
    ...loops.map(({ header, last }): Scope => ({ kind: 'loop', from: header, end: last + 1, target: header, items: [] })),
  ];
  // Outer first where two open at one block: the one ending later, a labelled block before the
  // loop it holds.
  scopes.sort((a, b) => a.from - b.from || b.end - a.end || (a.kind === 'to' ? -1 : 1));

  // The tree of scopes and blocks; null where two scopes cross.
  const root: Item[] = [];
  const open: Scope[] = [];
  const current = (): Item[] => (open.length > 0 ? open[open.length - 1]!.items : root);
  let next = 0;
  for (let b = 0; b < leave; b++) {
    while (open.length > 0 && open[open.length - 1]!.end === b) open.pop();
    if (open.some((s) => s.end <= b)) return null;
    for (; next < scopes.length && scopes[next]!.from === b; next++) {
      const scope = scopes[next]!;
      if (open.length > 0 && open[open.length - 1]!.end < scope.end) return null;
      if (open.length === MAX_DEPTH) return null;
      current().push(scope);
      open.push(scope);
    }
    current().push({ block: b });
  }
  if (open.some((s) => s.end !== leave) || next < scopes.length) return null;

  const out: string[] = [];
  const enclosing: Scope[] = [];
  let valid = true;
  const emitItem = (item: Item): void => {
    if (!('kind' in item)) {
      const b = item.block;
      for (const line of blocks[b]!) {
        out.push(line.replace(JUMP, (_, target: string) => {
          const t = Number(target);
          const scope = enclosing.find((s) => s.target === t && (s.kind === 'loop' ? t <= b : t > b));
          if (scope === undefined) valid = false;
          return scope?.kind === 'loop' ? `continue loop${t};` : `break to${t};`;
        }));
      }
      return;
    }
    out.push(item.kind === 'to' ? `to${item.target}: {` : `loop${item.target}: for (;;) {`);
    enclosing.push(item);
    emitRun(item.items);
    enclosing.pop();
    out.push(item.kind === 'to' ? '}' : `break loop${item.target}; }`);
  };
  // A run of items, with the switch that enters it past its first item where an entry is there.
  const emitRun = (items: readonly Item[]): void => {
    const from = firstBlock(items[0]!);
    const to = endBlock(items[items.length - 1]!);
    // Entries here past the first item: at which item, and whether no run inside that item skips for it.
    const at = new Map<number, { resetting: number[]; passing: number[] }>();
    entries.forEach((block, i) => {
      if (block < from || block >= to) return;
      const p = holding(items, block);
      if (p <= 0) return;
      let innermost = true;
      for (let item = items[p]!; 'kind' in item; ) {
        const q = holding(item.items, block);
        if (q > 0) innermost = false;
        item = item.items[q]!;
      }
      if (!at.has(p)) at.set(p, { resetting: [], passing: [] });
      at.get(p)![innermost ? 'resetting' : 'passing'].push(i + 1);
    });
    if (at.size > 0) out.push('switch (enter) { default:');
    items.forEach((item, p) => {
      const here = at.get(p);
      if (here !== undefined) {
        const labels = (ks: number[]): string => ks.map((k) => `case ${k}:`).join(' ');
        out.push(`${labels(here.resetting)}${here.resetting.length > 0 ? ' enter = 0;' : ''} ${labels(here.passing)}`.trim());
      }
      emitItem(item);
    });
    if (at.size > 0) out.push('}');
  };
  emitRun(root);
  return valid ? out : null;
}
