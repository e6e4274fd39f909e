/**
 * `runEval({ indexStore })`: indexes kept in a store of the caller's instead of `out/indexes`, so a
 * later run (in any output directory) loads them instead of building; stores are closed.
 */
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AbortError, type Document, type IndexStore, type Method } from '@grag/core';
import { createBuildContext } from '@grag/core/kit';
import { memoryStore } from '@grag/core/store';
import { tinyQuestions } from '@grag/core/test';
import { bm25Rag } from '@grag/naive-rag';
import { createOfflineProviders } from '@grag/offline';
import { describe, expect, it } from 'vitest';
import { type BuildRecord, type EvalDataset, type RunOptions, runEval } from '../src/index.js';

const corpus: Document[] = [
  { id: 'p1', title: 'Ada', text: 'Ada Lovelace was born in London.' },
  { id: 'p2', title: 'Babbage', text: 'Charles Babbage designed the Analytical Engine.' },
  { id: 'p3', title: 'Paris', text: 'Paris is the capital of France.' },
];

const dataset: EvalDataset = {
  name: 'tiny',
  format: 'test',
  corpus,
  questions: tinyQuestions(),
  skipped: [],
};

const tmp = () => mkdtempSync(join(tmpdir(), 'grag-eval-store-'));

const context = () => {
  const { tasks, embedder } = createOfflineProviders();
  return createBuildContext({ tasks, embedder });
};

/** bm25Rag, counting its builds and loads (under another name when `name` is given). */
function counted(name?: string) {
  const count = { builds: 0, loads: 0 };
  const method: Method<unknown> = {
    ...(bm25Rag as Method<unknown>),
    ...(name ? { name } : {}),
    build: (docs, ctx, options) => {
      count.builds++;
      return bm25Rag.build(docs, ctx, options as never);
    },
    load: (target, ctx) => {
      count.loads++;
      return bm25Rag.load(target, ctx);
    },
  };
  return { method, count };
}

/** A store that counts its `close()` calls. */
function closable(store: IndexStore): IndexStore & { closes: number } {
  const wrapped = {
    kind: store.kind,
    location: store.location,
    target: () => store.target(),
    writeVersion: store.writeVersion.bind(store),
    open: () => store.open(),
    closes: 0,
    async close() {
      wrapped.closes++;
    },
  };
  return wrapped;
}

const builds = (out: string): BuildRecord[] =>
  readFileSync(join(out, 'builds.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as BuildRecord);

describe('runEval with indexStore', () => {
  it('builds into the store once; a run in another output directory loads it and gets the same metrics', async () => {
    const store = closable(memoryStore({ name: 'bm25-eval' }));
    const asked: string[] = [];
    const lines: string[] = [];
    const options = (method: Method<unknown>, out: string): RunOptions => ({
      dataset,
      methods: [{ method, options: { chunking: 'document', k1: 1.5 } }],
      context,
      out,
      budgetTokens: 40,
      recallAt: [1],
      indexStore: (label) => {
        asked.push(label);
        return store;
      },
      onLog: (line) => lines.push(line),
    });

    const first = counted();
    const out1 = tmp();
    const run1 = await runEval(options(first.method, out1));
    expect(first.count).toEqual({ builds: 1, loads: 0 });
    expect(run1.methods[0]?.index.source).toBe('built');
    expect(asked).toEqual(['bm25']);
    expect(store.closes).toBe(1);
    expect(await store.target()).toBe('index');
    // Nothing under out/indexes: the store replaced it; the build record names the store.
    expect(existsSync(join(out1, 'indexes'))).toBe(false);
    expect(builds(out1)).toMatchObject([{ method: 'bm25', indexStore: 'memory:bm25-eval' }]);
    expect(builds(out1)[0]).not.toHaveProperty('indexDir');
    // One document per chunk, recall@1 of each question is its own passage: 1, 1, 1.
    expect(run1.methods[0]?.metrics['recall@1']).toBe(1);

    const second = counted();
    const out2 = tmp();
    const run2 = await runEval(options(second.method, out2));
    expect(second.count).toEqual({ builds: 0, loads: 1 });
    expect(run2.methods[0]?.index.source).toBe('loaded');
    // Nothing was built in out2, so no build time is known there.
    expect(run2.methods[0]?.index.seconds).toBeNaN();
    expect(existsSync(join(out2, 'builds.jsonl'))).toBe(false);
    expect(lines).toContain('bm25: loaded the index from memory:bm25-eval.');
    expect(run2.methods[0]?.metrics).toEqual(run1.methods[0]?.metrics);
    expect(run2.results.map((r) => r.passages)).toEqual(run1.results.map((r) => r.passages));
    expect(store.closes).toBe(2);
  });

  it('rebuilds and replaces an index built with other options or by another method', async () => {
    const store = memoryStore();
    const lines: string[] = [];
    const go = (method: Method<unknown>, k1?: number) =>
      runEval({
        dataset,
        methods: [{ label: 'bm25', method, options: { chunking: 'document', ...(k1 ? { k1 } : {}) } }],
        context,
        out: tmp(),
        indexStore: () => store,
        onLog: (line) => lines.push(line),
      });
    const a = counted();
    await go(a.method, 1.5);
    await go(a.method, 0.9);
    expect(a.count).toEqual({ builds: 2, loads: 0 });
    expect(lines).toContain(`bm25: ${store.location} holds an index built with other k1; rebuilding.`);
    await go(a.method, 0.9);
    expect(a.count).toEqual({ builds: 2, loads: 1 });
    // k1 no longer given: the default (1.2) is not what the stored index was built with.
    lines.length = 0;
    await go(a.method);
    expect(a.count).toEqual({ builds: 3, loads: 1 });
    expect(lines).toContain(`bm25: ${store.location} holds an index built with other k1; rebuilding.`);
    await go(a.method, 1.2);
    expect(a.count).toEqual({ builds: 3, loads: 2 });

    const other = counted('other-bm25');
    await go(other.method, 0.9);
    expect(other.count).toEqual({ builds: 1, loads: 0 });
    expect(lines).toContain(`bm25: ${store.location} holds an index of bm25, not other-bm25; rebuilding.`);
  });

  it('takes a directory path per label, and loads what an earlier run saved there', async () => {
    const dir = tmp();
    const asked: string[] = [];
    const go = () => {
      const m = counted();
      return runEval({
        dataset,
        methods: [{ method: m.method, options: { chunking: 'document' } }],
        context,
        out: tmp(),
        indexStore: (label) => {
          asked.push(label);
          return join(dir, `idx-${label}`);
        },
      }).then((run) => ({ run, count: m.count }));
    };
    const first = await go();
    expect(first.count.builds).toBe(1);
    expect(existsSync(join(dir, 'idx-bm25', 'manifest.json'))).toBe(true);
    const second = await go();
    expect(second.count).toEqual({ builds: 0, loads: 1 });
    expect(second.run.methods[0]?.metrics).toEqual(first.run.methods[0]?.metrics);
    expect(asked).toEqual(['bm25', 'bm25']);
  });

  it('closes the store of a run that fails, and asks for no store when every question is done', async () => {
    const store = closable(memoryStore());
    const failing: Method<unknown> = {
      ...(bm25Rag as Method<unknown>),
      retrieve: async () => {
        throw new AbortError();
      },
    };
    const out = tmp();
    await expect(
      runEval({ dataset, methods: [{ method: failing }], context, out, indexStore: () => store }),
    ).rejects.toSatisfy((e: unknown) => AbortError.isInstance(e));
    expect(store.closes).toBe(1);

    const done = tmp();
    await runEval({ dataset, methods: [{ method: bm25Rag }], context, out: done });
    let asked = 0;
    const again = await runEval({
      dataset,
      methods: [{ method: bm25Rag }],
      context,
      out: done,
      indexStore: () => {
        asked++;
        return store;
      },
    });
    expect(again.methods[0]?.index.source).toBe('skipped');
    expect(asked).toBe(0);
  });
});
