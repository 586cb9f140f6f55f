/**
 * `sandboxd MODULE --debug`: the stepping debugger on the terminal. Commands come one per line
 * from standard input — typed, or piped in for a scripted session — and answers go to
 * stdout. Offsets are byte offsets in the module, as `list`, `bt` and backtraces show them.
 */
import type { DebugEvent, DebugFrame, Debugger } from '../sandbox/debugger.js';
import { SandboxError } from '../sandbox/errors.js';
import { resultLine } from '../sandbox/value.js';

export const DEBUG_HELP = `Commands (offsets are byte offsets in the module, as list and bt show them):
  break FUNC[+OFFSET]  break at a function (index, export or name) or one of its instructions (b)
  delete               delete every breakpoint
  step                 run one instruction, into calls (s)
  next                 run to the next instruction of this function, over calls (n)
  finish               run until this function returns (f)
  continue             run to the next breakpoint or the end (c)
  bt                   the call stack, innermost first
  locals               the current function's parameters and locals
  stack                the operand stack, bottom first
  globals              the instance's globals
  x ADDR [LEN]         LEN bytes of memory from ADDR (default 64), in hex
  list                 the instructions around the current one (l)
  quit                 end the session (q)
  help                 this list`;

/** What the session reads and writes. */
export interface DebugIo {
  stdout(line: string): void;
  /** The commands, a line each; the session ends at their end as at `quit`. */
  lines(): AsyncIterable<string>;
}

/** How the session ended: the run's event, or null when it was left unfinished. */
export async function debugSession(debug: Debugger, io: DebugIo): Promise<DebugEvent | null> {
  io.stdout('sandboxd debugger: the guest has not started; type help for the commands');
  for await (const raw of io.lines()) {
    const [command = '', ...args] = raw.trim().split(/\s+/);
    if (command === '') continue;
    try {
      const event = await execute(debug, command, args, io);
      if (event === 'quit') return null;
      if (event !== null) {
        report(event, io);
        if (event.kind !== 'paused') return event;
      }
    } catch (e) {
      if (!(e instanceof RangeError || e instanceof CommandError)) throw e;
      io.stdout(`error: ${e.message}`);
    }
  }
  return null;
}

class CommandError extends Error {}

/** Runs one command: the event it led to, 'quit', or null when it only printed. */
async function execute(debug: Debugger, command: string, args: string[], io: DebugIo): Promise<DebugEvent | 'quit' | null> {
  const frame: DebugFrame | undefined = debug.frames[0];
  switch (command) {
    case 'help': case 'h':
      io.stdout(DEBUG_HELP);
      return null;
    case 'quit': case 'q':
      return 'quit';
    case 'break': case 'b': {
      const spec = args[0];
      if (spec === undefined) throw new CommandError('break needs a function: break FUNC[+OFFSET]');
      const plus = spec.lastIndexOf('+');
      const func = plus > 0 ? spec.slice(0, plus) : spec;
      const offset = plus > 0 ? parseNumber(spec.slice(plus + 1)) : undefined;
      const at = debug.breakAt({ func: /^\d+$/.test(func) ? Number(func) : func, ...(offset !== undefined ? { offset } : {}) });
      io.stdout(`breakpoint at ${hex(at.offset)} in ${at.funcName}`);
      return null;
    }
    case 'delete':
      debug.clearBreakpoints();
      io.stdout('breakpoints deleted');
      return null;
    case 'step': case 's': return debug.step();
    case 'next': case 'n': return debug.stepOver();
    case 'finish': case 'f': return debug.stepOut();
    case 'continue': case 'c': case 'run': case 'r': return debug.continue();
    case 'bt': case 'backtrace':
      debug.frames.forEach((f, i) => io.stdout(`${String(i).padStart(3)}: ${hex(f.offset)} - ${f.funcName}  ${f.instruction}`));
      if (debug.frames.length === 0) io.stdout('the guest is not paused');
      return null;
    case 'locals':
      if (frame === undefined) throw new CommandError('the guest is not paused');
      frame.locals.forEach((v, i) => io.stdout(`  local ${i}: ${String(v)}`));
      return null;
    case 'stack':
      if (frame === undefined) throw new CommandError('the guest is not paused');
      io.stdout(frame.stack.length === 0 ? '  (empty)' : frame.stack.map((v, i) => `  ${i}: ${String(v)}`).join('\n'));
      return null;
    case 'globals': {
      const globals = debug.globals();
      if (globals.length === 0) io.stdout('  (none, or the instance does not exist yet)');
      for (const g of globals) io.stdout(`  global ${g.index}${g.name !== undefined ? ` "${g.name}"` : ''}: ${g.mutable ? 'mut ' : ''}${g.type} = ${String(g.value)}`);
      return null;
    }
    case 'x': {
      const memory = debug.memory();
      if (memory === null) throw new CommandError('no memory (or the instance does not exist yet)');
      if (args[0] === undefined) throw new CommandError('x needs an address: x ADDR [LEN]');
      const address = parseNumber(args[0]);
      const length = args[1] === undefined ? 64 : parseNumber(args[1]);
      if (length > 4096) throw new CommandError('x shows at most 4096 bytes at once');
      let bytes: Uint8Array;
      try {
        bytes = memory.read(address, length);
      } catch (e) {
        throw new CommandError(e instanceof Error ? e.message : String(e));
      }
      for (let i = 0; i < bytes.length; i += 16) {
        const row = [...bytes.subarray(i, i + 16)];
        const text = row.map((b) => (b >= 0x20 && b < 0x7f ? String.fromCharCode(b) : '.')).join('');
        io.stdout(`  0x${(address + i).toString(16).padStart(8, '0')}  ${row.map((b) => b.toString(16).padStart(2, '0')).join(' ').padEnd(47)}  ${text}`);
      }
      return null;
    }
    case 'list': case 'l': {
      if (frame === undefined) throw new CommandError('the guest is not paused');
      const lines = debug.instructions(frame.funcIndex);
      const at = Math.max(0, lines.findIndex((l) => l.offset === frame.offset));
      io.stdout(`${frame.funcName}:`);
      for (const l of lines.slice(Math.max(0, at - 5), at + 6)) io.stdout(`${l.offset === frame.offset ? '=>' : '  '} ${hex(l.offset)}: ${l.text}`);
      return null;
    }
    default:
      throw new CommandError(`unknown command "${command}" (type help)`);
  }
}

function report(event: DebugEvent, io: DebugIo): void {
  switch (event.kind) {
    case 'paused': {
      const f = event.frames[0]!;
      io.stdout(`paused at ${hex(f.offset)} in ${f.funcName}: ${f.instruction}`);
      return;
    }
    case 'finished': {
      io.stdout(`finished: ${resultLine(event.output.values)}`);
      io.stdout(`fuel consumed: ${event.output.fuelConsumed}`);
      return;
    }
    case 'failed':
      io.stdout(`failed: ${event.error instanceof SandboxError ? event.error.message : String(event.error)}`);
  }
}

function parseNumber(text: string): number {
  const n = /^0x[0-9a-f]+$/i.test(text) ? parseInt(text.slice(2), 16) : /^\d+$/.test(text) ? Number(text) : NaN;
  if (!Number.isSafeInteger(n)) throw new CommandError(`not a number: ${text}`);
  return n;
}

function hex(n: number): string {
  return `0x${n.toString(16)}`;
}
