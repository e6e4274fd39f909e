/**
 * The retrieval worker (a thread of the pool, see pool.ts): imports the setup module once (the
 * methods and the context an index is loaded with, as `loadIndex` takes them), loads each version
 * of an index it is asked about once, from the directory it is saved in, and answers retrievals
 * from it. A version it loads is the one the directory holds then; when that is not the version
 * asked for (a write saved a newer one meanwhile), it says so and the server asks again with the
 * version it serves now, so an answer always comes from the one whole version it names.
 */
import { workerData } from 'node:worker_threads';
import { AbortError, throwIfAborted } from '@grag/core';
import { move } from 'piscina';
import { toHttpError } from './errors.js';
import { manifestVersion, tokenizerOf } from './indexes.js';
import { type LoadIndexesOptions, loadSettledIndex } from './load.js';
import type { RetrieveReply, RetrieveTask, WorkerSetupData } from './pool.js';
import { retrievalJson, retrieve } from './query.js';
import { ABORTED, RUNNING } from './task-abort.js';

type Loaded = Parameters<typeof retrieve>[0] & { version: string };

const { setup, data } = workerData as WorkerSetupData;
const encoder = new TextEncoder();
let options: Promise<LoadIndexesOptions> | undefined;
/** Loaded versions by `name\0version`. */
const loaded = new Map<string, Promise<Loaded>>();

function loadOptions(): Promise<LoadIndexesOptions> {
  options ??= import(setup).then(async (module: { default?: unknown }) => {
    if (typeof module.default !== 'function') {
      throw new Error(
        `@grag/server worker: ${setup} has no default export (a function returning { methods, context }).`,
      );
    }
    return (await module.default(data)) as LoadIndexesOptions;
  });
  return options;
}

/** Load the version the directory holds, checked unchanged from before the load to after it. */
async function loadCurrent(target: string): Promise<Loaded> {
  const ix = await loadSettledIndex(target, await loadOptions(), 6);
  return {
    method: ix.method,
    index: ix.index,
    tokenizer: tokenizerOf(ix.index),
    version: manifestVersion(ix.manifest),
  };
}

async function versionFor(task: RetrieveTask): Promise<Loaded> {
  const key = `${task.name}\0${task.version}`;
  const cached = loaded.get(key);
  if (cached) return cached;
  const pending = loadCurrent(task.target);
  loaded.set(key, pending);
  try {
    const ix = await pending;
    if (ix.version !== task.version) {
      loaded.delete(key);
      loaded.set(`${task.name}\0${ix.version}`, pending);
    }
    return ix;
  } catch (error) {
    loaded.delete(key);
    throw error;
  }
}

/** Forget the versions the server no longer serves. */
function forget(live: readonly string[], keep: string): void {
  const alive = new Set(live);
  for (const key of loaded.keys()) if (key !== keep && !alive.has(key)) loaded.delete(key);
}

const abortedGetter = Object.getOwnPropertyDescriptor(AbortSignal.prototype, 'aborted')?.get as (
  this: AbortSignal,
) => boolean;

/** `Atomics.waitAsync` (Node 16+; ES2024 in TypeScript's libraries). */
type AtomicsWaitAsync = {
  waitAsync(array: Int32Array, index: number, value: number): { async: boolean; value: unknown };
};

/**
 * The signal of a task, aborted when the server stores `ABORTED` in `flag` (its client went away):
 * at once while the retrieval waits (a remote embedder's request is cancelled), and seen by every
 * check of `signal.aborted` while it computes, as this thread cannot hear a message then.
 */
function taskSignal(flag: Int32Array): AbortSignal {
  const controller = new AbortController();
  const signal = controller.signal;
  const abort = () => controller.abort(new AbortError('The client closed the connection.'));
  Object.defineProperty(signal, 'aborted', {
    get() {
      if (!abortedGetter.call(signal) && Atomics.load(flag, 0) === ABORTED) abort();
      return abortedGetter.call(signal);
    },
  });
  signal.throwIfAborted = () => {
    if (signal.aborted) throw signal.reason;
  };
  const waiting = (Atomics as unknown as AtomicsWaitAsync).waitAsync(flag, 0, RUNNING);
  if (waiting.async) void (waiting.value as Promise<string>).then(() => void signal.aborted);
  return signal;
}

/** Answer one retrieval task (piscina calls this). */
export default async function run(task: RetrieveTask): Promise<RetrieveReply> {
  try {
    const signal = taskSignal(task.abort);
    // Its client went away while the task waited in the queue: it never starts.
    throwIfAborted(signal);
    const ix = await versionFor(task);
    forget(task.live, `${task.name}\0${ix.version}`);
    if (ix.version !== task.version) return { stale: ix.version };
    const retrieval = await retrieve(ix, task.request, signal);
    if (!task.raw) return { json: JSON.stringify(retrieval) };
    // The response's largest part (a 12k-token context, its items) serialised here, so the
    // server's thread only writes the bytes; moved, not copied.
    return move(encoder.encode(JSON.stringify(retrievalJson(retrieval)))) as Uint8Array;
  } catch (error) {
    const http = toHttpError(error);
    const detail = error instanceof Error ? error.message : String(error);
    return { error: { status: http.status, code: http.code, message: http.message, detail } };
  }
}
