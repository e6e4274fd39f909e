/**
 * A shared vitest spec suite for {@link IndexStore} implementations, as `runVectorIndexSpec` is for
 * vector indexes: the directory store, the memory store and `@grag/postgres` run the same checks.
 */
import { access, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { GragError, IndexFormatError, InvalidArgumentError, OutputError } from '../contracts/errors.js';
import type { IndexStore, ManifestInput, StoredIndex } from '../contracts/store.js';
import { MANIFEST_FILE, MANIFEST_VERSION } from '../persistence.js';

/** Options of {@link runIndexStoreSpec}. */
export interface IndexStoreSpecOptions {
  /**
   * Whether a snapshot from `open()` keeps reading its version after a newer one is stored (the
   * memory and Postgres stores; a directory store reads files in place and does not).
   * @default false
   */
  pinsVersions?: boolean;
  /**
   * A store whose location holds something grag did not write (a user's file, a foreign schema):
   * its `target()` and `writeVersion` must refuse with an `OutputError`. Skipped when not given.
   */
  makeForeign?: () => IndexStore | Promise<IndexStore>;
  /**
   * Another store of the same location as `store`, as a second process would make it. With it, a
   * store that has a writer lock (`lock()`) is checked to lose no read-modify-write of writers
   * that run at once. Skipped when not given.
   */
  reopen?: (store: IndexStore) => IndexStore | Promise<IndexStore>;
  /** Per-test timeout in ms. @default 30000 */
  timeout?: number;
}

const encode = (text: string) => new TextEncoder().encode(text);
const decode = (bytes: Uint8Array) => new TextDecoder().decode(bytes);
/** Read `name` as a plain `Uint8Array` (a store may hand out a `Buffer`, which compares unequal). */
const readPlain = async (s: StoredIndex, name: string) => new Uint8Array(await s.read(name));

/** The manifest of test version `n`. */
const manifestOf = (n: number): ManifestInput => ({
  method: 'spec-method',
  formatVersion: 3,
  params: { version: n, nested: { list: [1, 'two', null] } },
  providers: { embedder: 'scripted:e:2', tasks: 't' },
  stats: { artifacts: 3, n },
});

/** The artifacts of version `n`, written out of name order; every byte value occurs in `blob.bin`. */
function artifactsOf(n: number): [string, Uint8Array][] {
  const blob = new Uint8Array(512 + n);
  for (let i = 0; i < blob.length; i++) blob[i] = (i * 7 + n) % 256;
  return [
    ['units.json', encode(JSON.stringify({ version: n, text: 'naïve — ünïcode ✓' }))],
    ['blob.bin', blob],
    [`only-in-${n}.txt`, encode(`version ${n}`)],
    ['empty.bin', new Uint8Array(0)],
  ];
}

/** Write version `n` of the test index. */
async function writeVersion(store: IndexStore, n: number): Promise<void> {
  await store.writeVersion(manifestOf(n), async (out) => {
    for (const [name, data] of artifactsOf(n)) await out.write(name, data);
  });
}

/** Open, run `fn` on the snapshot, release it. */
async function withSnapshot<T>(store: IndexStore, fn: (s: StoredIndex) => Promise<T>): Promise<T> {
  const snapshot = await store.open();
  try {
    return await fn(snapshot);
  } finally {
    await snapshot.release();
  }
}

/** Expect the store to serve exactly version `n`. */
async function expectVersion(store: IndexStore, n: number): Promise<void> {
  await withSnapshot(store, async (s) => {
    expect(s.manifest.params).toEqual(manifestOf(n).params);
    const expected = artifactsOf(n);
    expect(s.names).toEqual(expected.map(([name]) => name).sort());
    for (const [name, data] of expected) expect(await readPlain(s, name), name).toEqual(data);
  });
}

const store0 = (stores: IndexStore[]) => stores[0] as IndexStore;

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  return undefined;
}

/**
 * The {@link IndexStore} contract, checked on fresh stores from `makeStore` (each call must give a
 * new, empty location):
 * - a write then `open()` round-trips the manifest (with its layout version and time of writing)
 *   and every artifact's bytes (empty, binary, UTF-8), names sorted, the manifest not among them;
 * - `open()` on a store with no index, and `read` of an artifact the version lacks, throw
 *   `IndexFormatError` naming the location or the artifact;
 * - a write whose callback throws rejects with that error, keeps the previous version served and
 *   makes none of its artifacts visible (nor an index, on a fresh store);
 * - a new version replaces the old one entirely (no artifact of the old one survives);
 * - with `pinsVersions`, a snapshot opened before a write still reads the old version;
 * - `target()` is `'absent'` or `'empty'` before the first write and `'index'` after;
 * - artifact names with slashes, and the manifest's own name, are refused with `InvalidArgumentError`;
 * - bytes are stored, not referenced: changing an array after writing it changes nothing stored;
 * - the writer's scratch directory is writable, and files left there are not stored;
 * - of two concurrent writes at least one completes (the other may be refused with a
 *   `GragError`) and the store serves one of them whole;
 * - with `makeForeign`, a location holding foreign content is refused with `OutputError`;
 * - with `reopen`, on a store with `lock()`: three read-modify-write cycles through three stores
 *   of one location, at once, each under the lock, lose none of their changes.
 *
 * Every store made is closed (`close()`, when it has one) after the suite.
 */
export function runIndexStoreSpec(
  name: string,
  makeStore: () => IndexStore | Promise<IndexStore>,
  options: IndexStoreSpecOptions = {},
): void {
  const timeout = options.timeout ?? 30_000;
  const made: IndexStore[] = [];
  const track = async (make: () => IndexStore | Promise<IndexStore>) => {
    const store = await make();
    made.push(store);
    return store;
  };

  const suite: StoreSuite = { makeStore, track, options, timeout };

  describe(`${name}: IndexStore contract`, () => {
    afterAll(async () => {
      for (const store of made.splice(0)) await store.close?.();
    });
    versionTests(suite);
    writerTests(suite);
  });
}

/** What the groups of {@link runIndexStoreSpec} share. */
interface StoreSuite {
  makeStore: () => IndexStore | Promise<IndexStore>;
  /** Make a store and close it after the suite. */
  track: (make: () => IndexStore | Promise<IndexStore>) => Promise<IndexStore>;
  options: IndexStoreSpecOptions;
  timeout: number;
}

/** Versions: the round trip, a store with no index, failed writes, replacement, snapshots, `target()`. */
function versionTests({ makeStore, track, options, timeout }: StoreSuite): void {
  it(
    'round-trips the manifest and every artifact, names sorted',
    async () => {
      const store = await track(makeStore);
      expect(typeof store.kind).toBe('string');
      expect(store.location.length).toBeGreaterThan(0);
      const before = Date.now();
      await writeVersion(store, 1);
      await expectVersion(store, 1);
      await withSnapshot(store, async (s) => {
        const m = manifestOf(1);
        expect(s.manifest).toMatchObject({ ...m, manifestVersion: MANIFEST_VERSION });
        const written = Date.parse(s.manifest.createdAt);
        expect(written).toBeGreaterThanOrEqual(before - 1000);
        expect(written).toBeLessThanOrEqual(Date.now() + 1000);
        expect(s.names).not.toContain(MANIFEST_FILE);
        expect(decode(await s.read('units.json'))).toContain('ünïcode ✓');
        expect(s.locate('blob.bin')).toContain('blob.bin');
      });
    },
    timeout,
  );

  it('refuses to open a store with no index, naming the location', async () => {
    const store = await track(makeStore);
    const error = await rejection(store.open());
    expect(IndexFormatError.isInstance(error), String(error)).toBe(true);
    expect((error as Error).message).toContain(store.location);
  });

  it('refuses an artifact the version lacks with an IndexFormatError naming it', async () => {
    const store = await track(makeStore);
    await writeVersion(store, 1);
    await withSnapshot(store, async (s) => {
      const error = await rejection(s.read('not-there.json'));
      expect(IndexFormatError.isInstance(error), String(error)).toBe(true);
      expect((error as Error).message).toContain('not-there.json');
    });
  });

  it(
    'keeps the old version served when a write fails, with none of its artifacts visible',
    async () => {
      const fresh = await track(makeStore);
      const boom = new Error('the build failed');
      const first = await rejection(
        fresh.writeVersion(manifestOf(9), async (out) => {
          await out.write('units.json', encode('{}'));
          throw boom;
        }),
      );
      expect(first).toBe(boom);
      expect(['absent', 'empty']).toContain(await fresh.target());
      expect(IndexFormatError.isInstance(await rejection(fresh.open()))).toBe(true);

      const store = await track(makeStore);
      await writeVersion(store, 1);
      const second = await rejection(
        store.writeVersion(manifestOf(2), async (out) => {
          await out.write('units.json', encode('{"version":2}'));
          await out.write('new-artifact.bin', new Uint8Array([1, 2, 3]));
          throw boom;
        }),
      );
      expect(second).toBe(boom);
      await expectVersion(store, 1);
      expect(await store.target()).toBe('index');
    },
    timeout,
  );

  it(
    'replaces a version entirely with the next one',
    async () => {
      const store = await track(makeStore);
      await writeVersion(store, 1);
      await writeVersion(store, 2);
      await expectVersion(store, 2);
      await withSnapshot(store, async (s) => {
        expect(s.names).not.toContain('only-in-1.txt');
        expect(IndexFormatError.isInstance(await rejection(s.read('only-in-1.txt')))).toBe(true);
      });
    },
    timeout,
  );

  if (options.pinsVersions) {
    it(
      'serves a snapshot opened before a write its own version',
      async () => {
        const store = await track(makeStore);
        await writeVersion(store, 1);
        const old = await store.open();
        try {
          await writeVersion(store, 2);
          expect(old.manifest.params).toEqual(manifestOf(1).params);
          expect(old.names).toContain('only-in-1.txt');
          for (const [artifact, data] of artifactsOf(1)) expect(await readPlain(old, artifact)).toEqual(data);
        } finally {
          await old.release();
        }
        await expectVersion(store, 2);
      },
      timeout,
    );
  }

  it('says what its location holds: nothing before the first write, an index after', async () => {
    const store = await track(makeStore);
    expect(['absent', 'empty']).toContain(await store.target());
    await writeVersion(store, 1);
    expect(await store.target()).toBe('index');
  });
}

/** Writers: artifact names, bytes not references, the scratch directory, races, the lock, foreign content. */
function writerTests({ makeStore, track, options, timeout }: StoreSuite): void {
  it('refuses artifact names with slashes and the manifest name with InvalidArgumentError', async () => {
    const store = await track(makeStore);
    for (const bad of ['a/b.json', '../escape', MANIFEST_FILE, '']) {
      const error = await rejection(
        store.writeVersion(manifestOf(1), async (out) => out.write(bad, encode('x'))),
      );
      expect(InvalidArgumentError.isInstance(error), `${JSON.stringify(bad)}: ${String(error)}`).toBe(true);
    }
    expect(['absent', 'empty']).toContain(await store.target());
  });

  it('stores bytes, not references to the caller’s arrays', async () => {
    const store = await track(makeStore);
    const data = new Uint8Array([1, 2, 3, 4]);
    await store.writeVersion(manifestOf(1), async (out) => {
      await out.write('data.bin', data);
      data[0] = 99;
    });
    data[1] = 99;
    await withSnapshot(store, async (s) => {
      const read = await s.read('data.bin');
      expect(new Uint8Array(read)).toEqual(new Uint8Array([1, 2, 3, 4]));
      read[2] = 99;
      expect(await readPlain(s, 'data.bin')).toEqual(new Uint8Array([1, 2, 3, 4]));
    });
  });

  it('gives writers a scratch directory whose files are not stored', async () => {
    const store = await track(makeStore);
    let scratch = '';
    await store.writeVersion(manifestOf(1), async (out) => {
      scratch = await out.scratch();
      await writeFile(join(scratch, 'side.bin'), new Uint8Array([5]));
      await out.write('kept.bin', new Uint8Array([6]));
    });
    await withSnapshot(store, async (s) => expect(s.names).toEqual(['kept.bin']));
    // Removed once the version is stored.
    expect(await rejection(access(join(scratch, 'side.bin')))).toBeDefined();
  });

  it(
    'serves one of two concurrent writes whole',
    async () => {
      const store = await track(makeStore);
      // A store may refuse the loser of a race (a directory cannot be renamed over another), but
      // with a GragError, and never serve a mix.
      const outcomes = await Promise.allSettled([writeVersion(store, 1), writeVersion(store, 2)]);
      expect(outcomes.some((o) => o.status === 'fulfilled')).toBe(true);
      for (const o of outcomes) {
        if (o.status === 'rejected') expect(GragError.isInstance(o.reason), String(o.reason)).toBe(true);
      }
      const served = await withSnapshot(store, async (s) => s.manifest.params.version as number);
      expect([1, 2]).toContain(served);
      await expectVersion(store, served);
    },
    timeout,
  );

  const reopen = options.reopen;
  if (reopen) {
    it(
      'loses no read-modify-write of writers at once when each holds the writer lock',
      async () => {
        const first = await track(makeStore);
        if (first.lock === undefined) return;
        await writeVersion(first, 1);
        const stores = [first, await track(() => reopen(first)), await track(() => reopen(first))];
        await Promise.all(
          stores.map(async (store, i) => {
            const lock = await (store.lock as NonNullable<IndexStore['lock']>)();
            try {
              const seen = await withSnapshot(store, async (s) =>
                JSON.parse(decode(await s.read('units.json'))),
              );
              const writers = [...((seen.writers as number[] | undefined) ?? []), i];
              await store.writeVersion(manifestOf(1), async (out) => {
                for (const [name, data] of artifactsOf(1)) await out.write(name, data);
                await out.write('units.json', encode(JSON.stringify({ writers })));
              });
            } finally {
              await lock.release();
            }
          }),
        );
        const final = await withSnapshot(store0(stores), async (s) =>
          JSON.parse(decode(await s.read('units.json'))),
        );
        expect([...(final.writers as number[])].sort()).toEqual([0, 1, 2]);
      },
      timeout,
    );
  }

  const makeForeign = options.makeForeign;
  if (makeForeign) {
    it('refuses to write over what grag did not write, with an OutputError', async () => {
      const store = await track(makeForeign);
      const target = await rejection(store.target());
      expect(OutputError.isInstance(target), String(target)).toBe(true);
      expect((target as Error).message).toContain(store.location);
      const write = await rejection(writeVersion(store, 1));
      expect(OutputError.isInstance(write), String(write)).toBe(true);
    });
  }
}
