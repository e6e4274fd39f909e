/** A source document. */
export interface Document {
  id: string;
  text: string;
  title?: string;
  meta?: Record<string, unknown>;
  /**
   * Where the parts of `text` come from in the file it was loaded from (set by a `Loader`): in text
   * order, not overlapping. Chunking keeps these boundaries, so every chunk has one location.
   */
  segments?: DocumentSegment[];
}

/** Where a piece of text sits in the file it was loaded from. */
export interface SourceLocation {
  /** The file, as the loader was given it (relative to the corpus root for a folder). */
  path: string;
  /** PDF page, from 1. */
  page?: number;
  /** Heading path, outermost first (Markdown, HTML, Word). */
  section?: string[];
  /** CSV row as a spreadsheet shows the file: the header is row 1, the first record row 2. */
  row?: number;
  /** JSON or JSONL record, from 1 (a JSONL file's line number). */
  record?: number;
}

/** A span `[start, end)` of a document's text and the place in the source file it comes from. */
export interface DocumentSegment {
  start: number;
  end: number;
  location: SourceLocation;
}

/** A contiguous piece of one document, in document order. */
export interface Chunk {
  /** Unique id, `${docId}#${order}` by default. */
  id: string;
  docId: string;
  /** Position of the chunk within its document, from 0. */
  order: number;
  text: string;
  /** Token count of `text` under the tokenizer that made the chunk. */
  tokens: number;
  /** Character offsets of `text` in the document text: `doc.text.slice(start, end) === text`. */
  start: number;
  end: number;
  /** The source-file place of the segment the chunk lies in, when the document has segments. */
  location?: SourceLocation;
}

/** Where a retrieved or extracted item comes from. */
export interface Provenance {
  chunkIds: string[];
  docIds: string[];
  /** The source-file places of those chunks, when their documents were loaded with segments. */
  locations?: SourceLocation[];
}

/** An entity produced by a graph-extraction task for one chunk. */
export interface ExtractedEntity {
  name: string;
  type: string;
  description: string;
}

/** A relation produced by a graph-extraction task for one chunk. */
export interface ExtractedRelation {
  source: string;
  target: string;
  description: string;
  /** Strength of the relation; GraphRAG prompts ask for 1-10. @default 1 */
  weight: number;
  keywords?: string[];
}

/** A merged knowledge-graph entity with everything said of it across chunks. */
export interface KgEntity {
  /** Normalized key (see `normalizeEntityName`). */
  id: string;
  /** The display name first seen. */
  name: string;
  /** Entity types seen, most frequent first. */
  types: string[];
  /** Distinct descriptions, in the order they were found. */
  descriptions: string[];
  /** Chunks that mention the entity. */
  chunkIds: string[];
}

/** A merged knowledge-graph relation between two entities. */
export interface KgRelation {
  id: string;
  source: string;
  target: string;
  descriptions: string[];
  /** Sum of the weights of every extracted occurrence. */
  weight: number;
  keywords: string[];
  chunkIds: string[];
}

/** One item of retrieved context. */
export interface RetrievedItem {
  /** Id of the item in its index (chunk id, node id, ...). */
  id: string;
  /** What the item is: `'chunk'`, `'entity'`, `'relation'`, `'summary'`, `'community'`, ... */
  kind: string;
  text: string;
  score: number;
  source: Provenance;
}

/** The result of a retrieval, one shape for every method. */
export interface Retrieval {
  /** What goes to the LLM, within the token budget. */
  context: string;
  /** The items packed into `context`, in context order. */
  items: RetrievedItem[];
  /** Token count of `context`. */
  tokens: number;
  /** The retrieved subgraph, for metrics and pictures. */
  subgraph?: { nodes: string[]; edges: [string, string][] };
  /** Which branch ran, timings, parameters chosen. */
  trace: Record<string, unknown>;
}
