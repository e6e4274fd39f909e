import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, readFile, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, dirname, join, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import {
  AbortError,
  assertKnownOptions,
  type BuildContext,
  type BuildRuntime,
  buildKey,
  type Document,
  FileCallCache,
  FileCheckpointStore,
  GragError,
  InvalidArgumentError,
  type MeterSnapshot,
  modelFingerprint,
  type PriceTable,
  type Retrieval,
  readManifest,
} from '@grag/core';
import { checkIndexTarget } from '@grag/core/internal';
import { loadKgTriples } from '@grag/eval';
import { HnswUnavailableError } from '@grag/hnsw';
import { checkCacheDir } from './cache-dir.js';
import { type GragConfig, resolveConfig } from './config.js';
import { readCorpus } from './corpus.js';
import { EVAL_OPTIONS, EVAL_USAGE, evalCommand } from './eval-command.js';
import { createProgressView } from './progress.js';
import { createEstimateProviders, createProviders } from './providers.js';
import { findMethod, METHODS, type MethodEntry } from './registry.js';
import { SERVE_OPTIONS, SERVE_USAGE, serveCommand } from './serve-command.js';
import { UPDATE_USAGE, updateCommand } from './update-command.js';

/** Where the CLI writes; injectable for tests. */
export interface CliIO {
  stdout: NodeJS.WritableStream & { isTTY?: boolean };
  stderr: NodeJS.WriteStream | (NodeJS.WritableStream & { isTTY?: boolean });
  env: NodeJS.ProcessEnv;
  cwd: string;
  /** Aborted on Ctrl-C (the bin wires SIGINT to it); a build then stops cleanly, resumable. */
  signal?: AbortSignal;
}

const USAGE = `Usage: grag <command> [options]

Commands:
  index <path> --method <name> --out <dir>   build an index from .txt/.md files or a .jsonl corpus
  query <dir> "<question>"                   retrieve context and answer from an index
${UPDATE_USAGE}
  demo                                       index the demo corpus with every method and answer questions
  methods                                    list the available methods
${EVAL_USAGE.command}
${SERVE_USAGE.command}

Options:
  --method <name>            method to build (see \`grag methods\`)
  --out <dir>                index directory to write
  --set <key=value>          method option, repeatable (e.g. --set chunkSize=600); true/false, null,
                             numbers and lists ([a,b] or a,b) convert. index: build options; query:
                             retrieve options; eval: each key to build and/or retrieve, as the method declares
  --variant <name>           method variant (same as --set variant=<name>), e.g. ket-rag's keyword-rag
  --estimate                 count the calls, tokens and cost a build would make, without calling a model (index)
  --cache-dir <dir>          model-call cache and build checkpoints (default .grag-cache next to --out)
  --no-cache                 neither read nor write the cache (index, add)
  --concurrency <n>          model calls in flight while indexing (default 8)
  --prices <file.json>       price table, USD per 1M tokens: {"gpt-4o-mini": {"input": 0.15, "output": 0.6}}
  --budget <tokens>          context budget (default 12000)
  --top-k <n>                items to rank before packing (method default otherwise)
  --json                     machine-readable output (query, add, remove)
  --no-answer                retrieval only, no answer (query)
  --config <file>            config file (default ./grag.config.json)
  --provider <auto|offline|openai>
  --chat-model <id>          --embedding-model <id>    --embedding-dimensions <n>
  --offline-embedder <tfidf|glove>                     --vector-index <hnsw|flat>
  -q, --quiet                no progress output
  -h, --help                 this help;  -v, --version

Environment: OPENAI_API_KEY, OPENAI_BASE_URL, GRAG_CHAT_MODEL, GRAG_EMBEDDING_MODEL, GRAG_PROVIDER,
GRAG_CACHE_DIR, GRAG_PRICES, GRAG_CONCURRENCY, ...
With no endpoint configured, grag runs offline.

${EVAL_USAGE.options}

${SERVE_USAGE.options}`;

const OPTIONS = {
  method: { type: 'string' },
  out: { type: 'string' },
  set: { type: 'string', multiple: true },
  budget: { type: 'string' },
  'top-k': { type: 'string' },
  json: { type: 'boolean' },
  'no-answer': { type: 'boolean' },
  variant: { type: 'string' },
  config: { type: 'string' },
  provider: { type: 'string' },
  'chat-model': { type: 'string' },
  'embedding-model': { type: 'string' },
  'embedding-dimensions': { type: 'string' },
  'offline-embedder': { type: 'string' },
  'vector-index': { type: 'string' },
  estimate: { type: 'boolean' },
  'cache-dir': { type: 'string' },
  'no-cache': { type: 'boolean' },
  prices: { type: 'string' },
  methods: { type: 'string' },
  quiet: { type: 'boolean', short: 'q' },
  help: { type: 'boolean', short: 'h' },
  version: { type: 'boolean', short: 'v' },
  ...EVAL_OPTIONS,
  ...SERVE_OPTIONS,
} as const;

type Values = ReturnType<typeof parseArgs<{ options: typeof OPTIONS; allowPositionals: true }>>['values'];

function configFlags(values: Values): Partial<Record<keyof GragConfig, unknown>> {
  return {
    provider: values.provider,
    chatModel: values['chat-model'],
    embeddingModel: values['embedding-model'],
    embeddingDimensions: values['embedding-dimensions'],
    offlineEmbedder: values['offline-embedder'],
    vectorIndex: values['vector-index'],
    budget: values.budget,
    concurrency: values.concurrency,
    cacheDir: values['cache-dir'],
    prices: values.prices,
  };
}

/**
 * Read what `grag index` was pointed at: a knowledge-graph triple directory (train.tsv + entity2text.txt,
 * as FB15k-237 ships) for a method that indexes triples, else a text corpus.
 */
async function readInput(
  path: string,
  entry: MethodEntry,
  methodOptions: Record<string, unknown>,
): Promise<{
  documents: Document[];
  skipped: { path: string; reason: string }[];
  /** Files decoded from an encoding other than UTF-8. */
  decoded?: { path: string; encoding: string; reason: string }[];
  description: string;
  methodOptions: Record<string, unknown>;
}> {
  if (isTripleDirectory(path)) {
    if (!entry.indexesTriples) {
      throw new InvalidArgumentError(
        'path',
        `${path} holds knowledge-graph triples; ${entry.name} indexes text. Use --method ${METHODS.filter(
          (m) => m.indexesTriples,
        )
          .map((m) => m.name)
          .join(' or ')}, or pass a directory of .txt/.md/.jsonl files.`,
      );
    }
    const kg = loadKgTriples(path, { malformed: 'skip' });
    return {
      documents: [],
      skipped: kg.skipped.map((s) => ({ path: `${s.path}${s.line ? `:${s.line}` : ''}`, reason: s.reason })),
      description: `${kg.triples.length} triples over ${kg.entities.size} named entities from ${path}`,
      methodOptions: {
        ...methodOptions,
        triples: kg.triples,
        entityText: kg.entities,
        relationText: kg.relations,
      },
    };
  }
  const corpus = await readCorpus(path);
  return {
    documents: corpus.documents,
    skipped: corpus.skipped,
    decoded: corpus.decoded,
    description: `${corpus.documents.length} documents from ${corpus.files} files`,
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

/** One `--set` value: `true`/`false`, `null`, a number, or the string as written. */
function setValue(raw: string): unknown {
  if (raw === 'true') return true;
  if (raw === 'false') return false;
  if (raw === 'null') return null;
  return raw !== '' && Number.isFinite(Number(raw)) ? Number(raw) : raw;
}

/**
 * `--set key=value` pairs as method options. Values convert as written: `true`/`false`, `null`,
 * numbers; a list is written `[a,b]` or `a,b` (each element converted the same way; `[]` is the
 * empty list, `[a]` a list of one); anything else is a string.
 */
export function parseSetOptions(pairs: readonly string[] = []): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const pair of pairs) {
    const eq = pair.indexOf('=');
    if (eq <= 0)
      throw new InvalidArgumentError(
        'set',
        `Bad --set "${pair}": write it as key=value, e.g. --set chunkSize=600.`,
      );
    const key = pair.slice(0, eq);
    const raw = pair.slice(eq + 1).trim();
    const bracketed = raw.startsWith('[') && raw.endsWith(']');
    if (bracketed || raw.includes(',')) {
      const inner = bracketed ? raw.slice(1, -1).trim() : raw;
      out[key] = inner === '' ? [] : inner.split(',').map((part) => setValue(part.trim()));
    } else {
      out[key] = setValue(raw);
    }
  }
  return out;
}

/** Method options from `--set` pairs and `--variant`. */
function methodOptions(values: Values): Record<string, unknown> {
  const options = parseSetOptions(values.set);
  if (values.variant !== undefined) options.variant = values.variant;
  return options;
}

function positiveInt(value: string | undefined, name: string): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n <= 0)
    throw new InvalidArgumentError(name, `Bad --${name}: expected a positive integer, got "${value}".`);
  return n;
}

function formatUsage(snapshot: MeterSnapshot): string {
  const t = snapshot.total;
  const parts = [`${(t.wallMs / 1000).toFixed(1)} s`];
  if (t.chatCalls)
    parts.push(`${t.chatCalls} model calls, ${t.inputTokens} in / ${t.outputTokens} out tokens`);
  if (t.embedCalls) parts.push(`${t.embeddedValues} texts embedded`);
  if (t.cacheHits) parts.push(`${t.cacheHits} calls answered from the cache`);
  if (t.usd > 0) parts.push(`$${t.usd.toFixed(4)}`);
  return parts.join(', ');
}

/** Read a `--prices` file: `{ "<model>": { "input": usd, "output": usd } }` per 1M tokens. */
async function readPrices(path: string | undefined): Promise<PriceTable | undefined> {
  if (path === undefined) return undefined;
  let table: unknown;
  try {
    table = JSON.parse(await readFile(path, 'utf8'));
  } catch (error) {
    throw new InvalidArgumentError(
      'prices',
      `Cannot read the price table ${path} (${(error as NodeJS.ErrnoException).code ?? (error as Error).message}); pass a JSON file like {"gpt-4o-mini": {"input": 0.15, "output": 0.6}}.`,
    );
  }
  const ok =
    typeof table === 'object' &&
    table !== null &&
    !Array.isArray(table) &&
    Object.values(table).every(
      (p) =>
        typeof p === 'object' &&
        p !== null &&
        Number.isFinite((p as { input?: unknown }).input) &&
        ((p as { output?: unknown }).output === undefined ||
          Number.isFinite((p as { output?: unknown }).output)),
    );
  if (!ok) {
    throw new InvalidArgumentError(
      'prices',
      `The price table ${path} must map model ids to {"input": usd, "output": usd} per 1M tokens, e.g. {"gpt-4o-mini": {"input": 0.15, "output": 0.6}}.`,
    );
  }
  return table as PriceTable;
}

/** Where `grag index --out <out>` keeps its call cache and checkpoints. */
export function defaultCacheDir(out: string): string {
  return join(dirname(resolve(out)), '.grag-cache');
}

/** The estimate as a table: one row per stage, then the total. */
function formatEstimate(snapshot: MeterSnapshot): string {
  const n = (v: number) => Math.round(v).toLocaleString('en-US');
  const header = ['stage', 'chat calls', 'input tok', 'output tok', 'embedded', 'embed tok', 'cached', 'USD'];
  const rows = Object.entries(snapshot.stages)
    .filter(([, u]) => u.chatCalls > 0 || u.embedCalls > 0 || u.cacheHits > 0)
    .map(([name, u]) => [
      name,
      n(u.chatCalls),
      n(u.inputTokens),
      n(u.outputTokens),
      n(u.embeddedValues),
      n(u.embedTokens),
      n(u.cacheHits),
      u.usd.toFixed(4),
    ]);
  const t = snapshot.total;
  rows.push([
    'total',
    n(t.chatCalls),
    n(t.inputTokens),
    n(t.outputTokens),
    n(t.embeddedValues),
    n(t.embedTokens),
    n(t.cacheHits),
    t.usd.toFixed(4),
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) =>
    cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ');
  return [line(header), ...rows.map(line)].join('\n');
}

/**
 * Refuse an `--out` that would lose a user's files before anything is built: it must be new, empty
 * or a grag index ({@link checkIndexTarget}), and neither the corpus nor inside it, nor hold it.
 */
async function checkOutDir(corpusPath: string, out: string): Promise<void> {
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
  await checkIndexTarget(out);
}

interface IndexFlags {
  quiet: boolean;
  estimate?: boolean;
  noCache?: boolean;
  json?: boolean;
}

async function buildIndex(
  io: CliIO,
  corpusPath: string,
  methodName: string,
  out: string | undefined,
  config: GragConfig,
  methodOptions: Record<string, unknown>,
  flags: IndexFlags,
): Promise<{ ctx: BuildContext; docs: number; chunks: unknown }> {
  const { quiet } = flags;
  const entry = findMethod(methodName);
  if (!entry) {
    throw new InvalidArgumentError(
      'method',
      `Unknown method "${methodName}". Available: ${METHODS.map((m) => m.name).join(', ')}.`,
    );
  }
  // Checked before anything is read or printed, so a misspelt --set key is the only line.
  const keys = entry.method.optionKeys?.build;
  if (keys) assertKnownOptions(`${entry.name} build`, methodOptions, keys);
  if (!flags.estimate) await checkOutDir(corpusPath, out as string);
  const progress = createProgressView(
    io.stderr as NodeJS.WriteStream,
    !quiet && (io.stderr as { isTTY?: boolean }).isTTY === true,
  );
  const corpus = await readInput(corpusPath, entry, methodOptions);
  for (const skip of corpus.skipped) io.stderr.write(`grag: skipped ${skip.path}: ${skip.reason}\n`);
  for (const file of corpus.decoded ?? [])
    io.stderr.write(`grag: read ${file.path} as ${file.encoding} (${file.reason})\n`);
  const prices = await readPrices(config.prices);
  const cacheDir =
    config.cacheDir !== undefined
      ? resolve(config.cacheDir)
      : out === undefined
        ? undefined
        : resolve(defaultCacheDir(out));
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
  if (!quiet) {
    io.stderr.write(
      `grag: ${flags.estimate ? 'estimating' : 'indexing'} ${corpus.description}` +
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
  ctx.runtime = {
    concurrency: config.concurrency,
    ...(checkpoints ? { checkpoints } : {}),
    resumeHint: useCache
      ? `completed model calls are cached in ${cacheDir}; run the same grag index command again to resume`
      : 'run grag index again without --no-cache to keep completed calls for a resume',
    onStart: (runtime) => {
      rt = runtime;
    },
  };
  let rt: BuildRuntime | undefined;
  const started = performance.now();
  let index: unknown;
  try {
    index = await entry.method.build(corpus.documents, ctx, corpus.methodOptions);
  } catch (error) {
    progress.done();
    if (AbortError.isInstance(error) && !flags.estimate) {
      throw new AbortError(
        `interrupted during stage "${rt?.currentStage ?? ctx.meter.currentStage}"; ${
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
    if (flags.json) {
      io.stdout.write(`${JSON.stringify({ method: entry.name, mode, ...snapshot }, null, 2)}\n`);
    } else {
      io.stdout.write(`${formatEstimate(snapshot)}\n`);
      const unpriced = ctx.meter.unpricedModels();
      if (unpriced.length) {
        io.stdout.write(`No price for ${unpriced.join(', ')}; pass --prices <file.json> to include it.\n`);
      }
    }
    return { ctx, docs: corpus.documents.length, chunks: undefined };
  }
  const outDir = out as string;
  await entry.method.save(index, outDir);
  const issues = rt?.issues ?? [];
  const resumedStages = rt?.resumedStages ?? [];
  if (issues.length > 0) {
    await writeFile(
      join(outDir, 'build-issues.jsonl'),
      issues.map((issue) => JSON.stringify(issue)).join('\n') + '\n',
    );
  }
  await checkpoints?.clear();
  const manifest = await readManifest(outDir);
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
        `grag: ${issues.length} model-output records could not be used (${counts}); each is listed with its raw text in ${join(outDir, 'build-issues.jsonl')}\n`,
      );
    }
    io.stderr.write(
      `grag: wrote ${outDir} (${JSON.stringify(manifest.stats ?? {})}) in ${((performance.now() - started) / 1000).toFixed(1)} s; ${formatUsage(snapshot)}\n`,
    );
  }
  return { ctx, docs: corpus.documents.length, chunks: manifest.stats?.chunks };
}

interface QueryResult {
  question: string;
  method: string;
  answer?: string;
  citations?: string[];
  retrieval: Retrieval;
  timings: { retrieveMs: number; answerMs?: number };
}

async function queryIndex(
  dir: string,
  question: string,
  config: GragConfig,
  options: { topK?: number; answer: boolean; retrieve?: Record<string, unknown> },
): Promise<{ result: QueryResult; summary: string }> {
  if (question.trim() === '')
    throw new InvalidArgumentError(
      'question',
      'The question is empty. Usage: grag query <dir> "<question>".',
    );
  const manifest = await readManifest(dir);
  const entry = findMethod(manifest.method);
  if (!entry) {
    throw new InvalidArgumentError(
      'index',
      `${dir} holds a '${manifest.method}' index, which this grag does not know. Available: ${METHODS.map((m) => m.name).join(', ')}.`,
    );
  }
  const { ctx, summary } = createProviders(config, { manifest });
  const index = await entry.method.load(dir, ctx);
  const t0 = performance.now();
  const retrieval: Retrieval = await entry.method.retrieve(index, question, {
    ...options.retrieve,
    budgetTokens: config.budget,
    ...(options.topK !== undefined ? { topK: options.topK } : {}),
  });
  const retrieveMs = performance.now() - t0;
  const result: QueryResult = { question, method: entry.name, retrieval, timings: { retrieveMs } };
  if (options.answer) {
    const t1 = performance.now();
    const answer = await ctx.tasks.answer(
      question,
      retrieval.items.map((item) => ({ id: item.id, text: item.text })),
    );
    result.answer = answer.answer;
    result.citations = answer.citations;
    result.timings.answerMs = performance.now() - t1;
  }
  return { result, summary };
}

function printQuery(io: CliIO, r: QueryResult, maxItems = 5): void {
  const w = (s: string) => io.stdout.write(`${s}\n`);
  w(`Q: ${r.question}`);
  if (r.answer !== undefined) {
    w(`A: ${r.answer}`);
    if (r.citations?.length) {
      const sources = r.citations.map((id) => {
        const item = r.retrieval.items.find((i) => i.id === id);
        return item ? `[${id}] ${item.source.docIds.join(', ')}` : `[${id}]`;
      });
      w(`   sources: ${sources.join('; ')}`);
    }
  }
  w(
    `Context: ${r.retrieval.items.length} items, ${r.retrieval.tokens} tokens (${r.method}, retrieval ${r.timings.retrieveMs.toFixed(1)} ms${r.timings.answerMs !== undefined ? `, answer ${r.timings.answerMs.toFixed(1)} ms` : ''})`,
  );
  for (const item of r.retrieval.items.slice(0, maxItems)) {
    const preview = item.text.replace(/\s+/g, ' ').slice(0, 100);
    w(
      `  [${item.id}] ${item.kind} ${item.score.toFixed(3)} from ${item.source.docIds.join(', ')}: ${preview}${item.text.length > 100 ? '…' : ''}`,
    );
  }
  if (r.retrieval.items.length > maxItems) w(`  … ${r.retrieval.items.length - maxItems} more`);
}

/** The demo corpus shipped with the CLI. */
export function demoCorpusPath(): string {
  return join(dirname(fileURLToPath(import.meta.url)), '..', 'demo');
}

/** Questions the demo asks every method. */
export const DEMO_QUESTIONS = [
  'Who directs the institute that owns the research vessel built by the Kessler Shipyard?',
  'In which town was the marine biologist who received the Brandt Medal in 2022 born?',
  'Which ferry crosses the Veskan Strait from Port Halvard?',
];

async function demo(io: CliIO, config: GragConfig, values: Values): Promise<void> {
  // `--methods ""` names no method (an error below), not every method.
  const names =
    values.methods !== undefined
      ? values.methods.split(',').map((s) => s.trim())
      : METHODS.map((m) => m.name);
  const base = values.out ?? (await mkdtemp(join(tmpdir(), 'grag-demo-')));
  const started = performance.now();
  let skipped = 0;
  try {
    for (const name of names) {
      const out = join(base, name);
      io.stdout.write(`\n== ${name} ==\n`);
      try {
        await buildIndex(io, demoCorpusPath(), name, out, config, {}, { quiet: true, noCache: true });
      } catch (error) {
        // A method that needs HNSW itself (NodeRAG) is skipped when the native addon is missing.
        if (!HnswUnavailableError.isInstance(error)) throw error;
        io.stdout.write(`skipped: ${name} needs HNSW (${error.reason}).\n`);
        skipped++;
        continue;
      }
      for (const question of DEMO_QUESTIONS) {
        const { result } = await queryIndex(out, question, config, { answer: true, topK: 5 });
        printQuery(io, result, 3);
        io.stdout.write('\n');
      }
    }
    io.stdout.write(
      `demo: ${names.length - skipped} methods${skipped ? ` (${skipped} skipped)` : ''}, ${DEMO_QUESTIONS.length} questions each, ${((performance.now() - started) / 1000).toFixed(1)} s\n`,
    );
  } finally {
    if (!values.out) await rm(base, { recursive: true, force: true });
  }
}

/**
 * `--budget -1` as `--budget=-1`: node:util's parser takes a value that starts with a dash for a
 * flag and calls it ambiguous, so a negative number would never reach the option's own check.
 */
function joinNegativeValues(argv: string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    const name = arg.startsWith('--') && !arg.includes('=') ? arg.slice(2) : undefined;
    const next = argv[i + 1];
    const option = name === undefined ? undefined : (OPTIONS as Record<string, { type: string }>)[name];
    if (option?.type === 'string' && next !== undefined && /^-\.?\d/.test(next)) {
      out.push(`${arg}=${next}`);
      i++;
    } else out.push(arg);
  }
  return out;
}

const COMMANDS = ['index', 'query', 'add', 'remove', 'demo', 'eval', 'methods', 'serve'];

/**
 * A command line that parses but would drop part of what it was given: an unknown command, a
 * second corpus or dataset path, or an option the command does not use.
 */
function usageProblem(command: string, args: string[], values: Values): string | undefined {
  if (!COMMANDS.includes(command)) return `unknown command "${command}".`;
  if ((command === 'index' || command === 'eval') && args.length > 1) {
    const what = command === 'index' ? 'one corpus path' : 'one dataset';
    return `${command} takes ${what}, got ${args.length}: ${args.map((a) => JSON.stringify(a)).join(', ')}; put the files in one directory.`;
  }
  if (command === 'index' && values['top-k'] !== undefined)
    return "--top-k is an option of query and eval, not of index; set a method's own default with --set.";
  return undefined;
}

/** Run the CLI; returns the exit code. Errors become one line on stderr. */
export async function run(argv: string[], io: CliIO): Promise<number> {
  let parsed: { values: Values; positionals: string[] };
  try {
    parsed = parseArgs({
      args: joinNegativeValues(argv),
      options: OPTIONS,
      allowPositionals: true,
      strict: true,
    });
  } catch (error) {
    // node:util's messages run over several lines; the first says what is wrong.
    const first = ((error as Error).message.split('\n')[0] ?? '').replace(/\.$/, '');
    io.stderr.write(`grag: ${first}. Run \`grag --help\`.\n`);
    return 2;
  }
  const { values, positionals } = parsed;
  const [command, ...args] = positionals;
  if (values.version) {
    io.stdout.write(`${VERSION}\n`);
    return 0;
  }
  if (values.help || !command) {
    io.stdout.write(`${USAGE}\n`);
    return command || values.help ? 0 : 2;
  }
  const misuse = usageProblem(command, args, values);
  if (misuse) {
    io.stderr.write(`grag: ${misuse} Run \`grag --help\`.\n`);
    return 2;
  }
  try {
    const config = await resolveConfig(configFlags(values), {
      env: io.env,
      cwd: io.cwd,
      ...(values.config ? { configPath: values.config } : {}),
    });
    switch (command) {
      case 'index': {
        const [path] = args;
        if (!path)
          throw new InvalidArgumentError(
            'path',
            'Missing corpus path. Usage: grag index <path> --method <name> --out <dir>.',
          );
        if (!values.method)
          throw new InvalidArgumentError(
            'method',
            `Missing --method. Available: ${METHODS.map((m) => m.name).join(', ')}.`,
          );
        if (!values.out && !values.estimate)
          throw new InvalidArgumentError('out', 'Missing --out <dir>: where to write the index.');
        await buildIndex(io, path, values.method, values.out, config, methodOptions(values), {
          quiet: values.quiet === true,
          estimate: values.estimate === true,
          noCache: values['no-cache'] === true,
          json: values.json === true,
        });
        return 0;
      }
      case 'query': {
        const [dir, ...words] = args;
        if (!dir || words.length === 0)
          throw new InvalidArgumentError('question', 'Usage: grag query <dir> "<question>".');
        const topK = positiveInt(values['top-k'], 'top-k');
        const { result, summary } = await queryIndex(dir, words.join(' '), config, {
          answer: values['no-answer'] !== true,
          retrieve: parseSetOptions(values.set),
          ...(topK !== undefined ? { topK } : {}),
        });
        if (values.json) io.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
        else {
          if (!values.quiet) io.stderr.write(`${summary}\n`);
          printQuery(io, result);
        }
        return 0;
      }
      case 'demo':
        if (!values.quiet) io.stderr.write(`${createProviders(config).summary}\n`);
        await demo(io, config, values);
        return 0;
      case 'eval':
        return await evalCommand({
          io,
          config,
          args,
          flags: values,
          methodOptions: methodOptions(values),
          command: `grag ${argv.join(' ')}`,
        });
      case 'serve':
        return await serveCommand({ io, config, args, flags: values });
      case 'add':
      case 'remove':
        return await updateCommand({ io, config, command, args, flags: values });
      case 'methods':
        for (const m of METHODS) io.stdout.write(`${m.name.padEnd(14)} ${m.description}\n`);
        return 0;
      default:
        io.stderr.write(`grag: unknown command "${command}". Run \`grag --help\`.\n`);
        return 2;
    }
  } catch (error) {
    if (GragError.isInstance(error)) {
      io.stderr.write(`grag: ${error.message}\n`);
      return AbortError.isInstance(error) ? 130 : 1;
    }
    const message = error instanceof Error ? error.message : String(error);
    io.stderr.write(
      `grag: unexpected error: ${message}${io.env.GRAG_DEBUG ? `\n${(error as Error).stack}` : ' (set GRAG_DEBUG=1 for the stack)'}\n`,
    );
    return 1;
  }
}

/** Version of this CLI, from its package.json. */
export const VERSION: string = (
  JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }
).version;
