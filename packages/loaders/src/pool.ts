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
import { availableParallelism } from 'node:os';
import {
  type ChildOwner,
  type Job,
  memoryFailure,
  NEW_CHILD_BYTES,
  PooledChild,
  type RunOptions,
} from './child.js';
import type { ParseResult, ParseTask } from './task.js';

const CHECK_MS = 20;

class ChildPool implements ChildOwner {
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
