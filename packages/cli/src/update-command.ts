/**
 * `grag add <index> <path>...` and `grag remove <index> <doc-id>...`: change the corpus of an index
 * with the method's local update, and save it back in place, atomically (a directory, or with
 * `--store` an index in PostgreSQL).
 */
import { join, resolve } from 'node:path';
import {
  type Document,
  FileCallCache,
  type IndexChange,
  InvalidArgumentError,
  type MeterSnapshot,
  StateError,
  type UpdateReport,
} from '@grag/core';
import { checkCacheDir } from './cache-dir.js';
import type { CliIO } from './cli.js';
import type { GragConfig } from './config.js';
import { readCorpus } from './corpus.js';
import { createProgressView } from './progress.js';
import { createProviders } from './providers.js';
import { findMethod, METHODS } from './registry.js';
import { defaultTargetCacheDir, type IndexTarget, indexTarget, readTargetManifest } from './store.js';

/** Help lines of `grag add` and `grag remove` under Commands. */
export const UPDATE_USAGE = `  add <dir> <path>...                        index more .txt/.md/.jsonl files into an index (an existing id is replaced)
  remove <dir> <doc-id>...                   remove documents from an index`;

/** What `grag add` / `grag remove` were given. */
export interface UpdateCommandInput {
  io: CliIO;
  config: GragConfig;
  command: 'add' | 'remove';
  /** The index directory (or name, with a store), then paths (add) or document ids (remove). */
  args: string[];
  flags: { json?: boolean; quiet?: boolean; 'no-cache'?: boolean; full?: boolean };
  /** The `--store` / `GRAG_STORE` database URL; `undefined`: the index is a directory. */
  store?: string | undefined;
}

/** What `grag add` / `grag remove` print with `--json`. */
export interface UpdateSummary {
  /** The index directory, or the database URL without its password then `#<name>`. */
  index: string;
  method: string;
  report: UpdateReport;
  usage: MeterSnapshot['total'];
}

/** Documents of every path, read as `grag index` reads a corpus; an id given twice is refused. */
async function readPaths(io: CliIO, paths: string[]): Promise<Document[]> {
  const documents: Document[] = [];
  const from = new Map<string, string>();
  for (const path of paths) {
    const corpus = await readCorpus(path);
    for (const skip of corpus.skipped) io.stderr.write(`grag: skipped ${skip.path}: ${skip.reason}\n`);
    for (const file of corpus.decoded)
      io.stderr.write(`grag: read ${file.path} as ${file.encoding} (${file.reason})\n`);
    for (const doc of corpus.documents) {
      const first = from.get(doc.id);
      if (first !== undefined) {
        throw new InvalidArgumentError(
          'path',
          `The document id ${JSON.stringify(doc.id)} comes from both ${first} and ${path}; add them in separate commands or rename one.`,
        );
      }
      from.set(doc.id, path);
      documents.push(doc);
    }
  }
  return documents;
}

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/** One line that says what an update changed and recomputed. */
function describe(summary: UpdateSummary): string {
  const { report, usage } = summary;
  const { added, replaced, removed } = report.documents;
  const docs = [
    `${plural(added.length, 'document')} added`,
    ...(replaced.length ? [`${replaced.length} replaced`] : []),
    `${removed.length} removed`,
  ].join(', ');
  const chunks = `chunks −${report.chunks.removed} +${report.chunks.added} (${report.chunks.total} now)`;
  const calls = `${plural(usage.chatCalls, 'model call')}, ${plural(report.embedded, 'text')} embedded`;
  const global = report.global.length
    ? `; recomputed over the whole index: ${report.global.map((g) => g.stage).join(', ')}`
    : '';
  return `grag: updated ${summary.index} (${summary.method}): ${docs}; ${chunks}; ${calls}${global}`;
}

/**
 * Run `grag add` or `grag remove`: load the index in `<dir>` (or the index `<dir>` of the
 * `--store` database) with the providers its manifest names, apply the change with the method's
 * `update`, save the new version over it (the store replaces it atomically: a failure leaves the
 * old index served), and print what changed. Two updates of one index at once each apply to the
 * version they loaded, and the one stored last wins: run them one after the other. Returns the exit
 * code; errors are thrown as `GragError`s for the CLI to print.
 */
export async function updateCommand(input: UpdateCommandInput): Promise<number> {
  const [dir] = input.args;
  const target = dir === undefined ? undefined : await indexTarget(dir, input.store);
  try {
    return await update(input, target);
  } finally {
    await target?.close();
  }
}

async function update(
  { io, config, command, args, flags }: UpdateCommandInput,
  target: IndexTarget | undefined,
): Promise<number> {
  const [dir, ...rest] = args;
  const what = command === 'add' ? '<path>...' : '<doc-id>...';
  if (!dir || rest.length === 0) {
    throw new InvalidArgumentError(
      command === 'add' ? 'path' : 'id',
      `Usage: grag ${command} <dir> ${what} (the index directory, then ${command === 'add' ? 'files or directories to index' : 'ids of indexed documents'}).`,
    );
  }
  const where = target as IndexTarget;
  const manifest = await readTargetManifest(where);
  const entry = findMethod(manifest.method);
  if (!entry) {
    throw new InvalidArgumentError(
      'index',
      `${where.location} holds a '${manifest.method}' index, which this grag does not know. Available: ${METHODS.map((m) => m.name).join(', ')}.`,
    );
  }
  const { method } = entry;
  if (!method.update)
    throw new StateError(`${entry.name} indexes cannot be updated yet; rebuild with grag index`);
  const change: IndexChange = command === 'add' ? { add: await readPaths(io, rest) } : { remove: rest };
  const cacheDir = resolve(config.cacheDir ?? defaultTargetCacheDir(where, io.cwd));
  const useCache = flags['no-cache'] !== true;
  if (useCache) await checkCacheDir(cacheDir);
  const { ctx, summary } = createProviders(config, {
    manifest,
    ...(useCache ? { cache: new FileCallCache(join(cacheDir, 'calls')) } : {}),
  });
  const quiet = flags.quiet === true || flags.json === true;
  // Removing calls no model: the line that says which models run is for additions.
  if (!quiet && command === 'add') io.stderr.write(`${summary}\n`);
  const progress = createProgressView(
    io.stderr as NodeJS.WriteStream,
    !quiet && (io.stderr as { isTTY?: boolean }).isTTY === true,
  );
  if (!quiet) ctx.onProgress = progress.report;
  if (io.signal) ctx.signal = io.signal;
  ctx.runtime = { concurrency: config.concurrency };
  const index = await method.load(where.store, ctx);
  let report: UpdateReport;
  let updated: unknown;
  try {
    ({ index: updated, report } = await method.update(index, change, ctx, { full: flags.full === true }));
  } finally {
    progress.done();
  }
  await method.save(updated, where.store);
  const result: UpdateSummary = {
    index: where.location,
    method: entry.name,
    report,
    usage: ctx.meter.snapshot().total,
  };
  if (flags.json) io.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
  else io.stdout.write(`${describe(result)}\n`);
  if (!quiet) {
    for (const g of report.global) io.stderr.write(`grag: ${g.stage}: ${g.reason}\n`);
    for (const [key, note] of Object.entries(report.trace)) {
      if (typeof note === 'string') io.stderr.write(`grag: ${key}: ${note}\n`);
    }
  }
  return 0;
}
