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
  echo "$CC ${CFLAGS[*]} ${extra[*]} ${LDFLAGS[*]} -o $name.wasm $src"
  "$CC" "${CFLAGS[@]}" "${extra[@]}" "${LDFLAGS[@]}" -o "$name.wasm" "$src"
  chmod 644 "$name.wasm"   # wasm-ld marks its output executable
done

# Check: no imports at all, and the expected export.
node --input-type=module -e '
import { readFileSync, readdirSync } from "node:fs";
let bad = 0;
for (const f of readdirSync(".").filter((f) => f.endsWith(".wasm")).sort()) {
  const m = new WebAssembly.Module(readFileSync(f));
  const imports = WebAssembly.Module.imports(m);
  const exports = WebAssembly.Module.exports(m).map((e) => e.name);
  const want = f === "fib.wasm" ? "fib" : "run";
  const ok = imports.length === 0 && exports.includes(want);
  if (!ok) bad++;
  console.log(`${ok ? "ok " : "BAD"} ${f.padEnd(14)} ${String(readFileSync(f).length).padStart(6)} bytes  imports=${imports.length}  exports=${exports.join(",")}`);
}
process.exit(bad ? 1 : 0);
'
