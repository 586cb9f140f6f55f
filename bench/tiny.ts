/**
 * Tiny hand-assembled modules for the start-up, responsiveness and deadline measurements,
 * so they need neither a fixture file nor a text-format parser.
 */
import { existsSync, readFileSync } from 'node:fs';
import { wasm } from './native.js';

/** (module (func (export "add") (param i32 i32) (result i32) local.get 0 local.get 1 i32.add)) */
export const ADD_WASM = new Uint8Array([
  0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00,
  0x01, 0x07, 0x01, 0x60, 0x02, 0x7f, 0x7f, 0x01, 0x7f, // type: (i32 i32) -> i32
  0x03, 0x02, 0x01, 0x00, // func 0: type 0
  0x07, 0x07, 0x01, 0x03, 0x61, 0x64, 0x64, 0x00, 0x00, // export "add" func 0
  0x0a, 0x09, 0x01, 0x07, 0x00, 0x20, 0x00, 0x20, 0x01, 0x6a, 0x0b, // local.get 0 local.get 1 i32.add
]);

/** (module (func (export "spin") (loop (br 0)))) */
export const SPIN_WASM = new Uint8Array([
  0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00,
  0x01, 0x04, 0x01, 0x60, 0x00, 0x00, // type: () -> ()
  0x03, 0x02, 0x01, 0x00,
  0x07, 0x08, 0x01, 0x04, 0x73, 0x70, 0x69, 0x6e, 0x00, 0x00, // export "spin"
  0x0a, 0x09, 0x01, 0x07, 0x00, 0x03, 0x40, 0x0c, 0x00, 0x0b, 0x0b, // loop br 0 end end
]);

/**
 * The `add` module: from fixtures/well_behaved.wat when that fixture exists (converted with
 * wabt), otherwise the embedded bytes above.
 */
export async function loadAddModule(fixture: string): Promise<{ bytes: Uint8Array; source: string }> {
  if (existsSync(fixture)) {
    try {
      const wabt = await (await import('wabt')).default();
      const m = wabt.parseWat(fixture, readFileSync(fixture, 'utf8'));
      try {
        const bytes = m.toBinary({}).buffer;
        const mod = new wasm.Module(bytes);
        if (wasm.Module.exports(mod).some((e) => e.name === 'add' && e.kind === 'function')) {
          return { bytes, source: fixture };
        }
      } finally {
        m.destroy();
      }
    } catch {
      // fall through to the embedded module
    }
  }
  return { bytes: ADD_WASM, source: 'embedded add module (fixture absent or unusable)' };
}
