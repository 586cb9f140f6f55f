/**
 * The sandboxd-ts playground: edit WebAssembly text (or drop a `.wasm`), run an export under
 * fuel, a deadline and a memory cap with the grants you tick, stop it, step through it, profile
 * it, and share a link that reproduces the run. Everything runs in the page, on the library's
 * own interpreter — on the page's thread: the engine runs in slices and yields to the event
 * loop between them, so the page stays responsive while a guest spins (the click counter in
 * the header shows it).
 */
import { type CompiledModule, type DebugEvent, type FunctionCoverage, type Profile, type RunOutput, Sandbox, SandboxError } from '../../src/index.js';
import { InputError, parseArgs, parseLimits } from './args.js';
import { DebugPanel } from './debug.js';
import { byId, h } from './dom.js';
import { ModuleEditor } from './editor.js';
import { DEFAULT_SETTINGS, EXAMPLES, type Example, type RunSettings, exampleById, settingsOf } from './examples.js';
import { FlameGraph, functionTable } from './flamegraph.js';
import { Listing, breakpointKey, parseDisassembly } from './listing.js';
import { type Grants, type Outcome, failed, formatMs, hostFor, succeeded } from './outcome.js';
import { readShared, shareUrl, type ModuleRef } from './share.js';

const WASM_MAGIC = [0x00, 0x61, 0x73, 0x6d];

/** The compiler: any sandbox compiles (grants matter only to runs). */
const compiler = Sandbox.denyAll();

const els = {
  example: byId<HTMLSelectElement>('example'),
  fileInput: byId<HTMLInputElement>('file-input'),
  compileStatus: byId('compile-status'),
  editText: byId<HTMLButtonElement>('edit-text'),
  binaryBanner: byId('binary-banner'),
  form: byId<HTMLFormElement>('run-form'),
  exportSelect: byId<HTMLSelectElement>('export'),
  signature: byId('signature'),
  args: byId<HTMLInputElement>('args'),
  fuel: byId<HTMLInputElement>('fuel'),
  timeout: byId<HTMLInputElement>('timeout'),
  memory: byId<HTMLInputElement>('memory'),
  grantLog: byId<HTMLInputElement>('grant-log'),
  grantRandom: byId<HTMLInputElement>('grant-random'),
  seed: byId<HTMLInputElement>('seed'),
  grantWasi: byId<HTMLInputElement>('grant-wasi'),
  wasiArgs: byId<HTMLInputElement>('wasi-args'),
  run: byId<HTMLButtonElement>('run'),
  profile: byId<HTMLButtonElement>('profile'),
  debug: byId<HTMLButtonElement>('debug'),
  stop: byId<HTMLButtonElement>('stop'),
  share: byId<HTMLButtonElement>('share'),
  shareLink: byId<HTMLInputElement>('share-link'),
  shareAutorun: byId<HTMLInputElement>('share-autorun'),
  kind: byId('outcome-kind'),
  detail: byId('outcome-detail'),
  output: byId('output'),
  ping: byId<HTMLButtonElement>('ping'),
  pingCount: byId('ping-count'),
  loopGap: byId('loop-gap'),
  listingNote: byId('listing-note'),
  tabDebug: byId<HTMLButtonElement>('tab-debug'),
  tabProfile: byId<HTMLButtonElement>('tab-profile'),
  debugPanel: byId('debug-panel'),
  profilePanel: byId('profile-panel'),
  profileNote: byId('profile-note'),
  profileTable: byId<HTMLTableElement>('profile-table'),
};

// ---------------------------------------------------------------------------------------------
// State

const editor = new ModuleEditor(byId('editor'), () => void run('run'));
const breakpoints = new Set<string>();
const listing = new Listing(byId('dbg-listing'), breakpoints, toggleBreakpoint);
const flame = new FlameGraph(byId('flamegraph'));

/** The example the editor holds, while its text is untouched. */
let currentExample: Example | null = null;
/** The text before a binary module replaced it ("Back to text"). */
let textBeforeBinary = '';
/** The module compiled from the editor's content, for the content it was compiled from. */
let compiled: { key: string | Uint8Array; module: Promise<CompiledModule> } | null = null;
/** Export names of each function of the current module. */
let exportNames = new Map<number, string[]>();
/** The run in progress (Run or Profile), to stop it. */
let running: AbortController | null = null;
/** What the debug session's grants collect (log lines, a WASI program's output). */
let debugGrants: Grants | null = null;

const debugPanel = new DebugPanel({
  listing,
  breakpoints,
  label,
  ended: (event) => debugEnded(event),
  status: (kind, text) => {
    byId('dbg-status').textContent = text;
    showKind(kind);
    updateButtons();
  },
});

// ---------------------------------------------------------------------------------------------
// The module: the editor's content compiled, its exports in the form, its disassembly listed

function contentKey(): string | Uint8Array {
  const content = editor.content();
  return content.kind === 'binary' ? content.bytes : content.text;
}

/** The current content compiled (once per content). Rejects with a SandboxError. */
function compileCurrent(): Promise<CompiledModule> {
  const key = contentKey();
  if (compiled === null || compiled.key !== key) {
    const entry = { key, module: compiler.compile(key) };
    compiled = entry;
    // An invalid module stays invalid; any other failure (the text compiler's own) may pass.
    entry.module.catch((e: unknown) => {
      if (compiled === entry && !(e instanceof SandboxError && e.kind === 'InvalidModule')) compiled = null;
    });
  }
  return compiled.module;
}

let refreshTimer: ReturnType<typeof setTimeout> | undefined;
let refreshGeneration = 0;

/** After an edit: compile (soon), list the exports and the disassembly. */
function scheduleRefresh(): void {
  clearTimeout(refreshTimer);
  els.compileStatus.textContent = '…';
  els.compileStatus.className = 'compile-status pending';
  refreshTimer = setTimeout(() => void refresh(), 250);
}

async function refresh(wantedExport?: string): Promise<void> {
  clearTimeout(refreshTimer);
  const generation = ++refreshGeneration;
  const key = contentKey();
  let module: CompiledModule;
  try {
    module = await compileCurrent();
  } catch (e) {
    if (generation !== refreshGeneration) return;
    const message = e instanceof SandboxError ? e.message : String(e);
    els.compileStatus.textContent = `✗ ${message.split('\n')[0]}`;
    els.compileStatus.title = message;
    els.compileStatus.className = 'compile-status error';
    listing.clear('The module does not compile.');
    // The export menu keeps its choice: Run then says what the CLI would (invalid module).
    if (wantedExport !== undefined) fillExports(null, wantedExport);
    return;
  }
  if (generation !== refreshGeneration || key !== contentKey()) return;
  const description = module.describe();
  const functions = description.exports.filter((e) => e.kind === 'func');
  exportNames = new Map();
  for (const e of functions) exportNames.set(e.index, [...(exportNames.get(e.index) ?? []), e.name]);
  els.compileStatus.textContent = `✓ compiles: ${description.functions.length} function${description.functions.length === 1 ? '' : 's'}, ` +
    `${functions.length} exported`;
  els.compileStatus.title = description.imports.length > 0
    ? `imports: ${description.imports.map((i) => `${i.module}::${i.name}`).join(', ')}`
    : 'no imports';
  els.compileStatus.className = 'compile-status ok';
  fillExports(module, wantedExport);
  listing.setModule(parseDisassembly(module.disassemble()), exportNames);
}

/**
 * The export menu: the module's function exports. `wanted` (a link's, an example's) stays
 * chosen even when the module does not export it — the run then says so, as the CLI would;
 * without it the current choice stays if the module still exports it, else the first export.
 */
function fillExports(module: CompiledModule | null, wanted?: string): void {
  const description = module?.describe() ?? null;
  const functions = description?.exports.filter((e) => e.kind === 'func') ?? [];
  const names = functions.map((e) => e.name);
  const options = names.map((name) => h('option', { value: name }, name));
  const current = els.exportSelect.value;
  const chosen = wanted !== undefined && wanted !== '' ? wanted : names.includes(current) ? current : names[0] ?? '';
  if (chosen !== '' && !names.includes(chosen)) {
    options.push(h('option', { value: chosen }, `${chosen} (not exported)`));
  }
  els.exportSelect.replaceChildren(...options);
  els.exportSelect.value = chosen;
  // The arguments typed for an export the module lost belong to it, not to the one that replaces it.
  if (module !== null && (wanted === undefined || wanted === '') && current !== '' && chosen !== current) els.args.value = '';
  const fn = functions.find((e) => e.name === chosen);
  const type = fn === undefined ? null : description!.functions[fn.index]?.type ?? null;
  els.signature.textContent = type ?? '';
  const params = /^\(([^)]*)\)/.exec(type ?? '')?.[1]?.trim() ?? '';
  els.args.placeholder = type === null ? '' : params === '' ? 'no parameters' : params.replace(/,\s*/g, ' ');
}

function moduleChanged(): void {
  // Offsets move with the text: breakpoints, coverage and a session belong to the old module.
  breakpoints.clear();
  debugPanel.reset();
  flame.clear();
  els.profileTable.replaceChildren();
  if (currentExample !== null && (editor.isBinary || editor.text() !== currentExample.source)) {
    currentExample = null;
  }
  els.example.value = currentExample?.id ?? '';
  scheduleRefresh();
}

editor.onChange(moduleChanged);

function showBinaryBanner(name: string | null, bytes = 0): void {
  els.binaryBanner.hidden = name === null;
  els.editText.hidden = name === null;
  if (name !== null) {
    els.binaryBanner.textContent = `Binary module ${name} (${bytes} bytes) loaded: the editor shows its disassembly, read-only.`;
  }
}

function loadExample(example: Example): void {
  currentExample = example;
  showBinaryBanner(null);
  editor.setText(example.source);
  writeSettings(settingsOf(example));
  els.example.value = example.id;
}

function loadText(text: string): void {
  currentExample = null;
  showBinaryBanner(null);
  editor.setText(text);
}

/** A binary module: compiled first, then shown as its disassembly. */
async function loadBinary(bytes: Uint8Array, name: string): Promise<boolean> {
  let module: CompiledModule;
  try {
    module = await compiler.compile(bytes);
  } catch (e) {
    showOutcome(failed(e, null, null));
    return false;
  }
  if (!editor.isBinary) textBeforeBinary = editor.text();
  currentExample = null;
  compiled = { key: bytes, module: Promise.resolve(module) };
  editor.setBinary(bytes, name,
    `;; ${name}: a binary module of ${bytes.length} bytes, shown as its disassembly (read-only).\n` +
    ';; "Back to text" returns to the text; drop or open a .wat file to edit another.\n' +
    module.disassemble());
  showBinaryBanner(name, bytes.length);
  const first = module.exports.find((e) => e.kind === 'func');
  await refresh(first?.name);
  return true;
}

async function loadFile(file: File): Promise<void> {
  const bytes = new Uint8Array(await file.arrayBuffer());
  // Another module: the arguments typed for this one do not carry over.
  els.args.value = '';
  if (WASM_MAGIC.every((b, i) => bytes[i] === b)) {
    await loadBinary(bytes, file.name);
  } else {
    loadText(new TextDecoder().decode(bytes));
    await refresh();
  }
}

els.editText.addEventListener('click', () => loadText(textBeforeBinary));

els.fileInput.addEventListener('change', () => {
  const file = els.fileInput.files?.[0];
  if (file !== undefined) void loadFile(file);
  els.fileInput.value = '';
});

// Files dropped anywhere, the editor included, are modules to load: taken in the capture phase,
// before the editor would insert a file's text where it fell.
const hasFiles = (event: DragEvent): boolean => event.dataTransfer?.types.includes('Files') === true;
document.addEventListener('dragover', (event) => {
  if (!hasFiles(event)) return;
  event.preventDefault();
  event.stopPropagation();
  event.dataTransfer!.dropEffect = 'copy';
  document.body.classList.add('dragging');
}, { capture: true });
document.addEventListener('dragleave', (event) => {
  if (event.relatedTarget === null) document.body.classList.remove('dragging');
}, { capture: true });
document.addEventListener('drop', (event) => {
  document.body.classList.remove('dragging');
  const file = event.dataTransfer?.files[0];
  if (file === undefined) return;
  event.preventDefault();
  event.stopPropagation();
  void loadFile(file);
}, { capture: true });

for (const example of EXAMPLES) els.example.append(h('option', { value: example.id }, example.title));
els.example.append(h('option', { value: '', disabled: true }, 'your module'));
els.example.addEventListener('change', () => {
  const example = exampleById(els.example.value);
  if (example === undefined) return;
  loadExample(example);
  void refresh(example.settings.invoke);
});

els.exportSelect.addEventListener('change', () => {
  const chosen = els.exportSelect.value;
  void compileCurrent().then((m) => fillExports(m, chosen), () => undefined);
});

// ---------------------------------------------------------------------------------------------
// The form

function readSettings(): RunSettings {
  return {
    invoke: els.exportSelect.value,
    args: els.args.value,
    fuel: els.fuel.value,
    timeoutMs: els.timeout.value,
    memoryMb: els.memory.value,
    log: els.grantLog.checked,
    seed: els.grantRandom.checked ? els.seed.value : null,
    wasi: els.grantWasi.checked ? els.wasiArgs.value : null,
  };
}

function writeSettings(settings: Partial<RunSettings>): void {
  if (settings.invoke !== undefined) fillExports(null, settings.invoke);
  if (settings.args !== undefined) els.args.value = settings.args;
  if (settings.fuel !== undefined) els.fuel.value = settings.fuel;
  if (settings.timeoutMs !== undefined) els.timeout.value = settings.timeoutMs;
  if (settings.memoryMb !== undefined) els.memory.value = settings.memoryMb;
  if (settings.log !== undefined) els.grantLog.checked = settings.log;
  if (settings.seed !== undefined) {
    els.grantRandom.checked = settings.seed !== null;
    if (settings.seed !== null) els.seed.value = settings.seed;
  }
  if (settings.wasi !== undefined) {
    els.grantWasi.checked = settings.wasi !== null;
    els.wasiArgs.value = settings.wasi ?? '';
  }
}

els.seed.addEventListener('input', () => {
  if (els.seed.value.trim() !== '') els.grantRandom.checked = true;
});

// ---------------------------------------------------------------------------------------------
// The outcome

function showKind(kind: string): void {
  els.kind.textContent = kind;
  const tone = kind === 'ok' ? 'ok'
    : kind === 'running' || kind === 'paused' || kind === 'ready' || kind === 'compiling' ? 'busy'
      : kind === '–' ? 'idle' : 'error';
  els.kind.className = `badge ${tone}`;
  els.kind.dataset.kind = kind;
}

function showOutcome(outcome: Outcome): void {
  showKind(outcome.kind);
  els.output.textContent = outcome.text;
  els.detail.textContent = outcome.detail;
}

/** Measures the longest wait of the event loop while a guest runs: a timer that should tick every 4 ms. */
function watchEventLoop(): () => void {
  const interval = 4;
  let last = performance.now();
  let worst = 0;
  const timer = setInterval(() => {
    const now = performance.now();
    worst = Math.max(worst, now - last - interval);
    last = now;
    els.loopGap.textContent = formatMs(Math.max(0, worst));
  }, interval);
  return () => clearInterval(timer);
}

let pings = 0;
/** Clicks handled while a guest was running (or a debugged guest was between two pauses). */
let pingsDuringRuns = 0;
els.ping.addEventListener('click', () => {
  pings++;
  if (running !== null || debugPanel.running) pingsDuringRuns++;
  els.pingCount.textContent = String(pings);
  els.pingCount.dataset.duringRun = String(pingsDuringRuns);
  els.pingCount.title = `${pingsDuringRuns} of them while a guest was running`;
});

// ---------------------------------------------------------------------------------------------
// Run, Profile, Debug, Stop

function updateButtons(): void {
  const busy = running !== null || debugPanel.running;
  els.run.disabled = busy;
  els.profile.disabled = busy;
  els.debug.disabled = busy;
  els.stop.disabled = !(running !== null || debugPanel.active);
}

/** What a run needs from the form; an InputError or a compile error is shown as the outcome. */
async function prepare(): Promise<{ module: CompiledModule; settings: RunSettings; params: ReturnType<typeof parseArgs>; limits: ReturnType<typeof parseLimits>; host: ReturnType<typeof hostFor> } | null> {
  const settings = readSettings();
  try {
    const params = parseArgs(settings.args);
    const limits = parseLimits(settings);
    const host = hostFor(settings);
    showKind('compiling');
    const module = await compileCurrent();
    if (settings.invoke === '') throw new InputError('no export to invoke: the module exports no function');
    return { module, settings, params, limits, host };
  } catch (e) {
    showOutcome(failed(e, null, null));
    return null;
  }
}

async function run(mode: 'run' | 'profile'): Promise<void> {
  if (running !== null || debugPanel.running) return;
  debugPanel.reset();
  const controller = new AbortController();
  running = controller;
  updateButtons();
  const job = await prepare();
  if (job === null) {
    running = null;
    updateButtons();
    return;
  }
  const { module, settings, params, limits, host } = job;
  const sandbox = new Sandbox(host.host);
  showKind('running');
  els.output.textContent = '';
  els.detail.textContent = `${settings.invoke}(${params.map(String).join(', ')}) running…`;
  const stopWatching = watchEventLoop();
  const profiling = mode === 'profile';
  if (profiling) {
    selectTab('profile');
    flame.clear('running…');
  }
  const start = performance.now();
  let result: { ok: true; output: RunOutput } | { ok: false; error: unknown };
  try {
    const output = await sandbox.run(module, settings.invoke, params, limits, {
      signal: controller.signal,
      ...(profiling ? { profile: true, coverage: true } : {}),
    });
    result = { ok: true, output };
  } catch (error) {
    result = { ok: false, error };
  }
  const elapsed = performance.now() - start;
  // The meter measures the guest's effect on the page, not the drawing of its outcome.
  stopWatching();
  running = null;
  updateButtons();
  if (result.ok) {
    showOutcome(succeeded(result.output, host, elapsed));
    if (profiling) showProfile(result.output);
  } else {
    showOutcome(failed(result.error, host, elapsed));
    if (profiling) showProfile(result.error instanceof SandboxError ? result.error : {});
  }
}

async function startDebug(): Promise<void> {
  if (running !== null || debugPanel.running) return;
  const job = await prepare();
  if (job === null) return;
  const { module, settings, params, limits, host } = job;
  selectTab('debug');
  els.output.textContent = ';; under the debugger: the outcome appears here when the run ends';
  els.detail.textContent = `${settings.invoke}(${params.map(String).join(', ')}) under the debugger`;
  debugGrants = host;
  try {
    await debugPanel.start(new Sandbox(host.host), module, settings.invoke, params, limits);
  } catch (e) {
    showOutcome(failed(e, null, null));
  }
  updateButtons();
}

function debugEnded(event: Exclude<DebugEvent, { kind: 'paused' }>): void {
  const outcome = event.kind === 'finished' ? succeeded(event.output, debugGrants, 0) : failed(event.error, debugGrants, null);
  // The deadline counted only the time the guest ran: no wall-clock time to show.
  showOutcome({ ...outcome, detail: outcome.detail.replace(/ · [0-9.]+ ms$/, '') + ' · under the debugger' });
  byId('dbg-status').textContent = event.kind === 'finished' ? 'The run finished.' : `The run failed: ${event.error.kind}.`;
  updateButtons();
}

function stop(): void {
  if (running !== null) running.abort();
  else if (debugPanel.active) void debugPanel.stop();
}

els.form.addEventListener('submit', (event) => {
  event.preventDefault();
  void run('run');
});
els.profile.addEventListener('click', () => void run('profile'));
els.debug.addEventListener('click', () => void startDebug());
els.stop.addEventListener('click', stop);

// ---------------------------------------------------------------------------------------------
// Breakpoints, profile, tabs

function toggleBreakpoint(funcIndex: number, offset: number): void {
  const key = breakpointKey(funcIndex, offset);
  if (breakpoints.has(key)) breakpoints.delete(key);
  else breakpoints.add(key);
  const problem = debugPanel.breakpointsChanged();
  els.listingNote.textContent = problem ?? `${breakpoints.size} breakpoint${breakpoints.size === 1 ? '' : 's'} · click a line to set or clear one`;
  listing.render();
}

/** How the page names a function: `<unknown>!<wasm function 1>` with its export names, `traps!div`. */
function label(funcName: string, funcIndex?: number): string {
  const short = funcName.startsWith('<unknown>!') ? funcName.slice('<unknown>!'.length) : funcName;
  const index = funcIndex ?? Number(/<wasm function (\d+)>$/.exec(funcName)?.[1] ?? NaN);
  const names = exportNames.get(index);
  if (names === undefined || names.some((n) => short.endsWith(`!${n}`) || short === n)) return short;
  return `${short} "${names.join('", "')}"`;
}

function showProfile(observed: { profile?: Profile; coverage?: readonly FunctionCoverage[] }): void {
  const profile = observed.profile;
  if (profile === undefined) {
    flame.clear('No profile: the run did not start (see the outcome).');
    els.profileTable.replaceChildren();
  } else {
    const indexOf = new Map(profile.functions.map((f) => [f.funcName, f.funcIndex]));
    const named = (name: string): string => label(name, indexOf.get(name));
    flame.show(profile.toFolded(), profile.totalFuel, named);
    functionTable(els.profileTable, profile.functions, profile.totalFuel, named);
    els.profileNote.textContent = `${profile.totalFuel} fuel in ${profile.functions.length} function${profile.functions.length === 1 ? '' : 's'}: ` +
      'the flame graph is the fuel by call path (click a frame to zoom); the instructions that ran are marked in the disassembly.';
  }
  const coverage = observed.coverage;
  if (coverage !== undefined) {
    listing.setCoverage({
      covered: new Set(coverage.flatMap((f) => f.covered)),
      perFunction: new Map(coverage.map((f) => [f.funcIndex, { ran: new Set(f.covered).size, total: f.instructions }])),
    });
  }
}

function selectTab(tab: 'debug' | 'profile'): void {
  const debug = tab === 'debug';
  els.tabDebug.classList.toggle('active', debug);
  els.tabProfile.classList.toggle('active', !debug);
  els.tabDebug.setAttribute('aria-selected', String(debug));
  els.tabProfile.setAttribute('aria-selected', String(!debug));
  els.debugPanel.hidden = !debug;
  els.profilePanel.hidden = debug;
}

els.tabDebug.addEventListener('click', () => selectTab('debug'));
els.tabProfile.addEventListener('click', () => selectTab('profile'));

// ---------------------------------------------------------------------------------------------
// Share

function moduleRef(): ModuleRef {
  const content = editor.content();
  if (content.kind === 'binary') return { kind: 'binary', bytes: content.bytes, name: content.name };
  if (currentExample !== null && content.text === currentExample.source) return { kind: 'example', id: currentExample.id };
  return { kind: 'text', text: content.text };
}

async function share(): Promise<string> {
  const url = await shareUrl(location.href, moduleRef(), readSettings(), els.shareAutorun.checked ? 'run' : null);
  history.replaceState(null, '', url);
  els.shareLink.value = url;
  els.shareLink.select();
  return url;
}

els.share.addEventListener('click', () => void share());

// ---------------------------------------------------------------------------------------------
// Start: the module, settings and run a link names (or the fib example)

async function start(): Promise<void> {
  let shared: Awaited<ReturnType<typeof readShared>> | null = null;
  let problem: string | null = null;
  try {
    shared = await readShared(location.search);
  } catch (e) {
    problem = e instanceof Error ? e.message : String(e);
  }
  const ref = shared?.module ?? null;
  writeSettings(DEFAULT_SETTINGS);
  if (ref?.kind === 'binary') {
    loadExample(EXAMPLES[0]!);
    if (!(await loadBinary(ref.bytes, ref.name))) problem = 'the link\'s binary module does not compile';
  } else if (ref?.kind === 'text') {
    loadText(ref.text);
  } else {
    const example = ref?.kind === 'example' ? exampleById(ref.id) : undefined;
    if (ref?.kind === 'example' && example === undefined) problem = `there is no example named ${JSON.stringify(ref.id)}`;
    loadExample(example ?? EXAMPLES[0]!);
  }
  writeSettings(shared?.settings ?? {});
  await refresh(shared?.settings.invoke ?? readSettings().invoke);
  document.body.dataset.ready = 'true';
  if (problem !== null) {
    showOutcome({ kind: 'BadLink', text: `sandboxd: error: ${problem}`, detail: 'nothing ran' });
    return;
  }
  if (shared?.autorun === 'run' || shared?.autorun === 'profile') await run(shared.autorun);
}

/** For the console (and the browser tests): the editor's text, and the actions. */
declare global {
  interface Window {
    playground: {
      text(): string;
      setText(text: string): void;
      run(mode?: 'run' | 'profile'): Promise<void>;
      share(): Promise<string>;
      ready: Promise<void>;
    };
  }
}

window.playground = {
  text: () => editor.text(),
  setText: (text) => loadText(text),
  run: (mode = 'run') => run(mode),
  share,
  ready: start(),
};
