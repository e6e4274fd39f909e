/**
 * `grag eval <dataset> --methods a,b --budget 12000 --out <dir>`: evaluate methods on a QA dataset
 * with `@grag/eval` and write JSON, a markdown table and SVG charts. Rerunning with the same
 * `--out` resumes: finished questions are not recomputed and built indexes are loaded. With
 * `--store`, each method's index lives in PostgreSQL as `eval_<method>`, loaded by any later run.
 */
import { basename, join, resolve } from 'node:path';
import { InvalidArgumentError, type VectorPrecision } from '@grag/core';
import { closestMatch, FileCallCache } from '@grag/core/kit';
import {
  detectLayout,
  type EvalDataset,
  type JudgeSettings,
  loadDataset,
  loadFolderDataset,
  methodsTable,
  runEval,
  writeReports,
} from '@grag/eval';
import { checkCacheDir } from './cache-dir.js';
import type { GragConfig } from './config.js';
import { type ReadCorpusOptions, readCorpus } from './corpus.js';
import { choosePreset } from './presets.js';
import { printable } from './printable.js';
import { createProgressView } from './progress.js';
import { createProviders } from './providers.js';
import { findMethod, METHODS, type MethodEntry } from './registry.js';
import { closeAll, type IndexTarget, indexTargets } from './store.js';
import { positiveIntFlag } from './usage.js';

/** Flags of `grag eval` (parsed by the CLI). */
export interface EvalFlags {
  methods?: string;
  out?: string;
  'top-k'?: string;
  answer?: boolean;
  limit?: string;
  concurrency?: string;
  judge?: boolean;
  restart?: boolean;
  quiet?: boolean;
}

/** Where `grag eval` writes. */
export interface EvalIO {
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream & { isTTY?: boolean };
  cwd: string;
}

/**
 * The `--set` options one method of an evaluation gets, split by its own option keys: build keys
 * go to `build`, retrieve keys to `retrieve` (so a retrieval switch needs no rebuild), a key of both
 * to both, but one that `build` only keeps as the index's default for `retrieve`
 * (`optionKeys.retrieveDefaults`) to `retrieve` alone (so the saved index is loaded). A key that no
 * method of the run knows is an error (a misspelling, with the closest key), so one set of flags
 * can serve methods with different options, e.g.
 * `--methods bm25,ket-rag --variant keyword-rag`.
 */
export function optionsFor(
  entry: MethodEntry,
  options: Record<string, unknown>,
  all: readonly MethodEntry[],
): { build: Record<string, unknown>; retrieve: Record<string, unknown> } {
  const keysOf = (e: MethodEntry) =>
    e.method.optionKeys ? [...e.method.optionKeys.build, ...e.method.optionKeys.retrieve] : undefined;
  for (const key of Object.keys(options)) {
    if (all.some((e) => keysOf(e) === undefined || keysOf(e)?.includes(key))) continue;
    const known = [...new Set(all.flatMap((e) => keysOf(e) ?? []))];
    const near = closestMatch(key, known);
    throw new InvalidArgumentError(
      'set',
      `No method of this run (${all.map((e) => e.name).join(', ')}) has an option "${key}"${near ? `; did you mean "${near}"?` : '.'}`,
    );
  }
  const declared = entry.method.optionKeys;
  if (declared === undefined) return { build: options, retrieve: {} };
  const pick = (keys: readonly string[]) =>
    Object.fromEntries(Object.entries(options).filter(([k]) => keys.includes(k)));
  const stored = declared.retrieveDefaults ?? [];
  return {
    build: pick(declared.build.filter((key) => !stored.includes(key))),
    retrieve: pick(declared.retrieve),
  };
}

/**
 * The name under which `grag eval --store` keeps the index of the method labelled `label`:
 * `eval_` then the label in lower case with every character other than a-z, 0-9 and `_` replaced
 * by `_` (e.g. `naive-dense` → `eval_naive_dense`), a valid `@grag/postgres` index name.
 */
export function evalIndexName(label: string): string {
  return `eval_${label.toLowerCase().replace(/[^a-z0-9_]/g, '_')}`;
}

/**
 * The dataset at `path`: a layout of `@grag/eval`, or a `corpus/` folder of files (PDF, Word, HTML,
 * CSV, Markdown, …) beside `questions.jsonl`, read as `grag index` reads a corpus.
 */
async function readDataset(path: string, options: ReadCorpusOptions): Promise<EvalDataset> {
  if (detectLayout(path) !== 'corpus-folder') return loadDataset(path);
  const corpus = await readCorpus(join(path, 'corpus'), options);
  return loadFolderDataset(path, {
    documents: corpus.documents,
    skipped: corpus.skipped.map((s) => ({ path: s.path, reason: s.reason })),
  });
}

/** Run `grag eval`; returns the exit code. Errors are thrown for the CLI to print. */
export async function evalCommand(input: {
  io: EvalIO;
  config: GragConfig;
  args: string[];
  flags: EvalFlags;
  methodOptions: Record<string, unknown>;
  command: string;
  /** The `--store` URL (or `GRAG_STORE`): keep each method's index there, see {@link evalIndexName}. */
  store?: string | undefined;
  /** `--store-vectors`: keep vector collections in the store. */
  storeVectors?: boolean;
  /** `--vector-precision`: how the saved indexes keep their vectors (see `RunOptions.vectorPrecision`). */
  precision?: VectorPrecision;
  /** How a dataset's `corpus/` folder is read: loaders, fields, `include` / `exclude` globs. */
  corpus?: ReadCorpusOptions;
}): Promise<number> {
  const { io, config, flags } = input;
  const [datasetArg] = input.args;
  if (!datasetArg)
    throw new InvalidArgumentError(
      'dataset',
      'Missing dataset. Usage: grag eval <dataset-dir> --methods a,b --out <dir> (see grag --help).',
    );
  const names =
    flags.methods !== undefined
      ? flags.methods
          .split(',')
          .map((s) => s.trim())
          .filter(Boolean)
      : METHODS.map((m) => m.name);
  if (names.length === 0)
    throw new InvalidArgumentError(
      'methods',
      `--methods ${JSON.stringify(flags.methods)} names no method. Available: ${METHODS.map((m) => m.name).join(', ')}.`,
    );
  const entries = names.map((name) => {
    const entry = findMethod(name);
    if (!entry)
      throw new InvalidArgumentError(
        'methods',
        `Unknown method "${name}". Available: ${METHODS.map((m) => m.name).join(', ')}.`,
      );
    return entry;
  });
  const quiet = flags.quiet === true;
  const datasetPath = resolve(io.cwd, datasetArg);
  const dataset = await readDataset(datasetPath, input.corpus ?? {});
  const out = resolve(io.cwd, flags.out ?? `grag-eval-${basename(datasetPath)}`);
  // Builds, answers and judgements share the call cache: an eval run again repeats no model call.
  if (config.cacheDir !== undefined) await checkCacheDir(config.cacheDir);
  const cache = new FileCallCache(join(resolve(config.cacheDir ?? join(out, '.grag-cache')), 'calls'));
  const providers = createProviders(config, { cache });
  let judge: JudgeSettings | undefined;
  if (flags.judge) {
    if (providers.mode !== 'openai' || !providers.ctx.chat)
      throw new InvalidArgumentError(
        'judge',
        '--judge needs an OpenAI-compatible endpoint (set OPENAI_API_KEY or OPENAI_BASE_URL, or --provider openai).',
      );
    judge = { model: providers.ctx.chat, pairwiseBaseline: entries[0]?.name as string, empowerment: true };
    if (entries.length < 2) delete judge.pairwiseBaseline;
  }
  const progress = createProgressView(io.stderr as NodeJS.WriteStream, !quiet && io.stderr.isTTY === true);
  const say = (line: string) => {
    if (!quiet) progress.log(`grag: ${printable(line)}`);
  };
  if (!quiet) io.stderr.write(`${providers.summary}\n`);
  say(
    `evaluating ${entries.map((e) => e.name).join(', ')} on ${dataset.name} (${dataset.format}): ` +
      `${dataset.questions.length} questions, ${dataset.corpus.length} documents` +
      (dataset.skipped.length ? `, ${dataset.skipped.length} input records skipped` : ''),
  );
  for (const skip of dataset.skipped.slice(0, 5))
    say(`skipped ${skip.path}${skip.line ? `:${skip.line}` : ''}: ${skip.reason}`);
  const limit = positiveIntFlag(flags.limit, 'limit');
  const topK = positiveIntFlag(flags['top-k'], 'top-k');
  // URL and names are checked before any build; nothing connects until a method needs its index.
  const targets: IndexTarget[] =
    input.store === undefined
      ? []
      : await indexTargets(
          entries.map((e) => evalIndexName(e.name)),
          input.store,
          {
            vectors: input.storeVectors === true,
            ...(input.precision !== undefined ? { precision: input.precision } : {}),
          },
        );
  const stores = new Map(entries.map((e, i) => [e.name, targets[i]?.store] as const));
  if (targets.length > 0) say(`keeping the indexes in --store as ${targets.map((t) => t.name).join(', ')}`);
  // A paper method builds with its offline preset offline and the paper's with an endpoint.
  const methods = entries.map((e) => {
    const { build, retrieve } = optionsFor(e, input.methodOptions, entries);
    const preset = choosePreset(e, providers.mode, build);
    if (preset.line) say(preset.line.replace(/^grag: /, ''));
    return {
      method: e.method,
      options: preset.options,
      ...(Object.keys(retrieve).length > 0 ? { retrieve } : {}),
    };
  });
  const run = await runEval({
    dataset,
    methods,
    context: () => createProviders(config, { cache }).ctx,
    out,
    budgetTokens: config.budget,
    ...(topK !== undefined ? { topK } : {}),
    generateAnswers: flags.answer === true || judge !== undefined,
    concurrency: positiveIntFlag(flags.concurrency, 'concurrency') ?? (providers.mode === 'openai' ? 4 : 1),
    ...(limit !== undefined ? { limit } : {}),
    restart: flags.restart === true,
    ...(judge ? { judge } : {}),
    command: input.command,
    ...(input.precision !== undefined ? { vectorPrecision: input.precision } : {}),
    ...(targets.length > 0
      ? {
          indexStore: (label: string) => {
            const store = stores.get(label);
            if (store === undefined) throw new Error(`no --store target for the method "${label}"`);
            return store;
          },
        }
      : {}),
    ...(quiet ? {} : { onProgress: progress.report, onLog: say }),
  }).finally(() => closeAll(targets));
  progress.done();
  const files = writeReports(run, out);
  io.stdout.write(`${methodsTable(run.methods)}\n`);
  const failed = run.methods.reduce((n, m) => n + m.failed, 0);
  if (!quiet) {
    io.stderr.write(
      `${printable(
        `grag: wrote ${files.json}, ${files.markdown} and ${files.charts.length} charts; per-question results in ${out}/results.jsonl` +
          (failed ? `; ${failed} questions failed (see report.md)` : ''),
      )}\n`,
    );
  }
  return failed > 0 ? 1 : 0;
}
