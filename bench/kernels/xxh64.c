/* xxh64: the XXH64 hash (64-bit multiplies, rotations and byte-assembled loads) over 64 KiB,
 * repeated with the offset, length and seed varied. A held-out kernel (bench/README.md). */
#include "rt.h"
#define P1 11400714785074694791ull
#define P2 14029467366897019727ull
#define P3 1609587929392839161ull
#define P4 9650029242287828579ull
#define P5 2870177450012600261ull
static u8 buf[1 << 16];
static u64 rd64(const u8 *p) { u64 v = 0; for (int i = 7; i >= 0; i--) v = (v << 8) | p[i]; return v; }
static u32 rd32(const u8 *p) { return (u32)p[0] | ((u32)p[1] << 8) | ((u32)p[2] << 16) | ((u32)p[3] << 24); }
static u64 round_(u64 acc, u64 in) { acc += in * P2; acc = rotl64(acc, 31); return acc * P1; }
static u64 merge(u64 acc, u64 v) { v = round_(0, v); acc ^= v; return acc * P1 + P4; }
static u64 xxh64(const u8 *p, u32 len, u64 seed) {
  const u8 *end = p + len; u64 h;
  if (len >= 32) { u64 v1 = seed + P1 + P2, v2 = seed + P2, v3 = seed, v4 = seed - P1; const u8 *lim = end - 32;
    do { v1 = round_(v1, rd64(p)); v2 = round_(v2, rd64(p + 8)); v3 = round_(v3, rd64(p + 16)); v4 = round_(v4, rd64(p + 24)); p += 32; } while (p <= lim);
    h = rotl64(v1, 1) + rotl64(v2, 7) + rotl64(v3, 12) + rotl64(v4, 18); h = merge(h, v1); h = merge(h, v2); h = merge(h, v3); h = merge(h, v4);
  } else h = seed + P5;
  h += len;
  while (end - p >= 8) { h ^= round_(0, rd64(p)); h = rotl64(h, 27) * P1 + P4; p += 8; }
  if (end - p >= 4) { h ^= (u64)rd32(p) * P1; h = rotl64(h, 23) * P2 + P3; p += 4; }
  while (p < end) { h ^= (*p) * P5; h = rotl64(h, 11) * P1; p++; }
  h ^= h >> 33; h *= P2; h ^= h >> 29; h *= P3; h ^= h >> 32; return h;
}
EXPORT("run") i64 run(i32 reps) {
  u32 s = 3; for (u32 i = 0; i < sizeof buf; i++) buf[i] = (u8)(lcg32(&s) >> 24);
  u64 h = 0; for (int r = 0; r < reps; r++) h ^= xxh64(buf + (r & 63), sizeof buf - 64 - (r & 7), h);
  return (i64)h;
}
