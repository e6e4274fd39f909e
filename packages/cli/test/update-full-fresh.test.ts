/**
 * Issue 25, item 12: `update(…, { full: true })` (the CLI's `grag add/remove --full`) equals a fresh
 * build of the changed corpus, for every method the CLI knows, with the default offline providers
 * (the TF-IDF embedder, fitted on the corpus it indexes, and the heuristic tasks). As the CLI does
 * it: build on A, save, load with new providers (the embedder restored to its fit on A), update
 * with B added, in full; the fresh build indexes A ∪ B. Retrievals must be identical: items, their
 * scores and the context, for several questions.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BuildContext, Document } from '@grag/core';
import { createBuildContext } from '@grag/core/kit';
import { memoryStore } from '@grag/core/store';
import { retrieveEach } from '@grag/core/test';
import { expectSameRetrievals } from '@grag/core/test/vitest';
import { createOfflineProviders } from '@grag/offline';
import { describe, expect, it } from 'vitest';
import { DEMO_QUESTIONS, demoCorpusPath } from '../src/cli.js';
import { METHODS } from '../src/registry.js';
import { runGrag } from './helpers.js';

const corpus: Document[] = readdirSync(demoCorpusPath())
  .sort()
  .map((name) => ({ id: name, text: readFileSync(join(demoCorpusPath(), name), 'utf8') }));
const A = corpus.slice(0, 5);
const B = corpus.slice(5);

const QUESTIONS = [
  ...DEMO_QUESTIONS,
  'Where is the Kessler Shipyard?',
  'What did Ilse Marren study?',
  'Which college is in Port Halvard?',
];

const context = (): BuildContext => createBuildContext(createOfflineProviders());

const retrievals = (method: (typeof METHODS)[number]['method'], index: unknown) =>
  retrieveEach(method, index, QUESTIONS, [{ topK: 5 }]);

describe('update with full: true equals a fresh build (offline providers)', () => {
  for (const { name, method } of METHODS) {
    it(`${name}: build on A, add B in full = build on A ∪ B`, async () => {
      const store = memoryStore({ name });
      await method.save(await method.build(A, context()), store);
      const ctx = context();
      const loaded = await method.load(store, ctx);
      const { index: updated } = await method.update!(loaded, { add: B }, ctx, { full: true });
      // Saved and loaded again, as the next grag query reads it.
      await method.save(updated, store);
      const reloaded = await method.load(store, context());
      const fresh = await method.build(corpus, context());
      const want = await retrievals(method, fresh);
      expectSameRetrievals(await retrievals(method, updated), want);
      expectSameRetrievals(await retrievals(method, reloaded), want);
    }, 120_000);

    it(`${name}: build on A ∪ B, remove B in full = build on A`, async () => {
      const store = memoryStore({ name: `${name}-remove` });
      await method.save(await method.build(corpus, context()), store);
      const ctx = context();
      const loaded = await method.load(store, ctx);
      const change = { remove: B.map((d) => d.id) };
      const { index: updated } = await method.update!(loaded, change, ctx, { full: true });
      const fresh = await method.build(A, context());
      expectSameRetrievals(await retrievals(method, updated), await retrievals(method, fresh));
    }, 120_000);
  }
});

describe('grag add --full equals grag index of the whole corpus', () => {
  it('naive-dense with the offline embedder: the same passages and scores', async () => {
    const root = await mkdtemp(join(tmpdir(), 'grag-full-cli-'));
    try {
      const [a, b, all] = [join(root, 'a'), join(root, 'b'), join(root, 'all')] as const;
      for (const [dir, docs] of [
        [a, A],
        [b, B],
        [all, corpus],
      ] as const) {
        await mkdir(dir);
        for (const d of docs) await writeFile(join(dir, d.id), d.text);
      }
      const grag = async (args: string[]) => {
        const r = await runGrag(root, args);
        expect(r.code, r.err).toBe(0);
        return r.out;
      };
      await grag(['index', a, '--method', 'naive-dense', '--out', join(root, 'updated'), '-q']);
      await grag(['add', join(root, 'updated'), ...B.map((d) => join(b, d.id)), '--full', '-q']);
      await grag(['index', all, '--method', 'naive-dense', '--out', join(root, 'fresh'), '-q']);
      for (const question of QUESTIONS.slice(0, 3)) {
        const ask = async (index: string) =>
          JSON.parse(await grag(['query', join(root, index), question, '--json', '--no-answer'])).retrieval;
        const [got, want] = [await ask('updated'), await ask('fresh')];
        expect(got.items).toEqual(want.items);
      }
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  }, 120_000);
});
