/**
 * The job journal of a server on a folder (or of a server with a jobs folder): `.grag-jobs.json` in
 * the folder, the jobs as JSON, rewritten whole on every change of status (a synced temporary file
 * renamed over it, so a crash leaves the old journal or the new one), and the input of every job
 * that has not ended in `.grag-jobs/` beside it (job-input.ts). After a restart,
 * {@link openJobJournal} tells what became of the jobs that had not finished, and which to resume.
 */
import { mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { IndexManifest } from '@grag/core';
import { manifestVersion } from './indexes.js';
import { type JobInput, JobInputs, writeDurably } from './job-input.js';
import type { Job } from './schema-jobs.js';

/** The journal's file name, in the served folder. */
export const JOURNAL_FILE = '.grag-jobs.json';

const FORMAT = 'grag-server-jobs';

/** Where the jobs of a folder are written. */
export interface JobJournal {
  readonly path: string;
  /** The inputs of the jobs that have not ended (`.grag-jobs/<id>.json`). */
  readonly inputs: JobInputs;
  /** Write `jobs` as the journal (writes are made one after the other). */
  write(jobs: readonly Job[]): Promise<void>;
}

/** The journal of the folder `dir`. */
export function jobJournal(dir: string): JobJournal {
  const path = join(dir, JOURNAL_FILE);
  let chain: Promise<void> = Promise.resolve();
  return {
    path,
    inputs: new JobInputs(dir),
    write(jobs) {
      const text = `${JSON.stringify({ format: FORMAT, version: 1, jobs }, null, 1)}\n`;
      const next = chain.then(() => writeDurably(path, text));
      chain = next.catch(() => {});
      return next;
    },
  };
}

/** The jobs of the journal at `path` (none when there is no journal; unreadable: an error naming it). */
export async function readJournal(path: string): Promise<Job[]> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
  let parsed: { format?: unknown; jobs?: unknown };
  try {
    parsed = JSON.parse(text) as typeof parsed;
  } catch {
    throw new Error(`${path} is not JSON; move it away to start with no job history.`);
  }
  if (parsed.format !== FORMAT || !Array.isArray(parsed.jobs)) {
    throw new Error(`${path} is not a grag job journal; move it away to start with no job history.`);
  }
  return parsed.jobs as Job[];
}

/** Whether the unfinished `job` landed before the server stopped, by the version of its index now. */
function landed(job: Job, current: string | undefined): boolean {
  if (job.status !== 'running') return false;
  if (job.kind === 'create-index') return current !== undefined;
  if (job.kind === 'delete-index') return current === undefined;
  return job.baseVersion !== null && current !== undefined && current !== job.baseVersion;
}

/** How {@link recoverJobs} settles the jobs that did not land. */
export interface Recovery {
  /** The jobs to run again (their input was read back): `queued` again. */
  resume?: ReadonlySet<string>;
  /** Why a job could not be resumed (its input could not be read back), by id. */
  reasons?: ReadonlyMap<string, string>;
}

/**
 * The jobs of a journal after a restart: every job that had not finished is settled now, from
 * what the folder or store holds (`versions`: the version of each index served). A write saves its
 * new version in one atomic step, so each either landed whole or not at all:
 * - an update (`add-documents`, `remove-documents`) that was running landed when the index's
 *   version is no longer the one it started from: `done` with that version;
 * - a `create-index` landed when its index is there; a `delete-index` when its index is gone;
 * - anything else, and every job still queued, did not land: `queued` again when it is in
 *   `recovery.resume`, else `failed` (nothing of it was applied; the reason names why it is not
 *   resumed when `recovery.reasons` has one).
 */
export function recoverJobs(
  jobs: readonly Job[],
  versions: ReadonlyMap<string, string>,
  recovery: Recovery = {},
): Job[] {
  const now = new Date().toISOString();
  return jobs.map((job) => {
    if (job.status === 'done' || job.status === 'failed') return job;
    const current = versions.get(job.index);
    if (landed(job, current)) {
      return {
        ...job,
        status: 'done',
        version: job.kind === 'delete-index' ? null : (current ?? null),
        finishedAt: now,
      };
    }
    if (recovery.resume?.has(job.id)) {
      return { ...job, status: 'queued', progress: null, baseVersion: null, startedAt: null };
    }
    const state =
      current === undefined
        ? 'the index does not exist'
        : `the index "${job.index}" is at version ${current}`;
    const when = job.status === 'queued' ? 'started' : 'finished';
    const reason = recovery.reasons?.get(job.id);
    return {
      ...job,
      status: 'failed',
      error: {
        code: 'interrupted',
        message: `The server stopped before this job ${when}${reason ? ` and cannot resume it: ${reason}` : ''}; nothing of it was applied (${state}). Submit it again.`,
      },
      finishedAt: now,
    };
  });
}

/** A job of the journal to run again, with its input read back. */
export interface ResumableJob {
  job: Job;
  input: JobInput;
}

/** A job journal, opened: see {@link openJobJournal}. */
export interface OpenedJobJournal {
  /** The journal (`.grag-jobs.json` and `.grag-jobs/` in the folder). */
  readonly journal: JobJournal;
  /** The jobs of the journal, those that had not finished settled now (see `recoverJobs`). */
  readonly jobs: Job[];
  /** The jobs to run again, in the order they were submitted (`queued` in `jobs`). */
  readonly resume: ResumableJob[];
}

/** Options of {@link openJobJournal}. */
export interface OpenJobJournalOptions {
  /** The indexes the server serves, by name, with the manifest of the version each is at. */
  indexes: readonly { readonly name: string; readonly manifest: IndexManifest }[];
  /**
   * Run again the jobs a stop interrupted (queued, or running and not saved), from their journaled
   * input; `false` reports them `failed` (`interrupted`). @default true
   */
  resumeJobs?: boolean;
}

/**
 * Open the job journal of the folder `dir` (made when it does not exist) after a restart: the jobs
 * that were running when the server stopped are `done` when their new version was saved; the
 * others are queued to run again from their journaled input (`resume`), or `failed` with the reason
 * when their input cannot be read back or `resumeJobs` is `false`. Inputs of ended jobs are
 * removed, and the settled journal is written. Throws for a journal that is not one, naming it.
 *
 * @example
 * ```ts
 * const indexes = [{ ...(await loadIndex(store, { methods, context })), name: 'notes' }];
 * const jobs = await openJobJournal('./jobs', { indexes });
 * const server = await serve({ indexes, jobs, createTarget: (name) => postgresStore({ url, index: name }) });
 * ```
 */
export async function openJobJournal(dir: string, options: OpenJobJournalOptions): Promise<OpenedJobJournal> {
  await mkdir(dir, { recursive: true });
  const journal = jobJournal(dir);
  const versions = new Map(options.indexes.map((ix) => [ix.name, manifestVersion(ix.manifest)]));
  const read = await readJournal(journal.path);
  const inputs = new Map<string, JobInput>();
  const reasons = new Map<string, string>();
  if (options.resumeJobs ?? true) {
    for (const job of read) {
      if (job.status !== 'queued' && job.status !== 'running') continue;
      if (landed(job, versions.get(job.index))) continue;
      const input = await journal.inputs.read(job);
      if (input instanceof Error) reasons.set(job.id, input.message);
      else inputs.set(job.id, input);
    }
  }
  const jobs = recoverJobs(read, versions, { resume: new Set(inputs.keys()), reasons });
  await journal.inputs.prune(new Set(inputs.keys()));
  await journal.write(jobs);
  const resume = jobs
    .filter((job) => inputs.has(job.id))
    .map((job) => ({ job, input: inputs.get(job.id) as JobInput }));
  return { journal, jobs, resume };
}
