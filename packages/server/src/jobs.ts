/**
 * Writes as jobs: each write to an index is queued behind the writes to the same index before it
 * (one at a time per index; different indexes run side by side), runs in the background, and is
 * told by `GET /v1/jobs/{id}` and its event stream. With a journal (a server on a folder, or with a
 * jobs folder), a job's input is written to it before the job is acknowledged, and every change of
 * status after, so a restart can tell what became of the jobs that had not finished and run them
 * again (journal.ts); a job's input is removed when it ends.
 */
import { randomUUID } from 'node:crypto';
import { HttpError, toHttpError } from './errors.js';
import type { JobInput } from './job-input.js';
import type { JobJournal } from './journal.js';
import type { Job } from './schema-jobs.js';

/** What a job's work reports while it runs, and what it gives when done. */
export interface JobWork {
  /** Run the write; `started(baseVersion)` is called before anything is saved. */
  run(report: JobReporter): Promise<{ version: string | null; documents?: Job['documents'] }>;
}

/** What a running job tells the manager. */
export interface JobReporter {
  /** The version the job starts from (recorded in the journal before anything is saved). */
  started(baseVersion: string | null): Promise<void>;
  progress(stage: string, done: number, total: number): void;
}

type Listener = (job: Job, final: boolean) => void;

/** How many finished jobs are kept (and journaled) besides the unfinished ones. */
const KEEP_FINISHED = 500;

/** The jobs of one server: queues per index, statuses, listeners, the journal. */
export class JobManager {
  readonly #jobs = new Map<string, Job>();
  readonly #queues = new Map<string, Promise<void>>();
  readonly #listeners = new Map<string, Set<Listener>>();
  readonly #journal: JobJournal | undefined;
  /** Jobs whose input is being written: left out of the journal until it is. */
  readonly #unwritten = new Set<string>();
  readonly #onError: (error: unknown, where: string) => void;

  constructor(options: {
    journal?: JobJournal | undefined;
    history?: readonly Job[];
    onError: (error: unknown, where: string) => void;
  }) {
    this.#journal = options.journal;
    this.#onError = options.onError;
    for (const job of options.history ?? []) this.#jobs.set(job.id, job);
  }

  /** The job `id`, as it is now, or a 404. */
  get(id: string): Job {
    const job = this.#jobs.get(id);
    if (!job) throw new HttpError(404, 'not_found', `No job ${JSON.stringify(id.slice(0, 100))}.`);
    return { ...job };
  }

  /** Whether a job for `index` is queued or running. */
  busy(index: string): boolean {
    for (const job of this.#jobs.values()) {
      if (job.index === index && (job.status === 'queued' || job.status === 'running')) return true;
    }
    return false;
  }

  /** Hear of every change of job `id` (`final` on the last); returns the unsubscribe. */
  listen(id: string, listener: Listener): () => void {
    let set = this.#listeners.get(id);
    if (!set) {
      set = new Set();
      this.#listeners.set(id, set);
    }
    set.add(listener);
    return () => set.delete(listener);
  }

  /**
   * Queue `work` for `index` behind the jobs already queued for it; resolves with the job once it
   * is journaled as queued with its `input` (its work starts later). When the journal cannot be
   * written, the job is dropped (never run) and the error thrown.
   */
  async submit(kind: Job['kind'], index: string, input: JobInput, work: JobWork): Promise<Job> {
    const job: Job = {
      id: randomUUID(),
      kind,
      index,
      status: 'queued',
      progress: null,
      baseVersion: null,
      version: null,
      documents: null,
      error: null,
      createdAt: new Date().toISOString(),
      startedAt: null,
      finishedAt: null,
    };
    this.#jobs.set(job.id, job);
    // Queued at once (so two writes keep the order they came in), run once journaled: its input
    // first, then the journal that names it, so a journaled job always has its input.
    const journal = this.#journal;
    this.#unwritten.add(job.id);
    const written = journal ? journal.inputs.put(job, input) : Promise.resolve();
    const saved = written.finally(() => this.#unwritten.delete(job.id)).then(() => this.#save());
    const ok = saved.then(
      () => true,
      async () => {
        this.#jobs.delete(job.id);
        await journal?.inputs.remove(job.id).catch(() => {});
        return false;
      },
    );
    this.#enqueue(job, work, ok);
    await saved;
    return { ...job };
  }

  /**
   * Run again the journaled job `id` (one the journal held as unfinished, `queued` in the history),
   * with the same id, behind the jobs queued for its index.
   */
  resume(id: string, work: JobWork): void {
    const job = this.#jobs.get(id);
    if (job?.status !== 'queued') throw new Error(`JobManager.resume: job ${id} is not queued.`);
    this.#enqueue(job, work, Promise.resolve(true));
  }

  /** Run `work` as `job` after the jobs queued for its index, once `ready` says it may run. */
  #enqueue(job: Job, work: JobWork, ready: Promise<boolean>): void {
    const index = job.index;
    const previous = this.#queues.get(index) ?? Promise.resolve();
    const next = Promise.all([previous, ready]).then(([, run]) => (run ? this.#run(job, work) : undefined));
    this.#queues.set(index, next);
    void next.then(() => {
      if (this.#queues.get(index) === next) this.#queues.delete(index);
    });
  }

  /** Resolves when every job queued so far has finished (for tests and shutdown). */
  async idle(): Promise<void> {
    while (this.#queues.size > 0) await Promise.all(this.#queues.values());
  }

  async #run(job: Job, work: JobWork): Promise<void> {
    job.status = 'running';
    job.startedAt = new Date().toISOString();
    this.#emit(job, false);
    const reporter: JobReporter = {
      started: async (baseVersion) => {
        job.baseVersion = baseVersion;
        await this.#save();
      },
      progress: (stage, done, total) => {
        job.progress = { stage, done, total };
        this.#emit(job, false);
      },
    };
    try {
      const result = await work.run(reporter);
      job.status = 'done';
      job.version = result.version;
      job.documents = result.documents ?? null;
    } catch (error) {
      const http = toHttpError(error);
      if (http.status >= 500) this.#onError(error, `job ${job.id} (${job.kind} ${job.index})`);
      job.status = 'failed';
      job.error = { code: http.code, message: http.message };
    }
    job.finishedAt = new Date().toISOString();
    try {
      await this.#save();
      // Once the journal says the job ended, its input is needed no more.
      await this.#journal?.inputs.remove(job.id);
    } catch (error) {
      this.#onError(error, `job journal after ${job.id}`);
    }
    this.#emit(job, true);
  }

  #emit(job: Job, final: boolean): void {
    for (const listener of this.#listeners.get(job.id) ?? []) listener({ ...job }, final);
    if (final) this.#listeners.delete(job.id);
  }

  /** Write the journal (when there is one), dropping the oldest finished jobs past the limit. */
  async #save(): Promise<void> {
    const finished = [...this.#jobs.values()].filter((j) => j.status === 'done' || j.status === 'failed');
    for (const old of finished.slice(0, Math.max(0, finished.length - KEEP_FINISHED)))
      this.#jobs.delete(old.id);
    if (this.#journal)
      await this.#journal.write([...this.#jobs.values()].filter((j) => !this.#unwritten.has(j.id)));
  }
}
