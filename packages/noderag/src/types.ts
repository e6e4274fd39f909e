import type { Chunk, SearchableVectors } from '@grag/core';
import type { EntityVocabulary } from '@grag/core/graph';
import type { Bm25Index, IndexProviders } from '@grag/core/kit';
import type { HeteroGraph, HeteroSearch } from '@grag/heterograph';
import type { NodeRagKept } from './kept.js';
import type { NodeRagOptions } from './options.js';

/** Counts of one build, stored in the index and its manifest. */
export interface NodeRagBuildStats {
  documents: number;
  chunks: number;
  /** Semantic units returned by the model (before identical ones merge). */
  extractedUnits: number;
  importantEntities: number;
  attributes: number;
  communities: number;
  /** Communities without semantic units or attributes (no high-level element made). */
  emptyCommunities: number;
  highLevelElements: number;
  semanticMatchingEdges: number;
  /** K of the semantic-matching k-means (0 when it was skipped). */
  semanticClusters: number;
  hnsw: { added: number; reinforced: number };
  /** Inputs left out, by reason (blank units, nameless entities, self-relations, empty summaries). */
  skipped: Record<string, number>;
  /** Parse issues reported by the tasks, by kind. */
  parseIssues: Record<string, number>;
  /** What entity linking did (absent when `entityLinking` is off). */
  linking?: NodeRagLinkingStats;
}

/** What entity linking did in one build. */
export interface NodeRagLinkingStats {
  /** Distinct entity names before and canonical entities after linking. */
  names: number;
  entities: number;
  /** Documents whose title became an entity. */
  titleEntities: number;
  /** Title entities added to semantic units that write the title (a mention the extractor missed). */
  textMentions: number;
  /** Names folded into another entity (all rules). */
  folded: number;
}

/** The search structures of an index, made once when it is built or loaded. */
export interface NodeRagSearch {
  /** Dual search and shallow PPR over the graph. */
  search: HeteroSearch;
  /** BM25 over the texts of the embedded nodes, same ids as the vector index. */
  lexical: Bm25Index;
  /** The entity (N) names of the graph, for query entity matching. */
  vocabulary: EntityVocabulary;
}

/** A built NodeRAG index: the heterograph, the vector index over embedded nodes, and the chunks. */
export interface NodeRagIndex extends NodeRagSearch {
  /**
   * The providers retrieval needs (embedder, tasks, tokenizer), and the vector-index factory of the
   * build context, which made {@link NodeRagIndex.vectors} (an update makes the new one with it).
   */
  providers: IndexProviders;
  options: NodeRagOptions;
  graph: HeteroGraph;
  /**
   * The vector index over the embedded nodes (T, S, A, H): an HNSW index (a `GraphVectorIndex`)
   * with `hnswIndexFactory()` in the build context, core's exact flat index with the default
   * factory; vector id i is node `vectorKeys[i]`.
   */
  vectors: SearchableVectors;
  vectorKeys: string[];
  /**
   * With an exact index and `hnswEdges`: the level-0 links laid as semantic edges (vector id →
   * linked ids, see `exactBaseLayer`), kept because an exact index cannot give them back (saved as
   * `base-layer.json`). Absent with a graph index (HNSW), which holds them.
   */
  baseLayer?: number[][];
  chunks: Chunk[];
  stats: NodeRagBuildStats;
  /**
   * The model answers and embeddings the index was made from, which `update` reuses. Absent in an
   * index saved before updates existed: it loads and retrieves, but must be rebuilt once to update.
   */
  kept?: NodeRagKept;
}
