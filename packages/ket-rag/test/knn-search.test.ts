/**
 * `semanticKnn`: the KNN graph's semantic neighbours come from the build context's vector index
 * (`'index'`, the default) or from the brute-force scan (`'exact'`).
 */
import {
  type BuildContext,
  embedAll,
  type VectorIndex,
  type VectorIndexFactory,
  type VectorSearchOptions,
} from '@grag/core';
import { cosineSimilarity, createBuildContext, flatIndexFactory } from '@grag/core/kit';
import { createOfflineProviders } from '@grag/offline';
import { describe, expect, it } from 'vitest';
import { createKetRag, KET_RAG_DEFAULTS, type KetRagIndex } from '../src/index.js';
import { CORPUS } from './corpus.js';

/**
 * A flat index whose search returns the hits in reverse (least similar first): an index that
 * disagrees with the brute-force scan, so the test sees which of the two the KNN graph read.
 */
const reversedFactory: VectorIndexFactory = {
  kind: 'reversed-flat',
  exact: true,
  create(options) {
    const inner = flatIndexFactory.create(options);
    const index: VectorIndex = Object.create(inner);
    index.search = (query: ArrayLike<number>, k: number, search?: VectorSearchOptions) =>
      inner.search(query, inner.size, search).reverse().slice(0, k);
    return index;
  },
  load: (path) => flatIndexFactory.load(path),
};

const options = { chunking: 'document', subChunkSize: 24, lexicalK: 0, semanticK: 1 } as const;

async function build(vectorIndex: VectorIndexFactory, extra: Record<string, unknown> = {}) {
  const { tasks, embedder } = createOfflineProviders();
  const ctx: BuildContext = createBuildContext({ embedder, tasks, vectorIndex });
  return createKetRag().build(CORPUS, ctx, { ...options, ...extra });
}

/** Each chunk's semantic neighbour by brute force over fresh embeddings: best, or worst. */
async function neighbours(index: KetRagIndex, pick: 'best' | 'worst'): Promise<Set<string>> {
  const vectors = await embedAll(index.providers.embedder, index.chunkTexts);
  const pairs = new Set<string>();
  vectors.forEach((v, i) => {
    let at = -1;
    let score = 0;
    vectors.forEach((w, j) => {
      if (j === i) return;
      const s = cosineSimilarity(v, w);
      if (at < 0 || (pick === 'best' ? s > score : s < score)) [at, score] = [j, s];
    });
    pairs.add(i < at ? `${i}-${at}` : `${at}-${i}`);
  });
  return pairs;
}

const edgesOf = (index: KetRagIndex) => new Set(index.knn!.edges.map((e) => `${e.source}-${e.target}`));

describe('KET-RAG semanticKnn', () => {
  it("defaults to 'index'", () => {
    expect(KET_RAG_DEFAULTS.semanticKnn).toBe('index');
  });

  it("'index' reads the context's vector index; 'exact' scans every pair", async () => {
    const fromIndex = await build(reversedFactory);
    const exact = await build(reversedFactory, { semanticKnn: 'exact' });
    // The corpus has more than two chunks, so each chunk's best and worst neighbours differ somewhere.
    expect(fromIndex.chunks.length).toBeGreaterThan(3);
    expect(edgesOf(fromIndex)).toEqual(await neighbours(fromIndex, 'worst'));
    expect(edgesOf(exact)).toEqual(await neighbours(exact, 'best'));
    expect(edgesOf(fromIndex)).not.toEqual(edgesOf(exact));
  });

  it('with an exact index, the same KNN graph and core chunks as the scan', async () => {
    const fromIndex = await build(flatIndexFactory, { semanticK: 2, lexicalK: 1 });
    const exact = await build(flatIndexFactory, { semanticK: 2, lexicalK: 1, semanticKnn: 'exact' });
    expect(fromIndex.knn!.edges.map((e) => [e.source, e.target, e.lexical])).toEqual(
      exact.knn!.edges.map((e) => [e.source, e.target, e.lexical]),
    );
    fromIndex.knn!.edges.forEach((e, i) => {
      if (e.cosine === undefined) expect(exact.knn!.edges[i]!.cosine).toBeUndefined();
      else expect(e.cosine).toBeCloseTo(exact.knn!.edges[i]!.cosine!, 5);
    });
    expect(fromIndex.core).toEqual(exact.core);
  });

  it('refuses another value, naming the option', async () => {
    await expect(build(flatIndexFactory, { semanticKnn: 'approximate' })).rejects.toThrow(/semanticKnn/);
  });
});
