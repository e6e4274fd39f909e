/**
 * One parser child process of the pool (see `pool.ts`): started with its heap limit, sent one
 * file's task at a time over IPC, its replies read as framed messages from a pipe, its resident
 * memory measured, stopped on a timeout, an abort or a crash, and ended after a short idle time.
 */
import { type ChildProcess, fork } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Socket } from 'node:net';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { deserialize } from 'node:v8';
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
  | { id: number; rss: number };

export interface RunOptions {
  timeoutMs: number;
  maxMemoryBytes: number;
  signal?: AbortSignal | undefined;
}

const IDLE_MS = 3000;
const MiB = 1024 * 1024;
/** What a child counts as before its first reading: Node with a parser loaded. */
export const NEW_CHILD_BYTES = 64 * MiB;
/** How much of a dying child's stderr is kept to say why it died. */
const STDERR_TAIL = 4096;

export interface Job {
  id: number;
  /** Dropped once sent: the child has its own copy. */
  task: ParseTask | undefined;
  /** The task again, for a parse stopped to keep the memory budget and run again alone. */
  rebuild: () => ParseTask;
  /** Documents the child has sent so far. */
  documents: Document[];
  options: RunOptions;
  /** Runs with no other parse beside it. */
  alone: boolean;
  resolve(result: ParseResult): void;
  reject(error: unknown): void;
}

/** The pool a child belongs to: told when the child is free again and when it is gone. */
export interface ChildOwner {
  release(child: PooledChild): void;
  remove(child: PooledChild): void;
}

export class PooledChild {
  readonly child: ChildProcess;
  ready = false;
  dead = false;
  job: Job | undefined;
  /** Resident memory in bytes, as last read. */
  rss = NEW_CHILD_BYTES;
  /** The child's last words on stderr, to tell a V8 heap exhaustion from another crash. */
  #stderr = '';
  /** V8 began its report of a heap exhaustion: many lines of internals, kept, not shown. */
  #dying = false;
  #cleanup: (() => void) | undefined;
  #idle: NodeJS.Timeout | undefined;

  constructor(
    readonly maxMemoryBytes: number,
    private readonly pool: ChildOwner,
  ) {
    this.child = startChild(maxMemoryBytes);
    const replies = new Frames((reply) => this.#onReply(reply));
    (this.child.stdio[4] as Socket).on('data', (chunk: Buffer) => replies.push(chunk));
    this.child.on('error', (error) => this.#onExit(`(${oneLine(error.message)})`));
    // 'close', not 'exit': its stderr is read to the end by then.
    this.child.on('close', (code, signal) =>
      this.#onExit(signal ? `(killed by ${signal})` : `(exit code ${code})`),
    );
    const stderr = this.child.stderr!;
    stderr.setEncoding('utf8');
    stderr.on('data', (chunk: string) => {
      if (/FATAL ERROR|<--- Last few GCs --->/.test(chunk)) this.#dying = true;
      this.#stderr = (this.#stderr + chunk).slice(-STDERR_TAIL);
      if (!this.#dying) process.stderr.write(chunk);
    });
  }

  run(job: Job): void {
    clearTimeout(this.#idle);
    this.#ref(true);
    this.job = job;
    const { signal, timeoutMs } = job.options;
    const timer = setTimeout(() => {
      this.fail(
        new LoadFailure(
          `took longer than ${formatMs(timeoutMs)} (limits.timeoutMs); raise the limit or split the file`,
        ),
      );
    }, timeoutMs);
    const onAbort = () => this.fail(signal!.reason);
    signal?.addEventListener('abort', onAbort, { once: true });
    this.#cleanup = () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
    };
    if (this.ready) this.#send();
  }

  /** Sends the job's task, once the child is listening; the task is not kept here. */
  #send(): void {
    const job = this.job;
    if (!job?.task) return;
    this.child.send({ id: job.id, task: job.task } satisfies WorkerRequest);
    job.task = undefined;
  }

  /** Reads the child's resident memory (Linux), else keeps what it last reported. */
  measure(): number {
    const pid = this.child.pid;
    const bytes = pid === undefined ? undefined : residentBytes(pid);
    if (bytes !== undefined) this.rss = bytes;
    return this.rss;
  }

  #onReply(reply: WorkerReply): void {
    if ('ready' in reply) {
      this.ready = true;
      this.#send();
      return;
    }
    const job = this.job;
    if (!job || reply.id !== job.id) return;
    if ('rss' in reply) {
      if (!canRead) this.rss = reply.rss;
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

  #onExit(how: string): void {
    if (this.dead) return;
    if (/heap out of memory|Allocation failed/.test(this.#stderr))
      this.fail(memoryFailure(this.maxMemoryBytes));
    else if (!this.ready)
      this.fail(new Error(`@grag/loaders: the loader worker process did not start ${how}`));
    else this.fail(new LoadFailure(`the parser crashed ${how}`));
  }

  /** Ends the job with `error` and the child with it (its state is unknown, or it is still busy). */
  fail(error: unknown): void {
    const job = this.job;
    this.#settle();
    this.kill();
    job?.reject(error);
  }

  /** Stops the job's parse and the child, and gives the job back to run again alone. */
  stopAndRequeue(): Job | undefined {
    const job = this.job;
    this.#settle();
    this.kill();
    if (!job) return undefined;
    job.alone = true;
    job.documents = [];
    job.task = undefined;
    return job;
  }

  #settle(): void {
    this.#cleanup?.();
    this.#cleanup = undefined;
    this.job = undefined;
  }

  idle(): void {
    this.#ref(false);
    this.#idle = setTimeout(() => this.kill(), IDLE_MS);
    this.#idle.unref();
  }

  /** Whether the child, its IPC channel and its pipes keep the event loop alive. */
  #ref(on: boolean): void {
    const pipes = [this.child.stdio[2], this.child.stdio[4]] as (Socket | null)[];
    if (on) {
      this.child.ref();
      this.child.channel?.ref();
      for (const pipe of pipes) pipe?.ref();
    } else {
      this.child.unref();
      this.child.channel?.unref();
      for (const pipe of pipes) pipe?.unref();
    }
  }

  kill(): void {
    if (this.dead) return;
    this.dead = true;
    clearTimeout(this.#idle);
    this.#ref(false);
    this.pool.remove(this);
    this.child.kill('SIGKILL');
  }
}

/** Splits the child's reply pipe into replies: each a 4-byte big-endian length, then V8-serialized bytes. */
class Frames {
  #chunks: Buffer[] = [];
  #size = 0;

  constructor(private readonly onReply: (reply: WorkerReply) => void) {}

  push(chunk: Buffer): void {
    this.#chunks.push(chunk);
    this.#size += chunk.byteLength;
    while (this.#size >= 4) {
      let head = this.#chunks[0]!;
      if (head.byteLength < 4) head = this.#join();
      const length = head.readUInt32BE(0);
      if (this.#size < 4 + length) return;
      const all = this.#chunks.length === 1 ? head : this.#join();
      const reply = deserialize(all.subarray(4, 4 + length)) as WorkerReply;
      const rest = all.subarray(4 + length);
      this.#chunks = rest.byteLength > 0 ? [rest] : [];
      this.#size = rest.byteLength;
      this.onReply(reply);
    }
  }

  #join(): Buffer {
    const all = Buffer.concat(this.#chunks, this.#size);
    this.#chunks = [all];
    return all;
  }
}

export function memoryFailure(maxMemoryBytes: number): LoadFailure {
  return new LoadFailure(
    `needs more than ${formatBytes(maxMemoryBytes)} of memory to parse (limits.maxMemoryBytes); raise the limit or split the file`,
  );
}

function formatMs(ms: number): string {
  return ms >= 1000 ? `${Number((ms / 1000).toFixed(1))} s` : `${ms} ms`;
}

/** Whether `/proc/<pid>/status` can be read here (Linux): then the pool reads each child's memory. */
const canRead = process.platform === 'linux';

/** A process's resident memory in bytes, from `/proc/<pid>/status` (`VmRSS`); undefined elsewhere. */
function residentBytes(pid: number): number | undefined {
  if (!canRead) return undefined;
  try {
    const kb = /^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'latin1'))?.[1];
    return kb === undefined ? undefined : Number(kb) * 1024;
  } catch {
    return undefined;
  }
}

/**
 * Forks the child: `worker.js` beside this module in the built package, or, run from the
 * TypeScript sources (vitest, tsx), `worker.ts` through tsx's loader. Its V8 heap is capped at
 * `maxMemoryBytes`; none of this process's command-line Node options are passed on.
 */
function startChild(maxMemoryBytes: number): ChildProcess {
  const here = import.meta.url;
  const fromSources = here.endsWith('.ts');
  const entry = fileURLToPath(new URL(fromSources ? './worker.ts' : './worker.js', here));
  const mib = Math.ceil(maxMemoryBytes / MiB);
  // The V8 heap is capped at the limit, so that V8 collects before the resident memory reaches
  // it: capped at 2 GiB, garbage of micromark on 100,000 `*` took the worker past 512 MiB, a
  // limit its live data fits in. Markdown parses about 1.2 times slower for it. Node's default
  // young generation for a 512 MiB heap is small (1.4 times slower still); 32 MiB semi-spaces are
  // about a worker thread's 64 MiB young generation.
  const execArgv = [
    `--max-old-space-size=${Math.max(32, mib)}`,
    `--max-semi-space-size=${Math.min(32, Math.max(4, Math.floor(mib / 16)))}`,
  ];
  if (fromSources) execArgv.push('--import', tsxLoader(here));
  return fork(entry, [], {
    execArgv,
    serialization: 'advanced',
    // stderr is read to tell a heap exhaustion; fd 4 carries the replies (see worker.ts).
    stdio: ['ignore', 'inherit', 'pipe', 'ipc', 'pipe'],
  });
}

/** The file URL of tsx's loader (`node --import tsx`; a development dependency, used only from sources). */
function tsxLoader(from: string): string {
  const manifest = createRequire(from).resolve('tsx/package.json');
  const exports = JSON.parse(readFileSync(manifest, 'utf8')).exports as Record<string, string>;
  return pathToFileURL(join(dirname(manifest), exports['.']!)).href;
}
