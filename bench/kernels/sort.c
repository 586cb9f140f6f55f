/* sort: quicksort of 200,000 pseudo-random u32s (recursive on the smaller side), then an
 * insertion sort of 2,000 more, folded into an FNV-style hash. A held-out kernel
 * (bench/README.md). */
#include "rt.h"
#define M 200000
static u32 a[M];
static void qs(u32 *v, i32 lo, i32 hi) {
  while (lo < hi) {
    u32 p = v[(lo + hi) >> 1]; i32 i = lo, j = hi;
    while (i <= j) { while (v[i] < p) i++; while (v[j] > p) j--; if (i <= j) { u32 t = v[i]; v[i] = v[j]; v[j] = t; i++; j--; } }
    if (j - lo < hi - i) { qs(v, lo, j); lo = i; } else { qs(v, i, hi); hi = j; }
  }
}
static void isort(u32 *v, i32 n) { for (i32 i = 1; i < n; i++) { u32 x = v[i]; i32 j = i - 1; while (j >= 0 && v[j] > x) { v[j + 1] = v[j]; j--; } v[j + 1] = x; } }
EXPORT("run") i64 run(i32 reps) {
  u32 s = 1; u64 h = 0;
  for (int r = 0; r < reps; r++) {
    for (int i = 0; i < M; i++) a[i] = lcg32(&s);
    qs(a, 0, M - 1);
    for (int i = 0; i < 2000; i++) a[i] = lcg32(&s) & 0xffff;
    isort(a, 2000);
    for (int i = 0; i < M; i += 997) h = h * 1099511628211ull ^ a[i];
  }
  return (i64)h;
}
