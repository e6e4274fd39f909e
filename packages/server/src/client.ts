/**
 * `@grag/server/client`: a typed client of the grag HTTP API (`grag serve`), for browsers and
 * any runtime with `fetch`. Its request and response types are derived from the same JSON Schemas
 * as the server's OpenAPI document (`GET /openapi.json`); it imports no Node module and nothing of
 * the server at run time (the explorer page bundles it).
 *
 * @packageDocumentation
 */

import type {
  CreateIndexRequest,
  DocumentInput,
  DocumentList,
  DocumentResponse,
  ErrorBody,
  GraphNeighbourhood,
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
} from './api-types.js';
import { type CallInit, canReportUpload, postWithProgress, type UploadProgress } from './client-upload.js';
import { parseSse } from './sse.js';

export type * from './api-types.js';
export type { UploadProgress } from './client-upload.js';

const MARKER = Symbol.for('grag.server.apiError');

/**
 * A failed call: the HTTP `status` and the server's error `code` (`bad_request`,
 * `unknown_index`, `unauthorized`, … — see the `ErrorBody` of the OpenAPI document), or
 * `http_error` when the answer carried no error body. An `error` event of an answer stream is one
 * too, with the stream's status (200).
 */
export class GragApiError extends Error {
  readonly status: number;
  readonly code: string;
  readonly [MARKER] = true;

  constructor(message: string, fields: { status: number; code: string; cause?: unknown }) {
    super(message, fields.cause === undefined ? undefined : { cause: fields.cause });
    this.name = 'GragApiError';
    this.status = fields.status;
    this.code = fields.code;
  }

  /** Whether `error` is a {@link GragApiError}, also one of another copy of this package. */
  static isInstance(error: unknown): error is GragApiError {
    return typeof error === 'object' && error !== null && (error as Record<symbol, unknown>)[MARKER] === true;
  }
}

/** Options of {@link createGragClient}. */
export interface GragClientOptions {
  /**
   * Where the server is, e.g. `http://127.0.0.1:8787` (a path after it is kept: a server behind
   * a proxy at `https://example.com/grag`). @default '' (the page's own origin; in a browser only)
   */
  baseUrl?: string | URL;
  /** The server's bearer token, sent as `Authorization: Bearer <token>`. @default none */
  token?: string;
  /** The `fetch` to call. @default globalThis.fetch */
  fetch?: (input: string, init: RequestInit) => Promise<Response>;
}

/** Options of one call. */
export interface CallOptions {
  /** Aborts the call (and, for a streamed answer, the server's model call). */
  signal?: AbortSignal;
  /**
   * Files sent (`createIndex` and `uploadDocuments` with `files`): called with the bytes of the
   * body sent so far and its size, as they go out. Only where `XMLHttpRequest` exists (a browser,
   * and no `fetch` option given); elsewhere the upload goes through `fetch` and this is not called.
   */
  onUploadProgress?: UploadProgress;
}

/** Options of a query: its call options, and the index it addresses by name. */
export interface QueryCallOptions extends CallOptions {
  /**
   * The name of the index to ask, through `/v1/indexes/{index}/query` (the request's `method`
   * may then be left out). @default the request's `method`, else the server's first index
   */
  index?: string;
}

/** A file to upload: a `File`, or a `Blob` with the file name its documents cite. */
export type UploadFile = File | { name: string; data: Blob };

/** What an upload sends: documents as JSON text, or files (each read by the server's loaders). */
export type Upload = { documents: DocumentInput[] } | { files: UploadFile[] };

/**
 * A new index whose documents are (or include) files: sent as multipart/form-data, the files read
 * by the server's loaders, `documents` (JSON text) beside them when given.
 */
export type CreateIndexWithFiles = Omit<CreateIndexRequest, 'documents'> & {
  documents?: DocumentInput[];
  files: UploadFile[];
};

/** The form of an upload of `files`, one `file` field each. */
function filesForm(files: readonly UploadFile[], form = new FormData()): FormData {
  for (const file of files) form.append('file', 'data' in file ? file.data : file, file.name);
  return form;
}

/** An event of an answer stream as {@link GragClient.streamQuery} yields it (an `error` event is thrown). */
export type QueryStreamPart = Exclude<QueryStreamEvent, { event: 'error' }>;

/** A client of one grag server; see {@link createGragClient}. */
export interface GragClient {
  /** The server's URL as given (`''`: the page's own origin). */
  readonly baseUrl: string;
  /** `GET /healthz`: `{ ok: true }` when the server is up. */
  health(options?: CallOptions): Promise<Health>;
  /** `GET /openapi.json`: the OpenAPI 3.1 document of the server's API. */
  openApi(options?: CallOptions): Promise<Record<string, unknown>>;
  /** `GET /v1/indexes`: the served indexes, in order (a query without `method` asks the first). */
  indexes(options?: CallOptions): Promise<IndexInfo[]>;
  /** `GET /v1/documents/:id`: a source document of the index named `method` (default the first). */
  document(id: string, options?: CallOptions & { method?: string }): Promise<DocumentResponse>;
  /** `GET /v1/indexes/:name`: one index, with the version served now. */
  index(name: string, options?: CallOptions): Promise<IndexInfo>;
  /** `GET /v1/indexes/:name/documents`: a page (`offset`, `limit`; default 0, 100) of its document ids and titles. */
  documents(name: string, options?: CallOptions & { offset?: number; limit?: number }): Promise<DocumentList>;
  /**
   * `POST /v1/query` (`/v1/indexes/:index/query` with `options.index`): the retrieval and, with
   * `answer: true`, the answer, in one response, from one version of the index (`version`).
   */
  query(request: Omit<QueryRequest, 'stream'>, options?: QueryCallOptions): Promise<QueryResponse>;
  /**
   * `POST /v1/query` with `answer` and `stream`: the answer stream's events as they come —
   * `retrieval` (the response without its answer), a `delta` per piece of answer text, `answer`,
   * `done`. An `error` event is thrown as a {@link GragApiError}, and so is a stream that ends
   * before `done`. Leaving the loop early closes the connection, which stops the server's model call.
   */
  streamQuery(
    request: Omit<QueryRequest, 'answer' | 'stream'>,
    options?: QueryCallOptions,
  ): AsyncGenerator<QueryStreamPart, void, undefined>;
  /** `GET /v1/methods`: the methods new indexes are built with, and whether the server creates any. */
  methods(options?: CallOptions): Promise<MethodList>;
  /**
   * `GET /v1/indexes/:name/graph`: a page (`offset`, `limit`; default 0, 20) of the nodes of the
   * index's graph whose name holds `q` (every node without it), of `type` when given.
   */
  searchGraph(
    name: string,
    options?: CallOptions & { q?: string; type?: string; offset?: number; limit?: number },
  ): Promise<GraphSearch>;
  /** `GET /v1/indexes/:name/graph/nodes/:id`: a node, a page of its neighbours (default 50) and the edges among them. */
  graphNode(
    name: string,
    id: string,
    options?: CallOptions & { offset?: number; limit?: number },
  ): Promise<GraphNeighbourhood>;
  /**
   * `POST /v1/indexes`: queue the build of a new index from documents (JSON text) or files
   * (multipart, with any documents beside them); resolves with its job (see {@link waitForJob}).
   */
  createIndex(request: CreateIndexRequest | CreateIndexWithFiles, options?: CallOptions): Promise<Job>;
  /** `POST /v1/indexes/:name/documents`: queue an upload of documents (JSON) or files (multipart). */
  uploadDocuments(name: string, upload: Upload, options?: CallOptions): Promise<Job>;
  /** `DELETE /v1/indexes/:name/documents/:id`: queue the removal of a document. */
  deleteDocument(name: string, id: string, options?: CallOptions): Promise<Job>;
  /** `DELETE /v1/indexes/:name`: queue the removal of an index. */
  deleteIndex(name: string, options?: CallOptions): Promise<Job>;
  /** `GET /v1/jobs/:id`: how a write is going. */
  job(id: string, options?: CallOptions): Promise<Job>;
  /**
   * `GET /v1/jobs/:id/events`: the job as it changes (status, progress), the last one final
   * (`done` or `failed`); the loop ends after it.
   */
  jobEvents(id: string, options?: CallOptions): AsyncGenerator<Job, void, undefined>;
  /** The job once it is done or failed (followed through {@link jobEvents}). */
  waitForJob(id: string, options?: CallOptions): Promise<Job>;
}

/** The query string of a call's parameters (`signal` and absent ones left out), with its `?`. */
function search(params: object): string {
  const query = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) {
    if (key !== 'signal' && (typeof value === 'string' || typeof value === 'number'))
      query.set(key, String(value));
  }
  const text = query.toString();
  return text ? `?${text}` : '';
}

function typeName(value: unknown): string {
  return value === null ? 'null' : typeof value;
}

/** The error a non-2xx answer stands for: the server's error body, else its status. */
async function failure(res: Response, what: string): Promise<GragApiError> {
  let code = 'http_error';
  let message = `${what} failed with HTTP ${res.status}`;
  try {
    const body = (await res.json()) as Partial<ErrorBody> | null;
    if (typeof body?.error?.message === 'string') message = body.error.message;
    if (typeof body?.error?.code === 'string') code = body.error.code;
  } catch {
    // Not a JSON error body: keep the status line.
  }
  return new GragApiError(message, { status: res.status, code });
}

/** The events of an answer stream's body, up to `done`; the body is released when the loop ends. */
async function* streamEvents(
  body: ReadableStream<Uint8Array>,
  status: number,
): AsyncGenerator<QueryStreamPart, void, undefined> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  let ended = false;
  // The server ends the stream right after `done` or `error`: read it to its end, so the
  // connection closes cleanly rather than aborted (what follows is not read).
  const drain = async () => {
    while (!ended) ended = (await reader.read()).done;
  };
  try {
    for (;;) {
      const { done, value } = await reader.read();
      ended = done;
      buffer += done ? `${decoder.decode()}\n\n` : decoder.decode(value, { stream: true });
      const parsed = parseSse(buffer);
      buffer = parsed.rest;
      for (const { event, data } of parsed.events) {
        let payload: unknown;
        try {
          payload = JSON.parse(data);
        } catch (cause) {
          throw new GragApiError(`The answer stream's ${event} event is not JSON.`, {
            status,
            code: 'bad_stream',
            cause,
          });
        }
        const part = { event, data: payload } as QueryStreamEvent;
        switch (part.event) {
          case 'error': {
            await drain();
            const error = (part.data as Partial<ErrorBody> | null)?.error;
            throw new GragApiError(error?.message ?? 'The answer stream failed.', {
              status,
              code: error?.code ?? 'stream_error',
            });
          }
          case 'done':
            await drain();
            yield part;
            return;
          case 'retrieval':
          case 'delta':
          case 'answer':
            yield part;
            break;
          default:
          // An event this client does not know (a newer server): skipped.
        }
      }
      if (done) {
        throw new GragApiError('The server ended the answer stream before it was done.', {
          status,
          code: 'stream_ended',
        });
      }
    }
  } finally {
    // A consumer that left the loop early: close the connection, which stops the model call.
    if (!ended) await reader.cancel().catch(() => {});
  }
}

/** The jobs of a job event stream's body, up to its `end` event; the body is released when the loop ends. */
async function* jobStream(res: Response): AsyncGenerator<Job, void, undefined> {
  const reader = (res.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  try {
    for (;;) {
      const { done, value } = await reader.read();
      buffer += done ? `${decoder.decode()}\n\n` : decoder.decode(value, { stream: true });
      const parsed = parseSse(buffer);
      buffer = parsed.rest;
      for (const { event, data } of parsed.events) {
        yield JSON.parse(data) as JobEvent['data'];
        if (event === 'end') return;
      }
      if (done) {
        throw new GragApiError('The server ended the job stream before the job ended.', {
          status: res.status,
          code: 'stream_ended',
        });
      }
    }
  } finally {
    await reader.cancel().catch(() => {});
  }
}

/**
 * The request function of a client: the route's URL under `baseUrl`, the token, JSON or multipart
 * bodies, an upload that reports its bytes where it can, a refusal as a {@link GragApiError}.
 */
function callerOf(
  baseUrl: string,
  token: string | undefined,
  fetchImpl: GragClientOptions['fetch'],
): (what: string, path: string, init?: CallInit) => Promise<Response> {
  return async function call(what: string, path: string, init: CallInit = {}): Promise<Response> {
    const run = fetchImpl ?? globalThis.fetch;
    if (typeof run !== 'function') {
      throw new TypeError('createGragClient: no fetch here; pass options.fetch.');
    }
    if (baseUrl === '' && (globalThis as { location?: unknown }).location === undefined) {
      throw new TypeError(
        'createGragClient: pass baseUrl (e.g. http://127.0.0.1:8787); only a page in a browser can call its own origin without one.',
      );
    }
    const headers: Record<string, string> = { accept: init.accept ?? 'application/json' };
    const form = init.body instanceof FormData;
    // The server takes JSON bodies (415 for anything else), and files as multipart/form-data.
    if (init.body !== undefined && !form) headers['content-type'] = 'application/json';
    if (token) headers.authorization = `Bearer ${token}`;
    if (form && init.onUploadProgress && !fetchImpl && canReportUpload()) {
      const sent = await postWithProgress(
        `${baseUrl}${path}`,
        init.body as FormData,
        headers,
        init.onUploadProgress,
        init.signal,
      );
      if (!sent) {
        throw new GragApiError(`${what}: the connection failed before the server answered.`, {
          status: 0,
          code: 'network_error',
        });
      }
      if (!sent.ok) throw await failure(sent, what);
      return sent;
    }
    const res = await run(`${baseUrl}${path}`, {
      method: init.method ?? (init.body === undefined ? 'GET' : 'POST'),
      headers,
      ...(init.body === undefined
        ? {}
        : { body: form ? (init.body as FormData) : JSON.stringify(init.body) }),
      ...(init.signal ? { signal: init.signal } : {}),
    });
    if (!res.ok) throw await failure(res, what);
    return res;
  };
}

/**
 * A typed client of a grag server: one method per route of its HTTP API, each request and
 * response typed as the server's OpenAPI document describes it. Failures (the server's error
 * answers, a stream's `error` event) are {@link GragApiError}s with the server's code and message.
 *
 * @example
 * ```ts
 * const grag = createGragClient({ baseUrl: 'http://127.0.0.1:8787', token: process.env.GRAG_TOKEN });
 * const [first] = await grag.indexes();
 * const res = await grag.query({ question: 'Who founded the shipyard?', topK: 3 }, { index: first.name });
 * const job = await grag.uploadDocuments(first.name, { documents: [{ id: 'memo', text: '…' }] });
 * console.log((await grag.waitForJob(job.id)).version); // the version that answers from now on
 * for await (const part of grag.streamQuery({ question: 'Who founded the shipyard?' })) {
 *   if (part.event === 'delta') process.stdout.write(part.data.text);
 * }
 * ```
 */
export function createGragClient(options: GragClientOptions = {}): GragClient {
  const baseUrl = String(options.baseUrl ?? '').replace(/\/+$/, '');
  const token = options.token;
  if (token !== undefined && typeof token !== 'string') {
    throw new TypeError(`createGragClient: token must be a string, got ${typeName(token)}.`);
  }
  const fetchImpl = options.fetch;

  const call = callerOf(baseUrl, token, fetchImpl);

  async function getJson<T>(what: string, path: string, options: CallOptions = {}): Promise<T> {
    return (await (await call(what, path, { signal: options.signal })).json()) as T;
  }

  const enc = encodeURIComponent;
  /** A write: its route, answered with a job. */
  async function submit(
    method: string,
    path: string,
    body: unknown,
    options: CallOptions = {},
  ): Promise<Job> {
    const res = await call(`${method} ${path}`, path, {
      method,
      body,
      signal: options.signal,
      onUploadProgress: options.onUploadProgress,
    });
    return (await res.json()) as Job;
  }
  const queryPath = (options: QueryCallOptions) =>
    options.index === undefined ? '/v1/query' : `/v1/indexes/${enc(options.index)}/query`;

  async function* jobEvents(id: string, options: CallOptions = {}): AsyncGenerator<Job, void, undefined> {
    const path = `/v1/jobs/${enc(id)}/events`;
    const res = await call(`GET ${path}`, path, { accept: 'text/event-stream', signal: options.signal });
    yield* jobStream(res);
  }

  return {
    baseUrl,
    health: (options) => getJson<Health>('GET /healthz', '/healthz', options),
    openApi: (options) => getJson<Record<string, unknown>>('GET /openapi.json', '/openapi.json', options),
    async indexes(options) {
      return (await getJson<IndexList>('GET /v1/indexes', '/v1/indexes', options)).indexes;
    },
    document(id, options = {}) {
      const query = options.method === undefined ? '' : `?method=${encodeURIComponent(options.method)}`;
      return getJson<DocumentResponse>(
        `GET /v1/documents/${id}`,
        `/v1/documents/${encodeURIComponent(id)}${query}`,
        options,
      );
    },
    documents(name, options = {}) {
      const path = `/v1/indexes/${enc(name)}/documents${search(options)}`;
      return getJson<DocumentList>(`GET ${path}`, path, options);
    },
    methods: (options) => getJson<MethodList>('GET /v1/methods', '/v1/methods', options),
    searchGraph(name, options = {}) {
      const path = `/v1/indexes/${enc(name)}/graph${search(options)}`;
      return getJson<GraphSearch>(`GET ${path}`, path, options);
    },
    graphNode(name, id, options = {}) {
      const path = `/v1/indexes/${enc(name)}/graph/nodes/${enc(id)}${search(options)}`;
      return getJson<GraphNeighbourhood>(`GET ${path}`, path, options);
    },
    index: (name, options) =>
      getJson<IndexInfo>(`GET /v1/indexes/${name}`, `/v1/indexes/${enc(name)}`, options),
    async query(request, options = {}) {
      const { stream: _stream, ...body } = request as QueryRequest;
      const path = queryPath(options);
      const res = await call(`POST ${path}`, path, { body, signal: options.signal });
      return (await res.json()) as QueryResponse;
    },
    async *streamQuery(request, options = {}) {
      const path = queryPath(options);
      const res = await call(`POST ${path}`, path, {
        body: { ...request, answer: true, stream: true },
        accept: 'text/event-stream, application/json',
        signal: options.signal,
      });
      const type = res.headers.get('content-type') ?? '';
      if (type.includes('text/event-stream') && res.body) {
        yield* streamEvents(res.body, res.status);
        return;
      }
      // A response in one piece (a server or proxy that does not stream): the same events from it.
      const { answer, ...retrieval } = (await res.json()) as QueryResponse;
      yield { event: 'retrieval', data: retrieval };
      if (answer) yield { event: 'answer', data: answer };
      yield { event: 'done', data: {} };
    },
    createIndex(request, options) {
      if (!('files' in request)) return submit('POST', '/v1/indexes', request, options);
      const { files, documents, options: build, name, method } = request;
      const form = new FormData();
      form.append('name', name);
      form.append('method', method);
      if (build !== undefined) form.append('options', JSON.stringify(build));
      if (documents !== undefined) form.append('documents', JSON.stringify(documents));
      return submit('POST', '/v1/indexes', filesForm(files, form), options);
    },
    uploadDocuments(name, upload, options) {
      const body = 'files' in upload ? filesForm(upload.files) : upload;
      return submit('POST', `/v1/indexes/${enc(name)}/documents`, body, options);
    },
    deleteDocument: (name, id, options) =>
      submit('DELETE', `/v1/indexes/${enc(name)}/documents/${enc(id)}`, undefined, options),
    deleteIndex: (name, options) => submit('DELETE', `/v1/indexes/${enc(name)}`, undefined, options),
    job: (id, options) => getJson<Job>(`GET /v1/jobs/${id}`, `/v1/jobs/${enc(id)}`, options),
    jobEvents,
    async waitForJob(id, options) {
      let last: Job | undefined;
      for await (const job of jobEvents(id, options)) last = job;
      return last as Job;
    },
  };
}
