import type {
  Chunk,
  DocumentSegment,
  ExtractedEntity,
  ExtractedRelation,
  KgEntity,
  KgRelation,
} from '@grag/core';
import type { Bm25Index, IndexProviders } from '@grag/core/kit';
import type { EdgeTriangles, TrussGraph, TrussIndex } from '@grag/ktruss';
import type { LineCounts } from './line-counts.js';
import type { MemberTables } from './member-tables.js';
import type { DaRagOptions } from './options.js';
import type { VectorPostings } from './relevance.js';

/** The three layers of the chunk-layer oriented graph index (DA-RAG §3). */
export type Layer = 'chunk' | 'kg' | 'sim';

/** Counts recorded in the manifest. */
export interface DaRagStats {
  documents: number;
  chunks: number;
  entities: number;
  relations: number;
  /** Edges of the Semantic Chunk layer. */
  chunkLayerEdges: number;
  /** Edges of the Similarity layer (0 without it). */
  similarityLayerEdges: number;
  /** Entities that, being in more than `maxLinkEntityChunks` chunks, created no chunk-layer edge. */
  hubEntities: number;
  /** Extracted records not merged into the KG (empty names, self-relations, bad weights). */
  skippedRecords: number;
  /** Parse issues reported by the extraction and title tasks (records the model wrote badly). */
  parseIssues: number;
  /** Chunks whose title and description came back empty (their text is embedded instead). */
  undescribedChunks: number;
}

/**
 * A DA-RAG index: the Semantic Chunk layer (chunks, their title + description embeddings, chunk–chunk
 * edges), the Knowledge Graph layer (entities, relations, entity embeddings), the Similarity layer
 * (entity kNN edges) and the inter-layer links (chunk → its entities).
 */
export interface DaRagIndex {
  /**
   * The providers retrieval calls: the embedder (the query), the task suite (community
   * assessments) and the tokenizer.
   */
  providers: IndexProviders;
  options: DaRagOptions;
  chunks: Chunk[];
  /** Each chunk's text as extracted and shown: the document title line, then the chunk text. */
  texts: string[];
  /** Title of each chunk (model-written). */
  titles: string[];
  /** Concise description of each chunk (model-written). */
  descriptions: string[];
  /** Embedding of each chunk's title and description. */
  chunkVectors: Float32Array[];
  /** KG entities; the position is the entity's node index in the KG and Similarity layers. */
  entities: KgEntity[];
  /** KG relations; the position is the edge id in `kgLayer`. */
  relations: KgRelation[];
  /** Embedding of each entity's name and description. */
  entityVectors: Float32Array[];
  /** Entity node index by entity id. */
  entityIndex: Map<string, number>;
  /** Inter-layer links: the entity indices of each chunk, ascending. */
  chunkEntities: Uint32Array[];
  /** Semantic Chunk layer over chunk indices. */
  chunkLayer: TrussGraph;
  /** Knowledge Graph layer over entity indices; edge `e` is `relations[e]`. */
  kgLayer: TrussGraph;
  /** Similarity layer over entity indices, or `null` when built without it. */
  simLayer: TrussGraph | null;
  stats: DaRagStats;
  /**
   * What `update` reuses: the documents and each chunk's extraction. Absent in indexes saved before
   * updates existed: those load and retrieve, but an update asks to rebuild once.
   */
  kept?: DaRagKept;
  /**
   * Made on first use: truss indexes of the whole layers, BM25 over the chunk
   * texts and entity texts (lexical and hybrid relevance), and the postings of sparse chunk and
   * entity vectors (`null`: dense vectors, read row by row; made on their second use, the first
   * reading the vectors row by row). The BM25 indexes and the chunk layer's truss index are loaded
   * with the index when it keeps them. Also the line counts loaded with the
   * index, dropped (as every entry is) when an update makes a new index.
   */
  cache: Partial<Record<Layer, TrussIndex>> & {
    /**
     * The triangles of the KG and Similarity layers, from which those of a working subgraph are read
     * (a query's anchor community induces one on each).
     */
    triangles?: Partial<Record<'kg' | 'sim', EdgeTriangles>>;
    lexicalChunks?: Bm25Index;
    lexicalEntities?: Bm25Index;
    chunkPostings?: VectorPostings | null;
    entityPostings?: VectorPostings | null;
    /**
     * Relevance computations read row by row before the postings were made (see
     * `POSTINGS_AFTER_ROW_READS`), per vector set.
     */
    rowReads?: { chunkPostings: number; entityPostings: number };
    subjects?: Int32Array;
    members?: MemberTables;
    /** The token counts of the chunk and entity texts saved with the index (not made on first use). */
    lineCounts?: LineCounts;
  };
}

/** One chunk's graph extraction as kept in the index, so an update merges the KG again without the model. */
export interface ChunkExtraction {
  entities: ExtractedEntity[];
  /** `weight` is `NaN` where the model wrote an invalid one (the merge skips such relations). */
  relations: ExtractedRelation[];
  /** Parse issues of the chunk's extraction and title tasks (counted in `stats.parseIssues`). */
  issues: number;
}

/** What a DA-RAG index keeps so that `update` calls the model only for new chunks. */
export interface DaRagKept {
  /**
   * The indexed documents in corpus order (also those that gave no chunk), with their titles, the
   * parts of their text no chunk holds (`[offset, text]`; absent in indexes saved before they were
   * kept), from which a full update puts each text back together, and their segments (documents
   * loaded with them), so that chunking again keeps the segment boundaries and locations.
   */
  documents: { id: string; title?: string; gaps?: [number, string][]; segments?: DocumentSegment[] }[];
  /** The extraction of each chunk, parallel to `chunks`. */
  extractions: ChunkExtraction[];
}
