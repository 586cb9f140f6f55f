/**
 * WASI as a capability (src/host/wasi): deny by default, exit codes, the standard streams,
 * the virtual clock and seeded random stream, and the fences a hostile guest meets — bad
 * pointers, oversized arguments, paths and links that try to leave their directory, and a
 * filesystem, descriptor table and output that stay within their caps.
 */
import { mkdtempSync, readFileSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { HostAbi, Limits, Sandbox, SandboxError } from '../src/index.js';
import { failure } from './helpers/sandbox.js';
import { ALL_RIGHTS, ERRNO, iovec, OFLAGS, WasiGuest } from './helpers/wasi-guest.js';

const wordstat = readFileSync(new URL('../fixtures/wasi/wordstat.wasm', import.meta.url));

/** A program whose _start writes "hi\n" to stdout, then exits with `code` (or returns, for null). */
function exiting(code: number | null, { start = false } = {}): string {
  const exit = code === null ? '' : `(call $exit (i32.const ${code})) unreachable`;
  return `(module
    (import "wasi_snapshot_preview1" "fd_write" (func $write (param i32 i32 i32 i32) (result i32)))
    (import "wasi_snapshot_preview1" "proc_exit" (func $exit (param i32)))
    (memory (export "memory") 1)
    (data (i32.const 16) "hi\\n")
    (data (i32.const 0) "\\10\\00\\00\\00\\03\\00\\00\\00")
    (func $main (drop (call $write (i32.const 1) (i32.const 0) (i32.const 1) (i32.const 8))) ${exit})
    ${start ? '(start $main)' : '(export "_start" (func $main))'}
    (func (export "again") (result i32) (i32.const 1)))`;
}

describe('WASI is granted, never ambient', () => {
  it('a WASI program under denyAll stops at its first import, before it runs', async () => {
    const e = await failure(Sandbox.denyAll().run(wordstat, '_start'));
    expect(e.kind).toBe('DisallowedImport');
    expect(e.message).toBe('disallowed import: the module imports `wasi_snapshot_preview1::args_get` which is not on the allow-list');
    expect(e.fuelConsumed).toBe(0);
    const logOnly = await failure(new Sandbox(HostAbi.denyAll().allowLog().host).run(wordstat, '_start'));
    expect(logOnly.kind).toBe('DisallowedImport');
  });

  it('allowWasi grants the 46 functions of wasi_snapshot_preview1, and a wrong signature is refused', async () => {
    const { host } = HostAbi.denyAll().allowWasi();
    const grants = host.grants;
    expect(grants).toHaveLength(46);
    expect(new Set(grants.map((g) => `${g.module}:${g.capability}`))).toEqual(new Set(['wasi_snapshot_preview1:wasi']));
    expect(host.isAllowed('wasi_snapshot_preview1', 'path_open')).toBe(true);
    const wrong = '(module (import "wasi_snapshot_preview1" "fd_close" (func (param i64) (result i32))))';
    expect((await failure(new Sandbox(host).run(wrong, 'x'))).kind).toBe('InvalidModule');
  });

  it('checks its options when granted', () => {
    const allow = (options: object) => () => HostAbi.denyAll().allowWasi(options);
    expect(allow({ args: ['a\0b'] })).toThrow(TypeError);
    expect(allow({ env: { 'A=B': 'x' } })).toThrow(TypeError);
    expect(allow({ clock: 'sundial' })).toThrow(TypeError);
    expect(allow({ preopens: { '/': { 'a/b': 'x' } } })).toThrow(TypeError);
    expect(allow({ preopens: { '/': { f: 42 } } })).toThrow(TypeError);
    expect(allow({ randomSeed: 1.5 })).toThrow(RangeError);
    expect(allow({ maxOutputBytes: -1 })).toThrow(RangeError);
  });
});

describe('proc_exit and the exit code', () => {
  it('is 0 when _start returns', async () => {
    const { host, wasi } = HostAbi.denyAll().allowWasi();
    const out = await new Sandbox(host).run(exiting(null), '_start');
    expect(out.exitCode).toBe(0);
    expect(new TextDecoder().decode(wasi.stdout)).toBe('hi\n');
  });

  it('proc_exit(n) ends the run at once: it resolves with exitCode n, and nothing after the call runs', async () => {
    const { host, wasi } = HostAbi.denyAll().allowWasi();
    const out = await new Sandbox(host).run(exiting(9), '_start');
    expect(out.exitCode).toBe(9);
    expect(out.values).toEqual([]);
    expect(out.fuelConsumed).toBeGreaterThan(0);
    expect(new TextDecoder().decode(wasi.stdout)).toBe('hi\n');
    expect((await new Sandbox(host).run(exiting(0), '_start')).exitCode).toBe(0);
  });

  it('proc_exit in a start function ends the run, and an exited instance cannot be called again', async () => {
    const { host } = HostAbi.denyAll().allowWasi();
    expect((await new Sandbox(host).run(exiting(4, { start: true }), 'again')).exitCode).toBe(4);
    const instance = await new Sandbox(host).instantiate(exiting(4, { start: true }));
    const e = await failure(instance.call('again'));
    expect(e.kind).toBe('Trap');
    expect(e.message).toBe('guest trap: the guest has exited (code 4) and cannot be called again');
  });

  it('a guest without an exported memory traps on the calls that need one', async () => {
    const noMemory = `(module (import "wasi_snapshot_preview1" "fd_write" (func $w (param i32 i32 i32 i32) (result i32)))
      (func (export "_start") (drop (call $w (i32.const 1) (i32.const 0) (i32.const 0) (i32.const 0)))))`;
    const e = await failure(new Sandbox(HostAbi.denyAll().allowWasi().host).run(noMemory, '_start'));
    expect(e.kind).toBe('Trap');
    expect(e.message).toBe('guest trap: WASI needs the guest to export its linear memory as `memory`');
  });
});

describe('the standard streams', () => {
  it('stdin reads the bytes given, then end of input', async () => {
    const guest = await WasiGuest.start({ stdin: 'abcdef' });
    expect(new TextDecoder().decode((await guest.read(0, 4)).bytes)).toBe('abcd');
    expect(new TextDecoder().decode((await guest.read(0, 4)).bytes)).toBe('ef');
    expect((await guest.read(0, 4)).bytes).toHaveLength(0);
  });

  it('captures stdout and stderr up to maxOutputBytes: a write past it is cut short, the next fails with ENOSPC', async () => {
    const guest = await WasiGuest.start({ maxOutputBytes: 10 });
    expect(await guest.write(1, 'hello ')).toEqual({ errno: 0, n: 6 });
    expect(await guest.write(1, 'world!')).toEqual({ errno: 0, n: 4 });
    expect(await guest.write(1, 'more')).toEqual({ errno: ERRNO.NOSPC, n: 0 });
    expect(await guest.write(2, 'err')).toEqual({ errno: 0, n: 3 });
    expect(new TextDecoder().decode(guest.wasi.stdout)).toBe('hello worl');
    expect(new TextDecoder().decode(guest.wasi.stderr)).toBe('err');
  });

  it('onStdout receives every write as it happens, uncapped', async () => {
    const seen: string[] = [];
    const guest = await WasiGuest.start({ maxOutputBytes: 2, onStdout: (b) => seen.push(new TextDecoder().decode(b)) });
    expect(await guest.write(1, 'first')).toEqual({ errno: 0, n: 5 });
    expect(await guest.write(1, 'second')).toEqual({ errno: 0, n: 6 });
    expect(seen).toEqual(['first', 'second']);
    expect(guest.wasi.stdout).toHaveLength(0);
  });

  it('the streams cannot be sought (ESPIPE), and sockets are not there (ENOTSOCK, EBADF)', async () => {
    const guest = await WasiGuest.start();
    expect(await guest.call('fd_seek', 1, 0, 0, 0)).toBe(ERRNO.SPIPE);
    expect(await guest.call('fd_write', 99, 64, 0, 0)).toBe(ERRNO.BADF);
  });
});

describe('the virtual clock and the random stream', () => {
  it('time is fuel: monotonic = fuel consumed x 1 ns (+ time slept), realtime from 2000-01-01', async () => {
    const guest = await WasiGuest.start();
    const t1 = await guest.now(1);
    const t2 = await guest.now(1);
    // Each call on an instance consumes fuel (the call itself), and the clock counts on across calls.
    expect(t2).toBeGreaterThan(t1);
    expect(t2 - t1).toBeLessThan(10n);
    const real = await guest.now(0);
    expect(real - 946_684_800_000_000_000n).toBeGreaterThanOrEqual(t2);
    expect(real - 946_684_800_000_000_000n).toBeLessThan(t2 + 10n);
  });

  it('poll_oneoff on a clock passes virtual time at once', async () => {
    const guest = await WasiGuest.start();
    const before = await guest.now(1);
    const sub = new Uint8Array(48);
    const view = new DataView(sub.buffer);
    view.setBigUint64(0, 0x1234n, true); // userdata
    view.setUint8(8, 0); // clock
    view.setUint32(16, 1, true); // monotonic
    view.setBigUint64(24, 5_000_000_000n, true); // 5 s
    guest.memory.write(2048, sub);
    const started = performance.now();
    expect(await guest.call('poll_oneoff', 2048, 4096, 1, 0)).toBe(0);
    expect(performance.now() - started).toBeLessThan(1_000);
    expect(guest.u32(0)).toBe(1);
    expect(guest.u64(4096)).toBe(0x1234n);
    expect(await guest.now(1)).toBeGreaterThanOrEqual(before + 5_000_000_000n);
    expect(await guest.call('poll_oneoff', 2048, 4096, 0, 0)).toBe(ERRNO.INVAL);
  });

  it('random_get is splitmix64 from randomSeed: the same bytes per seed, others for another seed', async () => {
    const draw = async (seed: number) => {
      const guest = await WasiGuest.start({ randomSeed: seed });
      expect(await guest.call('random_get', 100, 12)).toBe(0);
      return guest.memory.read(100, 12);
    };
    expect(await draw(42)).toEqual(await draw(42));
    expect(await draw(42)).not.toEqual(await draw(43));
    // Eight bytes per output, little-endian: splitmix64(42)'s first is 0xBDD732262FEB6E95.
    expect([...(await draw(42)).subarray(0, 8)]).toEqual([0x95, 0x6e, 0xeb, 0x2f, 0x26, 0x32, 0xd7, 0xbd]);
  });

  it('random_get makes a large request in pieces, the same bytes as in small calls', async () => {
    const whole = await WasiGuest.start({ randomSeed: 7 }, {}, 20);
    expect(await whole.call('random_get', 0, 1 << 20)).toBe(0);
    const pieces = await WasiGuest.start({ randomSeed: 7 }, {}, 20);
    for (let at = 0; at < 1 << 20; at += 4096) expect(await pieces.call('random_get', at, 4096)).toBe(0);
    expect(Buffer.from(whole.memory.read(0, 1 << 20)).equals(Buffer.from(pieces.memory.read(0, 1 << 20)))).toBe(true);
  });
});

describe('the in-memory filesystem', () => {
  it('copies a host directory when the instance is created; the guest writes its copy, never the host', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'wasi-host-'));
    writeFileSync(join(dir, 'data.txt'), 'original');
    const guest = await WasiGuest.start({ preopens: { '/': dir } });
    const { fd } = await guest.open('data.txt', { oflags: OFLAGS.TRUNC });
    expect(await guest.write(fd, 'changed')).toEqual({ errno: 0, n: 7 });
    expect((await guest.open('new.txt', { oflags: OFLAGS.CREAT })).errno).toBe(0);
    expect(readFileSync(join(dir, 'data.txt'), 'utf8')).toBe('original');
    expect(new TextDecoder().decode(guest.wasi.fs!.readFile('/data.txt')!)).toBe('changed');
    expect(guest.wasi.fs!.list('/')).toEqual(['data.txt', 'new.txt']);
    expect(guest.wasi.fs!.stat('/new.txt')).toMatchObject({ type: 'file', size: 0, nlink: 1 });
    expect(guest.wasi.fs!.readFile('/nothing')).toBeNull();
  });

  it('under the host clock, copied entries keep their host timestamps; the handle is empty before any run', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'wasi-host-'));
    writeFileSync(join(dir, 'old.txt'), 'x');
    utimesSync(join(dir, 'old.txt'), new Date('2001-02-03T04:05:06Z'), new Date('2001-02-03T04:05:06Z'));
    const { host, wasi } = HostAbi.denyAll().allowWasi({ clock: 'host', preopens: { '/': dir } });
    expect(wasi.fs).toBeNull();
    expect(wasi.stdout).toHaveLength(0);
    await new Sandbox(host).instantiate(exiting(null));
    expect(wasi.fs!.stat('/old.txt')!.mtim).toBe(BigInt(Date.parse('2001-02-03T04:05:06Z')) * 1_000_000n);
  });

  it('builds a virtual directory in code; inode numbers and listings follow name order', async () => {
    const guest = await WasiGuest.start({ preopens: { '/data': { b: 'bee', a: new Uint8Array([1, 2]), sub: { c: '' } } } });
    const fs = guest.wasi.fs!;
    expect(fs.list('/data')).toEqual(['a', 'b', 'sub']);
    expect([fs.stat('/data')!.ino, fs.stat('/data/a')!.ino, fs.stat('/data/b')!.ino, fs.stat('/data/sub')!.ino, fs.stat('/data/sub/c')!.ino]).toEqual([1, 2, 3, 4, 5]);
    expect(fs.stat('/data/a')!.mtim).toBe(946_684_800_000_000_000n);
    expect(new TextDecoder().decode((await guest.read((await guest.open('b')).fd, 10)).bytes)).toBe('bee');
  });

  it('confines paths to their directory: no absolute paths, no `..` above it, no link out of it', async () => {
    const outside = mkdtempSync(join(tmpdir(), 'wasi-outside-'));
    const dir = mkdtempSync(join(tmpdir(), 'wasi-host-'));
    writeFileSync(join(outside, 'secret'), 'secret');
    symlinkSync(join(outside, 'secret'), join(dir, 'absolute-link'));
    symlinkSync('../secret', join(dir, 'relative-link'));
    const guest = await WasiGuest.start({ preopens: { '/': dir } });
    expect((await guest.open('/etc/passwd')).errno).toBe(ERRNO.NOTCAPABLE);
    expect((await guest.open('../secret')).errno).toBe(ERRNO.NOTCAPABLE);
    expect((await guest.open('a/../../secret', { oflags: OFLAGS.CREAT })).errno).toBe(ERRNO.NOENT);
    expect(await guest.pathCall('path_create_directory', 'sub')).toBe(0);
    expect((await guest.open('sub/../../secret')).errno).toBe(ERRNO.NOTCAPABLE);
    expect((await guest.open('absolute-link')).errno).toBe(ERRNO.NOTCAPABLE);
    expect((await guest.open('relative-link')).errno).toBe(ERRNO.NOTCAPABLE);
    // From a subdirectory's descriptor, `..` may not climb above it, though the preopen is there.
    const sub = (await guest.open('sub', { oflags: OFLAGS.DIRECTORY })).fd;
    expect((await guest.open('..', { dirfd: sub })).errno).toBe(ERRNO.NOTCAPABLE);
    expect(await guest.symlink('../../x', 'up', sub)).toBe(0);
    expect((await guest.open('up', { dirfd: sub })).errno).toBe(ERRNO.NOTCAPABLE);
    expect(await guest.symlink('/etc', 'abs')).toBe(ERRNO.PERM);
    // A link's own text can still be read.
    const [ptr, len] = guest.string('absolute-link');
    expect(await guest.call('path_readlink', 3, ptr, len, 5000, 100, 0)).toBe(0);
    expect(new TextDecoder().decode(guest.memory.read(5000, guest.u32(0)))).toBe(join(outside, 'secret'));
  });

  it('stops a link loop with ELOOP, and a chain of links after 40', async () => {
    const guest = await WasiGuest.start({ preopens: { '/': {} } });
    expect(await guest.symlink('loop', 'loop')).toBe(0);
    expect((await guest.open('loop')).errno).toBe(ERRNO.LOOP);
    expect(await guest.pathCall('path_create_directory', 'target')).toBe(0);
    for (let i = 0; i < 41; i++) expect(await guest.symlink(i === 0 ? 'target' : `l${i - 1}`, `l${i}`)).toBe(0);
    expect((await guest.open('l39', { oflags: OFLAGS.DIRECTORY })).errno).toBe(0);
    expect((await guest.open('l40', { oflags: OFLAGS.DIRECTORY })).errno).toBe(ERRNO.LOOP);
  });

  it('keeps an unlinked file while it is open, and frees its bytes when it is closed', async () => {
    const guest = await WasiGuest.start({ preopens: { '/': {} } }, { fsBytes: 1000 });
    const { fd } = await guest.open('f', { oflags: OFLAGS.CREAT });
    // 900 bytes of data and the 1-byte names f and g: 99 bytes left for g while f is open.
    expect(await guest.write(fd, 'x'.repeat(900))).toEqual({ errno: 0, n: 900 });
    expect(await guest.pathCall('path_unlink_file', 'f')).toBe(0);
    const other = (await guest.open('g', { oflags: OFLAGS.CREAT })).fd;
    expect(await guest.write(other, 'y'.repeat(200))).toEqual({ errno: 0, n: 99 });
    expect(await guest.call('fd_seek', fd, 0, 0, 0)).toBe(0);
    expect((await guest.read(fd, 1000)).bytes).toHaveLength(900);
    expect(await guest.call('fd_close', fd)).toBe(0);
    expect(await guest.write(other, 'y'.repeat(200))).toEqual({ errno: 0, n: 200 });
  });
});

describe('a hostile guest', () => {
  it('gets EFAULT for pointers outside its memory, not a crash or a trap', async () => {
    const guest = await WasiGuest.start({ preopens: { '/': {} } });
    const end = 2 * 65536;
    expect(await guest.call('fd_write', 1, end - 4, 1, 0)).toBe(ERRNO.FAULT);
    guest.memory.write(64, iovec(end - 2, 100));
    expect(await guest.call('fd_write', 1, 64, 1, 0)).toBe(ERRNO.FAULT);
    guest.memory.write(64, iovec(0xffff_fff0, 0x7fff_ffff));
    expect(await guest.call('fd_read', 0, 64, 1, 0)).toBe(ERRNO.FAULT);
    expect(await guest.call('path_open', 3, 0, end - 1, 100, 0, 0, 0, 0, 0)).toBe(ERRNO.FAULT);
    expect(await guest.call('fd_fdstat_get', 1, end - 8)).toBe(ERRNO.FAULT);
    expect(await guest.call('random_get', 0, 0xffff_ffff)).toBe(ERRNO.FAULT);
    expect(await guest.call('fd_readdir', 3, 0, 0xffff_ffff, 0, 0)).toBe(ERRNO.FAULT);
    // And it goes on working.
    expect(await guest.write(1, 'still here')).toEqual({ errno: 0, n: 10 });
  });

  it('gets EINVAL, ENAMETOOLONG or EILSEQ for oversized or malformed arguments', async () => {
    const guest = await WasiGuest.start({ preopens: { '/': {} } });
    expect(await guest.call('fd_write', 1, 64, 1025, 0)).toBe(ERRNO.INVAL);
    expect((await guest.open('a'.repeat(4097))).errno).toBe(ERRNO.NAMETOOLONG);
    expect((await guest.open('a'.repeat(256), { oflags: OFLAGS.CREAT })).errno).toBe(ERRNO.NAMETOOLONG);
    const [ptr, len] = guest.string(new Uint8Array([0x66, 0xff, 0x66]));
    expect(await guest.call('path_open', 3, 0, ptr, len, OFLAGS.CREAT, ALL_RIGHTS, 0, 0, 0)).toBe(ERRNO.ILSEQ);
    expect((await guest.open('nul\0byte', { oflags: OFLAGS.CREAT })).errno).toBe(ERRNO.INVAL);
    expect(await guest.call('poll_oneoff', 0, 4096, 4097, 0)).toBe(ERRNO.INVAL);
  });

  it('fills the filesystem only to Limits.fsBytes: a write is cut short, then ENOSPC', async () => {
    const guest = await WasiGuest.start({ preopens: { '/': {} } }, { fsBytes: 100 });
    const { fd } = await guest.open('big', { oflags: OFLAGS.CREAT });
    expect(await guest.write(fd, 'z'.repeat(120))).toEqual({ errno: 0, n: 97 });
    expect(await guest.write(fd, 'z')).toEqual({ errno: ERRNO.NOSPC, n: 0 });
    expect(await guest.call('fd_filestat_set_size', fd, 1n << 40n)).toBe(ERRNO.NOSPC);
    // A sparse file counts its whole size: seeking far and writing is no way around the cap.
    expect(await guest.call('fd_seek', fd, 1n << 40n, 0, 0)).toBe(0);
    expect(await guest.write(fd, 'z')).toEqual({ errno: ERRNO.NOSPC, n: 0 });
  });

  it('creates at most Limits.fsFiles files and holds at most Limits.fsDescriptors descriptors', async () => {
    const guest = await WasiGuest.start({ preopens: { '/': {} } }, { fsFiles: 5, fsDescriptors: 8 });
    for (let i = 0; i < 4; i++) expect((await guest.open(`f${i}`, { oflags: OFLAGS.CREAT })).errno).toBe(0);
    expect((await guest.open('f4', { oflags: OFLAGS.CREAT })).errno).toBe(ERRNO.NOSPC);
    // 3 streams + 1 preopen + 4 files = 8 open: one more is EMFILE, until one is closed.
    expect((await guest.open('f0')).errno).toBe(ERRNO.MFILE);
    expect(await guest.call('fd_close', 4)).toBe(0);
    expect((await guest.open('f0')).errno).toBe(0);
  });

  it('nests directories at most 1,024 deep', async () => {
    const guest = await WasiGuest.start({ preopens: { '/': {} } }, { fsFiles: 2000 });
    let dirfd = 3;
    for (let depth = 1; depth <= 1024; depth++) {
      expect(await guest.pathCall('path_create_directory', 'd', dirfd)).toBe(0);
      const next = (await guest.open('d', { dirfd, oflags: OFLAGS.DIRECTORY })).fd;
      if (dirfd !== 3) await guest.call('fd_close', dirfd);
      dirfd = next;
    }
    expect(await guest.pathCall('path_create_directory', 'd', dirfd)).toBe(ERRNO.NAMETOOLONG);
  });

  it('refuses a preopen larger than the budget before any guest code runs', async () => {
    const { host } = HostAbi.denyAll().allowWasi({ preopens: { '/': { big: 'x'.repeat(2000) } } });
    const e = await failure(new Sandbox(host).run(wordstat, '_start', [], new Limits({ fsBytes: 1000 })));
    expect(e.kind).toBe('MemoryLimitExceeded');
    expect(e.resource).toBe('fsBytes');
    expect(e.message).toBe('memory limit exceeded: the module requested more than 1000 bytes of WASI filesystem storage');
    expect(e.fuelConsumed).toBe(0);
    const missing = await failure(new Sandbox(HostAbi.denyAll().allowWasi({ preopens: { '/': '/no/such/dir' } }).host).run(wordstat, '_start'));
    expect(missing).toBeInstanceOf(SandboxError);
    expect(missing.kind).toBe('Host');
  });
});
