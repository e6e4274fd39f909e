/**
 * Checks shared by the server tests of the writer lock (issue 25, item 1 for PostgreSQL): writers
 * that load, update and save one index at once, each through its own store (as separate processes
 * would), lose nothing; a writer that may not wait is refused in one line naming the holder; a
 * plain save waits for a held lock; a holder killed with SIGKILL does not keep the next writer out.
 */
import { fileURLToPath } from 'node:url';
import { type Document, type IndexStore, OutputError, type TaskSuite } from '@grag/core';
import { createBuildContext } from '@grag/core/kit';
import { withStoreLock } from '@grag/core/store';
import { createScriptedEmbedder } from '@grag/core/test';
import { bm25Rag } from '@grag/naive-rag';
import { expect } from 'vitest';
import type { PostgresStore, PostgresStoreOptions } from '../src/index.js';
import { runFixture } from './fixture-child.js';

const child = fileURLToPath(new URL('./fixtures/lock-holder.ts', import.meta.url));
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const encode = (value: unknown) => new TextEncoder().encode(JSON.stringify(value));
const manifest = { method: 'list', formatVersion: 1, params: {}, providers: {} };

/** Store `ids` as the index's one artifact. */
export async function writeIds(store: IndexStore, ids: string[]): Promise<void> {
  await store.writeVersion(manifest, async (out) => out.write('ids.json', encode(ids)));
}

/** The ids {@link writeIds} stored last. */
export async function readIds(store: IndexStore): Promise<string[]> {
  const snapshot = await store.open();
  try {
    return JSON.parse(new TextDecoder().decode(await snapshot.read('ids.json'))) as string[];
  } finally {
    await snapshot.release();
  }
}

const context = () =>
  createBuildContext({
    embedder: createScriptedEmbedder({ dimensions: 8 }),
    tasks: { id: 'none' } as TaskSuite,
  });
const doc = (id: string): Document => ({
  id,
  text: `${id} is a harbour town with a lighthouse and a ferry.`,
});

/** A store of index `index` made as a separate process would make it (its own connections). */
export type MakeStore = (index: string, options?: Partial<PostgresStoreOptions>) => PostgresStore;

/**
 * Four bm25 updates of one index at once (three adds, one remove), each loading, updating and
 * saving under `withStoreLock` through a store of its own: the index ends with exactly the
 * documents of a serial application of all four.
 */
export async function parallelMethodUpdatesCheck(make: MakeStore, index: string): Promise<void> {
  const seed = make(index);
  const ctx = context();
  const built = await bm25Rag.build([doc('seed-a'), doc('seed-b')], ctx, { chunkSize: 40, overlap: 5 });
  await bm25Rag.save(built, seed);
  const changes: ({ add: Document[] } | { remove: string[] })[] = [
    { add: [doc('north')] },
    { add: [doc('south')] },
    { remove: ['seed-b'] },
    { add: [doc('east')] },
  ];
  const stores = changes.map(() => make(index));
  await Promise.all(
    changes.map((change, i) => {
      const store = stores[i]!;
      return withStoreLock(store, async () => {
        const ctx = context();
        const loaded = await bm25Rag.load(store, ctx);
        await sleep(5 + Math.random() * 20);
        const { index: next } = await bm25Rag.update!(loaded, change, ctx);
        await bm25Rag.save(next, store);
      });
    }),
  );
  const final = await bm25Rag.load(seed, ctx);
  const ids = new Set(final.chunks.map((chunk) => chunk.docId));
  expect([...ids].sort()).toEqual(['east', 'north', 'seed-a', 'south']);
  for (const store of [seed, ...stores]) await store.close();
}

/**
 * Six read-modify-write cycles of one index at once through six stores (each appends its id to
 * the list it read): all six ids end in the list.
 */
export async function parallelReadModifyWriteCheck(make: MakeStore, index: string): Promise<void> {
  const seed = make(index);
  await writeIds(seed, ['seed']);
  const stores = Array.from({ length: 6 }, () => make(index));
  await Promise.all(
    stores.map((store, i) =>
      withStoreLock(store, async () => {
        const ids = await readIds(store);
        await sleep(2 + Math.random() * 10);
        await writeIds(store, [...ids, `w${i}`]);
      }),
    ),
  );
  const ids = await readIds(seed);
  expect(ids[0]).toBe('seed');
  expect([...ids].sort()).toEqual(['seed', 'w0', 'w1', 'w2', 'w3', 'w4', 'w5']);
  for (const store of [seed, ...stores]) await store.close();
}

/**
 * While one store holds the lock: a writer that may not wait is refused at once, in one line
 * naming the holder; one that may wait says whom it waits for and is stored after the holder's
 * write, not between its read and its write.
 */
export async function refusalAndWaitCheck(make: MakeStore, index: string): Promise<void> {
  const holder = make(index);
  await writeIds(holder, ['kept']);
  const lock = await (holder.lock as NonNullable<IndexStore['lock']>)();
  const impatient = make(index, { lockTimeoutMs: 0 });
  let told = '';
  const patient = make(index, {
    onLockWait: (who) => {
      told = who;
    },
  });
  try {
    const error = await writeIds(impatient, ['lost']).catch((e: unknown) => e);
    expect(OutputError.isInstance(error), String(error)).toBe(true);
    const message = (error as Error).message;
    expect(message.split('\n')).toHaveLength(1);
    expect(message).toContain(holder.location);
    expect(message).toMatch(new RegExp(`is being written by another grag \\(pid ${process.pid}, since `));
    // A plain save that may wait is not stored while the lock is held.
    const waiting = writeIds(patient, ['second']);
    await sleep(300);
    expect(told).toContain(`pid ${process.pid}`);
    expect(await readIds(holder)).toEqual(['kept']);
    await writeIds(holder, ['kept', 'holder']);
    expect(await readIds(holder)).toEqual(['kept', 'holder']);
    await lock.release();
    await waiting;
  } finally {
    await lock.release();
  }
  expect(await readIds(holder)).toEqual(['second']);
  for (const store of [holder, impatient, patient]) await store.close();
}

/**
 * A process that holds the writer lock of `index` at `url` is killed with SIGKILL; the next writer,
 * allowed to wait only `waitMs`, gets the lock and stores its version.
 */
export async function killedHolderCheck(url: string, make: MakeStore, index: string, waitMs = 10_000) {
  const seed = make(index);
  await writeIds(seed, ['before']);
  const holder = runFixture(child, [url, index]);
  await holder.printed('locked', 'the holder did not lock', 10);
  // Held: a writer that may not wait is refused, naming the holder's pid.
  const refused = make(index, { lockTimeoutMs: 0 });
  const error = await writeIds(refused, ['lost']).catch((e: unknown) => e);
  expect((error as Error).message).toMatch(new RegExp(`another grag \\(pid ${holder.process.pid}, since `));
  holder.process.kill('SIGKILL');
  expect(await holder.exited).toBe('SIGKILL');
  const next = make(index, { lockTimeoutMs: waitMs });
  const started = Date.now();
  await withStoreLock(next, async () => {
    await writeIds(next, [...(await readIds(next)), 'after']);
  });
  expect(Date.now() - started).toBeLessThan(waitMs);
  expect(await readIds(seed)).toEqual(['before', 'after']);
  for (const store of [seed, refused, next]) await store.close();
}
