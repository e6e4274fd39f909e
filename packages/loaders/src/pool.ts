/**
 * Runs parsers in child processes so that no file can hang or exhaust the calling process: a load
 * that runs past `timeoutMs` or grows past `maxMemoryBytes` is stopped by killing its child, which
 * pdf.js, mammoth or a JSON parse cannot be made to do from inside, and a killed child's memory goes
 * back to the system (a killed worker thread's malloc arena did not: two PDF bombs in a row took the
 * process to 1.2 GB, four to 1.7 GB). Children are reused (one file at a time each, at most one per
 * core), kept unreferenced while idle so they never hold the process open, and ended after a short
 * idle time.
 *
 * Memory is one budget for all children: the resident memory of each (read from
 * `/proc/<pid>/status` every 20 ms on Linux, else as the child reports it) must stay under the
 * `maxMemoryBytes` of its file, and the children together under the largest `maxMemoryBytes` of
 * the files being parsed. A child over its own limit fails its file; children over the shared
 * budget lose their idle neighbours first, then the largest running parse, which is run again alone
 * (it did not fail: others were beside it). A new child is started beside running ones only while
 * all of them use under half the budget.
 */
import { type ChildProcess, fork } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Socket } from 'node:net';
import { availableParallelism } from 'node:os';
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
const CHECK_MS = 20;
const MiB = 1024 * 1024;
/** What a child counts as before its first reading: Node with a parser loaded. */
const NEW_CHILD_BYTES = 64 * MiB;
/** How much of a dying child's stderr is kept to say why it died. */
const STDERR_TAIL = 4096;

interface Job {
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

class PooledChild {
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
    private readonly pool: ChildPool,
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

class ChildPool {
  #all = new Set<PooledChild>();
  #idle: PooledChild[] = [];
  #queue: Job[] = [];
  #nextId = 1;
  #check: NodeJS.Timeout | undefined;
  readonly size = Math.max(1, availableParallelism());

  constructor() {
    // Children are not ended with this process on their own: a busy one would parse on.
    process.once('exit', () => {
      for (const child of this.#all) child.kill();
    });
  }

  run(task: ParseTask, rebuild: () => ParseTask, options: RunOptions): Promise<ParseResult> {
    const { signal } = options;
    if (signal?.aborted) return Promise.reject(signal.reason);
    // No closure below refers to `task`: the job drops it once the child has its copy.
    const job: Job = {
      id: this.#nextId++,
      task,
      rebuild,
      documents: [],
      options,
      alone: false,
      resolve: () => {},
      reject: () => {},
    };
    const promise = new Promise<ParseResult>((resolve, reject) => {
      job.resolve = resolve;
      job.reject = reject;
    });
    if (signal) {
      const { resolve, reject } = job;
      // Aborted while waiting for a child: leave the queue (a running job listens itself).
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

  #busy(): PooledChild[] {
    return [...this.#all].filter((c) => c.job !== undefined);
  }

  #pump(): void {
    while (this.#queue.length > 0) {
      const job = this.#queue[0]!;
      const busy = this.#busy();
      // A job run alone waits for the others to end, and nothing starts beside it.
      if (busy.length > 0 && (job.alone || busy.some((c) => c.job!.alone))) return;
      const memory = job.options.maxMemoryBytes;
      let child = this.#idle.find((c) => c.maxMemoryBytes === memory);
      if (child) this.#idle.splice(this.#idle.indexOf(child), 1);
      else if (this.#all.size < this.size && this.#roomFor(job, busy)) {
        child = new PooledChild(memory, this);
        this.#all.add(child);
      } else if (this.#idle.length > 0) {
        // Idle children of another memory limit take the slots or the memory: end one.
        this.#idle.shift()!.kill();
        continue;
      } else return;
      this.#queue.shift();
      if (job.task === undefined) {
        try {
          job.task = job.rebuild();
        } catch (error) {
          this.release(child);
          job.reject(error);
          continue;
        }
      }
      child.run(job);
      this.#watch();
    }
  }

  /** Whether a new child fits beside the running ones: all of them under half the budget. */
  #roomFor(job: Job, busy: PooledChild[]): boolean {
    if (busy.length === 0) return true;
    const budget = Math.max(job.options.maxMemoryBytes, ...busy.map((c) => c.job!.options.maxMemoryBytes));
    let used = NEW_CHILD_BYTES;
    for (const child of this.#all) used += child.rss;
    return used <= budget / 2;
  }

  /** Checks the children's memory every 20 ms while any parses. */
  #watch(): void {
    if (this.#check) return;
    this.#check = setInterval(() => this.#enforce(), CHECK_MS);
    this.#check.unref();
  }

  #enforce(): void {
    const all = [...this.#all];
    let total = 0;
    for (const child of all) total += child.measure();
    let busy = all.filter((c) => c.job !== undefined);
    if (busy.length === 0) {
      clearInterval(this.#check);
      this.#check = undefined;
      return;
    }
    for (const child of busy) {
      const limit = child.job!.options.maxMemoryBytes;
      if (child.rss > limit) {
        total -= child.rss;
        child.fail(memoryFailure(limit));
      }
    }
    busy = busy.filter((c) => !c.dead);
    if (busy.length === 0) return;
    const budget = Math.max(...busy.map((c) => c.job!.options.maxMemoryBytes));
    for (const child of [...this.#idle].sort((a, b) => b.rss - a.rss)) {
      if (total <= budget) break;
      total -= child.rss;
      child.kill();
    }
    busy.sort((a, b) => b.rss - a.rss);
    const requeued: Job[] = [];
    while (total > budget && busy.length > 1) {
      const child = busy.shift()!;
      total -= child.rss;
      const job = child.stopAndRequeue();
      if (job) requeued.push(job);
    }
    if (requeued.length > 0) {
      this.#queue.unshift(...requeued);
      this.#pump();
    }
  }

  release(child: PooledChild): void {
    if (child.dead) return;
    this.#idle.push(child);
    child.idle();
    this.#pump();
  }

  remove(child: PooledChild): void {
    this.#all.delete(child);
    const at = this.#idle.indexOf(child);
    if (at >= 0) this.#idle.splice(at, 1);
    queueMicrotask(() => this.#pump());
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

let pool: ChildPool | undefined;

/**
 * Parses `task` in a pooled child process. Rejects with a `LoadFailure` when the parser refuses
 * the file, runs past `timeoutMs` or needs more than `maxMemoryBytes`, and with `signal.reason`
 * when the signal aborts. `rebuild` makes the task again if the parse has to be run again alone
 * (stopped to keep the children within the memory budget); the task itself is not kept.
 */
export function runInWorker(
  task: ParseTask,
  rebuild: () => ParseTask,
  options: RunOptions,
): Promise<ParseResult> {
  pool ??= new ChildPool();
  return pool.run(task, rebuild, options);
}

function memoryFailure(maxMemoryBytes: number): LoadFailure {
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
