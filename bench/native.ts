/** The native side: Node's built-in WebAssembly engine on the same bytes. */
import { canonical, type ResultType } from './values.js';

/**
 * The slice of the JS WebAssembly API the harness uses. The project's tsconfig has no DOM
 * lib, so the global is typed here rather than by a global declaration that could clash
 * with one added later.
 */
export interface NativeWasmModule {
  readonly __brand?: 'WebAssembly.Module';
}
export interface NativeWasmApi {
  compile(bytes: Uint8Array): Promise<NativeWasmModule>;
  instantiate(module: NativeWasmModule, imports: object): Promise<{ exports: Record<string, unknown> }>;
  validate(bytes: Uint8Array): boolean;
  Module: {
    new (bytes: Uint8Array): NativeWasmModule;
    exports(m: NativeWasmModule): { name: string; kind: string }[];
    imports(m: NativeWasmModule): { module: string; name: string; kind: string }[];
  };
}
export const wasm = (globalThis as unknown as { WebAssembly: NativeWasmApi }).WebAssembly;

export class NativeModule {
  private constructor(readonly module: NativeWasmModule) {}

  static async compile(bytes: Uint8Array): Promise<NativeModule> {
    return new NativeModule(await wasm.compile(bytes));
  }

  /**
   * One run the way the sandbox does one: a fresh instance (its own linear memory) and one
   * call. Instantiation is included in the time on both sides.
   */
  async run(exportName: string, args: readonly (number | bigint)[]): Promise<unknown> {
    const instance = await wasm.instantiate(this.module, {});
    const fn = instance.exports[exportName];
    if (typeof fn !== 'function') throw new Error(`no exported function ${exportName}`);
    return (fn as (...a: (number | bigint)[]) => unknown)(...args);
  }

  async runCanonical(exportName: string, args: readonly (number | bigint)[], type: ResultType): Promise<string> {
    return canonical(type, await this.run(exportName, args));
  }
}
