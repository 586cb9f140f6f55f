#!/usr/bin/env bash
# Rebuilds bench/kernels/*.wasm from the C sources. Only needed after editing a kernel; the
# built .wasm files are committed, so neither CI nor `npm run bench` needs a compiler.
#
#   apt-get update && apt-get install -y clang lld     # Debian 12: clang 14, wasm-ld 14
#   bash bench/kernels/build.sh
#
# Every kernel is one freestanding translation unit: no libc, no imports, one export
# (`run`, or `fib` for fib.wasm) named in the source with __attribute__((export_name)),
# plus the `memory` export wasm-ld always adds. 4 MiB of linear memory, fixed (no growth),
# with a 64 KiB shadow stack placed first so that a stack overflow traps instead of
# silently corrupting static data.
#
# Flags worth knowing (clang 14):
# - -nostdlib alone is not enough: clang still emits calls to memcpy/memset (struct copies,
#   loops it recognises as fills/copies), and the link fails with "undefined symbol: memset".
#   -fno-builtin stops the loop-idiom rewrites; rt.h defines memcpy/memset for the rest.
#   -mbulk-memory instead makes clang inline memory.copy / memory.fill.
# - -ffp-contract=off: clang's default (on) lets the backend regroup a*b+c expressions and the
#   f64 kernel then differs in the last bit from the same C compiled without optimisation;
#   off keeps the wasm to the plain C semantics. (Either way both engines run the same bytes.)
# - wasm-ld: --no-entry (no _start). Exports come from export_name attributes (EXPORT in
#   rt.h), so neither --export-dynamic nor --export=NAME is needed; --export-dynamic would
#   add nothing since clang's wasm target gives every other symbol hidden visibility.
# - -msimd128 (simd_*.c only): WebAssembly 128-bit SIMD, the 0xFD opcodes. The kernels use
#   wasm_simd128.h (clang's own header, no libc needed) and -O2 also autovectorises plain
#   loops. Not -mrelaxed-simd: relaxed instructions may differ between engines.
set -euo pipefail
cd "$(dirname "$0")"

CC=${CC:-clang}
CFLAGS=(--target=wasm32 -O2 -nostdlib -fno-builtin -ffp-contract=off -Wall -Wextra -Werror)
LDFLAGS=(-Wl,--no-entry -Wl,--stack-first -Wl,-z,stack-size=65536
         -Wl,--initial-memory=4194304 -Wl,--max-memory=4194304 -Wl,--strip-debug)

for src in *.c; do
  name=${src%.c}
  extra=()
  # The bulk kernel is the only one built with the bulk-memory feature: clang then lowers
  # __builtin_memcpy/memmove/memset to memory.copy / memory.fill. Everything else is plain
  # MVP code (rt.h supplies memcpy/memset for the calls clang emits without the feature).
  if [[ $name == bulk ]]; then extra=(-mbulk-memory); fi
  # The SIMD kernels (simd_*.c), and only they, are built with -msimd128.
  if [[ $name == simd_* ]]; then extra=(-msimd128); fi
  echo "$CC ${CFLAGS[*]} ${extra[*]} ${LDFLAGS[*]} -o $name.wasm $src"
  "$CC" "${CFLAGS[@]}" "${extra[@]}" "${LDFLAGS[@]}" -o "$name.wasm" "$src"
  chmod 644 "$name.wasm"   # wasm-ld marks its output executable
done

# Check: no imports at all, the expected export, and SIMD instructions (0xFD opcodes) in the
# simd_* kernels and nowhere else (counted in wabt's disassembly: every 0xFD instruction's
# name starts with v128. or a lane shape such as i32x4.).
node --input-type=module -e '
import { readFileSync, readdirSync } from "node:fs";
import { createRequire } from "node:module";
const wabt = await createRequire(process.cwd() + "/")("../../node_modules/wabt")();
let bad = 0;
for (const f of readdirSync(".").filter((f) => f.endsWith(".wasm")).sort()) {
  const bytes = new Uint8Array(readFileSync(f)); // a copy: wabt reads the whole underlying buffer
  const m = new WebAssembly.Module(bytes);
  const imports = WebAssembly.Module.imports(m);
  const exports = WebAssembly.Module.exports(m).map((e) => e.name);
  const want = f === "fib.wasm" ? "fib" : "run";
  const mod = wabt.readWasm(bytes, { simd: true, bulk_memory: true });
  const text = mod.toText({});
  mod.destroy();
  const simdOps = text.split("\n").filter((l) => /^\s*(v128|[if](8|16|32|64)x\d+)\./.test(l)).length;
  const ok = imports.length === 0 && exports.includes(want) && (f.startsWith("simd_") ? simdOps > 0 : simdOps === 0);
  if (!ok) bad++;
  console.log(`${ok ? "ok " : "BAD"} ${f.padEnd(14)} ${String(bytes.length).padStart(6)} bytes  imports=${imports.length}  exports=${exports.join(",")}  simd instructions=${simdOps}`);
}
process.exit(bad ? 1 : 0);
'
