/**
 * Retrieval off the event loop: a pool of worker threads (piscina) that answer the retrievals of
 * the indexes saved in directories, while the server's thread keeps HTTP, auth, the Host and Origin
 * checks, answers and writes. Each worker imports a setup module (the methods, and the context an
 * index is loaded with) and loads each version of an index once, when first asked about it.
 */
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { Retrieval } from '@grag/core';
import { InvalidArgumentError } from '@grag/core';
import { Piscina } from 'piscina';
import { type ErrorStatus, HttpError } from './errors.js';
import type { ServedIndex } from './indexes.js';
import type { CheckedQuery } from './query.js';
import type { IndexRegistry } from './registry.js';
import { ABORTED, SETTLED } from './task-abort.js';

/** Options of the retrieval workers (`workers` of `createGragServer` and `serve`). */
export interface WorkerOptions {
  /**
   * How many worker threads answer retrievals; `0` answers them on the server's thread, as a
   * server without `workers` does. @default os.availableParallelism()
   */
  count?: number;
  /**
   * The module each worker imports (a file URL or path), whose default export, called with `data`,
   * returns (or resolves to) what `loadIndex` takes: `{ methods, context(manifest, dir) }`. Each
   * worker loads the indexes with it as the server loaded them (its own providers, e.g. the offline
   * task suite and embedder, or an OpenAI-compatible client configured from `data` or the
   * environment).
   */
  setup: string | URL;
  /** What the setup module is called with (copied to each worker: plain data only). */
  data?: unknown;
}

/** What a worker is started with. */
export interface WorkerSetupData {
  setup: string;
  data: unknown;
  /** tsx's ESM API, when the worker runs from the TypeScript sources. */
  tsxApi?: string;
}

/** One retrieval for a worker: the version of the index, where it is saved, and the request. */
export interface RetrieveTask {
  name: string;
  version: string;
  /** The directory the index is saved in. */
  target: string;
  request: Pick<CheckedQuery, 'question' | 'options' | 'budget' | 'topK'>;
  /** `name\0version` of every version served now (a worker forgets the others). */
  live: string[];
  /**
   * The request's cancellation, shared with the worker (task-abort.ts): the server stores `ABORTED`
   * when its client disconnects, `SETTLED` once the reply is in (either wakes the worker's waiter).
   */
  abort: Int32Array;
  /** Reply with the bytes of the retrieval's JSON as the API shows it, instead of the retrieval. */
  raw: boolean;
}

/**
 * A worker's reply: the retrieval as JSON (with `raw`, the UTF-8 bytes of its API JSON, moved to
 * the server's thread without a copy), or the version the directory holds now, or an error.
 */
export type RetrieveReply =
  | Uint8Array
  | { json: string }
  | { stale: string }
  | { error: { status: ErrorStatus; code: string; message: string; detail: string } };

/** How often a request is asked again while the directory holds a version not yet swapped in. */
const STALE_RETRIES = 50;

/** The file URL of tsx's ESM API (a development dependency: used only when running from sources). */
export function tsxApi(from: string): string {
  const manifest = createRequire(from).resolve('tsx/package.json');
  return pathToFileURL(join(dirname(manifest), 'dist/esm/api/index.mjs')).href;
}

/** The pool of a server: retrievals of directory-saved versions go to its workers. */
export class RetrievalPool {
  readonly #piscina: Piscina<RetrieveTask, RetrieveReply>;
  readonly #registry: IndexRegistry;
  readonly count: number;

  constructor(options: WorkerOptions & { count: number }, registry: IndexRegistry) {
    this.count = options.count;
    this.#registry = registry;
    const here = import.meta.url;
    const fromSources = here.endsWith('.ts');
    const setup =
      options.setup instanceof URL || /^[a-z][a-z0-9+.-]*:/i.test(String(options.setup))
        ? String(options.setup)
        : pathToFileURL(String(options.setup)).href;
    const env: Record<string, string | undefined> = { ...process.env };
    if (fromSources && env.TSX_TSCONFIG_PATH === undefined) {
      // Run from the workspace's sources: @grag/* resolve through the root tsconfig's paths.
      env.TSX_TSCONFIG_PATH = fileURLToPath(new URL('../../../tsconfig.json', here));
    }
    this.#piscina = new Piscina<RetrieveTask, RetrieveReply>({
      filename: new URL(fromSources ? './retrieval-worker-sources.mjs' : './retrieval-worker.js', here).href,
      minThreads: options.count,
      maxThreads: options.count,
      // A retrieval that waits for a remote embedder leaves its worker free for the next one.
      concurrentTasksPerWorker: 4,
      idleTimeout: Number.POSITIVE_INFINITY,
      workerData: {
        setup,
        data: options.data,
        ...(fromSources ? { tsxApi: tsxApi(here) } : {}),
      } satisfies WorkerSetupData,
      env: env as Record<string, string>,
    });
    // A worker that dies is replaced by piscina; its tasks fail (a 500 each), the pool goes on.
    this.#piscina.on('error', () => {});
  }

  /** Whether `served` is answered by the workers: it is saved in a directory they can load. */
  handles(served: ServedIndex): boolean {
    return typeof served.input.target === 'string' && /^[0-9a-f]{12}$/.test(served.version);
  }

  /**
   * The retrieval of `request` on `served` by a worker, or `undefined` when the directory holds
   * another version now (the caller asks again with the version served then).
   */
  async retrieve(
    served: ServedIndex,
    request: CheckedQuery,
    signal: AbortSignal,
    raw = false,
  ): Promise<Retrieval | Uint8Array | undefined> {
    const live = this.#registry.list().map((ix) => `${ix.name}\0${ix.version}`);
    const task: RetrieveTask = {
      name: served.name,
      version: served.version,
      target: served.input.target as string,
      request: {
        question: request.question,
        ...(request.options !== undefined ? { options: request.options } : {}),
        ...(request.budget !== undefined ? { budget: request.budget } : {}),
        ...(request.topK !== undefined ? { topK: request.topK } : {}),
      },
      live,
      abort: new Int32Array(new SharedArrayBuffer(4)),
      raw,
    };
    // A client that disconnects stops its retrieval in the worker (a queued one never starts),
    // without stopping the worker: piscina's own abort would end the thread and every retrieval on it.
    const signalWorker = (state: number) => {
      Atomics.store(task.abort, 0, state);
      Atomics.notify(task.abort, 0);
    };
    const onAbort = () => signalWorker(ABORTED);
    signal.addEventListener('abort', onAbort, { once: true });
    let reply: RetrieveReply;
    try {
      reply = await this.#piscina.run(task);
    } catch (error) {
      // The worker died (or could not start); piscina starts another.
      throw new Error(`retrieval worker failed: ${error instanceof Error ? error.message : String(error)}`, {
        cause: error,
      });
    } finally {
      signal.removeEventListener('abort', onAbort);
      if (!signal.aborted) signalWorker(SETTLED);
    }
    if (reply instanceof Uint8Array) return reply;
    if ('stale' in reply) return undefined;
    if ('error' in reply) {
      const { status, code, message, detail } = reply.error;
      // A 5xx says only that the server failed; its detail goes to the log (onError).
      if (status >= 500 && code === 'internal_error') throw new Error(detail);
      throw new HttpError(status, code, message);
    }
    return JSON.parse(reply.json) as Retrieval;
  }

  /** Stop the workers. */
  close(): Promise<void> {
    return this.#piscina.close({ force: true });
  }
}

/** How many times a stale request is asked again. */
export const RETRIES = STALE_RETRIES;

/** The worker count of `options`, checked. */
export function workerCount(options: WorkerOptions, cores: number): number {
  const count = options.count ?? cores;
  if (!Number.isInteger(count) || count < 0 || count > 256) {
    throw new InvalidArgumentError(
      'workers',
      `createGragServer: workers.count must be an integer from 0 to 256, got ${count}.`,
    );
  }
  return count;
}
