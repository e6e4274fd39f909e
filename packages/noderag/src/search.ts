import { EntityVocabulary } from '@grag/core/graph';
import { Bm25Index } from '@grag/core/kit';
import { type HeteroGraph, HeteroSearch } from '@grag/heterograph';
import type { NodeRagSearch } from './types.js';

/**
 * The search structures of an index, made once when it is built or loaded: the graph search, BM25
 * over the texts of the embedded nodes (`vectorKeys` order, so lexical ids are vector ids; `lexical`
 * when it was stored with the index, since format 4), and the vocabulary of entity (N) names.
 */
export function searchStructures(
  graph: HeteroGraph,
  vectorKeys: readonly string[],
  lexical?: Bm25Index,
): NodeRagSearch {
  const vocabulary = new EntityVocabulary();
  for (const key of graph.nodes('N')) vocabulary.add(graph.textOf(key)!);
  return {
    search: new HeteroSearch(graph),
    lexical: lexical ?? new Bm25Index(vectorKeys.map((key) => graph.textOf(key)!)),
    vocabulary,
  };
}
