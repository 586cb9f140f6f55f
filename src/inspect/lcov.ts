/**
 * Coverage as an lcov tracefile (what genhtml, Codecov and editors read): per source file,
 * each line that has instructions and whether any of them ran. Source lines come from the
 * module's DWARF line tables (dwarf.ts); instructions the line tables place nowhere (line 0)
 * are left out.
 */
import type { CompiledModule as EngineModule } from '../interpreter/module.js';
import { disassembleInstructions } from '../interpreter/disassemble.js';
import type { LineTable } from './dwarf.js';
import type { FunctionCoverage } from './monitors.js';

export function toLcov(module: EngineModule, coverage: readonly FunctionCoverage[], lines: LineTable): string {
  // Per file, per line: whether an instruction on it ran.
  const files = new Map<string, Map<number, boolean>>();
  for (const f of coverage) {
    const ran = new Set(f.covered);
    const body = module.ir.codes[f.funcIndex - module.numImportedFuncs];
    // Coverage of another module names functions this one may not have.
    if (body === undefined) continue;
    for (const { offset } of disassembleInstructions(module.ir.bytes, body.codeStart, body.codeEnd)) {
      const at = lines.locate(offset);
      if (at === undefined || at.line === 0) continue;
      let byLine = files.get(at.file);
      if (byLine === undefined) files.set(at.file, (byLine = new Map()));
      byLine.set(at.line, (byLine.get(at.line) ?? false) || ran.has(offset));
    }
  }
  const out: string[] = [];
  for (const [file, byLine] of [...files].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    out.push('TN:', `SF:${file}`);
    const sorted = [...byLine].sort(([a], [b]) => a - b);
    for (const [line, hit] of sorted) out.push(`DA:${line},${hit ? 1 : 0}`);
    out.push(`LF:${sorted.length}`, `LH:${sorted.filter(([, hit]) => hit).length}`, 'end_of_record');
  }
  return `${out.join('\n')}\n`;
}
