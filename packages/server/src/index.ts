/**
 * `@grag/server`: the `grag serve` HTTP API over loaded grag indexes — JSON queries with
 * retrieval, subgraph and cited answers, answers streamed as Server-Sent Events, a chat route for
 * the AI SDK UI's `useChat` (an AI SDK UI message stream), source documents, and the graph explorer
 * page — as a Hono app that runs on Node through `@hono/node-server`; the
 * API's OpenAPI 3.1 document ({@link openApiDocument}, served at `GET /openapi.json`). The typed
 * client is the `@grag/server/client` entry.
 *
 * @packageDocumentation
 */
export { type ScopedToken, WORKSPACES_FILE } from './access.js';
export { closeWorkers, createGragServer, GRAG_SERVER_DEFAULTS, writesSettled } from './app.js';
export { type IndexFolder, type IndexFolderOptions, openIndexFolder } from './folder.js';
export { isLoopbackHost } from './guard.js';
export { JOB_INPUTS_DIR, type JobInput } from './job-input.js';
export {
  JOURNAL_FILE,
  type JobJournal,
  type OpenedJobJournal,
  type OpenJobJournalOptions,
  openJobJournal,
  type ResumableJob,
} from './journal.js';
export { type LoadedIndex, type LoadIndexesOptions, loadIndex, loadIndexes } from './load.js';
export { type OpenApiDocument, type OpenApiOptions, openApiDocument } from './openapi.js';
export type { WorkerOptions } from './pool.js';
export type { ProcessOptions } from './processes.js';
export { type ListenOptions, type RunningServer, SERVE_DEFAULTS, type ServeOptions, serve } from './serve.js';
export { defaultExplorerDir } from './static.js';
export type {
  AnswerJson,
  AnswerSource,
  ChatMessage,
  ChatRequest,
  ChatStreamChunk,
  CreateIndexRequest,
  DocumentInput,
  DocumentList,
  DocumentResponse,
  ErrorBody,
  GragServerOptions,
  GraphNeighbourhood,
  GraphNode,
  GraphSearch,
  Health,
  IndexInfo,
  IndexList,
  Job,
  JobEvent,
  MethodList,
  QueryRequest,
  QueryResponse,
  QueryStreamEvent,
  RetrievalJson,
  ServedIndexInput,
  UploadDocumentsRequest,
} from './types.js';
