/**
 * bridge-rag is E2GraphRAG's offline preset without the summary tree and Algorithm 1. Where the
 * tree cannot change a score — dense entry points from an embedder that is not fitted on the corpus
 * (a passage's vector depends on its text alone, and E2GraphRAG searches the leaves only), title
 * bridges (no BM25 statistics, which E2GraphRAG also takes over its summaries) — the two methods,
 * composed from the same building blocks, must rank the same passages with the same scores.
 * (What follows the passages differs: E2GraphRAG adds global mode's summaries after them, and labels
 * the chunks Algorithm 1 reached with their entities in its context.)
 */
import type { Retrieval } from '@grag/core';
import { createBuildContext, flatIndexFactory } from '@grag/core/kit';
import { createScriptedEmbedder } from '@grag/core/test';
import { createE2GraphRag } from '@grag/e2graphrag';
import { createOfflineProviders } from '@grag/offline';
import { expect, test } from 'vitest';
import { createBridgeRag } from '../src/index.js';
import { DOCS, QUESTION } from './fixtures.js';

const QUERIES = [
  QUESTION,
  'Who directs the Lindqvist Institute?',
  'Which ferry crosses the Veskan Strait?',
  'Where was Edda Varn born?',
  'What do the pilots of Merrow Falls make?',
];
const ctx = () =>
  createBuildContext({
    ...createOfflineProviders(),
    embedder: createScriptedEmbedder({ dimensions: 64 }),
    vectorIndex: flatIndexFactory,
  });
const view = (r: Retrieval) =>
  r.items
    .filter((i) => i.kind === 'chunk')
    .map(({ id, kind, text, score, source }) => ({ id, kind, text, score, source }));

test("ranks exactly what E2GraphRAG's offline preset ranks, entry passages and title bridges", async () => {
  const e2 = createE2GraphRag();
  const bridge = createBridgeRag();
  const options = {
    chunking: 'document',
    topK: 4,
    bridgeSeeds: 2,
    entryPoints: 'dense',
    mentionBridges: 0,
  } as const;
  const [a, b] = [
    await e2.build(DOCS, ctx(), { ...options, preset: 'offline', groupSize: 3 }),
    await bridge.build(DOCS, ctx(), options),
  ];
  expect(a.stats.summaries).toBeGreaterThan(0);
  let bridged = 0;
  for (const q of QUERIES) {
    const [x, y] = [await e2.retrieve(a, q), await bridge.retrieve(b, q)];
    expect(view(y), q).toEqual(view(x));
    expect(y.trace.bridges, q).toEqual(x.trace.bridges);
    bridged += (y.trace.bridges as unknown[]).length;
  }
  // The comparison covers bridges, not only entry passages.
  expect(bridged).toBeGreaterThan(0);
});
