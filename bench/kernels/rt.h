/*
 * Tiny freestanding runtime shared by the benchmark kernels.
 *
 * The kernels are built with -nostdlib and must not import anything, so there is no libc.
 * Without -mbulk-memory clang lowers struct copies and __builtin_memcpy/memset to *calls*
 * to memcpy/memset, so those are defined here (the kernels are built with -fno-builtin so
 * the loops below are not "optimised" back into calls to themselves). With -mbulk-memory
 * clang emits memory.copy / memory.fill inline instead and these are not needed.
 */
#ifndef BENCH_RT_H
#define BENCH_RT_H

typedef unsigned char u8;
typedef unsigned short u16;
typedef unsigned int u32;
typedef unsigned long long u64;
typedef signed int i32;
typedef signed long long i64;
typedef unsigned long usize;

#define EXPORT(name) __attribute__((export_name(name), visibility("default")))
#define NOINLINE __attribute__((noinline))

#ifndef __wasm_bulk_memory__
void *memcpy(void *dst, const void *src, usize n) {
  u8 *d = (u8 *)dst;
  const u8 *s = (const u8 *)src;
  while (n--) *d++ = *s++;
  return dst;
}

void *memset(void *dst, int c, usize n) {
  u8 *d = (u8 *)dst;
  while (n--) *d++ = (u8)c;
  return dst;
}
#endif

static inline u32 rotl32(u32 x, int r) { return (x << r) | (x >> (32 - r)); }
static inline u32 rotr32(u32 x, int r) { return (x >> r) | (x << (32 - r)); }
static inline u64 rotl64(u64 x, int r) { return (x << r) | (x >> (64 - r)); }

/* Small deterministic generators. */
static inline u32 lcg32(u32 *s) {
  *s = *s * 1664525u + 1013904223u;
  return *s;
}

static inline u64 xorshift64(u64 *s) {
  u64 x = *s;
  x ^= x << 13;
  x ^= x >> 7;
  x ^= x << 17;
  *s = x;
  return x;
}

#endif
