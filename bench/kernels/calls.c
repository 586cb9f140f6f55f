/* calls: deep and wide recursion. Naive Fibonacci, Takeuchi and Ackermann. */
#include "rt.h"

NOINLINE static i32 fib(i32 n) {
  if (n < 2) return n;
  return fib(n - 1) + fib(n - 2);
}

NOINLINE static i32 tak(i32 x, i32 y, i32 z) {
  if (y >= x) return z;
  return tak(tak(x - 1, y, z), tak(y - 1, z, x), tak(z - 1, x, y));
}

/* Ackermann; ack(2, k) recurses about 2k frames deep, ack(3, k) about 2^(k+3). */
NOINLINE static i32 ack(i32 m, i32 n) {
  if (m == 0) return n + 1;
  if (n == 0) return ack(m - 1, 1);
  return ack(m - 1, ack(m, n - 1));
}

/* A recursive sum over a binary "tree" described implicitly by an index, with a helper
 * that takes several arguments so frames are not trivially small. */
NOINLINE static u32 mix(u32 a, u32 b, u32 c, u32 d) {
  return (a * 31u + b) ^ rotl32(c, 7) ^ (d * 0x9e3779b9u);
}

NOINLINE static u32 walk(u32 node, u32 depth, u32 acc) {
  if (depth == 0) return mix(node, acc, depth, node >> 3);
  u32 l = walk(node * 2u + 1u, depth - 1u, acc + node);
  u32 r = walk(node * 2u + 2u, depth - 1u, l);
  return mix(l, r, node, depth);
}

EXPORT("run") i32 run(i32 n) {
  u32 h = 0;
  h = h * 33u + (u32)fib(n);
  h = h * 33u + (u32)tak(n - 6, n / 2 - 2, n / 4 - 1);
  h = h * 33u + (u32)ack(2, 300 + n);        /* ~600 frames deep, many calls */
  h = h * 33u + (u32)ack(3, 5 + (n & 3));    /* deeper: up to ~2000 frames */
  h = h * 33u + walk(1, (u32)(n - 8), 7);
  return (i32)h;
}
