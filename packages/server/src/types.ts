/** The options of `createGragServer` and the JSON shapes of the HTTP API. */
import type {
  BuildContext,
  ChatModel,
  Document,
  IndexStore,
  LoadedFile,
  LoaderInput,
  Method,
  TaskSuite,
} from '@grag/core';
import type { ScopedToken } from './access.js';
import type { IndexFolder } from './folder.js';
import type { OpenedJobJournal } from './journal.js';
import type { WorkerOptions } from './pool.js';

/**
 * Where answers come from: a task suite (its `answer` task; a prompt suite on a model that streams
 * streams its answers) or a chat model (grag's answer prompt, streamed when the model streams).
 */
export type AnswerSource = TaskSuite | ChatModel;

/** One index to serve. */
export interface ServedIndexInput {
  /** The name a query picks the index by (`"method"` in a request). @default method.name */
  name?: string;
  /** The method the index belongs to. */
  // biome-ignore lint/suspicious/noExplicitAny: a server holds indexes of every method
  method: Method<any, any>;
  /** A built or loaded index of `method`. */
  index: unknown;
  /**
   * Where this index's answers come from. @default the server's `answer` option, else the task
   * suite the index was built or loaded with (`index.providers.tasks`)
   */
  answer?: AnswerSource;
  /**
   * The source documents `GET /v1/documents/:id` returns. @default reconstructed from what the index
   * keeps (its chunks with their offsets, summary-tree leaves, or the facts of its graph)
   */
  documents?: readonly Document[];
  /** Provider fingerprints `GET /v1/indexes` shows (a loaded index's manifest has them). @default from `index.providers` */
  providers?: Readonly<Record<string, string>>;
  /** Counts `GET /v1/indexes` shows (`documents`, `chunks`), e.g. a manifest's `stats`. */
  stats?: Readonly<Record<string, unknown>>;
  /**
   * The context writes to this index run with (the one it was built or loaded with: a fitted
   * embedder keeps its fit in it). @default one made of the providers the index keeps
   * (`index.providers`), when it keeps an embedder and tasks; else the index cannot be written
   */
  context?: BuildContext;
  /**
   * Where a write saves the index's new version (a directory or an `IndexStore`), before swapping
   * it in. @default nowhere: new versions are kept in memory only
   */
  target?: string | IndexStore;
}

/** Options of `createGragServer`. */
export interface GragServerOptions {
  /**
   * The indexes to serve (a query without an index name uses the first); at least one unless a
   * `folder` or `methods` is given. @default none
   */
  indexes?: readonly ServedIndexInput[];
  /**
   * A folder of indexes opened with `openIndexFolder`: its indexes are served (after `indexes`)
   * under their folder names, new ones are created in it, and the jobs are journaled in it.
   */
  folder?: IndexFolder;
  /**
   * The job journal of a server without a `folder` (e.g. on a PostgreSQL store), opened with
   * `openJobJournal`: every job and its input are journaled in its folder, and the jobs a stop
   * interrupted run again when the server starts. With a `folder`, the folder's journal is used and
   * this is ignored. @default none: jobs are kept in memory only
   */
  jobs?: OpenedJobJournal;
  /** The methods `POST /v1/indexes` may create indexes of. @default the folder's */
  // biome-ignore lint/suspicious/noExplicitAny: indexes of every method
  methods?: readonly Method<any, any>[];
  /**
   * The context a new index is built with (a new one per call); without it (and without a folder
   * that has one) `POST /v1/indexes` is refused with 409. @default the folder's
   */
  createContext?: () => BuildContext | Promise<BuildContext>;
  /**
   * The build options a new index (`POST /v1/indexes`) is built with, from those the request gives
   * (after they are checked against the method's keys): `grag serve` adds the settings preset its
   * providers choose, as `grag index` does (a paper method's `offline` preset with the offline
   * providers). @default the request's options as given
   */
  buildOptions?: (
    method: { readonly name: string },
    options: Readonly<Record<string, unknown>>,
  ) => Record<string, unknown>;
  /**
   * Where a new index (`POST /v1/indexes`) is saved on a server without a `folder`: a directory or
   * an `IndexStore` for its name, e.g. `(name) => postgresStore({ url, index: name })` (a store that
   * already holds an index is refused with 409; a name the store refuses is a 400).
   * @default nowhere: a new index is kept in memory only
   */
  createTarget?: (name: string) => string | IndexStore | Promise<string | IndexStore>;
  /** Largest body of the write routes (documents, uploaded files), in bytes. @default 16 MiB */
  uploadLimitBytes?: number;
  /**
   * Reads an uploaded file into documents. @default `loadFile` of `@grag/loaders` (PDF, HTML,
   * DOCX, CSV, JSON, JSONL, Markdown, text)
   */
  loadFile?: (input: LoaderInput) => Promise<LoadedFile>;
  /**
   * A bearer token every route but `GET /healthz` and the explorer's static files requires
   * (`Authorization: Bearer <token>`), compared in constant time. @default none (no auth)
   */
  token?: string;
  /**
   * Tokens scoped to a workspace and to reading or writing it, and admin tokens (see
   * `ScopedToken`); `token` is an admin token too. A workspace token sees only its workspace's
   * indexes and their jobs: any other is answered as an index that does not exist. @default none
   */
  tokens?: readonly ScopedToken[];
  /**
   * The indexes of each workspace, by name: `{ "team-a": ["harbour"], "team-b": ["orchard"] }`. An
   * index created over HTTP with a workspace's token joins that workspace (kept in the folder's
   * `.grag-workspaces.json`). An index of no workspace is reached by admin tokens only. @default none
   */
  workspaces?: Readonly<Record<string, readonly string[]>>;
  /**
   * More `Host` names to answer to, each `name` or `name:port` (`[v6]` for an IPv6 address; without
   * a port, any port), e.g. the name a reverse proxy passes on. A server bound to loopback answers
   * to `localhost`, `127.0.0.1`, `[::1]` and its bound host only (each without a port or with its
   * own), and refuses any other `Host` with 421: a guard against DNS rebinding. A server bound to
   * another address (which needs a `token`) answers any `Host` unless this is given.
   * @default none
   */
  allowedHosts?: readonly string[];
  /**
   * Origins of other sites' pages allowed to call the API from a browser, each exactly
   * `scheme://host[:port]` (e.g. `https://app.example.com`): their preflights are answered and
   * their answers carry `Access-Control-Allow-Origin`. A request with an `Origin` that is neither
   * the server's own nor in this list is refused with 403. @default none (no CORS headers at all)
   */
  cors?: readonly string[];
  /** Largest request body, in bytes; a larger one is refused with 413. @default 65536 */
  bodyLimitBytes?: number;
  /** Longest question, in characters; a longer one is refused with 400. @default 2000 */
  maxQuestionChars?: number;
  /**
   * Directory of the built explorer page (`index.html` and `assets/`), or `false` to serve no page.
   * @default the `dist/explorer` directory of this package
   */
  explorerDir?: string | URL | false;
  /**
   * Where every index's answers come from (see {@link AnswerSource}), or `false` to refuse
   * `"answer": true` with 400. @default each index's own (see {@link ServedIndexInput.answer})
   */
  answer?: AnswerSource | false;
  /**
   * Called with every failure answered with a 5xx status and every error that ends an answer
   * stream (the client sees one line and no stack). Not called for a client that disconnects
   * before sending its whole request body (499, not a failure of the server). @default one line
   * on stderr
   */
  onError?: (error: unknown, where: string) => void;
  /**
   * Answer retrievals on worker threads (see `WorkerOptions`), so they use every core and a long
   * one does not hold up the server's thread: each worker loads each version of an index saved in
   * a directory once (an index given in memory only, or in another store, is retrieved on the
   * server's thread), and a write's new version reaches them as it is swapped in. The server's
   * thread keeps HTTP, tokens, the Host and Origin checks, answers and writes. Stop the workers
   * with the server's `close()` (or `closeWorkers(app)` for an app not run by `serve`).
   * @default none: retrievals run on the server's thread
   */
  workers?: WorkerOptions;
}

/**
 * The JSON shapes of the HTTP API, derived from the JSON Schemas of schema.ts (which the OpenAPI
 * document at `GET /openapi.json` is made of).
 */
export type * from './api-types.js';
