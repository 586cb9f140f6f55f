/* i64: 64-bit hashing and mixing over a buffer. FNV-1a 64, a murmur-style block hash with
 * fmix64 finalisation, xorshift64* generation and some 64-bit division. */
#include "rt.h"

#define BUF (1 << 16)
static u64 buf[BUF / 8];

static u64 fnv1a64(const u8 *p, u32 len) {
  u64 h = 0xcbf29ce484222325ull;
  for (u32 i = 0; i < len; i++) {
    h ^= p[i];
    h *= 0x100000001b3ull;
  }
  return h;
}

static u64 fmix64(u64 k) {
  k ^= k >> 33;
  k *= 0xff51afd7ed558ccdull;
  k ^= k >> 33;
  k *= 0xc4ceb9fe1a85ec53ull;
  k ^= k >> 33;
  return k;
}

/* A murmur3-x64-like hash over 64-bit words (two lanes). */
static u64 murmurish(const u64 *w, u32 nwords, u64 seed) {
  const u64 c1 = 0x87c37b91114253d5ull, c2 = 0x4cf5ad432745937full;
  u64 h1 = seed, h2 = seed ^ 0x9e3779b97f4a7c15ull;
  u32 i = 0;
  for (; i + 1 < nwords; i += 2) {
    u64 k1 = w[i], k2 = w[i + 1];
    k1 *= c1; k1 = rotl64(k1, 31); k1 *= c2; h1 ^= k1;
    h1 = rotl64(h1, 27); h1 += h2; h1 = h1 * 5 + 0x52dce729;
    k2 *= c2; k2 = rotl64(k2, 33); k2 *= c1; h2 ^= k2;
    h2 = rotl64(h2, 31); h2 += h1; h2 = h2 * 5 + 0x38495ab5;
  }
  if (i < nwords) h1 ^= fmix64(w[i]);
  h1 ^= (u64)nwords * 8;
  h2 ^= (u64)nwords * 8;
  h1 += h2;
  h2 += h1;
  h1 = fmix64(h1);
  h2 = fmix64(h2);
  return h1 + h2;
}

static u64 xorshift64star(u64 *s) {
  return xorshift64(s) * 0x2545f4914f6cdd1dull;
}

EXPORT("run") i64 run(i32 n) {
  u64 s = 0x123456789abcdefull;
  for (u32 i = 0; i < BUF / 8; i++) buf[i] = xorshift64star(&s);
  u64 acc = 0;
  for (i32 r = 0; r < n; r++) {
    u64 a = fnv1a64((const u8 *)buf, BUF / 4);
    u64 b = murmurish(buf, BUF / 8, acc);
    acc = rotl64(acc ^ a, 13) + b;
    /* 64-bit division and remainder, signed and unsigned */
    u64 d = (b | 1) >> (r & 31);
    acc ^= (a / (d | 3)) + (u64)((i64)b % (i64)((a >> 40) | 5));
    /* perturb the buffer so each round hashes different data */
    for (u32 i = (u32)r & 15; i < BUF / 8; i += 16) buf[i] ^= xorshift64star(&s) >> (r & 7);
  }
  return (i64)fmix64(acc);
}
