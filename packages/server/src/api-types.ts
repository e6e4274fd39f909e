/**
 * The JSON shapes of the HTTP API, derived from the JSON Schemas of schema.ts and schema-chat.ts
 * (which the OpenAPI document at `GET /openapi.json` is made of): one list, re-exported by the
 * server's types and by the browser client.
 */
export type {
  AnswerJson,
  CitedSource,
  DocumentResponse,
  ErrorBody,
  Health,
  IndexInfo,
  IndexList,
  QueryRequest,
  QueryResponse,
  QueryStreamEvent,
  RetrievalJson,
  RetrievedItem,
  SourceLocation,
  Subgraph,
} from './schema.js';
export type { ChatMessage, ChatRequest, ChatStreamChunk } from './schema-chat.js';
export type { GraphNeighbourhood, GraphNode, GraphSearch, MethodList } from './schema-graph.js';
export type {
  CreateIndexRequest,
  DocumentInput,
  DocumentList,
  Job,
  JobEvent,
  UploadDocumentsRequest,
} from './schema-jobs.js';
