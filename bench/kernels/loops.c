/* loops: integer loops over linear memory. Sieve of Eratosthenes, prefix sums, a small
 * integer matrix product and a histogram. */
#include "rt.h"

#define SIEVE_MAX (1 << 21)
static u8 sieve[SIEVE_MAX];

#define ARR 65536
static i32 arr[ARR];
static i32 pre[ARR];

#define M 48
static i32 ma[M * M], mb[M * M], mc[M * M];

static u32 hist[256];

static u32 do_sieve(u32 limit) {
  if (limit > SIEVE_MAX) limit = SIEVE_MAX;
  for (u32 i = 0; i < limit; i++) sieve[i] = 1;
  sieve[0] = 0;
  if (limit > 1) sieve[1] = 0;
  for (u32 i = 2; i * i < limit; i++) {
    if (!sieve[i]) continue;
    for (u32 j = i * i; j < limit; j += i) sieve[j] = 0;
  }
  u32 count = 0, sum = 0;
  for (u32 i = 0; i < limit; i++) {
    if (sieve[i]) {
      count++;
      sum += i;
    }
  }
  return count * 2654435761u ^ sum;
}

static u32 do_sums(u32 rounds) {
  u32 s = 12345;
  for (u32 i = 0; i < ARR; i++) arr[i] = (i32)(lcg32(&s) >> 8) - (1 << 23);
  u32 acc = 0;
  for (u32 r = 0; r < rounds; r++) {
    i32 run = 0;
    for (u32 i = 0; i < ARR; i++) {
      run += arr[i];
      pre[i] = run;
    }
    /* max subarray sum over a window using the prefix sums */
    i32 best = pre[0], lo = 0;
    for (u32 i = 1; i < ARR; i++) {
      i32 cand = pre[i] - lo;
      if (cand > best) best = cand;
      if (pre[i] < lo) lo = pre[i];
    }
    acc = acc * 31u + (u32)best + (u32)run;
    /* perturb the array for the next round */
    for (u32 i = r & 7; i < ARR; i += 8) arr[i] = arr[i] ^ (i32)(r * 0x45d9f3bu);
  }
  return acc;
}

static u32 do_matmul(void) {
  u32 s = 777;
  for (u32 i = 0; i < M * M; i++) {
    ma[i] = (i32)(lcg32(&s) >> 20) - 2048;
    mb[i] = (i32)(lcg32(&s) >> 20) - 2048;
  }
  for (u32 i = 0; i < M; i++) {
    for (u32 j = 0; j < M; j++) {
      i32 t = 0;
      for (u32 k = 0; k < M; k++) t += ma[i * M + k] * mb[k * M + j];
      mc[i * M + j] = t;
    }
  }
  u32 h = 0;
  for (u32 i = 0; i < M * M; i++) h = h * 16777619u ^ (u32)mc[i];
  return h;
}

static u32 do_hist(void) {
  for (u32 i = 0; i < 256; i++) hist[i] = 0;
  const u8 *bytes = (const u8 *)arr;
  for (u32 i = 0; i < ARR * 4; i++) hist[bytes[i]]++;
  u32 h = 0;
  for (u32 i = 0; i < 256; i++) h = h * 31u + hist[i] * (i + 1);
  return h;
}

EXPORT("run") i32 run(i32 n) {
  u32 h = do_sieve((u32)n * 16u);
  h = h * 33u ^ do_sums((u32)n / 64u);
  h = h * 33u ^ do_matmul();
  h = h * 33u ^ do_hist();
  return (i32)h;
}
