/**
 * Issue 25 ("nothing lost"), the directory store: one writer at a time (a lock file beside the
 * index, waited for or refused, taken over from a dead owner), leftovers of killed writers removed
 * by the next write, a user's file in an index folder never deleted, a symlinked index written
 * through, and scratch directories of killed processes cleaned.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { lstat, mkdir, mkdtemp, readdir, readFile, rm, symlink, utimes, writeFile } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { type IndexStore, OutputError } from '../src/index.js';
import { readManifest } from '../src/kit.js';
import { directoryStore, Scratch, withStoreLock } from '../src/store/index.js';

const root = await mkdtemp(join(tmpdir(), 'grag-lock-'));
afterAll(() => rm(root, { recursive: true, force: true }));
let n = 0;
const fresh = async () => {
  const dir = join(root, `case-${++n}`);
  await mkdir(dir);
  return dir;
};

/** The pid of a process that has exited. */
function deadPid(): number {
  const child = spawnSync(process.execPath, ['-e', ''], { stdio: 'ignore' });
  return child.pid as number;
}

const encode = (value: unknown) => new TextEncoder().encode(JSON.stringify(value));
const manifest = { method: 'list', formatVersion: 1, params: {}, providers: {} };

/** Store `ids` as the index's one artifact, `ids.json`. */
async function writeIds(store: IndexStore, ids: string[]): Promise<void> {
  await store.writeVersion(manifest, async (out) => out.write('ids.json', encode(ids)));
}

async function readIds(store: IndexStore): Promise<string[]> {
  const snapshot = await store.open();
  try {
    return JSON.parse(new TextDecoder().decode(await snapshot.read('ids.json'))) as string[];
  } finally {
    await snapshot.release();
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('scratch directories of killed processes', () => {
  // First in this file: the sweep runs once per process, with the first scratch directory.
  it('are removed by the next scratch directory made; live and foreign ones stay', async () => {
    const dead = join(tmpdir(), `grag-store-scratch-${deadPid()}-aB3dE9`);
    const live = join(tmpdir(), `grag-store-scratch-${process.pid}-zZ9yY8`);
    const legacy = join(tmpdir(), 'grag-store-scratch-Qw3rTy');
    for (const dir of [dead, live, legacy]) {
      await mkdir(dir, { recursive: true });
      await writeFile(join(dir, 'spool'), 'x');
    }
    try {
      const scratch = new Scratch('test');
      const made = await scratch.get();
      expect(made).toContain(`grag-store-scratch-${process.pid}-`);
      expect(existsSync(dead)).toBe(false);
      expect(existsSync(live)).toBe(true);
      expect(existsSync(legacy)).toBe(true);
      await scratch.remove();
    } finally {
      for (const dir of [dead, live, legacy]) await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('directoryStore: one writer at a time', () => {
  it('loses nothing when four read-modify-write cycles run at once, each through its own store', async () => {
    const dir = join(await fresh(), 'idx');
    await writeIds(directoryStore(dir), ['seed']);
    const writers = ['a', 'b', 'c', 'd'].map((id) => {
      const store = directoryStore(dir);
      return withStoreLock(store, async () => {
        const ids = await readIds(store);
        await sleep(5 + Math.random() * 20);
        await writeIds(store, [...ids, id]);
      });
    });
    await Promise.all(writers);
    const ids = await readIds(directoryStore(dir));
    expect(ids[0]).toBe('seed');
    expect([...ids].sort()).toEqual(['a', 'b', 'c', 'd', 'seed']);
    // No lock, temporary or old directory is left beside the index.
    expect(await readdir(join(dir, '..'))).toEqual(['idx']);
  });

  it('takes turns between lock() calls on one store in one process', async () => {
    const dir = join(await fresh(), 'idx');
    const store = directoryStore(dir);
    await writeIds(store, []);
    await Promise.all(
      ['x', 'y', 'z'].map((id) =>
        withStoreLock(store, async () => {
          const ids = await readIds(store);
          await sleep(5);
          await writeIds(store, [...ids, id]);
        }),
      ),
    );
    expect((await readIds(store)).sort()).toEqual(['x', 'y', 'z']);
  });

  it('completes every one of many concurrent saves, one after the other', async () => {
    const dir = join(await fresh(), 'idx');
    const outcomes = await Promise.allSettled(
      Array.from({ length: 6 }, (_, i) => writeIds(directoryStore(dir), [`v${i}`])),
    );
    expect(outcomes.map((o) => o.status)).toEqual(Array(6).fill('fulfilled'));
    expect((await readIds(directoryStore(dir)))[0]).toMatch(/^v\d$/);
  });

  it('refuses a second writer in one line naming the holder when it may not wait', async () => {
    const base = await fresh();
    const dir = join(base, 'idx');
    const holder = directoryStore(dir);
    await writeIds(holder, ['kept']);
    const lock = await holder.lock();
    try {
      const error = await writeIds(directoryStore(dir, { lockTimeoutMs: 0 }), ['lost']).catch((e) => e);
      expect(OutputError.isInstance(error), String(error)).toBe(true);
      const message = (error as Error).message;
      expect(message.split('\n')).toHaveLength(1);
      expect(message).toContain(`pid ${process.pid}`);
      expect(message).toContain(dir);
      expect(message).toContain(join(base, '.idx.lock'));
      // Waiting gives the holder time: a writer that may wait long enough gets its turn.
      let told = '';
      const waiting = writeIds(
        directoryStore(dir, {
          onLockWait: (who) => {
            told = who;
          },
        }),
        ['second'],
      );
      await sleep(200);
      expect(told).toContain(`pid ${process.pid}`);
      expect(await readIds(holder)).toEqual(['kept']);
      await lock.release();
      await waiting;
    } finally {
      await lock.release();
    }
    expect(await readIds(holder)).toEqual(['second']);
  });

  it('takes over a lock whose owner is dead, a pid reused by this process, or left unwritten', async () => {
    const base = await fresh();
    const dir = join(base, 'idx');
    const lockFile = join(base, '.idx.lock');
    const owner = (pid: number, token: string) =>
      JSON.stringify({ pid, host: hostname(), started: new Date().toISOString(), token });
    await writeFile(lockFile, owner(deadPid(), 'dead'));
    await writeIds(directoryStore(dir, { lockTimeoutMs: 0 }), ['one']);
    expect(existsSync(lockFile)).toBe(false);

    // A killed process that had this process's pid.
    await writeFile(lockFile, owner(process.pid, 'not-ours'));
    await writeIds(directoryStore(dir, { lockTimeoutMs: 0 }), ['two']);

    // A writer killed between creating the lock file and filling it, long ago.
    await writeFile(lockFile, '');
    const past = new Date(Date.now() - 60_000);
    await utimes(lockFile, past, past);
    await writeIds(directoryStore(dir, { lockTimeoutMs: 0 }), ['three']);
    expect(await readIds(directoryStore(dir))).toEqual(['three']);
    expect(await readdir(base)).toEqual(['idx']);
  });

  it('does not take over a lock of a live process, nor one of another host', async () => {
    const base = await fresh();
    const dir = join(base, 'idx');
    const lockFile = join(base, '.idx.lock');
    await writeIds(directoryStore(dir), ['kept']);
    const other = { pid: 4242, host: 'elsewhere.example', started: new Date().toISOString(), token: 't' };
    await writeFile(lockFile, JSON.stringify(other));
    const error = await writeIds(directoryStore(dir, { lockTimeoutMs: 100 }), ['lost']).catch((e) => e);
    expect((error as Error).message).toMatch(
      /another grag \(pid 4242 on elsewhere\.example, since .*\); waited 0 s\. /,
    );
    expect(existsSync(lockFile)).toBe(true);
    expect(await readIds(directoryStore(dir))).toEqual(['kept']);
  });
});

describe('directoryStore: leftovers of killed writers', () => {
  it('the next write removes the temporary and old directories of dead writers, not of live ones', async () => {
    const base = await fresh();
    const dir = join(base, 'idx');
    await writeIds(directoryStore(dir), ['one']);
    const dead = deadPid();
    const leftovers = [
      `.idx.tmp-${dead}-0123abcd`,
      `.idx.old-${dead}-89abcdef`,
      `.grag-write-probe-${dead}-00ff00ff`,
    ];
    const live = `.idx.tmp-${process.pid}-deadbeef`;
    const others = ['.other.tmp-1-0123abcd', 'notes.tmp-1-0123abcd'];
    for (const name of [...leftovers, live, ...others]) {
      await mkdir(join(base, name));
      await writeFile(join(base, name, 'chunks.json'), '[]');
    }
    await writeIds(directoryStore(dir), ['two']);
    expect((await readdir(base)).sort()).toEqual(['idx', live, ...others].sort());
  });

  it('puts the old version back when its writer died between moving it aside and moving the new one in', async () => {
    const base = await fresh();
    const dir = join(base, 'idx');
    await writeIds(directoryStore(dir), ['old']);
    const dead = deadPid();
    const { rename } = await import('node:fs/promises');
    await rename(dir, join(base, `.idx.old-${dead}-0a0b0c0d`));
    await mkdir(join(base, `.idx.tmp-${dead}-0a0b0c0d`));
    // An update: the lock is taken before the index is read, and the old version is back.
    const store = directoryStore(dir);
    const ids = await withStoreLock(store, () => readIds(store));
    expect(ids).toEqual(['old']);
    expect(await readdir(base)).toEqual(['idx']);
  });
});

describe('directoryStore: what is not the index', () => {
  it('refuses to replace an index folder that also holds a user file, and never deletes it', async () => {
    const base = await fresh();
    const dir = join(base, 'idx');
    await writeIds(directoryStore(dir), ['one']);
    await writeFile(join(dir, 'notes.txt'), 'mine');
    await mkdir(join(dir, 'photos'));
    const error = await writeIds(directoryStore(dir), ['two']).catch((e) => e);
    expect(OutputError.isInstance(error), String(error)).toBe(true);
    expect((error as Error).message).toMatch(/it also holds notes\.txt, photos, which grag did not write/);
    expect((error as Error).message.split('\n')).toHaveLength(1);
    expect(await readFile(join(dir, 'notes.txt'), 'utf8')).toBe('mine');
    expect(await readIds(directoryStore(dir))).toEqual(['one']);
    // Reading never touches it: the index's files are those its manifest lists.
    const snapshot = await directoryStore(dir).open();
    expect(snapshot.names).toEqual(['ids.json']);
    await snapshot.release();
  });

  it('tells a user file from the files of an index written before manifests listed them', async () => {
    const base = await fresh();
    const dir = join(base, 'idx');
    await writeIds(directoryStore(dir), ['one']);
    const { files: _files, ...legacy } = JSON.parse(await readFile(join(dir, 'manifest.json'), 'utf8'));
    await writeFile(join(dir, 'manifest.json'), JSON.stringify(legacy));
    await writeFile(join(dir, 'build-issues.jsonl'), '{}\n');
    // The legacy index alone is replaced as before.
    await writeIds(directoryStore(dir), ['two']);
    await writeFile(join(dir, 'manifest.json'), JSON.stringify(legacy));
    await sleep(20);
    await writeFile(join(dir, 'thesis.tex'), 'mine');
    const error = await writeIds(directoryStore(dir), ['three']).catch((e) => e);
    expect((error as Error).message).toMatch(/it also holds thesis\.tex,/);
    expect(await readFile(join(dir, 'thesis.tex'), 'utf8')).toBe('mine');
  });

  it('writes through a symbolic link to a folder: the link stays, its target gets the index', async () => {
    const base = await fresh();
    const target = join(base, 'real');
    await mkdir(target);
    const link = join(base, 'link');
    await symlink(target, link);
    await writeIds(directoryStore(link), ['one']);
    await writeIds(directoryStore(link), ['two']);
    expect((await lstat(link)).isSymbolicLink()).toBe(true);
    expect(await readIds(directoryStore(target))).toEqual(['two']);
    expect((await readdir(base)).sort()).toEqual(['link', 'real']);
  });

  it('says that an index path is a file, not that it does not exist', async () => {
    const file = join(await fresh(), 'notes.txt');
    await writeFile(file, 'text');
    await expect(readManifest(file)).rejects.toThrow(/notes\.txt is a file, not an index directory/);
  });
});
