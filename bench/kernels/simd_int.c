/* simd_int: integer SIMD, built with -msimd128, on a generated 64 KiB text. Per round:
 * - text generation: four LCG lanes (i32x4.mul/add), bytes mapped to letters and spaces
 *   with u8x16 compares and bitselect;
 * - byte count (i8x16.eq, lanes as counters, u16x8/u32x4.extadd_pairwise to flush);
 * - substring search, the first/last-byte filter (i8x16.eq, and, bitmask, then ctz);
 * - ASCII upper-casing (u8x16 compares, sub) and an autovectorised plain C loop (a byte mix);
 * - sum of absolute differences of 16x16 blocks (u8x16.sub_sat both ways, or, extadd);
 * - alpha blending of bytes (u16x8.extmul, add, shr, u8x16.narrow_i16x8);
 * - an i16 FIR filter (i32x4.dot_i16x8_s, load16x4 widening loads);
 * - a four-lane xxhash32-like mix (i32x4.mul, shl/shr_u rotates, xor, swizzle).
 * Everything is integer: the result is the same on any correct engine. */
#include <wasm_simd128.h>
#include "rt.h"

typedef signed char i8;
typedef signed short i16;

#define T 65536           /* text bytes */
#define IMG_W 256         /* the text seen as a 256 x 256 8-bit image */

static u8 text[T + 16];
static u8 upper[T];
static u8 mixed[T];
static u8 blend[T];
static i16 samples[T / 2 + 8];
static i32 filtered[T / 2];

static inline u32 mix(u32 h, u32 x) { return rotl32(h ^ x, 5) * 0x9e3779b1u; }

/* Letters 'a'..'z' (byte & 31 < 26) and spaces (otherwise) from four LCG lanes. */
static void gen_text(u32 seed) {
  v128_t s = wasm_u32x4_make(seed, seed * 747796405u + 1u, seed ^ 0x5bd1e995u, seed + 0x27d4eb2fu);
  const v128_t a = wasm_u32x4_splat(1664525u), c = wasm_u32x4_splat(1013904223u);
  const v128_t m31 = wasm_u8x16_splat(31), n26 = wasm_u8x16_splat(26);
  const v128_t base = wasm_u8x16_splat('a'), space = wasm_u8x16_splat(' ');
  for (u32 i = 0; i < T; i += 16) {
    s = wasm_i32x4_add(wasm_i32x4_mul(s, a), c);
    /* the high bytes of an LCG are the good ones: take them from two shifts */
    v128_t r = wasm_v128_xor(wasm_u32x4_shr(s, 8), wasm_i32x4_shl(s, 3));
    v128_t k = wasm_v128_and(r, m31);
    v128_t letter = wasm_u8x16_lt(k, n26);
    wasm_v128_store(text + i, wasm_v128_bitselect(wasm_i8x16_add(k, base), space, letter));
  }
  for (u32 i = T; i < T + 16; i++) text[i] = 0;
}

static u32 count_byte(const u8 *p, u32 n, u8 b) {
  const v128_t vb = wasm_i8x16_splat((i8)b);
  v128_t total = wasm_i32x4_splat(0);
  for (u32 i = 0; i < n;) {
    v128_t acc = wasm_i8x16_splat(0);
    u32 end = i + 16 * 255 < n ? i + 16 * 255 : n;   /* at most 255 per byte lane */
    for (; i < end; i += 16) acc = wasm_i8x16_sub(acc, wasm_i8x16_eq(wasm_v128_load(p + i), vb));
    total = wasm_i32x4_add(total, wasm_u32x4_extadd_pairwise_u16x8(wasm_u16x8_extadd_pairwise_u8x16(acc)));
  }
  return wasm_i32x4_extract_lane(total, 0) + wasm_i32x4_extract_lane(total, 1)
       + wasm_i32x4_extract_lane(total, 2) + wasm_i32x4_extract_lane(total, 3);
}

/* Occurrences of needle (length k >= 2) in p[0..n), by the first/last-byte filter. */
static u32 find_all(const u8 *p, u32 n, const u8 *needle, u32 k, u32 *first) {
  const v128_t f = wasm_i8x16_splat((i8)needle[0]), l = wasm_i8x16_splat((i8)needle[k - 1]);
  u32 hits = 0;
  *first = 0xffffffffu;
  for (u32 i = 0; i + k + 15 <= n; i += 16) {
    v128_t m = wasm_v128_and(wasm_i8x16_eq(wasm_v128_load(p + i), f), wasm_i8x16_eq(wasm_v128_load(p + i + k - 1), l));
    u32 bits = wasm_i8x16_bitmask(m);
    while (bits) {
      u32 j = i + (u32)__builtin_ctz(bits);
      u32 q = 1;
      while (q < k - 1 && p[j + q] == needle[q]) q++;
      if (q >= k - 1) {
        hits++;
        if (*first == 0xffffffffu) *first = j;
      }
      bits &= bits - 1;
    }
  }
  return hits;
}

static void to_upper(u8 *dst, const u8 *src, u32 n) {
  const v128_t lo = wasm_u8x16_splat('a' - 1), hi = wasm_u8x16_splat('z' + 1), d = wasm_u8x16_splat(32);
  for (u32 i = 0; i < n; i += 16) {
    v128_t v = wasm_v128_load(src + i);
    v128_t is = wasm_v128_and(wasm_u8x16_gt(v, lo), wasm_u8x16_lt(v, hi));
    wasm_v128_store(dst + i, wasm_i8x16_sub(v, wasm_v128_and(is, d)));
  }
}

/* A plain loop: clang -O2 -msimd128 vectorises it (i8x16 shifts, add, xor). */
static NOINLINE void byte_mix(u8 *__restrict dst, const u8 *__restrict a, const u8 *__restrict b, u32 n) {
  for (u32 i = 0; i < n; i++) dst[i] = (u8)(((a[i] >> 1) + (b[i] >> 2)) ^ (u8)(a[i] << 3));
}

/* Sum of absolute differences between the 16x16 block at (bx, by) of img and ref. */
static u32 sad16(const u8 *img, const u8 *ref, u32 bx, u32 by, u32 rx, u32 ry) {
  v128_t acc = wasm_i32x4_splat(0);
  for (u32 y = 0; y < 16; y++) {
    v128_t a = wasm_v128_load(img + (by + y) * IMG_W + bx);
    v128_t b = wasm_v128_load(ref + (ry + y) * IMG_W + rx);
    v128_t d = wasm_v128_or(wasm_u8x16_sub_sat(a, b), wasm_u8x16_sub_sat(b, a));
    acc = wasm_i32x4_add(acc, wasm_u32x4_extadd_pairwise_u16x8(wasm_u16x8_extadd_pairwise_u8x16(d)));
  }
  return wasm_i32x4_extract_lane(acc, 0) + wasm_i32x4_extract_lane(acc, 1)
       + wasm_i32x4_extract_lane(acc, 2) + wasm_i32x4_extract_lane(acc, 3);
}

/* Best match of each of a row of blocks in a +-4 pixel window: a motion search. */
static u32 motion(const u8 *img, const u8 *ref, u32 by) {
  u32 h = 0;
  for (u32 bx = 16; bx + 32 <= IMG_W; bx += 16) {
    u32 best = 0xffffffffu, at = 0;
    for (u32 dy = 0; dy < 9; dy++)
      for (u32 dx = 0; dx < 9; dx++) {
        u32 s = sad16(img, ref, bx, by, bx + dx - 4, by + dy - 4);
        if (s < best) { best = s; at = dy * 9 + dx; }
      }
    h = mix(h, best * 128u + at);
  }
  return h;
}

/* dst = (src * alpha + dst * (255 - alpha) + 128) >> 8, bytes. */
static void alpha_blend(u8 *dst, const u8 *src, u32 n, u8 alpha) {
  const v128_t a = wasm_u8x16_splat(alpha), na = wasm_u8x16_splat((u8)(255 - alpha));
  const v128_t round = wasm_u16x8_splat(128);
  for (u32 i = 0; i < n; i += 16) {
    v128_t s = wasm_v128_load(src + i), d = wasm_v128_load(dst + i);
    v128_t lo = wasm_i16x8_add(wasm_i16x8_add(wasm_u16x8_extmul_low_u8x16(s, a), wasm_u16x8_extmul_low_u8x16(d, na)), round);
    v128_t hi = wasm_i16x8_add(wasm_i16x8_add(wasm_u16x8_extmul_high_u8x16(s, a), wasm_u16x8_extmul_high_u8x16(d, na)), round);
    wasm_v128_store(dst + i, wasm_u8x16_narrow_i16x8(wasm_u16x8_shr(lo, 8), wasm_u16x8_shr(hi, 8)));
  }
}

/* An 8-tap FIR filter over i16 samples: each output is one i32x4.dot_i16x8_s and a fold. */
static u32 fir(u32 n) {
  const v128_t taps = wasm_i16x8_make(-3, 12, -40, 160, 160, -40, 12, -3);
  u32 h = 0;
  for (u32 i = 0; i < n; i += 4) {
    v128_t o0 = wasm_i32x4_dot_i16x8(wasm_v128_load(samples + i), taps);
    v128_t o1 = wasm_i32x4_dot_i16x8(wasm_v128_load(samples + i + 1), taps);
    v128_t o2 = wasm_i32x4_dot_i16x8(wasm_v128_load(samples + i + 2), taps);
    v128_t o3 = wasm_i32x4_dot_i16x8(wasm_v128_load(samples + i + 3), taps);
    /* transpose-and-add: lane j of the result is the full dot product of output i + j */
    v128_t t0 = wasm_i32x4_add(wasm_i32x4_shuffle(o0, o1, 0, 4, 2, 6), wasm_i32x4_shuffle(o0, o1, 1, 5, 3, 7));
    v128_t t1 = wasm_i32x4_add(wasm_i32x4_shuffle(o2, o3, 0, 4, 2, 6), wasm_i32x4_shuffle(o2, o3, 1, 5, 3, 7));
    v128_t sum = wasm_i32x4_add(wasm_i32x4_shuffle(t0, t1, 0, 1, 4, 5), wasm_i32x4_shuffle(t0, t1, 2, 3, 6, 7));
    v128_t out = wasm_i32x4_shr(sum, 6);
    wasm_v128_store(filtered + i, out);
    h += (u32)wasm_i32x4_extract_lane(out, 0) ^ (u32)wasm_i32x4_extract_lane(out, 3);
  }
  return h;
}

/* Four xxhash32-like lanes over p (n a multiple of 16), folded with a byte swizzle. */
static u32 hash4(const u8 *p, u32 n, u32 seed) {
  const v128_t p1 = wasm_u32x4_splat(2654435761u), p2 = wasm_u32x4_splat(2246822519u);
  v128_t acc = wasm_u32x4_make(seed + 2654435761u + 2246822519u, seed + 2246822519u, seed, seed - 2654435761u);
  for (u32 i = 0; i < n; i += 16) {
    acc = wasm_i32x4_add(acc, wasm_i32x4_mul(wasm_v128_load(p + i), p2));
    acc = wasm_v128_or(wasm_i32x4_shl(acc, 13), wasm_u32x4_shr(acc, 19));
    acc = wasm_i32x4_mul(acc, p1);
  }
  /* byte-reverse each lane, xor-fold, then fold the lanes */
  const v128_t rev = wasm_i8x16_make(3, 2, 1, 0, 7, 6, 5, 4, 11, 10, 9, 8, 15, 14, 13, 12);
  acc = wasm_v128_xor(acc, wasm_i8x16_swizzle(acc, rev));
  acc = wasm_i32x4_add(acc, wasm_i32x4_shuffle(acc, acc, 2, 3, 0, 1));
  acc = wasm_v128_xor(acc, wasm_i32x4_shuffle(acc, acc, 1, 0, 3, 2));
  return (u32)wasm_i32x4_extract_lane(acc, 0);
}

EXPORT("run") i32 run(i32 n) {
  u32 h = 2166136261u;
  static const u8 needles[4][4] = { "the", "eas", "q z", "and" };
  for (i32 r = 0; r < n; r++) {
    gen_text(0x9e3779b9u * (u32)(r + 1));
    h = mix(h, count_byte(text, T, 'e'));
    h = mix(h, count_byte(text, T, ' '));
    u32 first;
    const u8 *nd = needles[r & 3];
    h = mix(h, find_all(text, T, nd, 3, &first));
    h = mix(h, first);
    to_upper(upper, text, T);
    byte_mix(mixed, upper, text, T);
    h = mix(h, hash4(mixed, T, (u32)r));
    if ((r & 3) == 0) {
      /* the 64 KiB of text is a 256 x 256 image; blend it into the last one and search motion */
      alpha_blend(blend, text, T, (u8)(64 + (r & 127)));
      h = mix(h, motion(blend, text, 32u + (u32)(r & 7) * 16u));
    }
    for (u32 i = 0; i < T / 2; i += 8)
      wasm_v128_store(samples + i, wasm_i16x8_sub(wasm_i16x8_load8x8(text + i), wasm_i16x8_splat(96)));
    h = mix(h, fir(T / 2));
    h = mix(h, hash4((const u8 *)filtered, T / 2 * 4, h));
  }
  return (i32)h;
}
