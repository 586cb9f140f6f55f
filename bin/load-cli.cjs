'use strict';
/**
 * Loads the CLI's one-file bundle, `dist/sandboxd.cjs`, with V8's code cache for it,
 * `dist/sandboxd.cjs.cache`: the bytecode of the functions a run of the CLI compiles, so that a
 * cold start neither parses the bundle nor compiles them again. Node 22 keeps such a cache
 * itself (module.enableCompileCache); Node 20 does not, so `npm run build` writes this one
 * (scripts/cli-code-cache.cjs) and the CLI hands it to V8 through `vm.Script`.
 *
 * A cache belongs to one build of the bundle: the build stamps the bundle's last line with
 * the digest of what precedes it and begins the cache with the same digest. A cache whose
 * digest is not the bundle's is not used (a bundle rebuilt without its cache — by esbuild run
 * by hand, say — has no stamp at all), and V8 refuses one from another V8 version or flags
 * (`cachedDataRejected`); either way the bundle is compiled from its source, as `require`
 * would. Reading the stamp costs nothing; hashing the bundle here would cost the 10 ms of
 * loading node:crypto that the cache is there to save. So a hand edit of the bundle that keeps
 * its length and its last line is not seen (V8 would run the cached code of the build): rebuild
 * (`npm run build`) after changing it.
 *
 * V8 trusts the bytes of a cache it accepts (it checks their length, not a checksum, in a
 * release build): a damaged cache crashed the process (SIGSEGV, a test of 2026-12-02). So the
 * cache also holds the CRC-32 of V8's data, checked before V8 sees it (4-5 ms, most of it
 * loading node:zlib; as Node 22's own compile cache checks its files). Where Node has no
 * zlib.crc32 (before 20.15), no cache is used.
 */
const { readFileSync } = require('node:fs');
const { createRequire } = require('node:module');
const path = require('node:path');
const vm = require('node:vm');

const BUNDLE = path.join(__dirname, '..', 'dist', 'sandboxd.cjs');
const CACHE = `${BUNDLE}.cache`;
/** The bundle's last line, and the first bytes of its cache: a SHA-256, in hex. */
const STAMP_PREFIX = '//# sandboxd-bundle ';
const DIGEST_HEX_LENGTH = 64;
/** After the digest, the CRC-32 of the rest (V8's data), in hex. */
const CRC_HEX_LENGTH = 8;
const HEADER_LENGTH = DIGEST_HEX_LENGTH + CRC_HEX_LENGTH;

/** The cache file's bytes for the bundle with this digest and V8's `data` for it. */
function cacheFile(digest, data) {
  return Buffer.concat([Buffer.from(digest + crcHex(data), 'latin1'), data]);
}

function crcHex(data) {
  return require('node:zlib').crc32(data).toString(16).padStart(CRC_HEX_LENGTH, '0');
}

/** Whether this Node has what a cache needs (zlib.crc32, from Node 20.15); loads node:zlib. */
function cacheSupported() {
  return typeof require('node:zlib').crc32 === 'function';
}

/** Where the stamp's line begins in `source` (after its newline), or -1. */
function stampLineAt(source) {
  const at = source.lastIndexOf(`\n${STAMP_PREFIX}`);
  return at < 0 ? -1 : at + 1;
}

/** The stamp `source` ends with (its digest), or null. */
function stampOf(source) {
  const at = stampLineAt(source);
  if (at < 0) return null;
  const digest = source.slice(at + STAMP_PREFIX.length).trimEnd();
  return /^[0-9a-f]{64}$/.test(digest) ? digest : null;
}

/** `source` without its stamp's line, if it has one. */
function unstamped(source) {
  const at = stampLineAt(source);
  return at < 0 ? source : source.slice(0, at);
}

/** V8's data from the cache file, if it was written for this very bundle and is whole. */
function cachedDataFor(source) {
  const digest = stampOf(source);
  if (digest === null || !cacheSupported()) return undefined;
  let cache;
  try {
    cache = readFileSync(CACHE);
  } catch {
    return undefined;
  }
  if (cache.length <= HEADER_LENGTH || cache.toString('latin1', 0, DIGEST_HEX_LENGTH) !== digest) return undefined;
  const data = cache.subarray(HEADER_LENGTH);
  return cache.toString('latin1', DIGEST_HEX_LENGTH, HEADER_LENGTH) === crcHex(data) ? data : undefined;
}

/**
 * Compiles and runs the bundle as `require` would (CommonJS's wrapper, a `require` of its own;
 * the bundle has no `import()`, which a vm.Script could only resolve through an experimental
 * API that warns on stderr: esbuild writes them as `require`s): its exports; the script, whose
 * `createCachedData()` the build writes out; whether V8 took the cache (`cached`). `useCache`:
 * hand V8 the cache when it fits. Null, with the error reported and the exit code set, where
 * the bundle is missing.
 */
function loadBundle(useCache) {
  let source;
  try {
    source = readFileSync(BUNDLE, 'utf8');
  } catch (error) {
    if (error && error.code === 'ENOENT') {
      process.stderr.write("sandboxd: host error: the CLI is not built; run 'npm run build' first\n");
      process.exitCode = 1;
      return null;
    }
    throw error;
  }
  const cachedData = useCache ? cachedDataFor(source) : undefined;
  const script = new vm.Script(`(function (exports, require, module, __filename, __dirname) {${source}\n})`, { filename: BUNDLE, cachedData });
  const module = { exports: {} };
  script.runInThisContext()(module.exports, createRequire(BUNDLE), module, BUNDLE, path.dirname(BUNDLE));
  return { exports: module.exports, script, cached: cachedData !== undefined && !script.cachedDataRejected };
}

module.exports = { BUNDLE, CACHE, STAMP_PREFIX, cacheFile, cacheSupported, loadBundle, unstamped };
