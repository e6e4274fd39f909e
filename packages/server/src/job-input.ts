/**
 * The inputs of journaled jobs: what a job needs to run again after a restart (the documents of an
 * upload or a new index, the ids to remove), one JSON file per job in `.grag-jobs/` beside the
 * journal, written durably (a temporary file written and synced, then renamed over, the folder
 * synced) before the job is acknowledged, and removed when the job ends.
 */
import { randomBytes } from 'node:crypto';
import { mkdir, open, readdir, readFile, rename, rm, rmdir } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { Document } from '@grag/core';
import type { Job } from './schema-jobs.js';

/** The folder of the job inputs, beside the journal. */
export const JOB_INPUTS_DIR = '.grag-jobs';

const FORMAT = 'grag-server-job-input';

/** What a job runs from, by kind. */
export type JobInput =
  | { kind: 'add-documents'; documents: readonly Document[] }
  | { kind: 'remove-documents'; ids: readonly string[] }
  | { kind: 'create-index'; method: string; options: Record<string, unknown>; documents: Document[] }
  | { kind: 'delete-index' };

/** A job id that can name its input file (a server's ids are UUIDs). */
const FILE_ID = /^[A-Za-z0-9_-]{1,100}$/;
/** The names grag writes in the inputs folder: `<id>.json` and its temporary files. */
const INPUT_FILE = /^([A-Za-z0-9_-]{1,100})\.json(?:\.tmp-\d+-[0-9a-f]{8})?$/;

/** Write `text` to `path` durably: a synced temporary file renamed over it, then the folder synced. */
export async function writeDurably(path: string, text: string): Promise<void> {
  const tmp = `${path}.tmp-${process.pid}-${randomBytes(4).toString('hex')}`;
  try {
    const file = await open(tmp, 'w');
    try {
      await file.writeFile(text);
      await file.sync();
    } finally {
      await file.close();
    }
    await rename(tmp, path);
  } catch (error) {
    await rm(tmp, { force: true });
    throw error;
  }
  await syncFolder(dirname(path));
}

/** Sync a folder's entries (a rename in it) to disk; a platform that cannot (Windows) is let be. */
async function syncFolder(dir: string): Promise<void> {
  const handle = await open(dir, 'r').catch(() => undefined);
  if (!handle) return;
  try {
    await handle.sync();
  } catch {
    // EISDIR/EPERM where folders cannot be synced: the rename is as durable as the platform makes it.
  } finally {
    await handle.close();
  }
}

/** The inputs of the jobs journaled in the folder `dir`. */
export class JobInputs {
  readonly dir: string;
  /** Writes and removals one after the other (a removal takes the folder away once it is empty). */
  #chain: Promise<unknown> = Promise.resolve();

  constructor(journalDir: string) {
    this.dir = join(journalDir, JOB_INPUTS_DIR);
  }

  /** The file of job `id`'s input. */
  path(id: string): string {
    return join(this.dir, `${id}.json`);
  }

  /** Write the input of `job` durably. */
  async put(job: Pick<Job, 'id' | 'kind' | 'index'>, input: JobInput): Promise<void> {
    if (!FILE_ID.test(job.id)) throw new Error(`Job id ${JSON.stringify(job.id)} cannot name a file.`);
    const text = JSON.stringify({ format: FORMAT, version: 1, id: job.id, index: job.index, input });
    await this.#serial(async () => {
      await mkdir(this.dir, { recursive: true });
      await writeDurably(this.path(job.id), text);
    });
  }

  #serial(step: () => Promise<void>): Promise<void> {
    const next = this.#chain.then(step);
    this.#chain = next.catch(() => {});
    return next;
  }

  /**
   * The input of `job`, or an `Error` whose message is one line saying why it cannot be had
   * (missing, not JSON, not this job's, not a job input).
   */
  async read(job: Pick<Job, 'id' | 'kind' | 'index'>): Promise<JobInput | Error> {
    if (!FILE_ID.test(job.id)) return new Error(`the job id ${JSON.stringify(job.id)} names no input file`);
    const path = this.path(job.id);
    let text: string;
    try {
      text = await readFile(path, 'utf8');
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      return new Error(
        `its journaled input ${path} ${code === 'ENOENT' ? 'is missing' : `cannot be read (${code})`}`,
      );
    }
    let parsed: { format?: unknown; id?: unknown; index?: unknown; input?: unknown };
    try {
      parsed = JSON.parse(text) as typeof parsed;
    } catch {
      return new Error(`its journaled input ${path} is not JSON (cut short or damaged)`);
    }
    if (typeof parsed !== 'object' || parsed === null || parsed.format !== FORMAT) {
      return new Error(`its journaled input ${path} is not a grag job input`);
    }
    if (parsed.id !== job.id || parsed.index !== job.index) {
      return new Error(`its journaled input ${path} is the input of another job`);
    }
    const why = badInput(parsed.input, job.kind);
    return why === undefined ? (parsed.input as JobInput) : new Error(`its journaled input ${path} ${why}`);
  }

  /** Remove the input of job `id` (and the inputs folder once it is empty). */
  async remove(id: string): Promise<void> {
    if (!FILE_ID.test(id)) return;
    await this.#serial(async () => {
      await rm(this.path(id), { force: true });
      await rmdir(this.dir).catch(() => {});
    });
  }

  /** Remove every input file grag wrote but those of the jobs `keep` (their jobs ended or are unknown). */
  async prune(keep: ReadonlySet<string>): Promise<void> {
    let names: string[];
    try {
      names = await readdir(this.dir);
    } catch {
      return;
    }
    for (const name of names) {
      const match = INPUT_FILE.exec(name);
      if (match && !(name.endsWith('.json') && keep.has(match[1] as string))) {
        await rm(join(this.dir, name), { force: true });
      }
    }
    await rmdir(this.dir).catch(() => {});
  }
}

function isDocuments(value: unknown): value is Document[] {
  return (
    Array.isArray(value) &&
    value.every(
      (d) =>
        typeof d === 'object' &&
        d !== null &&
        typeof (d as Document).id === 'string' &&
        typeof (d as Document).text === 'string',
    )
  );
}

/** Why `input` is not the input of a job of `kind`, or `undefined` when it is. */
function badInput(input: unknown, kind: Job['kind']): string | undefined {
  if (typeof input !== 'object' || input === null) return 'holds no input';
  const i = input as Record<string, unknown>;
  if (i.kind !== kind) return `is the input of a ${String(i.kind)} job, not of this ${kind} job`;
  if (kind === 'add-documents' && !isDocuments(i.documents)) return 'holds no documents';
  if (kind === 'remove-documents' && !(Array.isArray(i.ids) && i.ids.every((id) => typeof id === 'string')))
    return 'holds no document ids';
  if (kind === 'create-index') {
    if (typeof i.method !== 'string' || typeof i.options !== 'object' || i.options === null)
      return 'holds no method and options';
    if (!isDocuments(i.documents)) return 'holds no documents';
  }
  return undefined;
}
