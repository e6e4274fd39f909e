/**
 * The files of an evaluation run (`results.jsonl`, `builds.jsonl`, `sessions.jsonl`,
 * `judgments.jsonl`, `run.json`): their names, the output-directory check, fingerprints of what a run
 * evaluates, and JSONL reading and appending.
 */
import { createHash } from 'node:crypto';
import { appendFileSync, existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { type BuildContext, modelFingerprint, OutputError } from '@grag/core';
import type { EvalDataset, SkippedRecord } from './datasets/types.js';

export const RESULTS_FILE = 'results.jsonl';
export const BUILDS_FILE = 'builds.jsonl';
export const SESSIONS_FILE = 'sessions.jsonl';
export const JUDGMENTS_FILE = 'judgments.jsonl';
export const MANIFEST_FILE = 'run.json';

/**
 * Refuse an output directory that holds files of someone else's: `out` must not exist, be empty,
 * or hold an earlier run (its manifest or results files), so a run never overwrites a user's file.
 */
export function assertEvalOutput(out: string): void {
  let entries: string[];
  try {
    if (!statSync(out).isDirectory())
      throw new OutputError(
        out,
        `runEval: the output ${out} is an existing file; choose a new or empty directory for the run.`,
      );
    entries = readdirSync(out);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
    if (OutputError.isInstance(error)) throw error;
    throw new OutputError(
      out,
      `runEval: cannot read the output directory ${out} (${(error as NodeJS.ErrnoException).code}).`,
      {
        cause: error,
      },
    );
  }
  // What a run (or the CLI's call cache beside it) writes; a run stopped early may have only some.
  const ours = [
    MANIFEST_FILE,
    RESULTS_FILE,
    BUILDS_FILE,
    SESSIONS_FILE,
    JUDGMENTS_FILE,
    'indexes',
    '.grag-cache',
  ];
  if (entries.length > 0 && !entries.some((name) => ours.includes(name))) {
    throw new OutputError(
      out,
      `runEval: the output directory ${out} exists and holds no earlier evaluation (no ${MANIFEST_FILE} or ${RESULTS_FILE}); choose a new or empty directory so no file of yours is overwritten.`,
    );
  }
}

export const VERSION: string = (() => {
  try {
    return (
      JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }
    ).version;
  } catch {
    return 'unknown';
  }
})();

export function stableJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stableJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined && typeof v !== 'function')
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${stableJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

export const sha1 = (text: string) => createHash('sha1').update(text).digest('hex');

/** A content fingerprint of a dataset: its documents and questions (ids, texts, answers). */
export function datasetFingerprint(dataset: Pick<EvalDataset, 'corpus' | 'questions'>): string {
  const hash = createHash('sha1');
  for (const d of dataset.corpus) hash.update(`${d.id}\u0000${d.title ?? ''}\u0000${d.text}\u0001`);
  for (const q of dataset.questions)
    hash.update(
      `${q.id}\u0000${q.question}\u0000${q.answers.join('\u0002')}\u0000${q.supporting.join('\u0002')}\u0001`,
    );
  return hash.digest('hex').slice(0, 16);
}

/** Fingerprints of the providers in a context, for manifests and settings keys. */
export function providerFingerprint(ctx: BuildContext): Record<string, string> {
  const out: Record<string, string> = {
    embedder: modelFingerprint(ctx.embedder),
    tasks: ctx.tasks.id,
    tokenizer: String(ctx.tokenizer.name),
    vectorIndex: ctx.vectorIndex.kind,
  };
  if (ctx.chat) out.chat = modelFingerprint(ctx.chat);
  return out;
}

/** Read a JSONL file of records written by the runner; unreadable lines are skipped and reported. */
export function readJsonlRecords<T>(path: string, skipped: SkippedRecord[]): T[] {
  if (!existsSync(path)) return [];
  const out: T[] = [];
  readFileSync(path, 'utf8')
    .split('\n')
    .forEach((line, i) => {
      if (line.trim() === '') return;
      try {
        out.push(JSON.parse(line) as T);
      } catch (error) {
        skipped.push({
          path,
          line: i + 1,
          reason: `not valid JSON (${(error as Error).message}), e.g. cut short by an interrupted run`,
        });
      }
    });
  return out;
}

/** Append one record; a previous line cut off by a crash is ended first so it cannot swallow this one. */
export function appendRecord(path: string, record: unknown): void {
  if (existsSync(path)) {
    const text = readFileSync(path);
    if (text.length > 0 && text[text.length - 1] !== 0x0a) appendFileSync(path, '\n');
  }
  appendFileSync(path, `${JSON.stringify(record)}\n`);
}

export function safeName(label: string): string {
  return label.replace(/[^A-Za-z0-9._-]+/g, '_');
}
