/**
 * `grag index <path> --method <name> --out <dir | name>`: read a corpus, build an index with the
 * call cache and checkpoints of the cache directory, and store it (a directory, or an index in
 * PostgreSQL with `--store`); or, with `--estimate`, count what a build would call.
 */
import { existsSync } from 'node:fs';
import { mkdir, readdir, realpath, rmdir, writeFile } from 'node:fs/promises';
import { basename, dirname, join, resolve, sep } from 'node:path';
import {
  AbortError,
  type BuildContext,
  type BuildRun,
  type Document,
  InvalidArgumentError,
  type MeterSnapshot,
  modelFingerprint,
  type TaskSuite,
} from '@grag/core';
import {
  assertMethodOptions,
  buildKey,
  createBuildContext,
  FileCallCache,
  FileCheckpointStore,
} from '@grag/core/kit';
import { checkIndexTarget } from '@grag/core/store';
import { loadKgTriples } from '@grag/eval';
import {
  countSkipped,
  formatEstimate,
  formatInput,
  formatSkipped,
  formatTasksLine,
  formatUsage,
  readPrices,
  type SkipCounts,
} from './build-report.js';
import { checkCacheDir } from './cache-dir.js';
import type { CliIO } from './cli.js';
import type { GragConfig } from './config.js';
import {
  type CorpusSkip,
  corpusRoots,
  type DecodedInput,
  IGNORE_FILE,
  type ReadCorpusOptions,
  readCorpus,
} from './corpus.js';
import { choosePreset } from './presets.js';
import { printable } from './printable.js';
import { createFileProgress, createProgressView, type ProgressView } from './progress.js';
import { createEstimateProviders, createProviders } from './providers.js';
import { findMethod, METHODS, type MethodEntry } from './registry.js';
import { createSimulatedEmbedder } from './simulate.js';
import { defaultTargetCacheDir, type IndexTarget, readTargetManifest } from './store.js';

/** What `grag index` read, for the build and its report. */
interface IndexInput {
  documents: Document[];
  skipped: CorpusSkip[];
  /** Files decoded from an encoding other than UTF-8. */
  decoded?: DecodedInput[];
  description: string;
  /** Files that gave documents (0 for a triple directory). */
  files: number;
  methodOptions: Record<string, unknown>;
}

/**
 * Read what `grag index` was pointed at: a knowledge-graph triple directory (train.tsv + entity2text.txt,
 * as FB15k-237 ships) for a method that indexes triples, else a text corpus of files, folders and
 * globs read through the loaders.
 */
async function readInput(
  paths: readonly string[],
  entry: MethodEntry,
  methodOptions: Record<string, unknown>,
  options: ReadCorpusOptions,
): Promise<IndexInput> {
  const [given] = paths;
  const path = given === undefined ? undefined : resolve(options.cwd ?? '.', given);
  if (paths.length === 1 && path !== undefined && isTripleDirectory(path)) {
    if (!entry.indexesTriples) {
      throw new InvalidArgumentError(
        'path',
        `${given} holds knowledge-graph triples; ${entry.name} indexes text. Use --method ${METHODS.filter(
          (m) => m.indexesTriples,
        )
          .map((m) => m.name)
          .join(' or ')}, or pass a directory of documents.`,
      );
    }
    const kg = loadKgTriples(path, { malformed: 'skip' });
    return {
      documents: [],
      skipped: kg.skipped.map((s) => ({
        path: `${s.path}${s.line ? `:${s.line}` : ''}`,
        reason: s.reason,
        kind: 'record' as const,
      })),
      description: `${kg.triples.length} triples over ${kg.entities.size} named entities from ${given}`,
      files: 0,
      methodOptions: {
        ...methodOptions,
        triples: kg.triples,
        entityText: kg.entities,
        relationText: kg.relations,
      },
    };
  }
  const corpus = await readCorpus(paths, options);
  return {
    documents: corpus.documents,
    skipped: corpus.skipped,
    decoded: corpus.decoded,
    description:
      `${corpus.documents.length} documents from ${corpus.files} files` +
      (corpus.excluded ? ` (${corpus.excluded} left out by ${IGNORE_FILE}, --include or --exclude)` : ''),
    files: corpus.files,
    methodOptions,
  };
}

/** A directory with a triple file and entity names, in the FB15k-237 layout. */
function isTripleDirectory(path: string): boolean {
  return (
    (existsSync(join(path, 'train.tsv')) || existsSync(join(path, 'train.txt'))) &&
    existsSync(join(path, 'entity2text.txt'))
  );
}

/** Where `grag index --out <out>` keeps its call cache and checkpoints. */
export function defaultCacheDir(out: string): string {
  return join(dirname(resolve(out)), '.grag-cache');
}

/**
 * Refuse an `--out` that would lose a user's files before anything is built: it must be new, empty
 * or a grag index ({@link checkIndexTarget}), and neither the corpus nor inside it, nor hold it.
 */
async function checkOutDir(corpusPaths: readonly string[], out: string, cwd: string): Promise<void> {
  for (const path of corpusRoots(corpusPaths, cwd)) await checkOutAgainst(path, out);
  await checkIndexTarget(out);
}

/** Refuse an `--out` that is the corpus path `corpusPath`, inside it, or holds it. */
async function checkOutAgainst(corpusPath: string, out: string): Promise<void> {
  const real = async (path: string) => {
    const full = resolve(path);
    // The deepest existing ancestor, resolved through links, plus what does not exist yet.
    let at = full;
    let rest = '';
    for (;;) {
      try {
        return join(await realpath(at), rest);
      } catch {
        const parent = dirname(at);
        if (parent === at) return full;
        rest = join(basename(at), rest);
        at = parent;
      }
    }
  };
  const [corpus, target] = await Promise.all([real(corpusPath), real(out)]);
  const inside = (child: string, parent: string) =>
    child === parent || child.startsWith(parent.endsWith(sep) ? parent : parent + sep);
  if (inside(target, corpus)) {
    throw new InvalidArgumentError(
      'out',
      `--out ${out} is ${target === corpus ? 'the corpus itself' : `inside the corpus ${corpusPath}`}; write the index outside the corpus, e.g. --out ${join(dirname(corpus), `${basename(corpus)}-index`)}.`,
    );
  }
  if (inside(corpus, target)) {
    throw new InvalidArgumentError(
      'out',
      `--out ${out} contains the corpus ${corpusPath}, and replacing it would delete the corpus; choose another --out.`,
    );
  }
}

/**
 * Check the values of the method options before the corpus is read, so a bad `--set` value is
 * refused at once: a method checks its options before anything else, so a build of no documents
 * says what is wrong with them, and otherwise only that the corpus is empty (which is ignored
 * here). No model is called.
 */
async function checkOptionValues(entry: MethodEntry, methodOptions: Record<string, unknown>): Promise<void> {
  if (Object.keys(methodOptions).length === 0) return;
  // Providers that call nothing: the check never gets past the options.
  const ctx = createBuildContext({
    embedder: createSimulatedEmbedder({ provider: 'check', modelId: 'check', dimensions: 8 }),
    tasks: { id: 'check' } as TaskSuite,
  });
  try {
    await entry.method.build([], ctx, methodOptions);
  } catch (error) {
    // 'docs': the empty corpus, which is all that is wrong once the options passed.
    if (InvalidArgumentError.isInstance(error) && error.argument !== 'docs') throw error;
  }
}

/** Flags of {@link buildIndex}. */
export interface IndexFlags {
  quiet: boolean;
  estimate?: boolean;
  noCache?: boolean;
  json?: boolean;
  /** How to read the corpus: loaders, fields, `include` / `exclude` globs (progress is added here). */
  corpus?: ReadCorpusOptions;
  /**
   * The cache directory when `config.cacheDir` is not set (default: next to a directory `out`, in
   * the working directory for an index in a database; none for an estimate without `--out`).
   */
  defaultCacheDir?: string;
}

/**
 * Build an index of the files, folders and globs `corpusPaths` with `methodName` and store it in `out` (a directory or an index
 * in a database; not used by an estimate). The target is checked before anything is read: a
 * directory must be new, empty or a grag index, and a database must be reachable and hold no
 * schema grag did not write. Completed model calls and finished stages are kept in the cache
 * directory, so a build that was stopped or killed resumes when run again; the store makes the
 * new version visible at once when it is complete, so the previous one is served until then.
 */
export async function buildIndex(
  io: CliIO,
  corpusPaths: string | readonly string[],
  methodName: string,
  out: IndexTarget | undefined,
  config: GragConfig,
  methodOptions: Record<string, unknown>,
  flags: IndexFlags,
): Promise<{ ctx: BuildContext; docs: number; chunks: unknown }> {
  const { quiet } = flags;
  const paths = typeof corpusPaths === 'string' ? [corpusPaths] : [...corpusPaths];
  const entry = findMethod(methodName);
  if (!entry) {
    throw new InvalidArgumentError(
      'method',
      `Unknown method "${methodName}". Available: ${METHODS.map((m) => m.name).join(', ')}.`,
    );
  }
  // Checked before anything is read or printed, so a misspelt --set key is the only line.
  assertMethodOptions(entry.method, 'build', methodOptions);
  await checkOptionValues(entry, methodOptions);
  if (!flags.estimate) {
    if (out === undefined) throw new InvalidArgumentError('out', 'Missing --out: where to write the index.');
    // A database is reached here, so a wrong URL fails before any model call.
    if (out.kind === 'directory') await checkOutDir(paths, out.location, io.cwd);
    else await out.store.target();
  }
  const progress = createProgressView(
    io.stderr as NodeJS.WriteStream,
    !quiet && (io.stderr as { isTTY?: boolean }).isTTY === true,
  );
  const { corpus, skipCounts } = await readBuildInput(io, paths, entry, methodOptions, flags, progress);
  const prices = await readPrices(config.prices);
  const cacheDir =
    config.cacheDir !== undefined
      ? resolve(config.cacheDir)
      : out !== undefined
        ? defaultTargetCacheDir(out, io.cwd)
        : flags.defaultCacheDir;
  const useCache = !flags.estimate && !flags.noCache && cacheDir !== undefined;
  // An estimate reads the cache (what is there costs nothing) but writes nothing.
  const probeCache = flags.estimate && !flags.noCache && cacheDir !== undefined;
  if (useCache) await checkCacheDir(cacheDir);
  const { ctx, summary, mode } = flags.estimate
    ? createEstimateProviders(config, {
        ...(prices ? { prices } : {}),
        ...(probeCache ? { cache: new FileCallCache(join(cacheDir, 'calls')) } : {}),
      })
    : createProviders(config, {
        ...(prices ? { prices } : {}),
        ...(useCache ? { cache: new FileCallCache(join(cacheDir, 'calls')) } : {}),
      });
  if (!quiet) io.stderr.write(`${summary}\n`);
  // A paper method builds with its offline preset offline and the paper's with an endpoint.
  const preset = choosePreset(entry, mode, corpus.methodOptions);
  corpus.methodOptions = preset.options;
  if (!quiet && preset.line) io.stderr.write(`${printable(preset.line)}\n`);
  if (!quiet) {
    io.stderr.write(
      `grag: ${flags.estimate ? 'estimating' : 'indexing'} ${printable(corpus.description)}` +
        (corpus.skipped.length ? ` (${corpus.skipped.length} skipped)` : '') +
        ` with ${entry.name}\n`,
    );
    ctx.onProgress = progress.report;
  }
  if (io.signal) ctx.signal = io.signal;
  const checkpoints = useCache
    ? new FileCheckpointStore(
        join(
          cacheDir,
          'builds',
          buildKey({
            method: entry.method.name,
            formatVersion: entry.method.formatVersion,
            options: corpus.methodOptions,
            documents: corpus.documents,
            providers: {
              embedder: modelFingerprint(ctx.embedder),
              tasks: ctx.tasks.id,
              vectorIndex: ctx.vectorIndex.kind,
            },
          }),
        ),
      )
    : undefined;
  const started: { runtime?: BuildRun } = {};
  ctx.runtime = {
    concurrency: config.concurrency,
    ...(checkpoints ? { checkpoints } : {}),
    resumeHint: useCache
      ? `completed model calls are cached in ${cacheDir}; run the same grag index command again to resume`
      : 'run grag index again without --no-cache to keep completed calls for a resume',
    onStart: (runtime) => {
      started.runtime = runtime;
    },
  };
  const startedAt = performance.now();
  let index: unknown;
  try {
    index = await entry.method.build(corpus.documents, ctx, corpus.methodOptions);
  } catch (error) {
    progress.done();
    if (AbortError.isInstance(error) && !flags.estimate) {
      throw new AbortError(
        `interrupted during stage "${started.runtime?.currentStage ?? ctx.meter.currentStage}"; ${
          useCache
            ? `completed model calls are cached in ${cacheDir} and finished stages are kept; run the same command again to resume`
            : 'nothing was kept (--no-cache)'
        }.`,
      );
    }
    throw error;
  }
  progress.done();
  const snapshot = ctx.meter.snapshot();
  if (flags.estimate) {
    printEstimate(io, flags, { entry, mode, corpus, ctx, skipCounts, snapshot });
    return { ctx, docs: corpus.documents.length, chunks: undefined };
  }
  const chunks = await saveBuild(io, flags, {
    entry,
    index,
    target: out as IndexTarget,
    rt: started.runtime,
    cacheDir,
    checkpoints,
    startedAt,
    snapshot,
  });
  return { ctx, docs: corpus.documents.length, chunks };
}

/**
 * The corpus of a build, read with a file progress line (a TTY without `quiet`); skipped and
 * re-decoded files are reported on stderr. An interrupted read says that nothing was built.
 */
async function readBuildInput(
  io: CliIO,
  paths: string[],
  entry: MethodEntry,
  methodOptions: Record<string, unknown>,
  flags: IndexFlags,
  progress: ProgressView,
): Promise<{ corpus: IndexInput; skipCounts: SkipCounts }> {
  const { quiet } = flags;
  const tty = !quiet && (io.stderr as { isTTY?: boolean }).isTTY === true;
  const files = quiet ? undefined : createFileProgress(progress, tty, { show: printable });
  let corpus: IndexInput;
  try {
    corpus = await readInput(paths, entry, methodOptions, {
      cwd: io.cwd,
      ...flags.corpus,
      ...(io.signal ? { signal: io.signal } : {}),
      ...(files ? { onFile: files.onFile } : {}),
    });
  } catch (error) {
    if (AbortError.isInstance(error))
      throw new AbortError(
        'interrupted while reading the corpus; nothing was built or written. Run the same command again.',
      );
    throw error;
  } finally {
    files?.stop();
    progress.done();
  }
  for (const skip of corpus.skipped)
    io.stderr.write(`grag: skipped ${printable(skip.path)}: ${printable(skip.reason)}\n`);
  for (const file of corpus.decoded ?? [])
    io.stderr.write(`grag: read ${printable(file.path)} as ${file.encoding} (${file.reason})\n`);
  const skipCounts = countSkipped(corpus.skipped);
  const skipLine = formatSkipped(skipCounts);
  if (!quiet && skipLine) io.stderr.write(`grag: ${skipLine}\n`);
  return { corpus, skipCounts };
}

/** What {@link printEstimate} reports. */
interface EstimateRun {
  entry: MethodEntry;
  mode: string;
  corpus: IndexInput;
  ctx: BuildContext;
  skipCounts: SkipCounts;
  snapshot: MeterSnapshot;
}

/** The estimate of a build: its usage and cost, and the input it read (JSON with `--json`). */
function printEstimate(io: CliIO, flags: IndexFlags, run: EstimateRun): void {
  const { entry, mode, corpus, ctx, skipCounts, snapshot } = run;
  // The text the loaders extracted, as the build's tokenizer counts it.
  const input = {
    files: corpus.files,
    documents: corpus.documents.length,
    tokens: corpus.documents.reduce((n, doc) => n + ctx.tokenizer.count(doc.text), 0),
    skipped: skipCounts,
  };
  if (flags.json) {
    io.stdout.write(`${JSON.stringify({ method: entry.name, mode, input, ...snapshot }, null, 2)}\n`);
  } else {
    io.stdout.write(`${formatEstimate(snapshot)}\n`);
    if (input.documents > 0) io.stdout.write(`${formatInput(input)}\n`);
    const unpriced = ctx.meter.unpricedModels();
    if (unpriced.length) {
      io.stdout.write(`No price for ${unpriced.join(', ')}; pass --prices <file.json> to include it.\n`);
    }
  }
}

/** What {@link saveBuild} writes and reports. */
interface FinishedBuild {
  entry: MethodEntry;
  index: unknown;
  target: IndexTarget;
  rt: BuildRun | undefined;
  cacheDir: string | undefined;
  checkpoints: FileCheckpointStore | undefined;
  startedAt: number;
  snapshot: MeterSnapshot;
}

/**
 * Save a finished build to its target, write its unusable model outputs beside it, drop its
 * checkpoints and report (unless `quiet`). Returns the index's chunk count from its manifest.
 */
async function saveBuild(io: CliIO, flags: IndexFlags, build: FinishedBuild): Promise<unknown> {
  const { quiet } = flags;
  const { entry, index, target, rt, cacheDir, checkpoints, startedAt, snapshot } = build;
  await entry.method.save(index, target.store);
  const issues = rt?.issues ?? [];
  const resumedStages = rt?.resumedStages ?? [];
  // Beside an index directory; for an index in a database, in the cache directory.
  const issuesFile =
    target.kind === 'directory'
      ? join(target.location, 'build-issues.jsonl')
      : join(cacheDir ?? resolve(io.cwd, '.grag-cache'), 'build-issues', `${target.name}.jsonl`);
  if (issues.length > 0) {
    await mkdir(dirname(issuesFile), { recursive: true });
    await writeFile(issuesFile, issues.map((issue) => JSON.stringify(issue)).join('\n') + '\n');
  }
  await checkpoints?.clear();
  // The checkpoints of finished builds go; so does the folder that held them once it is empty.
  if (checkpoints !== undefined && cacheDir !== undefined) await removeIfEmpty(join(cacheDir, 'builds'));
  const manifest = await readTargetManifest(target);
  if (!quiet) {
    if (resumedStages.length > 0) {
      io.stderr.write(
        `grag: resumed: ${resumedStages.length} finished stages restored from checkpoints (${[...new Set(resumedStages)].join(', ')})\n`,
      );
    }
    if (issues.length > 0) {
      const counts = Object.entries(rt!.issueCounts())
        .map(([stage, count]) => `${stage} ${count}`)
        .join(', ');
      io.stderr.write(
        `grag: ${issues.length} model-output records could not be used (${counts}); each is listed with its raw text in ${printable(issuesFile)}\n`,
      );
    }
    io.stderr.write(
      `grag: wrote ${printable(target.location)} (${JSON.stringify(manifest.stats ?? {})}) in ${((performance.now() - startedAt) / 1000).toFixed(1)} s; ${formatUsage(snapshot)}\n`,
    );
    io.stderr.write(
      `grag: ${printable(formatTasksLine(entry.method.capabilities.tasks, manifest.tasks, manifest.providers.tasks))}\n`,
    );
  }
  return manifest.stats?.chunks;
}

/** Remove the directory `dir` if it is empty (nothing if it is not, or is gone). */
async function removeIfEmpty(dir: string): Promise<void> {
  const names = await readdir(dir).catch(() => undefined);
  if (names !== undefined && names.length === 0) await rmdir(dir).catch(() => {});
}
