import type { IndexProviders, VectorIndex } from '@grag/core';
import type { Adjacency, SgGraph } from './kg.js';
import type { SgRagIndexOptions } from './options.js';
import type { PathIndexView } from './path-index.js';

/** A built (or loaded) SG-RAG index. */
export interface SgRagIndex {
  /** The providers retrieval needs: embedder and vector index (normalization), tasks, tokenizer. */
  providers: IndexProviders;
  options: SgRagIndexOptions;
  graph: SgGraph;
  adjacency: Adjacency;
  /** Trimmed, lower-cased node label → first node with it (exact entity normalization). */
  exactLabels: Map<string, number>;
  /** Label embeddings o_0(v) of every node, for entity normalization. */
  labelVectors: VectorIndex;
  /** The path index I_l (Eq. 4). */
  paths: PathIndexView;
  stats: Record<string, number>;
}
