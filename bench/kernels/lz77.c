/* lz77: a small LZ77 compressor (hash chains, lazy matching) and its decompressor, run as a
 * round trip over generated text-like input and checked with CRC-32.
 *
 * Stream format (our own): groups of up to 8 tokens, each group preceded by a flag byte whose
 * bit i says whether token i is a match (1) or a literal (0). A literal is one byte. A match
 * is three bytes: distance-1 as 16 bits little endian (1..WINDOW) and length-MIN_MATCH as one
 * byte (MIN_MATCH..MAX_MATCH). */
#include "rt.h"

#define WINDOW 32768u
#define MIN_MATCH 3u
#define MAX_MATCH 258u
#define HASH_BITS 14u
#define HASH_SIZE (1u << HASH_BITS)
#define MAX_CHAIN 48u
#define GOOD_ENOUGH 64u

#define MAX_INPUT (1u << 18)
static u8 input[MAX_INPUT];
static u8 packed[MAX_INPUT + MAX_INPUT / 8 + 64];
static u8 unpacked[MAX_INPUT];

static i32 head[HASH_SIZE];   /* most recent position for each hash, or -1 */
static i32 prev[WINDOW];      /* previous position with the same hash, by pos % WINDOW */

/* ---------------------------------------------------------------- CRC-32 */

static u32 crc_table[256];

static void crc_init(void) {
  for (u32 i = 0; i < 256; i++) {
    u32 c = i;
    for (int k = 0; k < 8; k++) c = (c & 1) ? 0xedb88320u ^ (c >> 1) : c >> 1;
    crc_table[i] = c;
  }
}

static u32 crc32(const u8 *p, u32 len) {
  u32 c = 0xffffffffu;
  for (u32 i = 0; i < len; i++) c = crc_table[(c ^ p[i]) & 0xff] ^ (c >> 8);
  return c ^ 0xffffffffu;
}

/* ---------------------------------------------------------------- input generator */

static const char *const syllables[] = {
  "ka", "to", "re", "mi", "sun", "lo", "ver", "an", "the", "ing", "qu", "ex", "ol", "pra",
  "zi", "nd", "str", "ea", "ou", "ph",
};
#define NSYL (sizeof syllables / sizeof syllables[0])

typedef struct {
  u8 text[16];
  u32 len;
} Word;

#define NWORDS 512
static Word words[NWORDS];

static u32 cstrlen(const char *s) {
  u32 n = 0;
  while (s[n]) n++;
  return n;
}

static void make_words(u32 *seed) {
  for (u32 w = 0; w < NWORDS; w++) {
    u32 parts = 1 + lcg32(seed) % 4u;
    u32 len = 0;
    for (u32 p = 0; p < parts; p++) {
      const char *syl = syllables[(lcg32(seed) >> 16) % NSYL];
      u32 sl = cstrlen(syl);
      for (u32 i = 0; i < sl && len < sizeof words[w].text; i++) words[w].text[len++] = (u8)syl[i];
    }
    words[w].len = len;
  }
}

/* Roughly Zipf-distributed word choice: small indices are much more likely. */
static u32 pick_word(u32 *seed) {
  u32 r = lcg32(seed) >> 8;
  u32 bucket = r & 7;
  u32 span = 4u << bucket;
  if (span > NWORDS) span = NWORDS;
  return (r >> 3) % span;
}

static u32 generate(u32 len, u32 seed) {
  make_words(&seed);
  u32 pos = 0, sentence = 0;
  while (pos + 32 < len) {
    u32 roll = lcg32(&seed) >> 24;
    if (roll < 4) {
      /* occasional noise: a few random bytes */
      u32 k = 1 + (roll & 7);
      for (u32 i = 0; i < k; i++) input[pos++] = (u8)(lcg32(&seed) >> 17);
    } else if (roll < 8) {
      /* occasional run of one character */
      u32 k = 4 + (lcg32(&seed) >> 26);
      u8 ch = (u8)('a' + (roll & 15));
      for (u32 i = 0; i < k; i++) input[pos++] = ch;
    } else {
      const Word *w = &words[pick_word(&seed)];
      for (u32 i = 0; i < w->len; i++) input[pos++] = w->text[i];
      sentence++;
      if ((lcg32(&seed) >> 28) == 0) {
        input[pos++] = '.';
        input[pos++] = '\n';
      } else {
        input[pos++] = (sentence % 11 == 0) ? ',' : ' ';
      }
    }
  }
  while (pos < len) input[pos++] = '\n';
  return len;
}

/* ---------------------------------------------------------------- compressor */

static inline u32 hash3(const u8 *p) {
  u32 v = (u32)p[0] << 16 | (u32)p[1] << 8 | p[2];
  return (v * 2654435761u) >> (32 - HASH_BITS);
}

typedef struct {
  u8 *out;
  u32 outpos;
  u32 flagpos;  /* where the current group's flag byte lives */
  u32 ntok;     /* tokens in the current group */
} Writer;

static void emit_begin(Writer *w) {
  if (w->ntok == 8 || w->ntok == 0) {
    w->flagpos = w->outpos;
    w->out[w->outpos++] = 0;
    w->ntok = 0;
  }
}

static void emit_literal(Writer *w, u8 b) {
  emit_begin(w);
  w->out[w->outpos++] = b;
  w->ntok++;
}

static void emit_match(Writer *w, u32 dist, u32 len) {
  emit_begin(w);
  w->out[w->flagpos] |= (u8)(1u << w->ntok);
  u32 d = dist - 1;
  w->out[w->outpos++] = (u8)d;
  w->out[w->outpos++] = (u8)(d >> 8);
  w->out[w->outpos++] = (u8)(len - MIN_MATCH);
  w->ntok++;
}

static void insert(const u8 *src, u32 pos, u32 len) {
  if (pos + MIN_MATCH > len) return;
  u32 h = hash3(src + pos);
  prev[pos % WINDOW] = head[h];
  head[h] = (i32)pos;
}

/* Longest match for the string at pos, following the hash chain. */
static u32 longest_match(const u8 *src, u32 pos, u32 len, u32 *best_dist) {
  if (pos + MIN_MATCH > len) return 0;
  u32 limit = len - pos;
  if (limit > MAX_MATCH) limit = MAX_MATCH;
  u32 best = 0;
  i32 cand = head[hash3(src + pos)];
  u32 chain = MAX_CHAIN;
  while (cand >= 0 && chain-- > 0) {
    u32 c = (u32)cand;
    if (pos - c > WINDOW) break;
    /* quick reject on the byte that would extend the best match */
    if (src[c + best] == src[pos + best] && src[c] == src[pos]) {
      u32 l = 0;
      while (l < limit && src[c + l] == src[pos + l]) l++;
      if (l > best) {
        best = l;
        *best_dist = pos - c;
        if (l >= limit || l >= GOOD_ENOUGH) break;
      }
    }
    i32 nxt = prev[c % WINDOW];
    if (nxt >= cand) break; /* stale entry from an older window */
    cand = nxt;
  }
  return best >= MIN_MATCH ? best : 0;
}

static u32 compress(const u8 *src, u32 len, u8 *out) {
  for (u32 i = 0; i < HASH_SIZE; i++) head[i] = -1;
  for (u32 i = 0; i < WINDOW; i++) prev[i] = -1;
  Writer w = {out, 0, 0, 0};
  u32 pos = 0;
  while (pos < len) {
    u32 dist = 0;
    u32 mlen = longest_match(src, pos, len, &dist);
    insert(src, pos, len);
    if (mlen == 0) {
      emit_literal(&w, src[pos]);
      pos++;
      continue;
    }
    /* lazy matching: if the next position has a longer match, emit a literal instead */
    if (mlen < GOOD_ENOUGH && pos + 1 < len) {
      u32 dist2 = 0;
      u32 mlen2 = longest_match(src, pos + 1, len, &dist2);
      if (mlen2 > mlen + 1) {
        emit_literal(&w, src[pos]);
        pos++;
        continue;
      }
    }
    emit_match(&w, dist, mlen);
    for (u32 i = 1; i < mlen; i++) insert(src, pos + i, len);
    pos += mlen;
  }
  return w.outpos;
}

/* ---------------------------------------------------------------- decompressor */

/* Returns the decompressed length, or -1 on a malformed stream. */
static i32 decompress(const u8 *in, u32 inlen, u8 *out, u32 cap) {
  u32 ip = 0, op = 0;
  while (ip < inlen) {
    u32 flags = in[ip++];
    for (u32 t = 0; t < 8 && ip < inlen; t++) {
      if (flags & (1u << t)) {
        if (ip + 3 > inlen) return -1;
        u32 dist = ((u32)in[ip] | (u32)in[ip + 1] << 8) + 1;
        u32 mlen = (u32)in[ip + 2] + MIN_MATCH;
        ip += 3;
        if (dist > op || op + mlen > cap) return -1;
        const u8 *from = out + op - dist;
        /* byte by byte: the source may overlap the destination */
        for (u32 i = 0; i < mlen; i++) out[op + i] = from[i];
        op += mlen;
      } else {
        if (op >= cap) return -1;
        out[op++] = in[ip++];
      }
    }
  }
  return (i32)op;
}

/* ---------------------------------------------------------------- driver */

EXPORT("run") i32 run(i32 n) {
  crc_init();
  u32 len = (u32)n;
  if (len > MAX_INPUT) len = MAX_INPUT;
  if (len < 64) len = 64;
  generate(len, 0xC0FFEEu);
  u32 crc_in = crc32(input, len);

  u32 h = crc_in;
  /* Compress the whole input, then a few shifted slices, and round-trip each. */
  for (u32 round = 0; round < 4; round++) {
    u32 start = round * 977u;
    u32 sl = len - start;
    u32 clen = compress(input + start, sl, packed);
    for (u32 i = 0; i < sl; i++) unpacked[i] = 0;
    i32 dlen = decompress(packed, clen, unpacked, MAX_INPUT);
    if (dlen != (i32)sl) return -2;
    if (crc32(unpacked, sl) != crc32(input + start, sl)) return -3;
    h = h * 31u + clen;
    h ^= crc32(packed, clen);
  }
  return (i32)h;
}
