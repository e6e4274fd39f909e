import type { SearchableVectors } from '@grag/core';
import type { EntityExtractor, EntityGraph, EntityVocabulary } from '@grag/core/graph';
import type { Bm25Index, EntityIndexKept, IndexProviders } from '@grag/core/kit';
import type { SummaryTree } from '@grag/summary-tree';
import type { E2GraphRagOptions } from './options.js';

/** An E2GraphRAG index: the summary tree with its vectors, the entity graph with its indexes. */
export interface E2GraphRagIndex {
  /** The providers retrieval needs: the embedder (query vectors) and the tokenizer (packing). */
  providers: IndexProviders;
  options: E2GraphRagOptions;
  /** Leaves are the chunks, in document order; leaf i is chunk i of the entity graph. */
  tree: SummaryTree;
  /**
   * Every tree node embedded; vector id = node index. In the process, or a collection searched where
   * it is stored (an index loaded from `postgresStore({ vectors: true })`).
   */
  vectors: SearchableVectors;
  graph: EntityGraph;
  extractor: EntityExtractor;
  stats: E2GraphRagStats;
  /** Per chunk: its document's title entity (with `entityLinking`); empty without linking. */
  homes: (string | undefined)[];
  /**
   * BM25 over the tree node texts (ids = node indexes): built with the index (or on load) when its
   * entry points are lexical or hybrid, else on the first query that asks for them.
   */
  lexical?: Bm25Index;
  /** The index's entity names, for matching query spans (with `entityLinking`). */
  vocabulary?: EntityVocabulary;
  /** Entity id → its document's first chunk (with `entityLinking`). */
  home?: Map<number, number>;
  /**
   * What `update` reuses so that kept chunks and summaries cost no model call: kept since updates
   * exist; indexes saved before load without it and can only be rebuilt.
   */
  kept?: E2GraphRagKept;
}

/**
 * The intermediate data of a build that an update reuses (see {@link E2GraphRagIndex.kept}): core's
 * `EntityIndexKept`, the documents, their titles, each chunk's (tree leaf's) extracted entities and
 * each tree node's embedding.
 */
export type E2GraphRagKept = EntityIndexKept;

/** Counts of a built index (also written to the manifest). */
export interface E2GraphRagStats {
  documents: number;
  /** Documents left out because their text is blank. */
  skippedDocuments: number;
  chunks: number;
  summaries: number;
  /** Nodes per tree level, leaves first. */
  levels: number[];
  entities: number;
  edges: number;
  /** Title mentions added by linking (the extractor missed them). */
  textMentions?: number;
}
