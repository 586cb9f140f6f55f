/* simd_f32: f32x4 arithmetic, built with -msimd128. Per round: saxpy (y = a*x + y, a mul and
 * an add: no fma, -ffp-contract=off), a dot product with four vector accumulators, a 3x4
 * transform of points in structure-of-arrays form followed by normalisation (sqrt, div,
 * min/max clamps), and a 4-pixels-at-a-time Mandelbrot tile (compare masks, bitselect,
 * any_true). Plus one plain C loop that clang autovectorises (a lerp).
 *
 * Every value stays finite: escaped Mandelbrot lanes are frozen by bitselect instead of
 * iterating to infinity, and the saxpy coefficient alternates in sign so y stays bounded.
 * No NaN is ever made, so the result does not depend on any engine's NaN choice. The
 * result mixes the bit patterns of the sums (exact IEEE arithmetic in both engines). */
#include <wasm_simd128.h>
#include "rt.h"

#define N 4096          /* floats per array */
#define P 1024          /* points (x, y, z arrays of P floats each) */
#define MW 64           /* mandelbrot tile width (a multiple of 4) */
#define MH 32
#define MAXIT 48

static float xs[N], ys[N];
static float px[P], py[P], pz[P];
static float qx[P], qy[P], qz[P];

static inline u32 fbits(float f) {
  union { float f; u32 u; } v = { f };
  return v.u;
}

static inline u32 mix(u32 h, u32 x) { return rotl32(h ^ x, 5) * 0x9e3779b1u; }

/* Four lanes of an LCG give 4 floats in [-0.5, 0.5) per step. */
static void fill(float *dst, u32 n, u32 seed) {
  v128_t s = wasm_u32x4_make(seed, seed ^ 0x1234567u, seed * 3u + 1u, seed ^ 0xdeadbeefu);
  const v128_t a = wasm_u32x4_splat(1664525u), c = wasm_u32x4_splat(1013904223u);
  const v128_t scale = wasm_f32x4_splat(1.0f / 65536.0f), half = wasm_f32x4_splat(0.5f);
  for (u32 i = 0; i < n; i += 4) {
    s = wasm_i32x4_add(wasm_i32x4_mul(s, a), c);
    v128_t v = wasm_f32x4_convert_i32x4(wasm_u32x4_shr(s, 16));
    wasm_v128_store(dst + i, wasm_f32x4_sub(wasm_f32x4_mul(v, scale), half));
  }
}

static void saxpy(float a, const float *x, float *y, u32 n) {
  const v128_t va = wasm_f32x4_splat(a);
  for (u32 i = 0; i < n; i += 8) {
    v128_t y0 = wasm_v128_load(y + i), y1 = wasm_v128_load(y + i + 4);
    y0 = wasm_f32x4_add(wasm_f32x4_mul(va, wasm_v128_load(x + i)), y0);
    y1 = wasm_f32x4_add(wasm_f32x4_mul(va, wasm_v128_load(x + i + 4)), y1);
    wasm_v128_store(y + i, y0);
    wasm_v128_store(y + i + 4, y1);
  }
}

static inline float hsum(v128_t v) {
  v = wasm_f32x4_add(v, wasm_i32x4_shuffle(v, v, 2, 3, 0, 1));
  v = wasm_f32x4_add(v, wasm_i32x4_shuffle(v, v, 1, 0, 3, 2));
  return wasm_f32x4_extract_lane(v, 0);
}

static float dot(const float *x, const float *y, u32 n) {
  v128_t a0 = wasm_f32x4_splat(0), a1 = a0, a2 = a0, a3 = a0;
  for (u32 i = 0; i < n; i += 16) {
    a0 = wasm_f32x4_add(a0, wasm_f32x4_mul(wasm_v128_load(x + i), wasm_v128_load(y + i)));
    a1 = wasm_f32x4_add(a1, wasm_f32x4_mul(wasm_v128_load(x + i + 4), wasm_v128_load(y + i + 4)));
    a2 = wasm_f32x4_add(a2, wasm_f32x4_mul(wasm_v128_load(x + i + 8), wasm_v128_load(y + i + 8)));
    a3 = wasm_f32x4_add(a3, wasm_f32x4_mul(wasm_v128_load(x + i + 12), wasm_v128_load(y + i + 12)));
  }
  return hsum(wasm_f32x4_add(wasm_f32x4_add(a0, a1), wasm_f32x4_add(a2, a3)));
}

/* q = normalize(M * p + t), lengths clamped to [1/64, 64]; returns the sum of the lengths. */
static float transform(const float *m) {
  const v128_t m00 = wasm_f32x4_splat(m[0]), m01 = wasm_f32x4_splat(m[1]), m02 = wasm_f32x4_splat(m[2]), t0 = wasm_f32x4_splat(m[3]);
  const v128_t m10 = wasm_f32x4_splat(m[4]), m11 = wasm_f32x4_splat(m[5]), m12 = wasm_f32x4_splat(m[6]), t1 = wasm_f32x4_splat(m[7]);
  const v128_t m20 = wasm_f32x4_splat(m[8]), m21 = wasm_f32x4_splat(m[9]), m22 = wasm_f32x4_splat(m[10]), t2 = wasm_f32x4_splat(m[11]);
  const v128_t lo = wasm_f32x4_splat(1.0f / 64), hi = wasm_f32x4_splat(64.0f), one = wasm_f32x4_splat(1.0f);
  v128_t acc = wasm_f32x4_splat(0);
  for (u32 i = 0; i < P; i += 4) {
    v128_t x = wasm_v128_load(px + i), y = wasm_v128_load(py + i), z = wasm_v128_load(pz + i);
    v128_t nx = wasm_f32x4_add(wasm_f32x4_add(wasm_f32x4_mul(m00, x), wasm_f32x4_mul(m01, y)), wasm_f32x4_add(wasm_f32x4_mul(m02, z), t0));
    v128_t ny = wasm_f32x4_add(wasm_f32x4_add(wasm_f32x4_mul(m10, x), wasm_f32x4_mul(m11, y)), wasm_f32x4_add(wasm_f32x4_mul(m12, z), t1));
    v128_t nz = wasm_f32x4_add(wasm_f32x4_add(wasm_f32x4_mul(m20, x), wasm_f32x4_mul(m21, y)), wasm_f32x4_add(wasm_f32x4_mul(m22, z), t2));
    v128_t len = wasm_f32x4_sqrt(wasm_f32x4_add(wasm_f32x4_add(wasm_f32x4_mul(nx, nx), wasm_f32x4_mul(ny, ny)), wasm_f32x4_mul(nz, nz)));
    len = wasm_f32x4_min(wasm_f32x4_max(len, lo), hi);
    v128_t inv = wasm_f32x4_div(one, len);
    wasm_v128_store(qx + i, wasm_f32x4_mul(nx, inv));
    wasm_v128_store(qy + i, wasm_f32x4_mul(ny, inv));
    wasm_v128_store(qz + i, wasm_f32x4_mul(nz, inv));
    acc = wasm_f32x4_add(acc, len);
  }
  return hsum(acc);
}

/* Escape counts of a MW x MH tile of the plane around (cx, cy), 4 pixels at a time. */
static u32 mandel(float cx, float cy, float step) {
  u32 h = 0;
  const v128_t four = wasm_f32x4_splat(4.0f), vstep = wasm_f32x4_splat(step);
  const v128_t lane = wasm_f32x4_make(0, 1, 2, 3);
  for (u32 row = 0; row < MH; row++) {
    const v128_t ci = wasm_f32x4_splat(cy + (float)((i32)row - MH / 2) * step);
    for (u32 col = 0; col < MW; col += 4) {
      v128_t cr = wasm_f32x4_add(wasm_f32x4_splat(cx + (float)((i32)col - MW / 2) * step), wasm_f32x4_mul(lane, vstep));
      v128_t zr = wasm_f32x4_splat(0), zi = zr, count = wasm_i32x4_splat(0);
      for (u32 it = 0; it < MAXIT; it++) {
        v128_t zr2 = wasm_f32x4_mul(zr, zr), zi2 = wasm_f32x4_mul(zi, zi);
        v128_t inside = wasm_f32x4_le(wasm_f32x4_add(zr2, zi2), four);
        if (!wasm_v128_any_true(inside)) break;
        count = wasm_i32x4_sub(count, inside);   /* inside lanes are -1 */
        v128_t nzr = wasm_f32x4_add(wasm_f32x4_sub(zr2, zi2), cr);
        v128_t nzi = wasm_f32x4_add(wasm_f32x4_mul(wasm_f32x4_add(zr, zr), zi), ci);
        zr = wasm_v128_bitselect(nzr, zr, inside);
        zi = wasm_v128_bitselect(nzi, zi, inside);
      }
      h = mix(h, wasm_i32x4_extract_lane(count, 0) + 7u * wasm_i32x4_extract_lane(count, 1));
      h = mix(h, wasm_i32x4_extract_lane(count, 2) + 13u * wasm_i32x4_extract_lane(count, 3));
      h = mix(h, fbits(hsum(wasm_f32x4_add(zr, zi))));
    }
  }
  return h;
}

/* A plain loop: clang -O2 -msimd128 vectorises it (v128.load, f32x4.sub/mul/add, v128.store). */
static NOINLINE void lerp(float *__restrict dst, const float *__restrict a, const float *__restrict b, float t, u32 n) {
  for (u32 i = 0; i < n; i++) dst[i] = a[i] + (b[i] - a[i]) * t;
}

EXPORT("run") i32 run(i32 n) {
  fill(xs, N, 1);
  fill(ys, N, 2);
  fill(px, P, 3);
  fill(py, P, 4);
  fill(pz, P, 5);
  float m[12] = { 0.8f, -0.6f, 0.1f, 0.25f, 0.6f, 0.8f, -0.2f, -0.5f, 0.05f, 0.3f, 0.95f, 0.125f };
  u32 h = 2166136261u;
  for (i32 r = 0; r < n; r++) {
    saxpy((r & 1) ? 0.75f : -0.6875f, xs, ys, N);
    h = mix(h, fbits(dot(xs, ys, N)));
    h = mix(h, fbits(transform(m)));
    /* the normalised points feed the next round */
    for (u32 i = 0; i < P; i += 4) {
      wasm_v128_store(px + i, wasm_f32x4_add(wasm_v128_load(qx + i), wasm_v128_load(py + i)));
      wasm_v128_store(py + i, wasm_f32x4_sub(wasm_v128_load(qy + i), wasm_v128_load(pz + i)));
      wasm_v128_store(pz + i, wasm_f32x4_mul(wasm_v128_load(qz + i), wasm_f32x4_splat(1.5f)));
    }
    lerp(qx, px, py, 0.375f, P);
    h = mix(h, fbits(dot(qx, pz, P)));
    if ((r & 7) == 0) h = mix(h, mandel(-0.75f + (float)(r & 63) * 0.001f, 0.1f, 2.5f / MW));
  }
  return (i32)h;
}
