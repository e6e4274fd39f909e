/**
 * An update (documents added, replaced and removed) gives the index a fresh build of the changed
 * corpus gives — chunks, texts, graph, title entities, kept data, embeddings and retrievals — and
 * reads and embeds only the new chunks.
 */
import type { BuildContext, Document } from '@grag/core';
import { InvalidArgumentError } from '@grag/core';
import { createBuildContext, flatIndexFactory } from '@grag/core/kit';
import { createScriptedEmbedder, type ScriptedEmbedder } from '@grag/core/test';
import { expectIdenticalRetrievals } from '@grag/core/test/vitest';
import { createOfflineEmbedder, createOfflineProviders } from '@grag/offline';
import { describe, expect, test } from 'vitest';
import { type BridgeRagIndex, createBridgeRag } from '../src/index.js';
import { DOCS, dictionary, QUESTION } from './fixtures.js';

const method = createBridgeRag({ extractor: dictionary });
const OPTIONS = { chunking: 'document', bridgeSeeds: 2 } as const;
const QUERIES = [QUESTION, 'Who directs the Lindqvist Institute?', 'Which ferry leaves Port Halvard?'];

const ADDED: Document[] = [
  {
    id: 'gull-crew',
    title: 'Sable Gull crew',
    text: 'Edda Varn trained the crew of the Sable Gull in Port Halvard.',
  },
];
/** The institute's passage again, with a new director. */
const REPLACED: Document = {
  id: 'institute',
  title: 'Lindqvist Institute',
  text: 'The Lindqvist Institute is directed by Tomas Brandt since 2020 and studies the Veskan Strait.',
};
const changed = (docs: readonly Document[]) => [
  ...docs.filter((d) => d.id !== 'yard' && d.id !== 'institute'),
  REPLACED,
  ...ADDED,
];

function context(embedder: ScriptedEmbedder = createScriptedEmbedder({ dimensions: 48 })): BuildContext {
  return createBuildContext({ ...createOfflineProviders(), embedder, vectorIndex: flatIndexFactory });
}

const content = (index: BridgeRagIndex) => ({
  chunks: index.chunks,
  texts: index.texts,
  graph: index.graph.toJSON(),
  homes: index.homes,
  stats: index.stats,
  kept: index.kept,
});
const ask = (index: BridgeRagIndex) => Promise.all(QUERIES.map((q) => method.retrieve(index, q)));

describe('bridge-rag update', () => {
  test('equals a fresh build of the changed corpus, embedding only the new chunks', async () => {
    const embedder = createScriptedEmbedder({ dimensions: 48 });
    const ctx = context(embedder);
    const base = await method.build(DOCS, ctx, OPTIONS);
    const before = embedder.calls.flatMap((c) => c.values).length;
    const { index, report } = await method.update!(
      base,
      { add: [REPLACED, ...ADDED], remove: ['yard'] },
      ctx,
    );
    const embedded = embedder.calls.flatMap((c) => c.values).slice(before);
    const fresh = await method.build(changed(DOCS), context(), OPTIONS);
    expect(content(index)).toEqual(content(fresh));
    expectIdenticalRetrievals(await ask(index), await ask(fresh));
    // Two new chunks embedded (the replaced passage and the added one), nothing else.
    expect(embedded).toHaveLength(2);
    expect(report.documents).toEqual({ added: ['gull-crew'], replaced: ['institute'], removed: ['yard'] });
    expect(report.chunks).toEqual({ removed: 2, added: 2, total: 6 });
    expect(report.global.map((g) => g.stage)).toEqual(['graph', 'vector-index', 'bm25']);
    // The replaced director is what the index holds now.
    const r = await method.retrieve(index, 'Who directs the Lindqvist Institute?');
    expect(r.context).toContain('Tomas Brandt');
    expect(r.context).not.toContain('Ilse Marren');
    // The index updated from is unchanged.
    expect(base.chunks.map((c) => c.docId)).toContain('yard');
  });

  test('with a fittable embedder, keeps the fit (and says so) unless full, which equals a fresh build', async () => {
    const tfidf = () => createOfflineEmbedder('tfidf', { dimensions: 256 });
    const embedder = tfidf();
    const ctx = createBuildContext({ ...createOfflineProviders(), embedder, vectorIndex: flatIndexFactory });
    const base = await method.build(DOCS, ctx, OPTIONS);
    const change = { add: [...ADDED], remove: ['falls'] };
    const kept = await method.update!(base, change, ctx);
    expect(kept.report.trace.fit).toMatch(/keeps the fit of the original corpus/);
    const full = await method.update!(base, change, ctx, { full: true });
    expect(full.report.global.map((g) => g.stage)).toContain('fit');
    const other = tfidf();
    const fresh = await method.build(
      [...DOCS.filter((d) => d.id !== 'falls'), ...ADDED],
      createBuildContext({ ...createOfflineProviders(), embedder: other, vectorIndex: flatIndexFactory }),
      OPTIONS,
    );
    expect(content(full.index)).toEqual(content(fresh));
    expectIdenticalRetrievals(await ask(full.index), await ask(fresh));
  });

  test('refuses to remove a document the index does not hold, naming it', async () => {
    const base = await method.build(DOCS, context(), OPTIONS);
    await expect(method.update!(base, { remove: ['lighthouse'] }, context())).rejects.toThrow(
      InvalidArgumentError,
    );
    await expect(method.update!(base, { remove: ['lighthouse'] }, context())).rejects.toThrow(/lighthouse/);
  });
});
