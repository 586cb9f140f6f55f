/**
 * splitmix64 (Steele, Lea and Flood; the generator behind Java's SplittableRandom seeding):
 *
 *     state += 0x9E3779B97F4A7C15
 *     z = state
 *     z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9
 *     z = (z ^ (z >> 27)) * 0x94D049BB133111EB
 *     return z ^ (z >> 31)
 *
 * all modulo 2^64. Reproducible per seed, full 2^64 period, passes the usual statistical
 * suites — and NOT cryptographic: its output reveals its state. Never use it for keys,
 * nonces, tokens or anything where unpredictability matters.
 *
 * Implemented on 32-bit halves (no BigInt on the hot path); `next()` offers a bigint view.
 */

export class SplitMix64 {
  /** The state, as unsigned 32-bit halves. */
  private hi: number;
  private lo: number;

  /** `seed` is taken modulo 2^64 (a negative seed by its two's-complement bit pattern). */
  constructor(seed: bigint | number) {
    const s = typeof seed === 'bigint' ? BigInt.asUintN(64, seed) : toU64(seed);
    this.hi = Number(s >> 32n) >>> 0;
    this.lo = Number(s & 0xffffffffn) >>> 0;
  }

  /**
   * Advances the generator one step and returns the output as unsigned 32-bit halves
   * `[lo, hi]`: the output is `hi * 2^32 + lo`.
   */
  nextHalves(): [lo: number, hi: number] {
    // state += golden gamma
    const sum = this.lo + 0x7f4a7c15;
    this.lo = sum >>> 0;
    this.hi = (this.hi + 0x9e3779b9 + (sum > 0xffffffff ? 1 : 0)) >>> 0;
    let hi = this.hi;
    let lo = this.lo;
    // z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9
    lo = (lo ^ ((lo >>> 30) | (hi << 2))) >>> 0;
    hi = (hi ^ (hi >>> 30)) >>> 0;
    [lo, hi] = mul64(lo, hi, 0x1ce4e5b9, 0xbf58476d);
    // z = (z ^ (z >> 27)) * 0x94D049BB133111EB
    lo = (lo ^ ((lo >>> 27) | (hi << 5))) >>> 0;
    hi = (hi ^ (hi >>> 27)) >>> 0;
    [lo, hi] = mul64(lo, hi, 0x133111eb, 0x94d049bb);
    // z ^ (z >> 31)
    lo = (lo ^ ((lo >>> 31) | (hi << 1))) >>> 0;
    hi = (hi ^ (hi >>> 31)) >>> 0;
    return [lo, hi];
  }

  /** Advances one step and returns the output as an unsigned 64-bit bigint. */
  next(): bigint {
    const [lo, hi] = this.nextHalves();
    return (BigInt(hi) << 32n) | BigInt(lo);
  }
}

/** A BigInt reference implementation, for tests and documentation. */
export function splitmix64Reference(seed: bigint, count: number): bigint[] {
  const mask = (1n << 64n) - 1n;
  let state = BigInt.asUintN(64, seed);
  const out: bigint[] = [];
  for (let i = 0; i < count; i++) {
    state = (state + 0x9e3779b97f4a7c15n) & mask;
    let z = state;
    z = ((z ^ (z >> 30n)) * 0xbf58476d1ce4e5b9n) & mask;
    z = ((z ^ (z >> 27n)) * 0x94d049bb133111ebn) & mask;
    out.push(z ^ (z >> 31n));
  }
  return out;
}

function toU64(seed: number): bigint {
  if (!Number.isSafeInteger(seed)) throw new RangeError(`splitmix64 seed must be an integer (got ${seed})`);
  return BigInt.asUintN(64, BigInt(seed));
}

/** (aHi:aLo * bHi:bLo) mod 2^64, on unsigned 32-bit halves; returns [lo, hi]. */
function mul64(aLo: number, aHi: number, bLo: number, bHi: number): [number, number] {
  const a0 = aLo & 0xffff;
  const a1 = aLo >>> 16;
  const b0 = bLo & 0xffff;
  const b1 = bLo >>> 16;
  const p00 = a0 * b0;
  const p01 = a0 * b1;
  const p10 = a1 * b0;
  const p11 = a1 * b1;
  const mid = (p00 >>> 16) + (p01 & 0xffff) + (p10 & 0xffff);
  const lo = (((mid & 0xffff) << 16) | (p00 & 0xffff)) >>> 0;
  let hi = p11 + (p01 >>> 16) + (p10 >>> 16) + (mid >>> 16);
  hi = (hi + Math.imul(aHi, bLo) + Math.imul(aLo, bHi)) >>> 0;
  return [lo, hi];
}
