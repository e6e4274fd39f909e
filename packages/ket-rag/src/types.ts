import type {
  Chunk,
  ExtractedEntity,
  ExtractedRelation,
  SearchableVectors,
  Tokenizer,
  VectorIndex,
} from '@grag/core';
import type {
  EntityVocabulary,
  LocalSearchEntity,
  LocalSearchGraph,
  LocalSearchRelationship,
} from '@grag/core/graph';
import type { Bm25Index, IndexProviders } from '@grag/core/kit';
import type { ChunkKnnGraph, KeywordBipartite, SubChunk, UnitColumns } from '@grag/keyword-bipartite';
import type { SubChunkCounts } from './counts.js';
import type { KetRagOptions } from './options.js';

/** What indexing cost, as counted by the method itself (model-independent). */
export interface KetRagStats {
  documents: number;
  chunks: number;
  subChunks: number;
  coreChunks: number;
  knnEdges: number;
  /** Graph-extraction calls (one per core chunk) and the tokens of the texts sent. */
  extraction: {
    calls: number;
    inputTokens: number;
    entities: number;
    relations: number;
    /** Parse issues reported by the extraction task. */
    issues: number;
    /** Extracted records not merged (empty names, self-relations, invalid weights). */
    skipped: number;
  };
  /** Summarize calls that merged descriptions. */
  summaries: number;
  entities: number;
  relationships: number;
  keywords: number;
  sentences: number;
}

/** The knowledge-graph skeleton, with text units rewired to sub-chunks. */
export interface KetRagSkeleton {
  entities: LocalSearchEntity[];
  relationships: LocalSearchRelationship[];
  /**
   * Entity embeddings (of `name: description`), ids = entity positions: in the process, or a
   * collection searched where it is stored (an index loaded from `postgresStore({ vectors: true })`).
   */
  entityVectors: SearchableVectors;
  /** Prepared for local search. */
  graph: LocalSearchGraph;
  /** Names folded into each entity by entity linking (entity id → aliases), for the vocabulary. */
  aliases: [string, string[]][];
  /** Document id → id of its title entity (entity linking). */
  titleEntities: [string, string][];
  /** `titleEntities` as a map (built once, read by every query that seeds from units). */
  titleEntityOf: Map<string, string>;
  /** Relationships by id, for the retrieval's subgraph. */
  relationshipById: Map<string, LocalSearchRelationship>;
  /** BM25 over the entity texts (`name: description`), ids = entity positions (lexical/hybrid entry points). */
  lexical?: Bm25Index;
  /** The entities' names and aliases, for finding them in a query (with `entityLinking`). */
  vocabulary?: EntityVocabulary;
  /** Title entities linked to each sub-chunk (sub-chunk id → entity positions, its own document's first). */
  unitEntities?: Map<string, number[]>;
}

/** The keyword channel's index. */
export interface KetRagKeywordIndex {
  bipartite: KeywordBipartite;
  /** Keyword embeddings, ids = keyword positions. */
  keywordVectors: VectorIndex;
  /** Sub-chunk embeddings, aligned with `subChunks`. */
  subChunkVectors: Float32Array[];
  /** Tokens of each sub-chunk text as retrieved (title line included), aligned with `subChunks`. */
  subChunkTokens: Int32Array;
  /** `subChunkVectors` by dimension, for scoring every sub-chunk per query (`hybrid` entry points). */
  subChunkColumns?: UnitColumns;
}

/** Dense and BM25 search over the sub-chunks, ids = sub-chunk positions. */
export interface KetRagEntryIndex {
  /** In the process, or a collection searched where it is stored (without the keyword channel). */
  vectors?: SearchableVectors;
  lexical?: Bm25Index;
}

/** What graph extraction returned for one core chunk, as kept for updates. */
export interface StoredExtraction {
  entities: ExtractedEntity[];
  relations: ExtractedRelation[];
  /** Parse issues the extraction reported (only their number is kept, for the stats). */
  issues: number;
}

/**
 * What an update reuses instead of calling a model again (see `updateKetRag`): the documents and
 * their titles, each core chunk's extraction, and the raw vectors behind the vector indexes
 * (a `VectorIndex` cannot give its vectors back). Indexes saved before updates existed lack it.
 */
export interface KetRagUpdateState {
  /** Ids of the indexed documents, in order (also those without chunks). */
  documents: string[];
  /** Document id → title, for the documents that have one. */
  titles: [string, string][];
  /** Core chunk id → its extraction. */
  extractions: Map<string, StoredExtraction>;
  /** Model summaries of merged descriptions: `JSON.stringify(descriptions)` → summary, as returned. */
  summaries: Map<string, string>;
  /** Chunk embeddings, aligned with `chunks` (when the variant embeds chunks). */
  chunkVectors?: Float32Array[];
  /** Sub-chunk embeddings, aligned with `subChunks` (when the variant embeds sub-chunks). */
  subChunkVectors?: Float32Array[];
  /** Entity embeddings, aligned with `skeleton.entities`. */
  entityVectors?: Float32Array[];
  /** Sentence embeddings, aligned with `keyword.bipartite.sentences`. */
  sentenceVectors?: Float32Array[];
}

/** A built KET-RAG index. */
export interface KetRagIndex {
  /** The providers retrieval needs (embedder, tokenizer) and the index was built with. */
  providers: IndexProviders;
  options: KetRagOptions;
  chunks: Chunk[];
  /** Text of each chunk as embedded, extracted and retrieved (title line + chunk text). */
  chunkTexts: string[];
  subChunks: SubChunk[];
  /** Text of each sub-chunk as embedded and retrieved. */
  subChunkTexts: string[];
  /** Ids of the core chunks, best first. */
  core: string[];
  /** KNN chunk graph (when core chunks were chosen by PageRank or the text channel is `'knn'`). */
  knn?: ChunkKnnGraph;
  /** Neighbours of each chunk position in `knn`, for the `'knn'` text channel (built once). */
  knnNeighbours?: number[][];
  /**
   * Chunk embeddings for the `'dense'` and `'knn'` channels, ids = chunk positions: in the process,
   * or a collection searched where it is stored.
   */
  chunkVectors?: SearchableVectors;
  skeleton?: KetRagSkeleton;
  keyword?: KetRagKeywordIndex;
  /** Entry-point search over the sub-chunks (text channels `'keyword'` with BM25, and `'entry'`). */
  entry?: KetRagEntryIndex;
  /** Token counts of the sub-chunks as retrieved (absent in indexes saved before format 3). */
  counts?: SubChunkCounts;
  /** The tokenizer retrieval counts with: the providers' one, answering from `counts` (see counts.ts). */
  retrievalTokenizer: Tokenizer;
  /** Search depths of the text channels: mean tokens of a chunk, estimated tokens (chars / 4) of a sub-chunk. */
  meanTokens: { chunk: number; subChunk: number };
  stats: KetRagStats;
  /** What an update reuses; absent in indexes saved before updates existed. */
  kept?: KetRagUpdateState;
}

/** Stats before anything is counted. */
export function emptyStats(): KetRagStats {
  return {
    documents: 0,
    chunks: 0,
    subChunks: 0,
    coreChunks: 0,
    knnEdges: 0,
    extraction: { calls: 0, inputTokens: 0, entities: 0, relations: 0, issues: 0, skipped: 0 },
    summaries: 0,
    entities: 0,
    relationships: 0,
    keywords: 0,
    sentences: 0,
  };
}
