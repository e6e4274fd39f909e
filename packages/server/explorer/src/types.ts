/**
 * The JSON shapes of the `grag serve` HTTP API that the explorer reads (a browser-side mirror of the
 * server's contract; the page bundles no server code).
 */

/** One loaded index, from `GET /v1/indexes`. */
export interface IndexInfo {
  name: string;
  method: string;
  description: string;
  documents: number;
  chunks: number | null;
}

/** A place in a source file (core's `SourceLocation`): the file, and a page, heading path, row or record. */
export interface SourceLocation {
  path: string;
  page?: number;
  section?: string[];
  row?: number;
  record?: number;
}

/** One item of retrieved context (core's `RetrievedItem`). */
export interface RetrievedItem {
  id: string;
  kind: string;
  text: string;
  score: number;
  /** `locations`: where its text lies in the source files, when the documents were loaded with segments. */
  source: { chunkIds?: string[]; docIds?: string[]; locations?: SourceLocation[] };
}

/** The retrieved subgraph; node ids are whatever the method uses (`entity:x`, `T:doc#0`, `x`). */
export interface Subgraph {
  nodes: string[];
  edges: [string, string][];
  /** Labels of `edges`, index for index, when the method gives them. */
  edgeLabels?: (string | null)[];
}

/** A retrieval as the server returns it. */
export interface Retrieval {
  context: string;
  tokens: number;
  items: RetrievedItem[];
  subgraph?: Subgraph;
  /** Subgraph node ids that were the query's entry points, when known. */
  entryPoints?: string[];
  trace?: Record<string, unknown>;
}

/** What one citation points at (core's `CitedSource`): the cited item's documents, places and their label. */
export interface CitedSource {
  id: string;
  docIds: string[];
  locations?: SourceLocation[];
  /** `report.pdf p. 3`, `guide.html § Install › Linux`, or the document ids. */
  label: string;
}

/** A generated answer: its text, the ids of the context items it cites, and their sources. */
export interface Answer {
  text: string;
  citations: string[];
  /** One per citation (absent from servers older than provenance to the citation). */
  sources?: CitedSource[];
}

/** The body of `POST /v1/query` (and the `retrieval` event of its stream, without `answer`). */
export interface QueryResponse {
  index: string;
  method: string;
  retrieval: Retrieval;
  answer?: Answer;
  ms: number;
}

/** A source document, from `GET /v1/documents/:id`. */
export interface SourceDocument {
  id: string;
  title?: string;
  text: string;
  index: string;
}

/** What a query reports while it runs: the retrieval first, then answer text as it streams. */
export interface QueryEvents {
  onRetrieval(response: QueryResponse): void;
  onDelta(text: string): void;
}
