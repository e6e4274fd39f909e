/**
 * Runs parsers in worker threads so that no file can hang or exhaust the calling process: a load
 * that runs past `timeoutMs` or grows past `maxMemoryBytes` is stopped by terminating its worker,
 * which pdf.js, mammoth or a JSON parse cannot be made to do from inside. Workers are reused
 * (one file at a time each, at most one per core), kept unreferenced while idle so they never hold
 * the process open, and ended after a short idle time.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { availableParallelism } from 'node:os';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { Document } from '@grag/core';
import { formatBytes, LoadFailure, oneLine } from './failure.js';
import type { ParseResult, ParseTask } from './task.js';

export interface WorkerRequest {
  id: number;
  task: ParseTask;
}

export type WorkerReply =
  | { ready: true }
  | { id: number; result: ParseResult }
  | { id: number; documents: Document[] }
  | { id: number; error: { message: string; failure: boolean } }
  | { id: number; memory: number };

export interface RunOptions {
  timeoutMs: number;
  maxMemoryBytes: number;
  signal?: AbortSignal | undefined;
}

const IDLE_MS = 3000;
const MiB = 1024 * 1024;

interface Job {
  id: number;
  /** Dropped once posted: the worker has its own copy. */
  task: ParseTask | undefined;
  /** Documents the worker has sent so far. */
  documents: Document[];
  options: RunOptions;
  resolve(result: ParseResult): void;
  reject(error: unknown): void;
}

class PooledWorker {
  readonly worker: Worker;
  ready = false;
  dead = false;
  job: Job | undefined;
  #cleanup: (() => void) | undefined;
  #idle: NodeJS.Timeout | undefined;

  constructor(
    readonly maxMemoryBytes: number,
    private readonly pool: WorkerPool,
  ) {
    this.worker = startWorker(maxMemoryBytes);
    this.worker.on('message', (reply: WorkerReply) => this.#onReply(reply));
    this.worker.on('error', (error) => this.#onError(error));
    this.worker.on('exit', (code) => this.#onError(new Error(`the worker exited with code ${code}`)));
  }

  run(job: Job): void {
    clearTimeout(this.#idle);
    this.worker.ref();
    this.job = job;
    const { signal, timeoutMs } = job.options;
    const timer = setTimeout(() => {
      this.#fail(
        new LoadFailure(
          `took longer than ${formatMs(timeoutMs)} (limits.timeoutMs); raise the limit or split the file`,
        ),
      );
    }, timeoutMs);
    const onAbort = () => this.#fail(signal!.reason);
    signal?.addEventListener('abort', onAbort, { once: true });
    this.#cleanup = () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
    };
    this.worker.postMessage({ id: job.id, task: job.task! } satisfies WorkerRequest);
    job.task = undefined;
  }

  #onReply(reply: WorkerReply): void {
    if ('ready' in reply) {
      this.ready = true;
      return;
    }
    const job = this.job;
    if (!job || reply.id !== job.id) return;
    if ('memory' in reply) {
      this.#fail(memoryFailure(this.maxMemoryBytes));
      return;
    }
    if ('documents' in reply) {
      for (const doc of reply.documents) job.documents.push(doc);
      return;
    }
    this.#settle();
    if ('result' in reply) {
      const { documents, skipped } = reply.result;
      job.resolve({
        documents: job.documents.length > 0 ? job.documents.concat(documents) : documents,
        skipped,
      });
    } else if (reply.error.failure) job.reject(new LoadFailure(reply.error.message));
    else job.reject(new LoadFailure(`the parser failed (${oneLine(reply.error.message)})`));
    this.pool.release(this);
  }

  #onError(error: Error): void {
    if (this.dead) return;
    const code = (error as { code?: string }).code;
    if (!this.ready && code !== 'ERR_WORKER_OUT_OF_MEMORY')
      this.#fail(new Error(`@grag/loaders: the loader worker did not start (${oneLine(error.message)})`));
    else if (code === 'ERR_WORKER_OUT_OF_MEMORY') this.#fail(memoryFailure(this.maxMemoryBytes));
    else this.#fail(new LoadFailure(`the parser crashed (${oneLine(error.message)})`));
  }

  /** Ends the job with `error` and the worker with it (its state is unknown, or it is still busy). */
  #fail(error: unknown): void {
    const job = this.job;
    this.#settle();
    this.kill();
    job?.reject(error);
  }

  #settle(): void {
    this.#cleanup?.();
    this.#cleanup = undefined;
    this.job = undefined;
  }

  idle(): void {
    this.worker.unref();
    this.#idle = setTimeout(() => this.kill(), IDLE_MS);
    this.#idle.unref();
  }

  kill(): void {
    if (this.dead) return;
    this.dead = true;
    clearTimeout(this.#idle);
    this.pool.remove(this);
    void this.worker.terminate();
  }
}

class WorkerPool {
  #all = new Set<PooledWorker>();
  #idle: PooledWorker[] = [];
  #queue: Job[] = [];
  #nextId = 1;
  readonly size = Math.max(1, availableParallelism());

  run(task: ParseTask, options: RunOptions): Promise<ParseResult> {
    const { signal } = options;
    if (signal?.aborted) return Promise.reject(signal.reason);
    // No closure below refers to `task`: the job drops it once the worker has its copy.
    const job: Job = {
      id: this.#nextId++,
      task,
      documents: [],
      options,
      resolve: () => {},
      reject: () => {},
    };
    const promise = new Promise<ParseResult>((resolve, reject) => {
      job.resolve = resolve;
      job.reject = reject;
    });
    if (signal) {
      const { resolve, reject } = job;
      // Aborted while waiting for a worker: leave the queue (a running job listens itself).
      const onAbort = () => {
        const at = this.#queue.indexOf(job);
        if (at >= 0) {
          this.#queue.splice(at, 1);
          job.reject(signal.reason);
        }
      };
      signal.addEventListener('abort', onAbort, { once: true });
      const done = () => signal.removeEventListener('abort', onAbort);
      job.resolve = (r) => {
        done();
        resolve(r);
      };
      job.reject = (e) => {
        done();
        reject(e);
      };
    }
    this.#queue.push(job);
    this.#pump();
    return promise;
  }

  #pump(): void {
    while (this.#queue.length > 0) {
      const job = this.#queue[0]!;
      const memory = job.options.maxMemoryBytes;
      let worker = this.#idle.find((w) => w.maxMemoryBytes === memory);
      if (worker) this.#idle.splice(this.#idle.indexOf(worker), 1);
      else if (this.#all.size < this.size) {
        worker = new PooledWorker(memory, this);
        this.#all.add(worker);
      } else if (this.#idle.length > 0) {
        // Every slot is taken by idle workers of another memory limit: replace one.
        this.#idle.shift()!.kill();
        continue;
      } else return;
      this.#queue.shift();
      worker.run(job);
    }
  }

  release(worker: PooledWorker): void {
    if (worker.dead) return;
    this.#idle.push(worker);
    worker.idle();
    this.#pump();
  }

  remove(worker: PooledWorker): void {
    this.#all.delete(worker);
    const at = this.#idle.indexOf(worker);
    if (at >= 0) this.#idle.splice(at, 1);
    queueMicrotask(() => this.#pump());
  }
}

let pool: WorkerPool | undefined;

/**
 * Parses `task` in a pooled worker thread. Rejects with a `LoadFailure` when the parser refuses
 * the file, runs past `timeoutMs` or needs more than `maxMemoryBytes`, and with `signal.reason`
 * when the signal aborts.
 */
export function runInWorker(task: ParseTask, options: RunOptions): Promise<ParseResult> {
  pool ??= new WorkerPool();
  return pool.run(task, options);
}

function memoryFailure(maxMemoryBytes: number): LoadFailure {
  return new LoadFailure(
    `needs more than ${formatBytes(maxMemoryBytes)} of memory to parse (limits.maxMemoryBytes); raise the limit or split the file`,
  );
}

function formatMs(ms: number): string {
  return ms >= 1000 ? `${Number((ms / 1000).toFixed(1))} s` : `${ms} ms`;
}

/**
 * The worker's entry: `worker.js` beside this module in the built package. Run from the
 * TypeScript sources (vitest, tsx), the entry is `worker.ts`, started through tsx's loader.
 */
function startWorker(maxMemoryBytes: number): Worker {
  const here = import.meta.url;
  const mib = Math.ceil(maxMemoryBytes / MiB);
  // A worker's default young generation is small: micromark and pdf.js, which allocate many
  // short-lived objects, ran 2-3 times slower in it than with 64 MiB.
  const resourceLimits = {
    maxOldGenerationSizeMb: Math.max(32, mib),
    maxYoungGenerationSizeMb: Math.min(64, Math.max(8, Math.floor(mib / 8))),
  };
  const workerData = { maxMemoryBytes };
  if (!here.endsWith('.ts'))
    return new Worker(new URL('./worker.js', here), { workerData, resourceLimits, execArgv: [] });
  const boot = `const { workerData } = require('node:worker_threads');
(async () => {
  (await import(workerData.tsx)).register();
  await import(workerData.entry);
})().catch((error) => process.nextTick(() => { throw error; }));`;
  return new Worker(boot, {
    eval: true,
    workerData: { ...workerData, tsx: tsxApi(here), entry: new URL('./worker.ts', here).href },
    resourceLimits,
    execArgv: [],
  });
}

/** The file URL of tsx's ESM register API (a development dependency, used only from sources). */
function tsxApi(from: string): string {
  const manifest = createRequire(from).resolve('tsx/package.json');
  const exports = JSON.parse(readFileSync(manifest, 'utf8')).exports as Record<
    string,
    { import: { default: string } }
  >;
  return pathToFileURL(join(dirname(manifest), exports['./esm/api']!.import.default)).href;
}
