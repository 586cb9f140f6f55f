/**
 * The debugger's side of the page: a `Debugger` session (`sandbox.debug`) driven by the step
 * buttons, and its panels — the call stack (`#dbg-frames`; click a frame to see its locals and
 * stack), locals (`#dbg-locals`), the operand stack (`#dbg-stack`), globals (`#dbg-globals`)
 * and a hex view of memory (`#dbg-memory`) that follows the address typed in `#dbg-addr`. The
 * listing (`#dbg-listing`) shows the function of the selected frame, its instruction marked.
 */
import type { CompiledModule, DebugEvent, DebugFrame, DebugValue, Debugger, Limits, Sandbox, Value } from '../../src/index.js';
import { byId, h, hex } from './dom.js';
import { breakpointKey, type Listing } from './listing.js';

export type StepCommand = 'step' | 'stepOver' | 'stepOut' | 'continue';

export interface DebugHost {
  readonly listing: Listing;
  /** The breakpoints, by `breakpointKey` (shared with the listing). */
  readonly breakpoints: Set<string>;
  /** A frame's function as the page names it. */
  label(funcName: string, funcIndex: number): string;
  /** The session ended: the run finished or failed (or was stopped). */
  ended(event: Exclude<DebugEvent, { kind: 'paused' }>): void;
  /** Says what the session is doing (`paused`, `running`, ...). */
  status(kind: string, text: string): void;
}

interface Session {
  readonly debugger: Debugger;
  readonly controller: AbortController;
  /** The frames of the last pause, innermost first. */
  frames: readonly DebugFrame[];
  selected: number;
  /** A command is under way. */
  running: boolean;
  ended: boolean;
  /** Parameters of each function (to tell parameters from locals). */
  readonly params: ReadonlyMap<number, number>;
}

const MEMORY_ROWS = 16;

export class DebugPanel {
  private session: Session | null = null;
  private readonly buttons: Record<StepCommand, HTMLButtonElement>;
  private readonly addr = byId<HTMLInputElement>('dbg-addr');

  constructor(private readonly host: DebugHost) {
    this.buttons = {
      step: byId('dbg-step'),
      stepOver: byId('dbg-over'),
      stepOut: byId('dbg-out'),
      continue: byId('dbg-continue'),
    };
    for (const [command, button] of Object.entries(this.buttons) as Array<[StepCommand, HTMLButtonElement]>) {
      button.addEventListener('click', () => void this.command(command));
    }
    byId('dbg-frames').addEventListener('click', (event) => {
      const item = (event.target as HTMLElement).closest<HTMLElement>('li[data-index]');
      if (item !== null && this.session !== null) this.select(Number(item.dataset.index));
    });
    this.addr.addEventListener('input', () => this.renderMemory());
    this.clearPanels();
  }

  /** Whether a session is open (started, not ended). */
  get active(): boolean {
    return this.session !== null && !this.session.ended;
  }

  /** Whether a command is running (the guest runs). */
  get running(): boolean {
    return this.session?.running === true;
  }

  /**
   * Opens a session on `module`'s `invoke(...params)`: nothing runs until the first command.
   * The breakpoints set so far are placed; those on instructions that cannot run are dropped.
   */
  async start(sandbox: Sandbox, module: CompiledModule, invoke: string, params: Value[], limits: Limits): Promise<void> {
    this.abandon();
    const controller = new AbortController();
    const debug = await sandbox.debug(module, invoke, params, limits, { signal: controller.signal });
    const paramCounts = new Map(module.describe().functions.map((f) => [f.index, countParams(f.type)]));
    this.session = { debugger: debug, controller, frames: [], selected: 0, running: false, ended: false, params: paramCounts };
    const dropped = this.placeBreakpoints(debug);
    this.clearPanels();
    this.renderMemory();
    this.renderGlobals();
    this.enable();
    const note = dropped > 0 ? ` (${dropped} breakpoint${dropped > 1 ? 's' : ''} on instructions that never run removed)` : '';
    this.host.status('ready', `Session open on ${invoke}: not started. Step pauses at the first instruction, Continue runs to a breakpoint.${note}`);
  }

  /** Places every breakpoint; returns how many could not be placed (and drops them). */
  private placeBreakpoints(debug: Debugger): number {
    let dropped = 0;
    for (const key of [...this.host.breakpoints]) {
      const [func, offset] = key.split(':').map(Number) as [number, number];
      try {
        debug.breakAt({ func, offset });
      } catch {
        this.host.breakpoints.delete(key);
        dropped++;
      }
    }
    return dropped;
  }

  /** A breakpoint toggled (the set already changed): the session follows. Returns an error to show, or null. */
  breakpointsChanged(): string | null {
    const s = this.session;
    if (s === null || s.ended) return null;
    s.debugger.clearBreakpoints();
    const dropped = this.placeBreakpoints(s.debugger);
    return dropped > 0 ? 'No breakpoint there: that instruction never runs.' : null;
  }

  async command(command: StepCommand): Promise<void> {
    const s = this.session;
    if (s === null || s.ended || s.running) return;
    s.running = true;
    this.enable();
    this.host.status('running', command === 'continue' ? 'Running to the next breakpoint…' : 'Running…');
    let event: DebugEvent;
    try {
      event = await s.debugger[command]();
    } finally {
      s.running = false;
    }
    if (this.session !== s) return; // abandoned meanwhile
    this.handle(s, event);
  }

  /** Stops the session's guest (Stop): the run ends with kind `Aborted`. */
  async stop(): Promise<void> {
    const s = this.session;
    if (s === null || s.ended) return;
    s.controller.abort();
    // A running command ends by itself; a paused (or unstarted) guest ends at its next command.
    if (!s.running) await this.command('continue');
  }

  private handle(s: Session, event: DebugEvent): void {
    if (event.kind === 'paused') {
      s.frames = event.frames;
      this.select(0);
      const f = event.frames[0]!;
      this.host.status('paused', `Paused at ${hex(f.offset)} in ${this.host.label(f.funcName, f.funcIndex)}: ${f.instruction}`);
    } else {
      s.ended = true;
      s.frames = [];
      this.renderFrames();
      this.renderGlobals();
      this.renderMemory();
      this.host.listing.showModule();
      this.host.ended(event);
    }
    this.enable();
  }

  private select(index: number): void {
    const s = this.session!;
    const frame = s.frames[index];
    if (frame === undefined) return;
    s.selected = index;
    this.renderFrames();
    this.renderValues(frame);
    this.renderGlobals();
    this.renderMemory();
    let lines: Array<{ offset: number; text: string }>;
    try {
      lines = s.debugger.instructions(frame.funcIndex);
    } catch {
      lines = [{ offset: frame.offset, text: frame.instruction }];
    }
    const caption = index === 0 ? 'paused here' : `frame #${index}: the call in progress`;
    this.host.listing.showFunction(frame.funcIndex, lines, frame.offset, caption);
  }

  /** Leaves the current session, stopping its guest (a new session, or a new module). */
  abandon(): void {
    const s = this.session;
    this.session = null;
    if (s !== null && !s.ended) s.controller.abort();
    this.enable();
  }

  /** The session ended or was abandoned: the module view and empty panels. */
  reset(): void {
    this.abandon();
    this.clearPanels();
    this.host.listing.showModule();
  }

  private enable(): void {
    const s = this.session;
    const can = s !== null && !s.ended && !s.running;
    for (const button of Object.values(this.buttons)) button.disabled = !can;
  }

  private clearPanels(): void {
    byId('dbg-frames').replaceChildren(h('li', { class: 'empty' }, 'not paused'));
    byId('dbg-locals').replaceChildren();
    byId('dbg-stack').replaceChildren();
    byId('dbg-globals').replaceChildren();
    byId('dbg-memory').textContent = '';
    byId('dbg-memory-size').textContent = '';
  }

  private renderFrames(): void {
    const s = this.session;
    const list = byId('dbg-frames');
    if (s === null || s.frames.length === 0) {
      list.replaceChildren(h('li', { class: 'empty' }, s?.ended ? 'the run has ended' : 'not paused'));
      return;
    }
    list.replaceChildren(...s.frames.map((f, i) => h('li', {
      'data-index': i,
      class: i === s.selected ? 'selected' : '',
      title: f.funcName,
    },
    h('span', { class: 'fn' }, `#${i} ${this.host.label(f.funcName, f.funcIndex)}`),
    h('span', { class: 'at' }, `${hex(f.offset)} ${f.instruction}`))));
  }

  private renderValues(frame: DebugFrame): void {
    const params = this.session?.params.get(frame.funcIndex) ?? 0;
    const row = (label: string, v: DebugValue, extra = ''): HTMLTableRowElement => h('tr', { class: extra },
      h('td', { class: 'idx' }, label),
      h('td', { class: 'type' }, v.type),
      h('td', { class: 'value' }, String(v)));
    const locals = frame.locals.map((v, i) => row(`${i < params ? 'param' : 'local'} ${i}`, v));
    byId('dbg-locals').replaceChildren(...(locals.length > 0 ? locals : [emptyRow('no locals')]));
    const stack = frame.stack.map((v, i) => row(String(i), v, i === frame.stack.length - 1 ? 'top' : ''));
    byId('dbg-stack').replaceChildren(...(stack.length > 0 ? stack : [emptyRow('empty')]));
  }

  private renderGlobals(): void {
    const s = this.session;
    const el = byId('dbg-globals');
    const globals = s === null ? [] : s.debugger.globals();
    el.replaceChildren(...(globals.length > 0
      ? globals.map((g) => h('tr', {},
        h('td', { class: 'idx' }, g.name !== undefined ? `${g.index} "${g.name}"` : String(g.index)),
        h('td', { class: 'type' }, `${g.mutable ? 'mut ' : ''}${g.type}`),
        h('td', { class: 'value' }, String(g.value))))
      : [emptyRow(s === null || s.debugger.state === 'ready' ? 'the instance does not exist yet' : 'no globals')]));
  }

  private renderMemory(): void {
    const s = this.session;
    const out = byId('dbg-memory');
    const size = byId('dbg-memory-size');
    const memory = s?.debugger.memory() ?? null;
    if (s === null) return;
    if (memory === null) {
      out.textContent = s.debugger.state === 'ready' ? 'the instance does not exist yet' : 'the module has no memory';
      size.textContent = '';
      return;
    }
    size.textContent = `${memory.byteLength} bytes (${memory.pages} pages)`;
    const address = parseAddress(this.addr.value);
    if (address === null) {
      out.textContent = 'type an address: decimal, or hex with 0x';
      return;
    }
    if (memory.byteLength === 0 || address >= memory.byteLength) {
      out.textContent = `address ${hex(address)} is past the end of memory (${memory.byteLength} bytes)`;
      return;
    }
    const start = address - (address % 16);
    const length = Math.min(MEMORY_ROWS * 16, memory.byteLength - start);
    out.textContent = hexDump(memory.read(start, length), start);
  }
}

/** A row of a hex dump per 16 bytes: address, bytes, and the bytes as ASCII. */
export function hexDump(bytes: Uint8Array, base: number): string {
  const lines: string[] = [];
  for (let i = 0; i < bytes.length; i += 16) {
    const row = bytes.subarray(i, i + 16);
    const hexes = [...row].map((b) => b.toString(16).padStart(2, '0'));
    const left = hexes.slice(0, 8).join(' ').padEnd(23);
    const right = hexes.slice(8).join(' ').padEnd(23);
    const ascii = [...row].map((b) => (b >= 0x20 && b < 0x7f ? String.fromCharCode(b) : '.')).join('');
    lines.push(`${hex(base + i, 8)}  ${left}  ${right}  |${ascii}|`);
  }
  return lines.join('\n');
}

export function parseAddress(text: string): number | null {
  const t = text.trim();
  const n = /^0x[0-9a-f]+$/i.test(t) ? parseInt(t.slice(2), 16) : /^[0-9]+$/.test(t) ? Number(t) : NaN;
  return Number.isSafeInteger(n) ? n : null;
}

function countParams(type: string): number {
  const m = /^\(([^)]*)\)/.exec(type);
  return m === null || m[1]!.trim() === '' ? 0 : m[1]!.split(',').length;
}

function emptyRow(text: string): HTMLTableRowElement {
  return h('tr', { class: 'empty' }, h('td', { colspan: 3 }, text));
}

export { breakpointKey };
