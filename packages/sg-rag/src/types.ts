import type { ExtractedEntity, ExtractedRelation, SearchableVectors, SourceLocation } from '@grag/core';
import type { IndexProviders } from '@grag/core/kit';
import type { Adjacency, SgGraph } from './kg.js';
import type { SgRagIndexOptions } from './options.js';
import type { PathIndexView } from './path-index.js';

/** One chunk's graph extraction as an index keeps it: the records the graph was merged from. */
export interface KeptExtraction {
  entities: ExtractedEntity[];
  relations: ExtractedRelation[];
}

/**
 * A chunk of an index built from documents: its id, its document, its source-file location (when
 * its document was loaded with segments) and what was extracted from it.
 */
export interface KeptChunk {
  id: string;
  docId: string;
  location?: SourceLocation;
  extraction: KeptExtraction;
}

/**
 * What `update` reuses, kept by builds from documents (absent from triple indexes and from indexes
 * saved before updates existed): so an update never extracts or embeds a kept chunk or label again.
 */
export interface SgRagUpdateState {
  /** Ids of the indexed documents, in corpus order. */
  documents: string[];
  /** Every chunk with its extraction, in corpus order (the order the graph was merged in). */
  chunks: KeptChunk[];
  /**
   * The label embedding of every graph node, in node order (the vectors of `labelVectors`). Absent
   * when `labelVectors` is a collection of the store (an update reads them there).
   */
  labelEmbeddings?: Float32Array[];
}

/** A built (or loaded) SG-RAG index. */
export interface SgRagIndex {
  /** The providers retrieval needs: embedder and vector index (normalization), tasks, tokenizer. */
  providers: IndexProviders;
  options: SgRagIndexOptions;
  graph: SgGraph;
  adjacency: Adjacency;
  /** Trimmed, lower-cased node label → first node with it (exact entity normalization). */
  exactLabels: Map<string, number>;
  /**
   * Label embeddings o_0(v) of every node, for entity normalization: in the process, or a collection
   * searched where it is stored (an index loaded from `postgresStore({ vectors: true })`).
   */
  labelVectors: SearchableVectors;
  /** The path index I_l (Eq. 4). */
  paths: PathIndexView;
  stats: Record<string, number>;
  /** What an update reuses; absent for triple indexes and indexes saved before updates existed. */
  kept?: SgRagUpdateState;
}
