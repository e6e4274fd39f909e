import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type BuildContext, embedAll } from '@grag/core';
import { pageRank } from '@grag/core/graph';
import { cosineSimilarity, createBuildContext, getTokenizer, readManifest } from '@grag/core/kit';
import { chunkKnnCsr, keywordChannel, seededShuffle } from '@grag/keyword-bipartite';
import { createOfflineProviders } from '@grag/offline';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  createKetRag,
  KET_RAG_PAPER_SETTINGS,
  type KetRagIndex,
  type KetRagVariant,
  ketRag,
} from '../src/index.js';
import { CORPUS } from './corpus.js';

const tokenizer = getTokenizer();
const QUESTION = 'Who founded the Orsa Marine Institute?';
const isSub = (id: string) => id.includes('/');

async function build(variant: KetRagVariant, extra: Record<string, unknown> = {}) {
  const { tasks, embedder } = createOfflineProviders();
  const ctx: BuildContext = createBuildContext({ embedder, tasks });
  const method = createKetRag({ variant });
  // The paper's algorithms as written (dense entry points, no entity linking).
  const index = await method.build(CORPUS, ctx, {
    chunking: 'document',
    subChunkSize: 24,
    ...KET_RAG_PAPER_SETTINGS,
    ...extra,
  });
  return { ctx, method, index };
}

const built = new Map<KetRagVariant, Awaited<ReturnType<typeof build>>>();
beforeAll(async () => {
  for (const variant of [
    'keyword-rag',
    'text-rag',
    'knng-rag',
    'ms-graph-rag',
    'skeleton-rag',
    'hybrid-rag',
    'ket-rag-p',
    'ket-rag-u',
  ] as const) {
    built.set(variant, await build(variant));
  }
});
const get = (variant: KetRagVariant) => built.get(variant)!;

/** Cosine ranking of all chunks, brute force from fresh embeddings. */
async function chunkRanking(index: KetRagIndex, query: string): Promise<string[]> {
  const [q, ...vectors] = await embedAll(index.providers.embedder, [query, ...index.chunkTexts]);
  return vectors
    .map((v, i) => ({ id: index.chunks[i]!.id, s: cosineSimilarity(q!, v) }))
    .sort((a, b) => b.s - a.s)
    .map((x) => x.id);
}

describe('indexing (Algorithm 3)', () => {
  it('splits every chunk into sub-chunks and keeps one chunk per passage', () => {
    const { index } = get('ket-rag-p');
    expect(index.chunks.map((c) => c.id)).toEqual(CORPUS.map((d) => d.id));
    expect(index.stats.subChunks).toBeGreaterThan(index.chunks.length);
    for (const chunk of index.chunks) {
      const pieces = index.subChunks.filter((s) => s.chunkId === chunk.id);
      expect(pieces.map((p) => p.text).join('')).toBe(chunk.text);
    }
  });

  it('extracts the graph of the top-β chunks by PageRank on the KNN graph only', () => {
    const { index } = get('skeleton-rag');
    expect(index.stats.coreChunks).toBe(Math.floor(CORPUS.length * 0.8));
    expect(index.stats.extraction.calls).toBe(index.stats.coreChunks);
    const ranks = pageRank(chunkKnnCsr(index.knn!), { weighted: false, damping: 0.85 });
    const expected = [...ranks.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, index.stats.coreChunks)
      .map(([id]) => id);
    expect([...index.core].sort()).toEqual(expected.sort());
    expect(index.stats.extraction.inputTokens).toBe(
      index.core.reduce(
        (n, id) => n + tokenizer.count(index.chunkTexts[index.chunks.findIndex((c) => c.id === id)]!),
        0,
      ),
    );
  });

  it('samples the core chunks uniformly with the seed for KET-RAG-U', () => {
    const { index } = get('ket-rag-u');
    const expected = seededShuffle(CORPUS.length, 42)
      .slice(0, 6)
      .map((i) => CORPUS[i]!.id);
    expect(index.core).toEqual(expected);
    expect(index.knn).toBeUndefined();
  });

  it('rewires every entity to all the sub-chunks of the core chunks it was extracted from', () => {
    const { index } = get('ket-rag-p');
    const core = new Set(index.core);
    const subsOf = (chunkId: string) => index.subChunks.filter((s) => s.chunkId === chunkId).map((s) => s.id);
    expect(index.skeleton!.entities.length).toBeGreaterThan(5);
    for (const entity of index.skeleton!.entities) {
      const chunkIds = new Set(entity.textUnitIds.map((id) => id.split('/')[0]!));
      for (const chunkId of chunkIds) expect(core.has(chunkId)).toBe(true);
      expect(entity.textUnitIds).toEqual([...chunkIds].flatMap(subsOf));
    }
  });

  it('builds the keyword graph over every sub-chunk', () => {
    const { index } = get('ket-rag-p');
    expect(index.keyword!.bipartite.units).toEqual(index.subChunks.map((s) => s.id));
    const k = index.keyword!.bipartite.keywords.indexOf('brandt');
    const units = [...index.keyword!.bipartite.keywordUnits[k]!].map((u) => index.subChunkTexts[u]!);
    expect(units.length).toBeGreaterThan(2);
    for (const text of units) expect(text.toLowerCase()).toContain('brandt');
  });
});

describe('retrieval (Algorithm 4) and the variants', () => {
  it('Keyword-RAG (λ = 0) uses no KG context and extracts nothing', async () => {
    const { index, method } = get('keyword-rag');
    expect(index.skeleton).toBeUndefined();
    expect(index.stats.extraction.calls).toBe(0);
    const r = await method.retrieve(index, QUESTION, { budgetTokens: 300 });
    expect(r.items.length).toBeGreaterThan(0);
    expect(r.items.every((i) => i.kind === 'chunk' && isSub(i.id))).toBe(true);
    expect(r.tokens).toBeLessThanOrEqual(300);
    // The items are the keyword channel's candidates, in its order, packed whole into the budget.
    const [q] = await embedAll(index.providers.embedder, [QUESTION]);
    const { candidates } = keywordChannel(
      {
        graph: index.keyword!.bipartite,
        keywordVectors: index.keyword!.keywordVectors,
        unitVectors: index.keyword!.subChunkVectors,
        unitTokens: index.keyword!.subChunkTokens,
      },
      q!,
      { budgetTokens: 300 },
    );
    const expected = candidates.map((c) => index.subChunks[c.unit]!.id).slice(0, r.items.length);
    expect(r.items.map((i) => i.id)).toEqual(expected);
  });

  it('Text-RAG returns whole chunks by cosine similarity', async () => {
    const { index, method } = get('text-rag');
    expect(index.stats.extraction.calls).toBe(0);
    const r = await method.retrieve(index, QUESTION, { budgetTokens: 250 });
    const ranking = await chunkRanking(index, QUESTION);
    expect(r.items.map((i) => i.id)).toEqual(ranking.slice(0, r.items.length));
    expect(r.items.every((i) => !isSub(i.id))).toBe(true);
  });

  it('KNNG-RAG follows each seed chunk with its KNN-graph neighbours', async () => {
    const { index, method } = get('knng-rag');
    const r = await method.retrieve(index, QUESTION, { budgetTokens: 12000 });
    const ranking = await chunkRanking(index, QUESTION);
    const ids = index.knn!.ids;
    const neighbours = (id: string) => {
      const i = ids.indexOf(id);
      return index
        .knn!.edges.filter((e) => e.source === i || e.target === i)
        .map((e) => ids[e.source === i ? e.target : e.source]!);
    };
    const got = r.items.map((i) => i.id);
    expect(got[0]).toBe(ranking[0]);
    expect(new Set(got.slice(1, 1 + neighbours(ranking[0]!).length))).toEqual(
      new Set(neighbours(ranking[0]!)),
    );
    expect(new Set(got)).toEqual(new Set(ranking));
  });

  it('MS-Graph-RAG (β = 1, λ = 1) extracts every chunk and fills the budget from the graph only', async () => {
    const { index, method } = get('ms-graph-rag');
    expect(index.stats.extraction.calls).toBe(CORPUS.length);
    expect(index.keyword).toBeUndefined();
    const r = await method.retrieve(index, QUESTION, { budgetTokens: 3000 });
    expect(r.trace.budgets).toEqual({ graph: 3000, text: expect.any(Number) });
    expect(r.items[0]!.kind).toBe('entity');
    expect(r.items.some((i) => i.kind === 'relation')).toBe(true);
    // Text units are the sub-chunks linked to the seed entities.
    const seeds = new Set(r.trace.seeds as string[]);
    const linked = new Set(
      index.skeleton!.entities.filter((e) => seeds.has(e.id)).flatMap((e) => e.textUnitIds),
    );
    const units = r.items.filter((i) => i.kind === 'chunk');
    expect(units.length).toBeGreaterThan(0);
    for (const u of units) expect(linked.has(u.id)).toBe(true);
    expect(r.tokens).toBeLessThanOrEqual(3000);
    expect(r.subgraph!.edges.length).toBe(r.items.filter((i) => i.kind === 'relation').length);
  });

  it('Skeleton-RAG has no keyword channel', async () => {
    const { index, method } = get('skeleton-rag');
    expect(index.keyword).toBeUndefined();
    const r = await method.retrieve(index, QUESTION, { budgetTokens: 600 });
    expect(r.items.some((i) => i.kind === 'entity')).toBe(true);
    expect(r.trace.textTokens).toBe(0);
  });

  it('Hybrid-RAG puts graph context first, then whole chunks by similarity', async () => {
    const { index, method } = get('hybrid-rag');
    expect(index.stats.extraction.calls).toBe(CORPUS.length);
    const r = await method.retrieve(index, QUESTION, { budgetTokens: 1200 });
    const kinds = r.items.map((i) => i.kind);
    const firstText = r.items.findIndex((i) => i.kind === 'chunk' && !isSub(i.id));
    expect(kinds[0]).toBe('entity');
    expect(firstText).toBeGreaterThan(0);
    expect(r.items.slice(firstText).every((i) => i.kind === 'chunk' && !isSub(i.id))).toBe(true);
    expect(r.trace.graphTokens as number).toBeLessThanOrEqual(600);
  });

  it('KET-RAG-P gives the graph λ·L tokens and the keyword channel the rest, without repeats', async () => {
    const { index, method } = get('ket-rag-p');
    for (const budget of [120, 400, 900, 3000]) {
      const r = await method.retrieve(index, QUESTION, { budgetTokens: budget });
      expect(r.tokens).toBeLessThanOrEqual(budget);
      expect(r.tokens).toBe(tokenizer.count(r.context));
      expect(r.trace.graphTokens as number).toBeLessThanOrEqual(Math.floor(budget / 2));
      const ids = r.items.map((i) => `${i.kind}:${i.id}`);
      expect(new Set(ids).size).toBe(ids.length);
    }
    const r = await method.retrieve(index, QUESTION, { budgetTokens: 900 });
    expect(r.items[0]!.kind).toBe('entity');
    expect(r.items.at(-1)!.kind).toBe('chunk');
    expect(r.context).toContain('Brandt');
    const noGraph = await method.retrieve(index, QUESTION, { budgetTokens: 900, lambda: 0 });
    expect(noGraph.items.every((i) => i.kind === 'chunk')).toBe(true);
  });

  it('builds a variant named in the build options, as `grag index --method ket-rag --variant …` passes it', async () => {
    const { tasks, embedder } = createOfflineProviders();
    const ctx = createBuildContext({ embedder, tasks });
    // Options as `--set key=value` delivers them: strings and numbers.
    const index = await ketRag.build(CORPUS, ctx, { variant: 'KEYWORD_RAG' as never, chunking: 'document' });
    expect(index.options).toMatchObject({
      variant: 'keyword-rag',
      beta: 0,
      lambda: 0,
      textChannel: 'keyword',
    });
    const dir = await mkdtemp(join(tmpdir(), 'ket-rag-cli-'));
    try {
      await ketRag.save(index, join(dir, 'index'));
      // Every variant is stored under the method name, its variant in the params.
      const manifest = await readManifest(join(dir, 'index'));
      expect([manifest.method, manifest.params.variant]).toEqual(['ket-rag', 'keyword-rag']);
      const { tasks: t2, embedder: e2 } = createOfflineProviders();
      const loaded = await ketRag.load(join(dir, 'index'), createBuildContext({ embedder: e2, tasks: t2 }));
      expect(loaded.options.variant).toBe('keyword-rag');
      const r = await ketRag.retrieve(loaded, QUESTION, { budgetTokens: 500 });
      expect(r.items.every((i) => i.kind === 'chunk')).toBe(true);
      expect(r.trace.variant).toBe('keyword-rag');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
