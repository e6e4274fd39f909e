/** `createGragServer`: the HTTP API over loaded grag indexes, as a Hono app. */
import { availableParallelism } from 'node:os';
import { InvalidArgumentError } from '@grag/core';
import { type Context, Hono } from 'hono';
import { checkTokens, principalCheck, principalOf, setPrincipal, viewFor, Workspaces } from './access.js';
import { errorBody, HttpError, oneLine, toHttpError } from './errors.js';
import { graphRoutes } from './graph-routes.js';
import { browserGuard } from './guard.js';
import { resolveIndexes } from './indexes.js';
import { JobManager } from './jobs.js';
import { openApiDocument } from './openapi.js';
import { RetrievalPool, type WorkerOptions, workerCount } from './pool.js';
import { APP_PARTS, PROCESS_ROLES } from './process-roles.js';
import { IndexRegistry } from './registry.js';
import { type RouteDeps, readRoutes } from './routes.js';
import { defaultExplorerDir, loadExplorerAssets, NOT_BUILT_PAGE, type StaticFile } from './static.js';
import type { GragServerOptions, Health } from './types.js';
import { writeRoutes } from './write-routes.js';
import { resumeJob, type Writes } from './writes.js';

/** Defaults of {@link GragServerOptions}. */
export const GRAG_SERVER_DEFAULTS = {
  bodyLimitBytes: 64 * 1024,
  maxQuestionChars: 2000,
  uploadLimitBytes: 16 * 1024 * 1024,
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
 * `POST /v1/chat` (for the AI SDK UI's `useChat`), `GET /v1/documents/:id`, the same addressed by
 * index name (`GET /v1/indexes/:name`, `POST /v1/indexes/:name/query`, `…/chat`,
 * `GET …/documents/:id`), the writes, each a job (`POST /v1/indexes`, `POST
 * /v1/indexes/:name/documents`, `DELETE /v1/indexes/:name/documents/:id`, `DELETE
 * /v1/indexes/:name`, `GET /v1/jobs/:id` and `…/events`), and the explorer page at `/` and
 * `/assets/*`.
 *
 * The indexes are resolved once (names, documents, listing) and queried concurrently; a write makes
 * a new version of its index and swaps it in whole, so every query is answered by one version.
 * Throws `InvalidArgumentError` for bad options (no index, two with one name, a bad token or limit).
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
  const explorer = options.explorerDir ?? defaultExplorerDir();
  const assets = loadExplorerAssets(explorer);
  const onError = options.onError ?? logError;
  const scoped = [
    ...(token !== undefined ? [{ token, access: 'admin' as const }] : []),
    ...checkTokens(options.tokens),
  ];
  const identify = scoped.length > 0 ? principalCheck(scoped) : undefined;

  const app = new Hono();
  MADE_HERE.set(app, { token: identify !== undefined });
  // Host, Origin and CORS come first, for every route (the static files and /healthz too).
  const guard = browserGuard({ allowedHosts: options.allowedHosts, cors: options.cors });
  app.use('*', guard);
  // A replica of `serve({ processes })` hands every route but the reads to the primary, which
  // answers it as this app would (its guard, tokens and checks are the same).
  const role = PROCESS_ROLES.get(options);
  if (role?.forward) app.use('*', role.forward);

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
  const openApi = JSON.stringify(openApiDocument({ bearerAuth: identify !== undefined, maxQuestionChars }));
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
    if (identify) {
      const principal = identify(c.req.header('authorization'));
      if (!principal) {
        c.header('WWW-Authenticate', 'Bearer');
        throw new HttpError(
          401,
          'unauthorized',
          'Missing or wrong bearer token: send Authorization: Bearer <token>.',
        );
      }
      setPrincipal(c.req.raw, principal);
    }
    await next();
  });

  const folder = options.folder;
  const registry = new IndexRegistry(
    resolveIndexes(options, folder?.indexes ?? [], role?.forward !== undefined),
  );
  const workspaces = new Workspaces(options.workspaces, folder?.workspaces ?? {}, folder?.dir);
  const journaled = folder ?? options.jobs;
  const jobs = new JobManager({ journal: journaled?.journal, history: journaled?.jobs ?? [], onError });
  const count = options.workers ? workerCount(options.workers, availableParallelism()) : 0;
  const pool =
    count > 0 ? new RetrievalPool({ ...(options.workers as WorkerOptions), count }, registry) : undefined;
  const routes: RouteDeps = {
    registry,
    workspaces,
    view: (c) => viewFor(registry, workspaces, principalOf(c.req.raw)),
    bodyLimitBytes,
    maxQuestionChars,
    onError,
    pool,
  };
  readRoutes(app, routes);
  const methods = options.methods ?? folder?.methods ?? [];
  const createContext = options.createContext ?? folder?.createContext;
  graphRoutes(app, routes, { methods, create: createContext !== undefined });
  const writes: Writes = {
    registry,
    workspaces,
    jobs,
    answer: options.answer,
    folder: folder?.dir,
    createTarget: options.createTarget,
    methods,
    createContext,
    buildOptions: options.buildOptions,
    publish: role?.publish,
  };
  writeRoutes(app, {
    ...routes,
    jobs,
    uploadLimitBytes: positiveInteger(
      'uploadLimitBytes',
      options.uploadLimitBytes,
      GRAG_SERVER_DEFAULTS.uploadLimitBytes,
    ),
    loadFile: options.loadFile,
    writes,
  });
  // The jobs a stop interrupted run again, in the order they were submitted, with their ids (once:
  // a second app on the same journal does not run them twice).
  if (journaled && !RESUMED.has(journaled.journal)) {
    RESUMED.add(journaled.journal);
    for (const { job, input } of journaled.resume) resumeJob(writes, job, input);
  }
  JOBS.set(app, jobs);
  APP_PARTS.set(app, { registry, workspaces });
  if (pool) POOLS.set(app, pool);
  return app;
}

const JOBS = new WeakMap<Hono, JobManager>();
/** The journals whose interrupted jobs an app has resumed. */
const RESUMED = new WeakSet<object>();
const POOLS = new WeakMap<Hono, RetrievalPool>();

/**
 * Stop the retrieval workers of a server made by {@link createGragServer} with `workers` (`serve`'s
 * `close()` does it for the app it runs). Resolves at once for any other app.
 */
export function closeWorkers(app: Hono): Promise<void> {
  const pool = POOLS.get(app);
  POOLS.delete(app);
  return pool?.close() ?? Promise.resolve();
}

/**
 * Resolves when every write job queued so far on a server made by {@link createGragServer} has
 * finished (done or failed): for tests, and before closing a server. Resolves at once for any
 * other app.
 */
export function writesSettled(app: Hono): Promise<void> {
  return JOBS.get(app)?.idle() ?? Promise.resolve();
}
