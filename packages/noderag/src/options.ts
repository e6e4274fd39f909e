import type { EntryPointMode, PprUpdate, RetrieveOptions } from '@grag/core';

/**
 * Retrieval settings that can also be given at build time (e.g. `grag index --set entryPoints=dense`):
 * they are stored with the index and become its retrieval defaults (a `retrieve` call still
 * overrides them).
 */
export const INDEX_RETRIEVE_KEYS = [
  'entryPoints',
  'entryWeighting',
  'queryEntityMatch',
  'vectorTopK',
  'teleport',
  'pprIterations',
  'pprUpdate',
  'semanticEdges',
  'dualSearch',
  'graphSearch',
  'edgeWeighting',
  'entities',
  'relationships',
  'overviews',
  'crossNodes',
] as const;

/** The retrieval settings an index can carry (see {@link INDEX_RETRIEVE_KEYS}). */
export type NodeRagIndexRetrieveDefaults = Pick<NodeRagRetrieveOptions, (typeof INDEX_RETRIEVE_KEYS)[number]>;

/** Build options of NodeRAG (see {@link NODERAG_DEFAULTS}). */
export interface NodeRagOptions extends NodeRagIndexRetrieveDefaults {
  /**
   * `'fixed'`: token windows of `chunkSize`; `'document'`: one text chunk per document (passage
   * corpora). @default 'fixed'
   */
  chunking: 'fixed' | 'document';
  /** Tokens per text chunk. @default 1048 (official code, `chunk_size`) */
  chunkSize: number;
  /** Tokens shared by consecutive chunks. @default 0 (the official splitter does not overlap) */
  overlap: number;
  /** Write the document title as the first line of each text chunk. @default true */
  includeTitle: boolean;
  /**
   * Chunks, entities or communities whose model calls are in flight at once. Embedding batches
   * always use the runtime's concurrency. @default the build runtime's (`ctx.runtime.concurrency`, 8)
   */
  concurrency?: number;
  /**
   * An entity must have been extracted at least this often to be a candidate important entity. The
   * paper is silent; the official code requires a weight above 1. @default 2 (official code)
   */
  attributeMinMentions: number;
  /** k-core rule of important-entity selection. @default 'core' (true core numbers; see @grag/heterograph) */
  coreRule: 'core' | 'degree';
  /** BFS sources sampled for betweenness. @default 10 (NodeRAG Algorithm 1) */
  betweennessSamples: number;
  /** Token cap of the semantic units and relationships summarized into one attribute. @default 4000 */
  attributeContextTokens: number;
  /** Target length of an attribute summary in tokens. @default 200 */
  attributeTokens: number;
  /** Leiden resolution γ. @default 1 (modularity, as the official code's `ModularityVertexPartition`) */
  leidenResolution: number;
  /** Leiden iterations. @default 2 (leidenalg's default, as the official code calls it) */
  leidenIterations: number;
  /** Token cap of the community content given to the model for a high-level element. @default 4000 */
  communityContextTokens: number;
  /**
   * The official code skips k-means and joins a high-level element to every S and A node of its
   * community when the mean cluster size n/K is at most this (`Hcluster_size` 39). 0 always runs
   * k-means, as Algorithm 2 says. @default 0 (the paper)
   */
  denseMatchingClusterSize: number;
  /** Lay HNSW semantic edges (G5). @default true */
  hnswEdges: boolean;
  /** HNSW links per node and layer. @default 50 (official code, `m`) */
  hnswM: number;
  /** HNSW construction breadth. @default 200 (official code, `ef`) */
  hnswEfConstruction: number;
  /** HNSW search breadth. @default 64 */
  hnswEfSearch: number;
  /** Seed of Leiden, betweenness sampling, k-means and HNSW levels. @default 42 */
  seed: number;
  /**
   * Link entities across the corpus before laying N nodes (`linkEntities` of `@grag/core`): each
   * document's title becomes an entity of all its semantic units, a unit that writes another
   * document's title links to that title's entity, and names that differ only in case, diacritics,
   * punctuation or a disambiguator are one N node. This is what lets the walk cross from a passage to
   * the passage about an entity it mentions. `false`: entities merged by exact normalized name only
   * (the paper). @default true (measured; see the README's deviations)
   */
  entityLinking: boolean;
}

/** Defaults of NodeRAG's build. */
export const NODERAG_DEFAULTS: NodeRagOptions = {
  chunking: 'fixed',
  chunkSize: 1048,
  overlap: 0,
  includeTitle: true,
  attributeMinMentions: 2,
  coreRule: 'core',
  betweennessSamples: 10,
  attributeContextTokens: 4000,
  attributeTokens: 200,
  leidenResolution: 1,
  leidenIterations: 2,
  communityContextTokens: 4000,
  denseMatchingClusterSize: 0,
  hnswEdges: true,
  hnswM: 50,
  hnswEfConstruction: 200,
  hnswEfSearch: 64,
  seed: 42,
  entityLinking: true,
};

/** Retrieval options of NodeRAG (see {@link NODERAG_RETRIEVE_DEFAULTS}). */
export interface NodeRagRetrieveOptions extends RetrieveOptions {
  /**
   * How the entry points among T, S, A, H nodes are found: `'dense'` by the embedder (the paper),
   * `'lexical'` by BM25 over the same node texts, `'hybrid'` by both fused with reciprocal rank
   * fusion. @default 'hybrid' (measured; see the README's deviations)
   */
  entryPoints?: EntryPointMode;
  /**
   * Personalization weight of the vector entry points: `'uniform'` 1/|entries| each (the paper), or
   * `'rank'`, the i-th entry (0-based) weighing 1/(i + 1), so the walk starts mostly from the best
   * entries. Exact-match entries (N, O) weigh 1 in both. @default 'rank' (measured)
   */
  entryWeighting?: 'uniform' | 'rank';
  /**
   * How query entities become N/O entry points: `'phrase'`, every extracted query entity matched as a
   * whole-word phrase inside N and O names (the official code's search); `'vocabulary'`, only the
   * index's entity names found in the question by longest match (`EntityVocabulary`), each to its own
   * N node, plus phrase matches of O names. @default 'vocabulary' (measured)
   */
  queryEntityMatch?: 'phrase' | 'vocabulary';
  /** Vector entry points: the k nearest embedded nodes. @default 10 (official `HNSW_results`) */
  vectorTopK?: number;
  /** PPR teleport α. @default 0.5 (NodeRAG §2.5) */
  teleport?: number;
  /** PPR iterations t (Figure 4 sweeps 1-10). @default 2 (NodeRAG §2.5) */
  pprIterations?: number;
  /** PPR update: `'paper'` π = αp + (1−α)Pᵀπ, or the official code's `'lazy'` walk. @default 'paper' */
  pprUpdate?: PprUpdate;
  /** Entities taken from the PPR ranking (each brings its attributes). @default 10 (official `Enode`) */
  entities?: number;
  /** Relationships taken from the PPR ranking. @default 30 (official `Rnode`) */
  relationships?: number;
  /** Overviews taken from the ranking (each brings its high-level element). @default 10 (official `Hnode`) */
  overviews?: number;
  /** Other retrievable cross nodes. @default 10 (official `cross_node`) */
  crossNodes?: number;

  /** Ablation: `false` uses vector entry points only (Table 2 "w/o Dual Search"). @default true */
  dualSearch?: boolean;
  /** Ablation: `false` walks without HNSW semantic edges (Table 2 "w/o HNSW"). @default true */
  semanticEdges?: boolean;
  /**
   * Ablation: `false` skips the graph and returns the `topK` (default 10) most similar embedded nodes
   * (Table 2 "w/o Cross Node", k = 10/20/30). @default true
   */
  graphSearch?: boolean;
  /** Edge weights of the walk: as built, or the official code's `'unbalance-adjust'`. @default 'paper' */
  edgeWeighting?: 'paper' | 'unbalance-adjust';
}

/** Defaults of NodeRAG's retrieval. */
export const NODERAG_RETRIEVE_DEFAULTS = {
  entryPoints: 'hybrid' as EntryPointMode,
  entryWeighting: 'rank' as 'uniform' | 'rank',
  queryEntityMatch: 'vocabulary' as 'phrase' | 'vocabulary',
  vectorTopK: 10,
  teleport: 0.5,
  pprIterations: 2,
  pprUpdate: 'paper' as PprUpdate,
  entities: 10,
  relationships: 30,
  overviews: 10,
  crossNodes: 10,
  dualSearch: true,
  semanticEdges: true,
  graphSearch: true,
  edgeWeighting: 'paper' as 'paper' | 'unbalance-adjust',
  /** `topK` of the "w/o cross node" ablation. */
  plainTopK: 10,
} as const;
