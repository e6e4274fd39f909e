/**
 * The loader worker, a child process of the pool (see pool.ts): parses one file at a time, sends
 * record documents in batches as they are made, and reports its resident memory every 20 ms while
 * it works — what the pool goes by where it cannot read `/proc/<pid>/status` itself.
 *
 * Tasks come over Node's IPC channel; replies go back on their own pipe (file descriptor 4),
 * written synchronously. The record parsers never yield to the event loop, and what `process.send`
 * cannot write at once waits for it: every batch of a 10 MiB CSV stayed in this process, counted
 * against its memory limit, until the whole file was parsed (the first batch reached the pool
 * after 518 ms, with the last). Written here, they leave as they are made, and the pool decodes
 * them while the parse goes on (the first after 49 ms).
 */
import { writeSync } from 'node:fs';
import { serialize } from 'node:v8';
import type { Document } from '@grag/core';
import type { WorkerReply, WorkerRequest } from './child.js';
import { LoadFailure } from './failure.js';
import { parseFile } from './parse/index.js';

/** The pipe replies go to (stdio[4] of the pool's `fork`). */
const REPLIES = 4;
const MEMORY_REPORT_MS = 20;
/** Record documents go to the pool in batches as they are made, not all at the end. */
const BATCH = 2000;

if (!process.send) throw new Error('@grag/loaders: the loader worker runs as a child process of the pool');

/** Writes `reply` whole: a 4-byte big-endian length, then the V8-serialized value. */
function post(reply: WorkerReply): void {
  const body = serialize(reply);
  const head = Buffer.allocUnsafe(4);
  head.writeUInt32BE(body.byteLength, 0);
  writeAll(head);
  writeAll(body);
}

function writeAll(bytes: Buffer): void {
  let at = 0;
  while (at < bytes.byteLength) {
    try {
      at += writeSync(REPLIES, bytes, at);
    } catch (error) {
      // A pipe end left non-blocking: wait a millisecond for the pool to read.
      if ((error as NodeJS.ErrnoException).code !== 'EAGAIN') throw error;
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 1);
    }
  }
}

process.on('message', async ({ id, task }: WorkerRequest) => {
  // Node's IPC serializer keeps a Buffer a Buffer (a thread's structured clone did not), and
  // pdf.js refuses Buffers: the parsers get a plain Uint8Array over the same memory.
  const { bytes } = task;
  if (bytes && Buffer.isBuffer(bytes))
    task.bytes = new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const report = setInterval(() => post({ id, rss: process.memoryUsage.rss() }), MEMORY_REPORT_MS);
  let batch: Document[] = [];
  const send = () => {
    if (batch.length > 0) post({ id, documents: batch });
    batch = [];
  };
  try {
    const result = await parseFile(task, (doc) => {
      batch.push(doc);
      if (batch.length >= BATCH) send();
    });
    send();
    post({ id, result });
  } catch (error) {
    const failure = error instanceof LoadFailure;
    const message = error instanceof Error ? error.message : String(error);
    post({ id, error: { message, failure } });
  } finally {
    clearInterval(report);
  }
});
// The pool is gone (its process ended): so is this worker.
process.on('disconnect', () => process.exit(0));
post({ ready: true });
