/* sieve: the sieve of Eratosthenes over a byte array of about a million flags, counted,
 * repeated with a slightly smaller bound each time. A held-out kernel (bench/README.md). */
#include "rt.h"
static u8 flags[1 << 20];
EXPORT("run") i32 run(i32 reps) {
  u32 total = 0;
  for (int r = 0; r < reps; r++) {
    u32 n = (1 << 20) - (r & 1023);
    for (u32 i = 0; i < n; i++) flags[i] = 1;
    flags[0] = flags[1] = 0;
    for (u32 i = 2; i * i < n; i++) if (flags[i]) for (u32 j = i * i; j < n; j += i) flags[j] = 0;
    i32 c = 0; for (u32 i = 0; i < n; i++) c += flags[i];
    total = total * 31u + (u32)c;
  }
  return (i32)total;
}
