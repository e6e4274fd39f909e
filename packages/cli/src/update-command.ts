/**
 * `grag add <index> <path>...` and `grag remove <index> <doc-id>...`: change the corpus of an index
 * with the method's local update, and save it back in place, atomically (a directory, or with
 * `--store` an index in PostgreSQL).
 */
import { join, resolve } from 'node:path';
import {
  type Document,
  type IndexChange,
  InputError,
  InvalidArgumentError,
  type MeterSnapshot,
  StateError,
  type UpdateReport,
} from '@grag/core';
import { FileCallCache } from '@grag/core/kit';
import { countSkipped, formatSkipped, type SkipCounts } from './build-report.js';
import { checkCacheDir } from './cache-dir.js';
import type { CliIO } from './cli.js';
import type { GragConfig } from './config.js';
import {
  type Corpus,
  type CorpusSkip,
  IGNORE_FILE,
  type ReadCorpusOptions,
  readCorpus,
  supportedExtensions,
} from './corpus.js';
import { indexMethod } from './index-method.js';
import { printable, printableJson } from './printable.js';
import { createFileProgress, createProgressView } from './progress.js';
import { createProviders } from './providers.js';
import {
  defaultTargetCacheDir,
  type IndexTarget,
  indexTarget,
  lockSettings,
  readTargetManifest,
} from './store.js';

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
  /** How `add` reads its paths: loaders, fields, `include` / `exclude` globs. */
  corpus?: ReadCorpusOptions;
}

/** What `grag add` / `grag remove` print with `--json`. */
export interface UpdateSummary {
  /** The index directory, or the database URL without its password then `#<name>`. */
  index: string;
  method: string;
  report: UpdateReport;
  usage: MeterSnapshot['total'];
  /** Inputs of `add` that were not read (unsupported, damaged, binary, empty files; malformed records), and why. */
  skipped: CorpusSkip[];
  /** The same, counted: files and records by reason. */
  skippedCounts: SkipCounts;
}

/**
 * Documents of every path (files, folders, globs), read as `grag index` reads a corpus: a file that
 * cannot be indexed (unsupported, damaged, binary, empty) is skipped with one line, as inside a
 * directory, and the rest is indexed; only when no path gives a document is the add refused. An
 * id that two paths give is refused.
 */
async function readPaths(
  io: CliIO,
  paths: string[],
  options: ReadCorpusOptions,
  quiet: boolean,
): Promise<{ documents: Document[]; skipped: CorpusSkip[] }> {
  const tty = !quiet && (io.stderr as { isTTY?: boolean }).isTTY === true;
  const view = createProgressView(io.stderr as NodeJS.WriteStream, tty);
  const files = quiet ? undefined : createFileProgress(view, tty, { show: printable });
  let corpus: Corpus;
  try {
    corpus = await readCorpus(paths, {
      cwd: io.cwd,
      ...options,
      allowEmpty: true,
      ...(io.signal ? { signal: io.signal } : {}),
      ...(files ? { onFile: files.onFile } : {}),
    });
  } finally {
    files?.stop();
    view.done();
  }
  const { documents, skipped } = corpus;
  for (const skip of skipped)
    io.stderr.write(`grag: skipped ${printable(skip.path)}: ${printable(skip.reason)}\n`);
  for (const file of corpus.decoded)
    io.stderr.write(`grag: read ${printable(file.path)} as ${file.encoding} (${file.reason})\n`);
  if (documents.length === 0) {
    const [one] = paths;
    const what = paths.length === 1 && one !== undefined ? one : `the ${paths.length} paths given`;
    throw new InputError(
      one ?? '',
      `Nothing to add: ${what} ${paths.length === 1 ? 'has' : 'have'} no usable documents (${skipped.length} input${skipped.length === 1 ? '' : 's'} skipped, each named above${corpus.excluded ? `; ${corpus.excluded} left out by ${IGNORE_FILE}, --include or --exclude` : ''}). Add files with text (${supportedExtensions(options.loaders).join(', ')}).`,
    );
  }
  if (!quiet) {
    const line = formatSkipped(countSkipped(skipped));
    if (line) io.stderr.write(`grag: ${line}\n`);
  }
  return { documents, skipped };
}

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/** One line that says what an update changed and recomputed. */
function describe(summary: UpdateSummary): string {
  const { report, usage } = summary;
  const { added, replaced, removed } = report.documents;
  const docs = [
    `${plural(added.length, 'document')} added${summary.skipped.length ? ` (${plural(summary.skipped.length, 'input')} skipped)` : ''}`,
    ...(replaced.length ? [`${replaced.length} replaced`] : []),
    `${removed.length} removed`,
  ].join(', ');
  const chunks = `chunks −${report.chunks.removed} +${report.chunks.added} (${report.chunks.total} now)`;
  const calls = `${plural(usage.chatCalls, 'model call')}, ${plural(report.embedded, 'text')} embedded`;
  const global = report.global.length
    ? `; recomputed over the whole index: ${report.global.map((g) => g.stage).join(', ')}`
    : '';
  return `grag: updated ${printable(summary.index)} (${summary.method}): ${docs}; ${chunks}; ${calls}${global}`;
}

/**
 * Run `grag add` or `grag remove`: load the index in `<dir>` (or the index `<dir>` of the
 * `--store` database) with the providers its manifest names, apply the change with the method's
 * `update`, save the new version over it (the store replaces it atomically: a failure leaves the
 * old index served), and print what changed. The index (a directory, or one in PostgreSQL) is
 * locked from before it is read until the new version is stored, so two updates at once apply one
 * after the other (the second waits up to `config.lockWait` seconds, then is refused in one line
 * naming the first). Returns
 * the exit code; errors are thrown as `GragError`s for the CLI to print.
 */
export async function updateCommand(input: UpdateCommandInput): Promise<number> {
  const [dir] = input.args;
  const quiet = input.flags.quiet === true || input.flags.json === true;
  const target =
    dir === undefined
      ? undefined
      : await indexTarget(dir, input.store, { lock: lockSettings(input.config, input.io, dir, quiet) });
  try {
    return await update(input, target);
  } finally {
    await target?.close();
  }
}

async function update(
  { io, config, command, args, flags, corpus }: UpdateCommandInput,
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
  // Held from before the index is read until the new version is stored (a directory or
  // PostgreSQL; a store without a lock serialises its single writes only).
  const lock = await where.store.lock?.(io.signal ? { signal: io.signal } : {});
  try {
    return await updateLocked({ io, config, command, args, flags, ...(corpus ? { corpus } : {}) }, where);
  } finally {
    await lock?.release();
  }
}

async function updateLocked(
  { io, config, command, args, flags, corpus }: UpdateCommandInput,
  where: IndexTarget,
): Promise<number> {
  const rest = args.slice(1);
  const manifest = await readTargetManifest(where);
  const entry = indexMethod(where.location, manifest.method);
  const { method } = entry;
  if (!method.update)
    throw new StateError(`${entry.name} indexes cannot be updated yet; rebuild with grag index`);
  const quietRead = flags.quiet === true || flags.json === true;
  const read = command === 'add' ? await readPaths(io, rest, corpus ?? {}, quietRead) : undefined;
  const change: IndexChange = read ? { add: read.documents } : { remove: rest };
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
    skipped: read?.skipped ?? [],
    skippedCounts: countSkipped(read?.skipped ?? []),
  };
  if (flags.json) io.stdout.write(`${printableJson(result)}\n`);
  else io.stdout.write(`${describe(result)}\n`);
  if (!quiet) {
    for (const g of report.global) io.stderr.write(`grag: ${g.stage}: ${printable(g.reason)}\n`);
    for (const [key, note] of Object.entries(report.trace)) {
      if (typeof note === 'string') io.stderr.write(`grag: ${printable(key)}: ${printable(note)}\n`);
    }
  }
  return 0;
}
