/**
 * The JSON shapes of the `grag serve` HTTP API that the explorer reads: the typed client's, which
 * are derived from the schemas of the server's OpenAPI document (only types: the page bundles no
 * server code).
 */
export type {
  AnswerJson as Answer,
  CitedSource,
  DocumentList,
  DocumentResponse as SourceDocument,
  GraphNeighbourhood,
  GraphNode,
  GraphSearch,
  IndexInfo,
  Job,
  MethodList,
  QueryResponse,
  RetrievalJson as Retrieval,
  RetrievedItem,
  SourceLocation,
  Subgraph,
} from '../../src/client.js';

import type { QueryResponse } from '../../src/client.js';

/** What a query reports while it runs: the retrieval first, then answer text as it streams. */
export interface QueryEvents {
  onRetrieval(response: QueryResponse): void;
  onDelta(text: string): void;
}
