/* sha256: SHA-256 (FIPS 180-4) over a generated buffer, hashed repeatedly with each
 * digest folded back into the buffer. Also self-checks against the known digest of "abc". */
#include "rt.h"

static const u32 K[64] = {
  0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
  0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
  0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
  0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
  0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
  0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
  0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
  0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};

typedef struct {
  u32 h[8];
  u8 block[64];
  u32 fill;     /* bytes in block */
  u64 total;    /* bytes hashed so far */
} Sha256;

static void sha_init(Sha256 *c) {
  c->h[0] = 0x6a09e667; c->h[1] = 0xbb67ae85; c->h[2] = 0x3c6ef372; c->h[3] = 0xa54ff53a;
  c->h[4] = 0x510e527f; c->h[5] = 0x9b05688c; c->h[6] = 0x1f83d9ab; c->h[7] = 0x5be0cd19;
  c->fill = 0;
  c->total = 0;
}

static void sha_compress(u32 *h, const u8 *p) {
  u32 w[64];
  for (int i = 0; i < 16; i++)
    w[i] = (u32)p[4 * i] << 24 | (u32)p[4 * i + 1] << 16 | (u32)p[4 * i + 2] << 8 | p[4 * i + 3];
  for (int i = 16; i < 64; i++) {
    u32 s0 = rotr32(w[i - 15], 7) ^ rotr32(w[i - 15], 18) ^ (w[i - 15] >> 3);
    u32 s1 = rotr32(w[i - 2], 17) ^ rotr32(w[i - 2], 19) ^ (w[i - 2] >> 10);
    w[i] = w[i - 16] + s0 + w[i - 7] + s1;
  }
  u32 a = h[0], b = h[1], c = h[2], d = h[3], e = h[4], f = h[5], g = h[6], hh = h[7];
  for (int i = 0; i < 64; i++) {
    u32 S1 = rotr32(e, 6) ^ rotr32(e, 11) ^ rotr32(e, 25);
    u32 ch = (e & f) ^ (~e & g);
    u32 t1 = hh + S1 + ch + K[i] + w[i];
    u32 S0 = rotr32(a, 2) ^ rotr32(a, 13) ^ rotr32(a, 22);
    u32 maj = (a & b) ^ (a & c) ^ (b & c);
    u32 t2 = S0 + maj;
    hh = g; g = f; f = e; e = d + t1;
    d = c; c = b; b = a; a = t1 + t2;
  }
  h[0] += a; h[1] += b; h[2] += c; h[3] += d;
  h[4] += e; h[5] += f; h[6] += g; h[7] += hh;
}

static void sha_update(Sha256 *c, const u8 *p, u32 len) {
  c->total += len;
  while (len > 0) {
    if (c->fill == 0 && len >= 64) {
      sha_compress(c->h, p);
      p += 64;
      len -= 64;
      continue;
    }
    u32 take = 64 - c->fill;
    if (take > len) take = len;
    for (u32 i = 0; i < take; i++) c->block[c->fill + i] = p[i];
    c->fill += take;
    p += take;
    len -= take;
    if (c->fill == 64) {
      sha_compress(c->h, c->block);
      c->fill = 0;
    }
  }
}

static void sha_final(Sha256 *c, u8 out[32]) {
  u64 bits = c->total * 8;
  u8 pad = 0x80;
  u64 keep = c->total;
  sha_update(c, &pad, 1);
  u8 zero = 0;
  while (c->fill != 56) sha_update(c, &zero, 1);
  u8 len[8];
  for (int i = 0; i < 8; i++) len[i] = (u8)(bits >> (56 - 8 * i));
  sha_update(c, len, 8);
  c->total = keep;
  for (int i = 0; i < 8; i++) {
    out[4 * i] = (u8)(c->h[i] >> 24);
    out[4 * i + 1] = (u8)(c->h[i] >> 16);
    out[4 * i + 2] = (u8)(c->h[i] >> 8);
    out[4 * i + 3] = (u8)c->h[i];
  }
}

static void sha256(const u8 *p, u32 len, u8 out[32]) {
  Sha256 c;
  sha_init(&c);
  sha_update(&c, p, len);
  sha_final(&c, out);
}

#define DATA (1 << 15)
static u8 data[DATA];

EXPORT("run") i32 run(i32 n) {
  /* known answer: SHA-256("abc") = ba7816bf 8f01cfea ... */
  u8 d[32];
  const u8 abc[3] = {'a', 'b', 'c'};
  sha256(abc, 3, d);
  if (!(d[0] == 0xba && d[1] == 0x78 && d[2] == 0x16 && d[3] == 0xbf && d[31] == 0xad))
    return -1;

  u32 s = 99;
  for (u32 i = 0; i < DATA; i++) data[i] = (u8)(lcg32(&s) >> 24);
  u32 h = 0;
  for (i32 r = 0; r < n; r++) {
    /* hash a prefix whose length varies, so the padding paths are exercised too */
    u32 len = DATA - (u32)(r * 37 % 200);
    sha256(data, len, d);
    for (int i = 0; i < 32; i++) data[(r * 32 + i) % DATA] ^= d[i];
    h = h * 16777619u ^ ((u32)d[0] << 24 | (u32)d[1] << 16 | (u32)d[2] << 8 | d[3]);
  }
  return (i32)h;
}
