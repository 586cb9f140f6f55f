/**
 * Writes src/jit/templates.generated.ts: the JavaScript tier's templates for the internal
 * instructions whose meaning is plain data flow, taken from the interpreter's own dispatch
 * loop (runStretch in src/interpreter/interpreter.ts), so that what an instruction does is
 * written once. A case qualifies when its body ends with `pc += N; continue;` and uses `pc`
 * nowhere else, touches no fuel and names only what a translated function has at hand
 * (ALLOWED). A branch qualifies in the shape `left -= code[pc + F]; if (COND) { pc =
 * code[pc + T]; … } else pc += N; continue;`, and gives its condition.
 *
 * npx tsx scripts/gen-jit-templates.ts            (writes the file)
 * npx tsx scripts/gen-jit-templates.ts --check    (exits 1 when the file is stale)
 */
import { readFileSync, writeFileSync } from 'node:fs';
import ts from 'typescript';

/** Names a template may use: the translated function defines each (src/jit/translate.ts). */
export const ALLOWED = new Set([
  'code', 'pc', 'base', 's32', 'f32', 'f64', 'view', 'memLen', 'inst', 'N', 'Math', 'memoryTrap',
  'Trap', 'TrapKind', 'narrow64', 'canonicalizeNaN', 'Infinity',
]);

const root = new URL('..', import.meta.url);
const sourcePath = new URL('src/interpreter/interpreter.ts', root);
const outPath = new URL('src/jit/templates.generated.ts', root);

interface DataOp { size: number; body: string }
interface BranchOp { size: number; cond: string; target: number; fuel: number }

function toJs(text: string): string {
  // Type syntax (non-null assertions) out; what is left is plain JavaScript.
  const out = ts.transpileModule(text, { compilerOptions: { target: ts.ScriptTarget.ES2022, removeComments: true } }).outputText;
  return out.replace(/\r?\n\s*/g, ' ').trim();
}

/**
 * `const d = base + code[pc + 1]; ... s32[d + 1] ...` as `... s32[(base + code[pc + 1]) + 1] ...`:
 * every frame address written out where it is used, so that the translator sees each access
 * of a frame word as such (translate.ts keeps words in variables).
 */
function inlineFrameAddresses(js: string): string {
  for (;;) {
    const m = /const (\w+) = base \+ code\[pc \+ (\d+)\];\s*/.exec(js);
    if (m === null) return js;
    js = js.replace(m[0], '').replace(new RegExp(`(?<![.\\w$])${m[1]}(?![\\w$])`, 'g'), `(base + code[pc + ${m[2]}])`);
  }
}

function identifiers(node: ts.Node, into: Set<string>): Set<string> {
  const visit = (n: ts.Node): void => {
    if (ts.isIdentifier(n)) {
      const parent = n.parent;
      const isProperty = parent !== undefined && ts.isPropertyAccessExpression(parent) && parent.name === n;
      if (!isProperty) into.add(n.text);
    }
    ts.forEachChild(n, visit);
  };
  visit(node);
  return into;
}

/** Names declared inside the body (its own consts and lets). */
function declared(node: ts.Node): Set<string> {
  const names = new Set<string>();
  const visit = (n: ts.Node): void => {
    if (ts.isVariableDeclaration(n) && ts.isIdentifier(n.name)) names.add(n.name.text);
    ts.forEachChild(n, visit);
  };
  visit(node);
  return names;
}

function usesOnlyAllowed(nodes: readonly ts.Node[]): boolean {
  const used = new Set<string>();
  const own = new Set<string>();
  for (const n of nodes) {
    identifiers(n, used);
    for (const d of declared(n)) own.add(d);
  }
  for (const name of used) if (!ALLOWED.has(name) && !own.has(name) && name !== 'undefined') return false;
  return true;
}

/** `pc += N` as a statement: N, else null. */
function pcAdvance(s: ts.Statement | undefined): number | null {
  if (s === undefined || !ts.isExpressionStatement(s)) return null;
  const e = s.expression;
  if (!ts.isBinaryExpression(e) || e.operatorToken.kind !== ts.SyntaxKind.PlusEqualsToken) return null;
  if (!ts.isIdentifier(e.left) || e.left.text !== 'pc' || !ts.isNumericLiteral(e.right)) return null;
  return Number(e.right.text);
}

/** Whether a statement in `body` returns, continues, or breaks out of the case itself. */
function leavesTheCase(body: readonly ts.Statement[]): boolean {
  let leaves = false;
  const visit = (n: ts.Node, inner: boolean): void => {
    if (ts.isReturnStatement(n) || ts.isContinueStatement(n) || (ts.isBreakStatement(n) && !inner)) leaves = true;
    const nested = inner || ts.isSwitchStatement(n) || ts.isIterationStatement(n, false);
    ts.forEachChild(n, (c) => visit(c, nested));
  };
  for (const s of body) visit(s, false);
  return leaves;
}

/** `code[pc + K]` (non-null asserted or not): K, else null. */
function operandIndex(e: ts.Expression): number | null {
  let x = e;
  if (ts.isNonNullExpression(x)) x = x.expression;
  if (!ts.isElementAccessExpression(x) || !ts.isIdentifier(x.expression) || x.expression.text !== 'code') return null;
  const arg = x.argumentExpression;
  if (!ts.isBinaryExpression(arg) || !ts.isIdentifier(arg.left) || arg.left.text !== 'pc' || !ts.isNumericLiteral(arg.right)) return null;
  return Number(arg.right.text);
}

function branchShape(statements: readonly ts.Statement[]): BranchOp | null {
  // left -= code[pc + F]; if (COND) { pc = code[pc + T]; ... } else pc += N; continue;
  if (statements.length !== 3) return null;
  const [charge, test, cont] = statements;
  if (!ts.isContinueStatement(cont!)) return null;
  if (!ts.isExpressionStatement(charge!) || !ts.isBinaryExpression(charge.expression)) return null;
  const c = charge.expression;
  if (c.operatorToken.kind !== ts.SyntaxKind.MinusEqualsToken || !ts.isIdentifier(c.left) || c.left.text !== 'left') return null;
  const fuel = operandIndex(c.right);
  if (fuel === null || !ts.isIfStatement(test!) || test.elseStatement === undefined) return null;
  const size = pcAdvance(test.elseStatement as ts.Statement);
  const then = test.thenStatement;
  if (size === null || !ts.isBlock(then) || then.statements.length < 1) return null;
  const jump = then.statements[0]!;
  if (!ts.isExpressionStatement(jump) || !ts.isBinaryExpression(jump.expression)) return null;
  const j = jump.expression;
  if (j.operatorToken.kind !== ts.SyntaxKind.EqualsToken || !ts.isIdentifier(j.left) || j.left.text !== 'pc') return null;
  const target = operandIndex(j.right);
  if (target === null) return null;
  if (!usesOnlyAllowed([test.expression])) return null;
  return { size, cond: toJs(test.expression.getText()).replace(/;$/, ''), target, fuel };
}

/**
 * The numeric helpers (src/interpreter/numeric.ts) that work on frame words — `fn(s, d, a, b)`
 * reading `s[a]` and writing `s[d + 1]` — written out in place of their calls: the translator
 * can then keep those words in variables instead of storing them for the call. A helper is
 * written out when its body returns nothing early, assigns none of its parameters and names
 * only its parameters and locals, Math, numeric.ts's other exports (as `N.name`), its
 * constants (as their numbers) and other helpers it can write out in turn.
 */
class HelperInliner {
  private readonly functions = new Map<string, ts.FunctionDeclaration>();
  private readonly exported = new Set<string>();
  private readonly constants = new Map<string, string>();

  constructor(file: ts.SourceFile) {
    for (const st of file.statements) {
      if (ts.isFunctionDeclaration(st) && st.name !== undefined && st.body !== undefined) {
        this.functions.set(st.name.text, st);
        if (st.modifiers?.some((m) => m.kind === ts.SyntaxKind.ExportKeyword)) this.exported.add(st.name.text);
      }
      if (ts.isVariableStatement(st)) {
        const exported = st.modifiers?.some((m) => m.kind === ts.SyntaxKind.ExportKeyword) === true;
        for (const d of st.declarationList.declarations) {
          if (!ts.isIdentifier(d.name)) continue;
          if (exported) this.exported.add(d.name.text);
          else if (d.initializer !== undefined && ts.isNumericLiteral(d.initializer)) this.constants.set(d.name.text, d.initializer.text);
        }
      }
    }
  }

  /** The statement `text` (a template body) with a lone helper call written out, or `text` as it is. */
  inlineStatement(text: string): string {
    const m = /^N\.(\w+)\((.*)\);$/.exec(text.trim());
    if (m === null) return text;
    return this.expand(m[1]!, splitArguments(m[2]!)) ?? text;
  }

  private expand(name: string, args: readonly string[]): string | null {
    const fn = this.functions.get(name);
    if (fn === undefined || fn.parameters.length !== args.length) return null;
    const firstType = fn.parameters[0]?.type?.getText();
    if (firstType !== 'Int32Array') return null;
    const params = fn.parameters.map((p) => (p.name as ts.Identifier).text);
    const body = fn.body!;
    let ok = true;
    const locals = declared(body);
    const visit = (n: ts.Node): void => {
      if (ts.isReturnStatement(n)) ok = false;
      if (ts.isBinaryExpression(n) && n.operatorToken.kind >= ts.SyntaxKind.FirstAssignment && n.operatorToken.kind <= ts.SyntaxKind.LastAssignment
        && ts.isIdentifier(n.left) && params.includes(n.left.text)) ok = false;
      ts.forEachChild(n, visit);
    };
    visit(body);
    if (!ok) return null;
    // Calls of other helpers on the same frame words, as statements: written out too.
    let js = '';
    for (const st of body.statements) {
      let text = toJs(st.getText());
      const call = /^(\w+)\((.*)\);$/.exec(text);
      if (call !== null && this.functions.has(call[1]!) && !this.exported.has(call[1]!)) {
        const inner = this.expand(call[1]!, splitArguments(call[2]!));
        if (inner === null) return null;
        text = inner;
      }
      js += `${text} `;
    }
    const used = new Set<string>();
    identifiers(body, used);
    for (const id of used) {
      if (params.includes(id) || locals.has(id) || id === 'Math' || id === 'undefined') continue;
      if (this.constants.has(id)) js = replaceName(js, id, this.constants.get(id)!);
      else if (this.exported.has(id)) js = replaceName(js, id, `N.${id}`);
      else if (this.functions.has(id)) continue; // written out above (or the text keeps its call, refused below)
      else return null;
    }
    if (/(^|[^.\w$])(?!N\.)[a-z]\w*\(/.test(js.replace(/\bN\.\w+\(|\bMath\.\w+\(/g, ''))) return null;
    // A value read from the frame is read once, before the body writes anything — as the call
    // evaluated it — since the body may write the very words it came from (the compiler reuses
    // a slot for a result). Frame addresses, numbers and names are put in as they are.
    const bindings: string[] = [];
    params.forEach((p, i) => {
      const arg = args[i]!;
      if (i === 0) js = replaceName(js, p, arg);
      else if (/\[/.test(arg) && !FRAME_ADDRESS.test(arg)) bindings.push(`const ${p} = ${arg};`);
      else js = replaceName(js, p, `(${arg})`);
    });
    return `{ ${[...bindings, js.trim()].join(' ')} }`;
  }
}

/** A frame address as the dispatch loop writes one: `base + code[pc + K]`, maybe `+ N`. */
const FRAME_ADDRESS = /^\(?base \+ code\[pc \+ \d+\]\)?( \+ \d+)?$/;

/** `name` as an identifier (not a property) replaced by `by` in `js`. */
function replaceName(js: string, name: string, by: string): string {
  return js.replace(new RegExp(`(?<![.\\w$])${name}(?![\\w$])`, 'g'), () => by);
}

/** A call's argument list split at its top-level commas. */
function splitArguments(list: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < list.length; i++) {
    const c = list[i]!;
    if (c === '(' || c === '[') depth++;
    else if (c === ')' || c === ']') depth--;
    else if (c === ',' && depth === 0) {
      out.push(list.slice(start, i).trim());
      start = i + 1;
    }
  }
  out.push(list.slice(start).trim());
  return out;
}

export function generate(): string {
  const numeric = ts.createSourceFile('numeric.ts', readFileSync(new URL('src/interpreter/numeric.ts', root), 'utf8'), ts.ScriptTarget.ES2022, true);
  const inliner = new HelperInliner(numeric);
  const file = ts.createSourceFile('interpreter.ts', readFileSync(sourcePath, 'utf8'), ts.ScriptTarget.ES2022, true);
  let loop: ts.SwitchStatement | undefined;
  const find = (n: ts.Node): void => {
    if (ts.isFunctionDeclaration(n) && n.name?.text === 'runStretch') {
      const inner = (m: ts.Node): void => {
        if (loop === undefined && ts.isSwitchStatement(m)) loop = m;
        else ts.forEachChild(m, inner);
      };
      inner(n);
    } else ts.forEachChild(n, find);
  };
  find(file);
  if (loop === undefined) throw new Error('runStretch has no switch');
  const data: Record<number, DataOp> = {};
  const branches: Record<number, BranchOp> = {};
  let labels: number[] = [];
  for (const clause of loop.caseBlock.clauses) {
    if (!ts.isCaseClause(clause)) continue;
    labels.push(Number((clause.expression as ts.NumericLiteral).text));
    if (clause.statements.length === 0) continue;
    const ops = labels;
    labels = [];
    const statements = clause.statements.length === 1 && ts.isBlock(clause.statements[0]!) ? clause.statements[0].statements : clause.statements;
    const branch = branchShape(statements);
    if (branch !== null) {
      for (const op of ops) branches[op] = branch;
      continue;
    }
    const last = statements[statements.length - 1];
    const size = pcAdvance(statements[statements.length - 2]);
    if (last === undefined || !ts.isContinueStatement(last) || size === null) continue;
    const body = statements.slice(0, -2);
    // `pc` only inside code[pc + K] and code[pc]; no fuel, no control flow of its own.
    const text = body.map((s) => s.getText()).join('\n');
    if (/\bleft\b|\bex\b|\bstore\b|\bfsp\b|\bframes\b/.test(text) || leavesTheCase(body)) continue;
    if (/\bpc\b/.test(text.replace(/code\[pc( \+ \d+)?\]/g, ''))) continue;
    if (!usesOnlyAllowed(body)) continue;
    for (const op of ops) data[op] = { size, body: inlineFrameAddresses(inliner.inlineStatement(toJs(text))) };
  }
  const lines = [
    '// Generated by scripts/gen-jit-templates.ts from runStretch (src/interpreter/interpreter.ts): do not edit.',
    '// `code[pc + K]` stands for operand K and `code[pc]` for the opcode; src/jit/translate.ts puts in numbers.',
    '',
    '/** Plain data-flow instructions: their size in words and their body. */',
    'export const DATA_OPS: ReadonlyMap<number, { readonly size: number; readonly body: string }> = new Map([',
    ...Object.entries(data).map(([op, d]) => `  [0x${Number(op).toString(16)}, { size: ${d.size}, body: ${JSON.stringify(d.body)} }],`),
    ']);',
    '',
    '/** Conditional branches: size, condition, and which operands are the target and the fuel. */',
    'export const BRANCH_OPS: ReadonlyMap<number, { readonly size: number; readonly cond: string; readonly target: number; readonly fuel: number }> = new Map([',
    ...Object.entries(branches).map(([op, b]) => `  [0x${Number(op).toString(16)}, { size: ${b.size}, cond: ${JSON.stringify(b.cond)}, target: ${b.target}, fuel: ${b.fuel} }],`),
    ']);',
    '',
  ];
  return lines.join('\n');
}

if (process.argv[1] !== undefined && import.meta.url.endsWith(process.argv[1].split('/').pop()!)) {
  const text = generate();
  if (process.argv.includes('--check')) {
    const current = readFileSync(outPath, 'utf8');
    if (current !== text) {
      console.error('src/jit/templates.generated.ts is stale: run npx tsx scripts/gen-jit-templates.ts');
      process.exit(1);
    }
  } else writeFileSync(outPath, text);
}
