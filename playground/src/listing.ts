/**
 * The disassembly panel (`#dbg-listing`): a line per instruction with its byte offset in the
 * module (`data-offset`), as `CompiledModule.disassemble()` lists them. Clicking a line toggles
 * a breakpoint there (class `breakpoint`); during a debug session the panel shows the paused
 * function with its current instruction (class `current`); after a profiled run the
 * instructions that ran are marked (class `covered`).
 */
import { h, hex } from './dom.js';

export interface ListingLine {
  readonly offset: number;
  /** The instruction, indented by its block depth. */
  readonly text: string;
}

export interface FuncListing {
  readonly funcIndex: number;
  /** `func[1]: (i32) -> (i32)` or `func[0] <div>: (i32, i32) -> (i32)`. */
  readonly header: string;
  readonly lines: readonly ListingLine[];
}

/** `disassemble()`'s text, by function. */
export function parseDisassembly(text: string): FuncListing[] {
  const funcs: Array<{ funcIndex: number; header: string; lines: ListingLine[] }> = [];
  for (const line of text.split('\n')) {
    const head = /^func\[(\d+)\]/.exec(line);
    if (head) {
      funcs.push({ funcIndex: Number(head[1]), header: line, lines: [] });
      continue;
    }
    const ins = /^\s*0x([0-9a-f]+): (.*)$/.exec(line);
    if (ins && funcs.length > 0) funcs[funcs.length - 1]!.lines.push({ offset: parseInt(ins[1]!, 16), text: ins[2]! });
  }
  return funcs;
}

/** A breakpoint's key: the function and the instruction's offset. */
export const breakpointKey = (funcIndex: number, offset: number): string => `${funcIndex}:${offset}`;

/** The most lines the module view renders (a large module's disassembly is cut there). */
const MAX_LINES = 20_000;

export interface Coverage {
  /** Offsets of the instructions that ran (offsets are unique in a module). */
  readonly covered: ReadonlySet<number>;
  /** Per function: how many of its instructions ran, of how many. */
  readonly perFunction: ReadonlyMap<number, { ran: number; total: number }>;
}

export class Listing {
  private funcs: FuncListing[] = [];
  /** Indented text by offset, from the module's disassembly. */
  private textAt = new Map<number, string>();
  private exportNames = new Map<number, string[]>();
  private coverage: Coverage | null = null;
  /** The function shown alone (a debug session), or null for the whole module. */
  private focus: { funcIndex: number; lines: readonly ListingLine[]; current: number | null; caption: string } | null = null;

  constructor(
    private readonly el: HTMLElement,
    private readonly breakpoints: ReadonlySet<string>,
    onToggle: (funcIndex: number, offset: number) => void,
  ) {
    el.addEventListener('click', (event) => {
      const line = (event.target as HTMLElement).closest<HTMLElement>('.line');
      if (line === null || !el.contains(line)) return;
      onToggle(Number(line.dataset.func), Number(line.dataset.offset));
    });
  }

  /** A new module: its disassembly, and the export names of its functions. Clears coverage. */
  setModule(funcs: FuncListing[], exportNames: Map<number, string[]>): void {
    this.funcs = funcs;
    this.exportNames = exportNames;
    this.textAt = new Map(funcs.flatMap((f) => f.lines.map((l) => [l.offset, l.text] as const)));
    this.coverage = null;
    this.focus = null;
    this.render();
  }

  /** No module (the text does not compile): keeps nothing. */
  clear(message: string): void {
    this.funcs = [];
    this.textAt.clear();
    this.coverage = null;
    this.focus = null;
    this.el.classList.remove('has-coverage');
    this.el.replaceChildren(h('div', { class: 'empty' }, message));
  }

  setCoverage(coverage: Coverage | null): void {
    this.coverage = coverage;
    this.render();
  }

  /** Shows one function (`lines`, from the debugger), `current` marked and scrolled to. */
  showFunction(funcIndex: number, lines: readonly ListingLine[], current: number | null, caption: string): void {
    this.focus = { funcIndex, lines: lines.map((l) => ({ offset: l.offset, text: this.textAt.get(l.offset) ?? l.text })), current, caption };
    this.render();
  }

  /** Back to the whole module. */
  showModule(): void {
    this.focus = null;
    this.render();
  }

  /** Draws the lines again (after a breakpoint changed). */
  render(): void {
    const rows: HTMLElement[] = [];
    const funcs = this.focus === null
      ? this.funcs
      : [{ funcIndex: this.focus.funcIndex, header: this.headerOf(this.focus.funcIndex), lines: this.focus.lines }];
    let count = 0;
    let currentRow: HTMLElement | null = null;
    for (const f of funcs) {
      if (count >= MAX_LINES) break;
      rows.push(this.head(f, this.focus?.caption));
      for (const line of f.lines) {
        if (count++ >= MAX_LINES) break;
        const row = this.line(f.funcIndex, line);
        if (this.focus !== null && line.offset === this.focus.current) {
          row.classList.add('current');
          currentRow = row;
        }
        rows.push(row);
      }
    }
    const total = funcs.reduce((n, f) => n + f.lines.length, 0);
    if (total > MAX_LINES) rows.push(h('div', { class: 'empty' }, `… ${total - MAX_LINES} more instructions (the first ${MAX_LINES} are shown)`));
    if (rows.length === 0) rows.push(h('div', { class: 'empty' }, 'The module defines no functions.'));
    this.el.replaceChildren(...rows);
    this.el.classList.toggle('has-coverage', this.coverage !== null);
    if (currentRow !== null) this.scrollTo(currentRow);
  }

  private headerOf(funcIndex: number): string {
    return this.funcs.find((f) => f.funcIndex === funcIndex)?.header ?? `func[${funcIndex}]`;
  }

  private head(f: FuncListing, caption?: string): HTMLElement {
    const names = this.exportNames.get(f.funcIndex);
    const el = h('div', { class: 'func-head', 'data-func': f.funcIndex }, f.header);
    if (names !== undefined) el.append(h('span', { class: 'exports' }, ` export ${names.map((n) => JSON.stringify(n)).join(', ')}`));
    const cov = this.coverage?.perFunction.get(f.funcIndex);
    if (cov !== undefined) el.append(h('span', { class: 'cov' }, `${cov.ran}/${cov.total} ran`));
    if (caption !== undefined) el.append(h('span', { class: 'caption' }, caption));
    return el;
  }

  private line(funcIndex: number, line: ListingLine): HTMLElement {
    const classes = ['line'];
    if (this.breakpoints.has(breakpointKey(funcIndex, line.offset))) classes.push('breakpoint');
    if (this.coverage?.covered.has(line.offset)) classes.push('covered');
    return h('div', {
      class: classes.join(' '),
      role: 'listitem',
      'data-func': funcIndex,
      'data-offset': line.offset,
      title: 'click: breakpoint on/off',
    },
    h('span', { class: 'gutter' }),
    h('span', { class: 'addr' }, hex(line.offset, 6)),
    h('span', { class: 'text' }, line.text));
  }

  /** Scrolls the panel (not the page) so that `row` is in view. */
  private scrollTo(row: HTMLElement): void {
    const el = this.el;
    const top = row.offsetTop; // the panel is the offsetParent (position: relative)
    if (top < el.scrollTop || top + row.offsetHeight > el.scrollTop + el.clientHeight) {
      el.scrollTop = Math.max(0, top - el.clientHeight / 3);
    }
  }
}
