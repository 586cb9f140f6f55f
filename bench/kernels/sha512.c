/* sha512: SHA-512 (FIPS 180-4) with its 80 rounds unrolled by macros, as hash and cipher code is
 * often written: one compression function of about 16,000 words of the engine's code, past what
 * the JavaScript tier translates whole (it runs in pieces). 64-bit arithmetic throughout. Hashes
 * a generated buffer repeatedly, each digest folded back into it; self-checks "abc" first. */
#include "rt.h"

static const u64 K[80] = {
  0x428a2f98d728ae22ULL, 0x7137449123ef65cdULL, 0xb5c0fbcfec4d3b2fULL, 0xe9b5dba58189dbbcULL, 0x3956c25bf348b538ULL,
  0x59f111f1b605d019ULL, 0x923f82a4af194f9bULL, 0xab1c5ed5da6d8118ULL, 0xd807aa98a3030242ULL, 0x12835b0145706fbeULL,
  0x243185be4ee4b28cULL, 0x550c7dc3d5ffb4e2ULL, 0x72be5d74f27b896fULL, 0x80deb1fe3b1696b1ULL, 0x9bdc06a725c71235ULL,
  0xc19bf174cf692694ULL, 0xe49b69c19ef14ad2ULL, 0xefbe4786384f25e3ULL, 0x0fc19dc68b8cd5b5ULL, 0x240ca1cc77ac9c65ULL,
  0x2de92c6f592b0275ULL, 0x4a7484aa6ea6e483ULL, 0x5cb0a9dcbd41fbd4ULL, 0x76f988da831153b5ULL, 0x983e5152ee66dfabULL,
  0xa831c66d2db43210ULL, 0xb00327c898fb213fULL, 0xbf597fc7beef0ee4ULL, 0xc6e00bf33da88fc2ULL, 0xd5a79147930aa725ULL,
  0x06ca6351e003826fULL, 0x142929670a0e6e70ULL, 0x27b70a8546d22ffcULL, 0x2e1b21385c26c926ULL, 0x4d2c6dfc5ac42aedULL,
  0x53380d139d95b3dfULL, 0x650a73548baf63deULL, 0x766a0abb3c77b2a8ULL, 0x81c2c92e47edaee6ULL, 0x92722c851482353bULL,
  0xa2bfe8a14cf10364ULL, 0xa81a664bbc423001ULL, 0xc24b8b70d0f89791ULL, 0xc76c51a30654be30ULL, 0xd192e819d6ef5218ULL,
  0xd69906245565a910ULL, 0xf40e35855771202aULL, 0x106aa07032bbd1b8ULL, 0x19a4c116b8d2d0c8ULL, 0x1e376c085141ab53ULL,
  0x2748774cdf8eeb99ULL, 0x34b0bcb5e19b48a8ULL, 0x391c0cb3c5c95a63ULL, 0x4ed8aa4ae3418acbULL, 0x5b9cca4f7763e373ULL,
  0x682e6ff3d6b2b8a3ULL, 0x748f82ee5defb2fcULL, 0x78a5636f43172f60ULL, 0x84c87814a1f0ab72ULL, 0x8cc702081a6439ecULL,
  0x90befffa23631e28ULL, 0xa4506cebde82bde9ULL, 0xbef9a3f7b2c67915ULL, 0xc67178f2e372532bULL, 0xca273eceea26619cULL,
  0xd186b8c721c0c207ULL, 0xeada7dd6cde0eb1eULL, 0xf57d4f7fee6ed178ULL, 0x06f067aa72176fbaULL, 0x0a637dc5a2c898a6ULL,
  0x113f9804bef90daeULL, 0x1b710b35131c471bULL, 0x28db77f523047d84ULL, 0x32caab7b40c72493ULL, 0x3c9ebe0a15c9bebcULL,
  0x431d67c49c100d4cULL, 0x4cc5d4becb3e42b6ULL, 0x597f299cfc657e2aULL, 0x5fcb6fab3ad6faecULL, 0x6c44198c4a475817ULL,
};

static inline u64 ror64(u64 x, int n) { return (x >> n) | (x << (64 - n)); }
#define BIG_S0(x) (ror64(x, 28) ^ ror64(x, 34) ^ ror64(x, 39))
#define BIG_S1(x) (ror64(x, 14) ^ ror64(x, 18) ^ ror64(x, 41))
#define SMALL_S0(x) (ror64(x, 1) ^ ror64(x, 8) ^ ((x) >> 7))
#define SMALL_S1(x) (ror64(x, 19) ^ ror64(x, 61) ^ ((x) >> 6))
/* The message schedule kept in 16 words: word i from the four it depends on. */
#define SCHEDULE(i) (w[(i) & 15] += SMALL_S1(w[((i) - 2) & 15]) + w[((i) - 7) & 15] + SMALL_S0(w[((i) - 15) & 15]))
#define FIRST(i) w[i]
/* One round, its eight variables named in rotation instead of moved. */
#define ROUND(a, b, c, d, e, f, g, h, i, wi) do { \
    u64 t1 = h + BIG_S1(e) + ((e & f) ^ (~e & g)) + K[i] + (wi); \
    u64 t2 = BIG_S0(a) + ((a & b) ^ (a & c) ^ (b & c)); \
    d += t1; h = t1 + t2; } while (0)
#define EIGHT(i, W) \
  ROUND(a, b, c, d, e, f, g, h, i + 0, W(i + 0)); ROUND(h, a, b, c, d, e, f, g, i + 1, W(i + 1)); \
  ROUND(g, h, a, b, c, d, e, f, i + 2, W(i + 2)); ROUND(f, g, h, a, b, c, d, e, i + 3, W(i + 3)); \
  ROUND(e, f, g, h, a, b, c, d, i + 4, W(i + 4)); ROUND(d, e, f, g, h, a, b, c, i + 5, W(i + 5)); \
  ROUND(c, d, e, f, g, h, a, b, i + 6, W(i + 6)); ROUND(b, c, d, e, f, g, h, a, i + 7, W(i + 7))

static NOINLINE void compress(u64 *st, const u8 *p) {
  u64 w[16];
  for (int i = 0; i < 16; i++) {
    u64 v = 0;
    for (int j = 0; j < 8; j++) v = v << 8 | p[8 * i + j];
    w[i] = v;
  }
  u64 a = st[0], b = st[1], c = st[2], d = st[3], e = st[4], f = st[5], g = st[6], h = st[7];
  EIGHT(0, FIRST); EIGHT(8, FIRST);
  EIGHT(16, SCHEDULE); EIGHT(24, SCHEDULE); EIGHT(32, SCHEDULE); EIGHT(40, SCHEDULE);
  EIGHT(48, SCHEDULE); EIGHT(56, SCHEDULE); EIGHT(64, SCHEDULE); EIGHT(72, SCHEDULE);
  st[0] += a; st[1] += b; st[2] += c; st[3] += d; st[4] += e; st[5] += f; st[6] += g; st[7] += h;
}

static void sha512(const u8 *p, u32 len, u64 st[8]) {
  static const u64 IV[8] = {
    0x6a09e667f3bcc908ULL, 0xbb67ae8584caa73bULL, 0x3c6ef372fe94f82bULL, 0xa54ff53a5f1d36f1ULL,
    0x510e527fade682d1ULL, 0x9b05688c2b3e6c1fULL, 0x1f83d9abfb41bd6bULL, 0x5be0cd19137e2179ULL,
  };
  for (int i = 0; i < 8; i++) st[i] = IV[i];
  u32 done = 0;
  for (; len - done >= 128; done += 128) compress(st, p + done);
  /* The tail, padded: 0x80, zeros, the length in bits (128-bit big-endian, its high half 0). */
  u8 block[256];
  u32 rest = len - done;
  for (u32 i = 0; i < rest; i++) block[i] = p[done + i];
  block[rest] = 0x80;
  u32 total = rest + 1 + 16 <= 128 ? 128 : 256;
  for (u32 i = rest + 1; i < total; i++) block[i] = 0;
  u64 bits = (u64)len * 8;
  for (int i = 0; i < 8; i++) block[total - 1 - i] = (u8)(bits >> (8 * i));
  compress(st, block);
  if (total == 256) compress(st, block + 128);
}

#define DATA (1 << 15)
static u8 data[DATA];

EXPORT("run") i32 run(i32 n) {
  /* known answer: SHA-512("abc") = ddaf35a193617aba ... 2a9ac94fa54ca49f */
  u64 st[8];
  const u8 abc[3] = {'a', 'b', 'c'};
  sha512(abc, 3, st);
  if (st[0] != 0xddaf35a193617abaULL || st[7] != 0x2a9ac94fa54ca49fULL) return -1;

  u32 s = 7;
  for (u32 i = 0; i < DATA; i++) data[i] = (u8)(lcg32(&s) >> 24);
  u64 x = 0;
  for (i32 r = 0; r < n; r++) {
    /* a prefix whose length varies, so both padding paths run */
    sha512(data, DATA - (u32)(r * 53 % 300), st);
    for (int i = 0; i < 8; i++) {
      x ^= st[i];
      data[(r * 8 + i) % DATA] ^= (u8)(st[i] >> 56);
    }
  }
  return (i32)(x ^ (x >> 32));
}
