import type { Chunk, SearchableVectors } from '@grag/core';
import type { EntityExtractor, EntityGraph, EntityVocabulary } from '@grag/core/graph';
import type { Bm25Index, EntityIndexKept, IndexProviders } from '@grag/core/kit';
import type { BridgeRagOptions } from './options.js';

/**
 * A bridge-rag index: the passages (chunks) with their vectors and BM25, and the linked
 * passage–entity graph over them (chunk c of `chunks` is chunk c of `graph`, vector id c, BM25 id c).
 */
export interface BridgeRagIndex {
  /** The providers retrieval needs: the embedder (query vectors) and the tokenizer (packing). */
  providers: IndexProviders;
  options: BridgeRagOptions;
  /** The chunks, in corpus order. */
  chunks: Chunk[];
  /** What each chunk is searched and shown by: its text, with its document's title first on a first chunk. */
  texts: string[];
  /**
   * Every chunk text embedded; vector id = chunk position. In the process, or a collection searched
   * where it is stored (an index loaded from `postgresStore({ vectors: true })`).
   */
  vectors: SearchableVectors;
  /** BM25 over `texts` (ids = chunk positions): entry points, residual queries. Rebuilt on load. */
  lexical: Bm25Index;
  /** Entities and their co-occurrence edges, with the entity↔chunk indexes. */
  graph: EntityGraph;
  extractor: EntityExtractor;
  /** Per chunk: its document's title entity (its "home" entity), or `undefined`. */
  homes: (string | undefined)[];
  /** Entity id → its document's first chunk. Rebuilt on load. */
  home: Map<number, number>;
  /** The index's entity names, for matching query spans. Rebuilt on load. */
  vocabulary: EntityVocabulary;
  stats: BridgeRagStats;
  /** The build's intermediate data, saved with the index. */
  kept: BridgeRagKept;
}

/**
 * What a build keeps beside the index (core's `EntityIndexKept`: the documents, their titles, the
 * extraction, each chunk's embedding).
 */
export type BridgeRagKept = EntityIndexKept;

/** Counts of a built index (also written to the manifest). */
export interface BridgeRagStats {
  documents: number;
  /** Documents left out because their text is blank. */
  skippedDocuments: number;
  chunks: number;
  entities: number;
  edges: number;
  /** Title entities (documents with a title). */
  titleEntities: number;
  /** Title mentions added by linking (the extractor missed them). */
  textMentions: number;
}
