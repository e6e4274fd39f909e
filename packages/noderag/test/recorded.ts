/**
 * What the format tests share: the small offline providers the `__fixtures__` indexes were built
 * with, and a retrieval in the shape the fixtures recorded it (`recorded.json`).
 */
import type { Retrieval } from '@grag/core';
import { createBuildContext } from '@grag/core/kit';
import { hnswIndexFactory } from '@grag/hnsw';
import { createOfflineProviders } from '@grag/offline';
import { type NodeRagIndex, nodeRag } from '../src/index.js';

/** The providers of the fixture indexes: a 64-dimension offline embedder and HNSW. */
export const fixtureContext = () =>
  createBuildContext({
    ...createOfflineProviders({ embedderOptions: { dimensions: 64, idfBuckets: 4096 } }),
    vectorIndex: hnswIndexFactory(),
  });

/** One retrieval as a fixture recorded it. */
export interface Recorded {
  query: string;
  budgetTokens: number;
  context: string;
  items: { id: string; kind: string; score: number }[];
  subgraph: Retrieval['subgraph'];
}

/**
 * What `index` retrieves for `r`'s query and budget, in `r`'s shape, with the k of cross nodes of
 * every type the fixtures were recorded with (10, the paper's; the offline preset's is 30 since).
 */
export const retrieveLike = async (index: NodeRagIndex, r: Recorded): Promise<Recorded> => {
  const got = await nodeRag.retrieve(index, r.query, { budgetTokens: r.budgetTokens, crossNodes: 10 });
  return {
    query: r.query,
    budgetTokens: r.budgetTokens,
    context: got.context,
    items: got.items.map((i) => ({ id: i.id, kind: i.kind, score: i.score })),
    subgraph: got.subgraph,
  };
};
