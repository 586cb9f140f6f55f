/* bulk: memory.copy / memory.fill heavy. Built with -mbulk-memory so that
 * __builtin_memcpy/memmove/memset become memory.copy and memory.fill instructions. */
#include "rt.h"

#define ARENA (1 << 20)
static u8 arena[ARENA];
static u8 scratch[1 << 16];

static u32 sample(const u8 *p, u32 len) {
  /* a handful of reads so the result depends on the copies, without a full scan */
  u32 h = len;
  for (u32 i = 0; i < len; i += (len >> 3) | 1) h = h * 31u + p[i];
  return h;
}

EXPORT("run") i32 run(i32 n) {
  u32 s = 2024;
  __builtin_memset(arena, 0x5a, ARENA);
  for (u32 i = 0; i < ARENA; i += 4096) arena[i] = (u8)lcg32(&s);
  u32 h = 0;
  for (i32 it = 0; it < n; it++) {
    u32 r = lcg32(&s);
    u32 len = 256u + (r >> 16) % 32768u;                 /* 256 B .. 32 KiB */
    u32 src = (lcg32(&s) >> 8) % (ARENA - len);
    u32 dst = (lcg32(&s) >> 8) % (ARENA - len);
    switch (r & 3) {
      case 0: /* possibly overlapping move inside the arena */
        __builtin_memmove(arena + dst, arena + src, len);
        break;
      case 1: /* fill a region with a byte */
        __builtin_memset(arena + dst, (int)(r >> 24), len);
        break;
      case 2: /* out to scratch and back somewhere else */
        __builtin_memcpy(scratch, arena + src, len > sizeof scratch ? sizeof scratch : len);
        __builtin_memcpy(arena + dst, scratch, len > sizeof scratch ? sizeof scratch : len);
        break;
      default: /* short overlapping shifts, like inserting into a buffer */
        __builtin_memmove(arena + dst + 1, arena + dst, len - 1);
        arena[dst] = (u8)it;
        break;
    }
    h = h * 33u ^ sample(arena + dst, len);
  }
  /* a final coarse digest of the whole arena */
  for (u32 i = 0; i < ARENA; i += 61) h = h * 31u + arena[i];
  return (i32)h;
}
