/** `createGragServer`: the HTTP API over loaded grag indexes, as a Hono app. */
import { InvalidArgumentError } from '@grag/core';
import { type Context, Hono } from 'hono';
import { answerOf, streamQuery } from './answer.js';
import { bearerCheck } from './auth.js';
import { readJsonBody } from './body.js';
import { CHAT_EXAMPLE, chatAnswerStream, parseChatRequest } from './chat.js';
import { errorBody, HttpError, oneLine, toHttpError } from './errors.js';
import { browserGuard } from './guard.js';
import { pickIndex, resolveIndexes } from './indexes.js';
import { openApiDocument } from './openapi.js';
import { parseQueryRequest, retrievalJson, retrieveFor } from './query.js';
import { defaultExplorerDir, loadExplorerAssets, NOT_BUILT_PAGE, type StaticFile } from './static.js';
import { nextTurn } from './turns.js';
import type { DocumentResponse, GragServerOptions, Health, IndexList, QueryResponse } from './types.js';

/** Defaults of {@link GragServerOptions}. */
export const GRAG_SERVER_DEFAULTS = {
  bodyLimitBytes: 64 * 1024,
  maxQuestionChars: 2000,
} as const;

function positiveInteger(name: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (!Number.isInteger(value) || value < 1) {
    throw new InvalidArgumentError(
      name,
      `createGragServer: ${name} must be a positive integer, got ${value}.`,
    );
  }
  return value;
}

function checkToken(token: unknown): string | undefined {
  if (token === undefined) return undefined;
  if (typeof token !== 'string' || !/^[\x21-\x7e]+$/.test(token)) {
    throw new InvalidArgumentError(
      'token',
      'createGragServer: token must be a non-empty string of printable ASCII characters without spaces.',
    );
  }
  return token;
}

/** What {@link serve} needs to know of an app made by {@link createGragServer}. */
interface MadeHere {
  /** Whether it requires a bearer token. */
  token: boolean;
}

const MADE_HERE = new WeakMap<Hono, MadeHere>();

/** What `app` is, when {@link createGragServer} made it. */
export function madeHere(app: Hono): MadeHere | undefined {
  return MADE_HERE.get(app);
}

/** The default `onError`: one line on stderr. */
function logError(error: unknown, where: string): void {
  const message = error instanceof Error ? error.message : String(error);
  process.stderr.write(`grag serve: ${where}: ${oneLine(message)}\n`);
}

function sendFile(c: Context, file: StaticFile, cache: string): Response {
  return c.body(file.body as Uint8Array<ArrayBuffer>, 200, {
    'Content-Type': file.contentType,
    'Cache-Control': cache,
    'X-Content-Type-Options': 'nosniff',
  });
}

/**
 * The grag HTTP API over `options.indexes` as a [Hono](https://hono.dev) app: run it with
 * {@link serve} (Node), or call `app.fetch(request)` / `app.request(path)` on any runtime with
 * web-standard `Request` and `Response`. Routes: `GET /healthz`, `GET /openapi.json` (the API's
 * OpenAPI 3.1 document, see {@link openApiDocument}), `GET /v1/indexes`, `POST /v1/query`,
 * `POST /v1/chat` (for the AI SDK UI's `useChat`), `GET /v1/documents/:id`, and the explorer page
 * at `/` and `/assets/*`.
 *
 * The indexes are resolved once (names, documents, listing) and queried concurrently. Throws
 * `InvalidArgumentError` for bad options (no index, two with one name, a bad token or limit).
 *
 * @example
 * ```ts
 * const app = createGragServer({ indexes: [{ method: bm25Rag, index }], token: 's3cret' });
 * const res = await app.request('/v1/query', {
 *   method: 'POST',
 *   headers: { authorization: 'Bearer s3cret' },
 *   body: JSON.stringify({ question: 'Who founded the shipyard?' }),
 * });
 * ```
 */
export function createGragServer(options: GragServerOptions): Hono {
  const bodyLimitBytes = positiveInteger(
    'bodyLimitBytes',
    options.bodyLimitBytes,
    GRAG_SERVER_DEFAULTS.bodyLimitBytes,
  );
  const maxQuestionChars = positiveInteger(
    'maxQuestionChars',
    options.maxQuestionChars,
    GRAG_SERVER_DEFAULTS.maxQuestionChars,
  );
  const token = checkToken(options.token);
  const indexes = resolveIndexes(options);
  const explorer = options.explorerDir ?? defaultExplorerDir();
  const assets = loadExplorerAssets(explorer);
  const onError = options.onError ?? logError;
  const authorized = token === undefined ? undefined : bearerCheck(token);

  const app = new Hono();
  MADE_HERE.set(app, { token: token !== undefined });
  // Host, Origin and CORS come first, for every route (the static files and /healthz too).
  const guard = browserGuard({ allowedHosts: options.allowedHosts, cors: options.cors });
  app.use('*', guard);

  app.onError((error, c) => {
    const http = toHttpError(error);
    if (http.status >= 500) onError(error, `${c.req.method} ${c.req.path}`);
    c.header('Cache-Control', 'no-store');
    // 499 (the client went away) is no status a Response may carry; nobody reads it anyway.
    return c.json(errorBody(http), http.status === 499 ? 400 : http.status);
  });
  app.notFound((c) =>
    c.json(
      errorBody(
        new HttpError(
          404,
          'not_found',
          `No route ${c.req.method} ${JSON.stringify(c.req.path.slice(0, 200))}.`,
        ),
      ),
      404,
    ),
  );

  app.get('/healthz', (c) => c.json({ ok: true } satisfies Health));

  // The document of this server's API, written once; like /healthz it needs no token.
  const openApi = JSON.stringify(openApiDocument({ bearerAuth: token !== undefined, maxQuestionChars }));
  app.get('/openapi.json', (c) =>
    c.body(openApi, 200, { 'Content-Type': 'application/json; charset=utf-8', 'Cache-Control': 'no-cache' }),
  );

  app.get('/', (c) => {
    if (explorer === false)
      throw new HttpError(404, 'not_found', 'The explorer page is turned off on this server.');
    if (!assets.page) return c.html(NOT_BUILT_PAGE, 200);
    return sendFile(c, assets.page, 'no-cache');
  });
  app.get('/assets/:name', (c) => {
    const file = assets.asset(c.req.param('name'));
    if (!file) throw new HttpError(404, 'not_found', 'No such asset.');
    return sendFile(c, file, 'no-cache');
  });

  app.use('/v1/*', async (c, next) => {
    if (authorized && !authorized(c.req.header('authorization'))) {
      c.header('WWW-Authenticate', 'Bearer');
      throw new HttpError(
        401,
        'unauthorized',
        'Missing or wrong bearer token: send Authorization: Bearer <token>.',
      );
    }
    await next();
  });

  app.get('/v1/indexes', (c) => c.json({ indexes: indexes.map((ix) => ix.info) } satisfies IndexList));

  app.get('/v1/documents/:id{.+}', (c) => {
    const served = pickIndex(indexes, c.req.query('method'));
    const id = c.req.param('id');
    const doc = served.documents.get(id);
    if (!doc) {
      throw new HttpError(
        404,
        'not_found',
        `No document ${JSON.stringify(id.slice(0, 200))} in index "${served.name}".`,
      );
    }
    const body: DocumentResponse = { ...doc, index: served.name };
    return c.json(body);
  });

  app.post('/v1/query', async (c) => {
    const started = performance.now();
    const body = await readJsonBody(c, bodyLimitBytes, '{"question": "<your question>"}');
    const request = parseQueryRequest(body, maxQuestionChars);
    const signal = c.req.raw.signal;
    const { served, retrieval } = await retrieveFor(indexes, request, signal);
    const response: QueryResponse = {
      index: served.name,
      method: served.method.name,
      retrieval: retrievalJson(retrieval),
      ms: 0,
    };
    if (request.answer && request.stream && served.answer) {
      response.ms = elapsed(started);
      return streamQuery(c, response, served.answer, request.question, onError);
    }
    if (request.answer && served.answer) {
      await nextTurn();
      response.answer = await answerOf(served.answer, request.question, retrieval.items, signal);
    }
    response.ms = elapsed(started);
    return c.json(response);
  });

  // The AI SDK UI's `useChat`: the last user message asked as a streamed query, the answer sent as
  // a UI message stream (chat.ts).
  app.post('/v1/chat', async (c) => {
    const body = await readJsonBody(c, bodyLimitBytes, CHAT_EXAMPLE);
    const request = parseChatRequest(body, maxQuestionChars);
    const signal = c.req.raw.signal;
    const { served, retrieval } = await retrieveFor(
      indexes,
      request,
      signal,
      'read its retrieval with POST /v1/query.',
    );
    return chatAnswerStream({ served, question: request.question, retrieval, signal, onError });
  });

  return app;
}

function elapsed(started: number): number {
  return Math.round((performance.now() - started) * 10) / 10;
}
