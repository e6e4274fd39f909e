/**
 * The job journal of a server on a folder: `.grag-jobs.json` in the folder, the jobs as JSON,
 * rewritten whole on every change of status (a temporary file renamed over it, so a crash leaves
 * the old journal or the new one). After a restart, {@link recoverJobs} tells what became of the
 * jobs that had not finished.
 */
import { randomBytes } from 'node:crypto';
import { readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Job } from './schema-jobs.js';

/** The journal's file name, in the served folder. */
export const JOURNAL_FILE = '.grag-jobs.json';

const FORMAT = 'grag-server-jobs';

/** Where the jobs of a folder are written. */
export interface JobJournal {
  readonly path: string;
  /** Write `jobs` as the journal (writes are made one after the other). */
  write(jobs: readonly Job[]): Promise<void>;
}

/** The journal of the folder `dir`. */
export function jobJournal(dir: string): JobJournal {
  const path = join(dir, JOURNAL_FILE);
  let chain: Promise<void> = Promise.resolve();
  return {
    path,
    write(jobs) {
      const text = `${JSON.stringify({ format: FORMAT, version: 1, jobs }, null, 1)}\n`;
      const next = chain.then(async () => {
        const tmp = `${path}.tmp-${process.pid}-${randomBytes(4).toString('hex')}`;
        try {
          await writeFile(tmp, text);
          await rename(tmp, path);
        } catch (error) {
          await rm(tmp, { force: true });
          throw error;
        }
      });
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

/**
 * The jobs of a journal after a restart: every job that had not finished is finished now, from
 * what the folder holds (`versions`: the version of each index loaded from it). A write saves its
 * new version in one atomic step, so each either landed whole or not at all:
 * - an update (`add-documents`, `remove-documents`) that was running landed when the index's
 *   version is no longer the one it started from: `done` with that version;
 * - a `create-index` landed when its index is there; a `delete-index` when its index is gone;
 * - anything else, and every job still queued, is `failed`: nothing of it was applied.
 */
export function recoverJobs(jobs: readonly Job[], versions: ReadonlyMap<string, string>): Job[] {
  const now = new Date().toISOString();
  return jobs.map((job) => {
    if (job.status === 'done' || job.status === 'failed') return job;
    const current = versions.get(job.index);
    let landed = false;
    if (job.status === 'running') {
      if (job.kind === 'create-index') landed = current !== undefined;
      else if (job.kind === 'delete-index') landed = current === undefined;
      else landed = job.baseVersion !== null && current !== undefined && current !== job.baseVersion;
    }
    if (landed) {
      return {
        ...job,
        status: 'done',
        version: job.kind === 'delete-index' ? null : (current ?? null),
        finishedAt: now,
      };
    }
    const state =
      current === undefined
        ? 'the index does not exist'
        : `the index "${job.index}" is at version ${current}`;
    return {
      ...job,
      status: 'failed',
      error: {
        code: 'interrupted',
        message: `The server stopped before this job ${job.status === 'queued' ? 'started' : 'finished'}; nothing of it was applied (${state}). Submit it again.`,
      },
      finishedAt: now,
    };
  });
}
