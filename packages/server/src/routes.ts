/**
 * The read routes of `/v1`: the index list, queries, chats and source documents, each both for the
 * default index (`/v1/query`, `?method=`) and addressed by name (`/v1/indexes/:name/...`). Every
 * request picks the current version of its index once and is answered from it alone; its response
 * names that version.
 */
import type { Context, Hono } from 'hono';
import type { Workspaces } from './access.js';
import { answerOf, streamQuery } from './answer.js';
import { readJsonBody } from './body.js';
import { CHAT_EXAMPLE, chatAnswerStream, parseChatRequest } from './chat.js';
import { badRequest, HttpError } from './errors.js';
import type { ServedIndex } from './indexes.js';
import type { RetrievalPool } from './pool.js';
import { type CheckedQuery, parseQueryRequest, retrievalJson, retrieveFor } from './query.js';
import type { IndexRegistry } from './registry.js';
import type { DocumentList } from './schema-jobs.js';
import { nextTurn } from './turns.js';
import type { DocumentResponse, IndexInfo, IndexList, QueryResponse } from './types.js';

/** What the routes work on. */
export interface RouteDeps {
  registry: IndexRegistry;
  workspaces: Workspaces;
  /** The indexes the request's token may see (all of them, but for a workspace's token). */
  view: (c: Context) => IndexRegistry;
  bodyLimitBytes: number;
  maxQuestionChars: number;
  onError: (error: unknown, where: string) => void;
  /** The retrieval workers, when the server has them. */
  pool?: RetrievalPool | undefined;
}

function elapsed(started: number): number {
  return Math.round((performance.now() - started) * 10) / 10;
}

/** The request addressed to the index of the path: a `method` in the body must name the same one. */
function addressed(request: CheckedQuery, name: string | undefined): CheckedQuery {
  if (name === undefined) return request;
  if (request.method !== undefined && request.method !== name) {
    throw badRequest(
      `"method" names the index ${JSON.stringify(request.method)} but the path names ${JSON.stringify(name)}; leave "method" out.`,
    );
  }
  return { ...request, method: name };
}

const utf8 = new TextEncoder();

/**
 * The body of `POST /v1/query` without an answer around a retrieval's JSON bytes (from a worker):
 * the bytes {@link QueryResponse} serialises to, with no parse or serialisation of the retrieval
 * on this thread.
 */
function jsonWithRetrieval(
  c: Context,
  served: ServedIndex,
  retrieval: Uint8Array,
  started: number,
): Response {
  const head = utf8.encode(
    `{"index":${JSON.stringify(served.name)},"version":${JSON.stringify(served.version)},"method":${JSON.stringify(served.method.name)},"retrieval":`,
  );
  const tail = utf8.encode(`,"ms":${elapsed(started)}}`);
  const body = new Uint8Array(head.byteLength + retrieval.byteLength + tail.byteLength);
  body.set(head, 0);
  body.set(retrieval, head.byteLength);
  body.set(tail, head.byteLength + retrieval.byteLength);
  return c.body(body, 200, { 'Content-Type': 'application/json' });
}

async function query(c: Context, deps: RouteDeps, name: string | undefined): Promise<Response> {
  const started = performance.now();
  const body = await readJsonBody(c, deps.bodyLimitBytes, '{"question": "<your question>"}');
  const request = addressed(parseQueryRequest(body, deps.maxQuestionChars), name);
  const signal = c.req.raw.signal;
  // Without an answer, a worker's retrieval comes as its JSON's bytes, written as they are.
  const got = await retrieveFor(deps.view(c), request, signal, undefined, deps.pool, !request.answer);
  const { served } = got;
  if (got.json) return jsonWithRetrieval(c, served, got.json, started);
  const retrieval = got.retrieval;
  const response: QueryResponse = {
    index: served.name,
    version: served.version,
    method: served.method.name,
    retrieval: retrievalJson(retrieval),
    ms: 0,
  };
  if (request.answer && request.stream && served.answer) {
    response.ms = elapsed(started);
    return streamQuery(c, response, served.answer, request.question, deps.onError);
  }
  if (request.answer && served.answer) {
    await nextTurn();
    response.answer = await answerOf(served.answer, request.question, retrieval.items, signal);
  }
  response.ms = elapsed(started);
  return c.json(response);
}

// The AI SDK UI's `useChat`: the last user message asked as a streamed query, the answer sent as
// a UI message stream (chat.ts).
async function chat(c: Context, deps: RouteDeps, name: string | undefined): Promise<Response> {
  const body = await readJsonBody(c, deps.bodyLimitBytes, CHAT_EXAMPLE);
  const request = addressed(parseChatRequest(body, deps.maxQuestionChars), name);
  const signal = c.req.raw.signal;
  const { served, retrieval } = await retrieveFor(
    deps.view(c),
    request,
    signal,
    'read its retrieval with POST /v1/query.',
    deps.pool,
  );
  return chatAnswerStream({ served, question: request.question, retrieval, signal, onError: deps.onError });
}

function document(c: Context, deps: RouteDeps, name: string | undefined): Response {
  const served = deps.view(c).pick(name);
  const id = c.req.param('id') as string;
  const doc = served.documents.get(id);
  if (!doc) {
    throw new HttpError(
      404,
      'not_found',
      `No document ${JSON.stringify(id.slice(0, 200))} in index "${served.name}".`,
    );
  }
  const body: DocumentResponse = { ...doc, index: served.name, version: served.version };
  return c.json(body);
}

/** A non-negative integer query parameter (`fallback` when absent), else a 400 naming it. */
export function count(c: Context, name: string, fallback: number, max: number): number {
  const raw = c.req.query(name);
  if (raw === undefined) return fallback;
  const n = Number(raw);
  if (!/^\d+$/.test(raw) || n > max) {
    throw badRequest(
      `"${name}" must be an integer from 0 to ${max}, got ${JSON.stringify(raw.slice(0, 50))}.`,
    );
  }
  return n;
}

/** `GET /v1/indexes/:name/documents?offset&limit`: a page of the ids and titles of the version served now. */
function documentList(c: Context, deps: RouteDeps): Response {
  const served = deps.view(c).pick(c.req.param('name'));
  const offset = count(c, 'offset', 0, Number.MAX_SAFE_INTEGER);
  const limit = count(c, 'limit', 100, 1000);
  const ids = served.documents.ids();
  const documents = ids.slice(offset, offset + limit).map((id) => {
    const title = served.documents.get(id)?.title;
    return { id, ...(title !== undefined ? { title } : {}) };
  });
  const body: DocumentList = {
    index: served.name,
    version: served.version,
    total: ids.length,
    offset,
    documents,
  };
  return c.json(body);
}

/** Add the read routes of `/v1` to `app`. */
export function readRoutes(app: Hono, deps: RouteDeps): void {
  app.get('/v1/indexes', (c) =>
    c.json({
      indexes: deps
        .view(c)
        .list()
        .map((ix) => ix.info),
    } satisfies IndexList),
  );
  app.get('/v1/indexes/:name', (c) =>
    c.json(deps.view(c).pick(c.req.param('name')).info satisfies IndexInfo),
  );

  app.get('/v1/documents/:id{.+}', (c) => document(c, deps, c.req.query('method')));
  app.get('/v1/indexes/:name/documents', (c) => documentList(c, deps));
  app.get('/v1/indexes/:name/documents/:id{.+}', (c) => document(c, deps, c.req.param('name')));

  app.post('/v1/query', (c) => query(c, deps, undefined));
  app.post('/v1/indexes/:name/query', (c) => query(c, deps, c.req.param('name')));

  app.post('/v1/chat', (c) => chat(c, deps, undefined));
  app.post('/v1/indexes/:name/chat', (c) => chat(c, deps, c.req.param('name')));
}
