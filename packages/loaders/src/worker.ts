/**
 * The loader worker: parses one file at a time for the main thread (see pool.ts), and reports its
 * own memory (V8 heap in use plus array buffers) while it works so the pool can stop a parse that
 * grows past `limits.maxMemoryBytes` — a worker's `resourceLimits` bound only the heap.
 */
import { getHeapStatistics } from 'node:v8';
import { parentPort, workerData } from 'node:worker_threads';
import type { Document } from '@grag/core';
import { LoadFailure } from './failure.js';
import { parseFile } from './parse/index.js';
import type { WorkerReply, WorkerRequest } from './pool.js';
import type { ParseTask } from './task.js';

const port = parentPort!;
const { maxMemoryBytes } = workerData as { maxMemoryBytes: number };
const MEMORY_CHECK_MS = 20;
/** Record documents go to the main thread in batches as they are made, not all at the end. */
const BATCH = 2000;

function memoryInUse(): number {
  const stats = getHeapStatistics() as ReturnType<typeof getHeapStatistics> & { external_memory?: number };
  return stats.used_heap_size + (stats.external_memory ?? 0);
}

port.on('message', async ({ id, task }: WorkerRequest) => {
  const watch = setInterval(() => {
    const used = memoryInUse();
    if (used > maxMemoryBytes) port.postMessage({ id, memory: used } satisfies WorkerReply);
  }, MEMORY_CHECK_MS);
  let batch: Document[] = [];
  const send = () => {
    if (batch.length > 0) port.postMessage({ id, documents: batch } satisfies WorkerReply);
    batch = [];
  };
  try {
    const result = await parseFile(task as ParseTask, (doc) => {
      batch.push(doc);
      if (batch.length >= BATCH) send();
    });
    send();
    port.postMessage({ id, result } satisfies WorkerReply);
  } catch (error) {
    const failure = error instanceof LoadFailure;
    const message = error instanceof Error ? error.message : String(error);
    port.postMessage({ id, error: { message, failure } } satisfies WorkerReply);
  } finally {
    clearInterval(watch);
  }
});
port.postMessage({ ready: true } satisfies WorkerReply);
