/**
 * What the model-call cache and the build checkpoints cost and save, on a MuSiQue slice, for KET-RAG and
 * DA-RAG built through the CLI's registry entries (`entry.method.build(docs, ctx, {})`).
 *
 *   npx -y pnpm@10 exec tsx benchmarks/build-runtime.ts [datasets-dir] [--passages 300] [--runs 3]
 *     [--methods ket-rag,da-rag] [--chat-latency 50] [--embed-latency 20] [--out benchmarks/results] [--tables]
 *
 * `--tables` writes the markdown again from the JSON of the last run (no build).
 *
 * Providers stand in for a paid API: the prompt task suite on a simulated chat model that answers each
 * call with `@grag/offline`'s heuristics (`createSimulatedChat(createOfflineTasks())`), and a simulated
 * non-fittable embedder reporting OpenAI's identity (hashed bag of words, 256 dims), so every call goes
 * through the cache as a hosted model's would. An optional fixed latency per chat call and per embedding
 * batch (a wrapper that waits) stands for the network and the model's own time.
 *
 * Per method, in one child process (after an untimed warm-up build that loads wink-nlp and warms the JIT):
 *   (a) cold build, no cache, no checkpoints;
 *   (b) cold build with a FileCallCache and a FileCheckpointStore (time; bytes of calls/ and builds/);
 *   (c) warm rebuild on the call cache of a finished build, checkpoints cleared as the CLI does;
 *   (d) a build aborted (ctx.signal) once half of its model calls completed, then resumed on the same
 *       cache and checkpoints: calls repeated, calls made, stages restored, time;
 *   (e) with latency: cold builds at runtime concurrency 1, 4, 8, and the cache/resume cases at 8.
 * Indexes of (b), (c), (d) and the other (a) runs are compared byte for byte with the first (a) index
 * (manifest `createdAt` ignored).
 */
import { execFileSync } from 'node:child_process';
import { type Dirent, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { createSimulatedEmbedder, findMethod } from '@grag/cli';
import {
  AbortError,
  type BuildContext,
  type ChatModel,
  type Document,
  type Embedder,
  modelFingerprint,
} from '@grag/core';
import {
  buildKey,
  cachedChat,
  cachedEmbedder,
  callCacheKey,
  chatCallKey,
  createBuildContext,
  embeddingKey,
  FileCallCache,
  FileCheckpointStore,
  getTokenizer,
  Meter,
  meteredChat,
  meteredEmbedder,
  startBuild,
} from '@grag/core/kit';
import { createPromptTasks, createSimulatedChat } from '@grag/core/tasks';
import { readIndexTree } from '@grag/core/test';
import { gitState, seededRandom, shuffle } from '@grag/eval';
import { hnswIndexFactory } from '@grag/hnsw';
import { createOfflineTasks, createWinkTextAnalyzer } from '@grag/offline';
import { loadQaDataset, machine, percentile, runInChild } from './lib.js';

const SEED = 20261121;
const EMBED_IDENTITY = { provider: 'openai', modelId: 'text-embedding-3-small', dimensions: 256 } as const;

/** Median, min and max of a few runs (ms or counts). */
interface Spread {
  median: number;
  min: number;
  max: number;
  runs: number[];
}

function spread(values: number[]): Spread {
  return {
    median: percentile(values, 50),
    min: Math.min(...values),
    max: Math.max(...values),
    runs: values.map((v) => Math.round(v * 10) / 10),
  };
}

/** Calls that reached the (simulated) model, under the cache. */
interface CallLog {
  chatCalls: number;
  embedBatches: number;
  embeddedValues: number;
  keys: string[];
}

function newLog(): CallLog {
  return { chatCalls: 0, embedBatches: 0, embeddedValues: 0, keys: [] };
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

interface Latency {
  chatMs: number;
  embedMs: number;
}

/**
 * The stand-in for a hosted API: simulated chat and embedder, a fixed wait per call, and a log of
 * every call that reaches them (keyed as the resume harness keys them: chat call without its task
 * metadata and signal; one key per embedded value). `afterCall` runs once a call completed.
 */
function apiModels(latency: Latency, log: CallLog, afterCall?: () => void) {
  const chat = createSimulatedChat(createOfflineTasks(), { provider: 'openai', modelId: 'gpt-4o-mini' });
  const embedder = createSimulatedEmbedder(EMBED_IDENTITY);
  const api: ChatModel = {
    specificationVersion: 'v1',
    provider: chat.provider,
    modelId: chat.modelId,
    async doGenerate(options) {
      if (latency.chatMs > 0) await sleep(latency.chatMs);
      const result = await chat.doGenerate(options);
      log.chatCalls += 1;
      log.keys.push(`chat:${chatCallKey(chat, options)}`);
      afterCall?.();
      return result;
    },
  };
  const apiEmbedder: Embedder = {
    specificationVersion: 'v1',
    provider: embedder.provider,
    modelId: embedder.modelId,
    dimensions: embedder.dimensions,
    async doEmbed(options) {
      if (latency.embedMs > 0) await sleep(latency.embedMs);
      const result = await embedder.doEmbed(options);
      log.embedBatches += 1;
      log.embeddedValues += options.values.length;
      for (const value of options.values) log.keys.push(`embed:${embeddingKey(embedder, value)}`);
      afterCall?.();
      return result;
    },
  };
  return { chat: api, embedder: apiEmbedder };
}

interface Store {
  dir: string;
  calls: FileCallCache;
}

/** A build context as `grag index` makes one for an OpenAI-compatible endpoint (meter inside the cache). */
function contextFor(
  latency: Latency,
  log: CallLog,
  store: Store | undefined,
  afterCall?: () => void,
): BuildContext {
  const meter = new Meter();
  const tokenizer = getTokenizer();
  const models = apiModels(latency, log, afterCall);
  let chat = meteredChat(models.chat, meter, tokenizer);
  if (store) chat = cachedChat(chat, store.calls, meter);
  const metered = meteredEmbedder(models.embedder, meter, tokenizer);
  return createBuildContext({
    embedder: store ? cachedEmbedder(metered, store.calls, meter) : metered,
    meterEmbedder: false,
    tasks: createPromptTasks(chat),
    tokenizer,
    meter,
    vectorIndex: hnswIndexFactory(),
    textAnalyzer: createWinkTextAnalyzer(),
    chat,
  });
}

/** The checkpoint directory `grag index` would use for this build. */
function checkpointsFor(store: Store, method: string, ctx: BuildContext, docs: Document[]) {
  const entry = findMethod(method)!;
  return new FileCheckpointStore(
    join(
      store.dir,
      'builds',
      buildKey({
        method: entry.method.name,
        formatVersion: entry.method.formatVersion,
        options: {},
        documents: docs,
        providers: {
          embedder: modelFingerprint(ctx.embedder),
          tasks: ctx.tasks.id,
          vectorIndex: ctx.vectorIndex.kind,
        },
      }),
    ),
  );
}

function differing(a: Map<string, Buffer>, b: Map<string, Buffer>): string[] {
  return [...new Set([...a.keys(), ...b.keys()])].filter((f) => {
    const x = a.get(f);
    const y = b.get(f);
    return !x || !y || !x.equals(y);
  });
}

/** Files, bytes (apparent) and bytes allocated on disk under `dir`. */
async function diskUse(dir: string): Promise<{ files: number; bytes: number; allocated: number }> {
  let files = 0;
  let bytes = 0;
  let allocated = 0;
  let entries: Dirent[];
  try {
    entries = await readdir(dir, { recursive: true, withFileTypes: true });
  } catch {
    return { files, bytes, allocated };
  }
  for (const entry of entries) {
    if (!entry.isFile()) continue;
    const s = await stat(join(entry.parentPath, entry.name));
    files += 1;
    bytes += s.size;
    allocated += s.blocks * 512;
  }
  return { files, bytes, allocated };
}

interface BuildResult {
  ms: number;
  log: CallLog;
  cacheHits: number;
  inputTokens: number;
  outputTokens: number;
  resumedStages: string[];
  differingFiles: string[] | null;
  aborted: boolean;
}

interface BuildSpec {
  method: string;
  docs: Document[];
  latency: Latency;
  concurrency: number;
  store?: Store;
  checkpoints?: boolean;
  /** Abort once this many calls (chat calls + embedded values) reached the model. */
  abortAfter?: number;
  /** Save the index here and compare with `reference`. */
  saveTo?: string;
  reference?: Map<string, Buffer>;
  /** Clear the checkpoints after a finished build, as `grag index` does. */
  clearCheckpoints?: boolean;
  /** Measure the checkpoint directory before clearing it. */
  onBuilt?: (checkpointDir: string | undefined) => Promise<void>;
}

async function runBuild(spec: BuildSpec): Promise<BuildResult> {
  const entry = findMethod(spec.method)!;
  const log = newLog();
  const controller = new AbortController();
  const afterCall =
    spec.abortAfter === undefined
      ? undefined
      : () => {
          if (log.chatCalls + log.embeddedValues >= spec.abortAfter!) controller.abort();
        };
  const ctx = contextFor(spec.latency, log, spec.store, afterCall);
  if (spec.abortAfter !== undefined) ctx.signal = controller.signal;
  const checkpoints =
    spec.store && spec.checkpoints ? checkpointsFor(spec.store, spec.method, ctx, spec.docs) : undefined;
  ctx.runtime = { concurrency: spec.concurrency, ...(checkpoints ? { checkpoints } : {}) };
  const rt = startBuild(ctx);
  const t0 = performance.now();
  let index: unknown;
  let aborted = false;
  try {
    index = await entry.method.build(spec.docs, ctx, {});
  } catch (error) {
    if (!AbortError.isInstance(error) || spec.abortAfter === undefined) throw error;
    aborted = true;
  }
  const ms = performance.now() - t0;
  let differingFiles: string[] | null = null;
  if (!aborted) {
    await spec.onBuilt?.(checkpoints?.dir);
    if (spec.saveTo) {
      await entry.method.save(index, spec.saveTo);
      if (spec.reference) differingFiles = differing(spec.reference, await readIndexTree(spec.saveTo));
    }
    if (spec.clearCheckpoints) await checkpoints?.clear();
  }
  const total = ctx.meter.snapshot().total;
  return {
    ms,
    log,
    cacheHits: total.cacheHits,
    inputTokens: total.inputTokens,
    outputTokens: total.outputTokens,
    resumedStages: [...rt.resumedStages],
    differingFiles,
    aborted,
  };
}

interface MethodReport {
  method: string;
  passages: number;
  totals: {
    chatCalls: number;
    embedBatches: number;
    embeddedValues: number;
    inputTokens: number;
    outputTokens: number;
    indexFiles: string[];
    indexBytes: number;
  };
  cold: Spread;
  coldIdentical: boolean[];
  /** (b′) cold with the call cache only, no checkpoints. */
  cacheOnly: Spread;
  cached: Spread;
  cachedIdentical: boolean[];
  cacheDisk: { files: number; bytes: number; allocated: number };
  checkpointDisk: { files: number; bytes: number; allocated: number };
  warm: Spread;
  warmCalls: number[];
  warmCacheHits: number;
  warmIdentical: boolean[];
  resume: {
    abortAfter: number;
    firstRunMs: Spread;
    firstRunCalls: number[];
    resumedMs: Spread;
    resumedCalls: number[];
    resumedChatCalls: number[];
    repeatedCalls: number[];
    resumedStages: string[][];
    identical: boolean[];
  };
  latency: {
    chatMs: number;
    embedMs: number;
    cold: { concurrency: number; ms: number }[];
    cached8: number;
    warm8: number;
    resume8: { firstRunMs: number; resumedMs: number; resumedCalls: number; repeatedCalls: number };
  } | null;
}

function sliceOfMusique(root: string, passages: number): Document[] {
  const data = loadQaDataset(root, 'musique');
  const byId = new Map(data.corpus.map((d) => [d.id, d]));
  const questions = shuffle(seededRandom(SEED), [...data.questions]);
  const picked = new Map<string, Document>();
  for (const q of questions) {
    const context = (q.meta?.context as string[] | undefined) ?? [];
    if (picked.size + context.length > passages && picked.size > 0) break;
    for (const id of context) {
      const doc = byId.get(id);
      if (doc) picked.set(id, doc);
    }
  }
  // Corpus order (content-hash ids), as the corpus file lists them.
  return [...picked.values()].sort((a, b) => (a.id < b.id ? -1 : 1));
}

async function runMethod(
  root: string,
  method: string,
  passages: number,
  runs: number,
  latency: Latency,
): Promise<MethodReport> {
  const docs = sliceOfMusique(root, passages);
  const none: Latency = { chatMs: 0, embedMs: 0 };
  const work = await mkdtemp(join(tmpdir(), 'grag-build-runtime-'));
  const log = (s: string) => process.stderr.write(`  [${method}] ${s}\n`);
  try {
    // Warm-up: loads wink-nlp's model, warms the JIT; also the reference index.
    const refDir = join(work, 'reference');
    const warmup = await runBuild({ method, docs, latency: none, concurrency: 8, saveTo: refDir });
    const reference = await readIndexTree(refDir);
    const indexBytes = [...reference.values()].reduce((n, b) => n + b.length, 0);
    const totalCalls = warmup.log.chatCalls + warmup.log.embeddedValues;
    log(
      `${docs.length} passages: ${warmup.log.chatCalls} chat calls, ${warmup.log.embeddedValues} embedded values, warm-up ${(warmup.ms / 1000).toFixed(1)} s`,
    );

    const cold: number[] = [];
    const coldIdentical: boolean[] = [];
    const cacheOnly: number[] = [];
    const cached: number[] = [];
    const cachedIdentical: boolean[] = [];
    let cacheDisk = { files: 0, bytes: 0, allocated: 0 };
    let checkpointDisk = { files: 0, bytes: 0, allocated: 0 };
    const warm: number[] = [];
    const warmCalls: number[] = [];
    const warmIdentical: boolean[] = [];
    let warmCacheHits = 0;
    const r = {
      firstRunMs: [] as number[],
      firstRunCalls: [] as number[],
      resumedMs: [] as number[],
      resumedCalls: [] as number[],
      resumedChatCalls: [] as number[],
      repeatedCalls: [] as number[],
      resumedStages: [] as string[][],
      identical: [] as boolean[],
    };
    const abortAfter = Math.round(totalCalls / 2);
    for (let run = 0; run < runs; run++) {
      // (a) cold, no cache, no checkpoints.
      const a = await runBuild({
        method,
        docs,
        latency: none,
        concurrency: 8,
        saveTo: join(work, `a-${run}`),
        reference,
      });
      cold.push(a.ms);
      coldIdentical.push(a.differingFiles!.length === 0);
      // (b′) cold with the file call cache only.
      const b1 = await runBuild({
        method,
        docs,
        latency: none,
        concurrency: 8,
        store: {
          dir: join(work, `calls-only-${run}`),
          calls: new FileCallCache(join(work, `calls-only-${run}`, 'calls')),
        },
      });
      cacheOnly.push(b1.ms);
      // (b) cold with a file call cache and file checkpoints, as `grag index` runs by default.
      const store: Store = {
        dir: join(work, `cache-${run}`),
        calls: new FileCallCache(join(work, `cache-${run}`, 'calls')),
      };
      const b = await runBuild({
        method,
        docs,
        latency: none,
        concurrency: 8,
        store,
        checkpoints: true,
        saveTo: join(work, `b-${run}`),
        reference,
        clearCheckpoints: true,
        onBuilt: async (dir) => {
          if (dir) checkpointDisk = await diskUse(dir);
        },
      });
      cached.push(b.ms);
      cachedIdentical.push(b.differingFiles!.length === 0);
      cacheDisk = await diskUse(join(store.dir, 'calls'));
      // (c) warm rebuild on the same call cache (checkpoints were cleared after (b)).
      const c = await runBuild({
        method,
        docs,
        latency: none,
        concurrency: 8,
        store: { dir: store.dir, calls: new FileCallCache(join(store.dir, 'calls')) },
        checkpoints: true,
        saveTo: join(work, `c-${run}`),
        reference,
        clearCheckpoints: true,
      });
      warm.push(c.ms);
      warmCalls.push(c.log.chatCalls + c.log.embeddedValues);
      warmIdentical.push(c.differingFiles!.length === 0);
      warmCacheHits = c.cacheHits;
      // (d) abort at half the calls, resume on the same cache and checkpoints.
      const dStore: Store = {
        dir: join(work, `resume-${run}`),
        calls: new FileCallCache(join(work, `resume-${run}`, 'calls')),
      };
      const first = await runBuild({
        method,
        docs,
        latency: none,
        concurrency: 8,
        store: dStore,
        checkpoints: true,
        abortAfter,
      });
      if (!first.aborted) throw new Error(`${method}: the build did not stop after ${abortAfter} calls`);
      const firstKeys = new Set(first.log.keys);
      const resumed = await runBuild({
        method,
        docs,
        latency: none,
        concurrency: 8,
        store: { dir: dStore.dir, calls: new FileCallCache(join(dStore.dir, 'calls')) },
        checkpoints: true,
        saveTo: join(work, `d-${run}`),
        reference,
        clearCheckpoints: true,
      });
      r.firstRunMs.push(first.ms);
      r.firstRunCalls.push(firstKeys.size);
      r.resumedMs.push(resumed.ms);
      r.resumedCalls.push(resumed.log.chatCalls + resumed.log.embeddedValues);
      r.resumedChatCalls.push(resumed.log.chatCalls);
      r.repeatedCalls.push(resumed.log.keys.filter((k) => firstKeys.has(k)).length);
      r.resumedStages.push(resumed.resumedStages);
      r.identical.push(resumed.differingFiles!.length === 0);
      log(
        `run ${run + 1}: cold ${(a.ms / 1000).toFixed(1)} s, cached ${(b.ms / 1000).toFixed(1)} s, warm ${(c.ms / 1000).toFixed(1)} s (${warmCalls.at(-1)} calls), resumed ${(resumed.ms / 1000).toFixed(1)} s (${r.resumedCalls.at(-1)} calls, ${r.repeatedCalls.at(-1)} repeated)`,
      );
      for (const dir of [
        `a-${run}`,
        `b-${run}`,
        `calls-only-${run}`,
        `c-${run}`,
        `d-${run}`,
        `cache-${run}`,
        `resume-${run}`,
      ]) {
        await rm(join(work, dir), { recursive: true, force: true });
      }
    }

    let latencyReport: MethodReport['latency'] = null;
    if (latency.chatMs > 0 || latency.embedMs > 0) {
      const coldRows: { concurrency: number; ms: number }[] = [];
      for (const concurrency of [1, 4, 8]) {
        const run = await runBuild({ method, docs, latency, concurrency });
        coldRows.push({ concurrency, ms: run.ms });
        log(`latency, concurrency ${concurrency}: ${(run.ms / 1000).toFixed(1)} s`);
      }
      const store: Store = {
        dir: join(work, 'lat-cache'),
        calls: new FileCallCache(join(work, 'lat-cache', 'calls')),
      };
      const b = await runBuild({
        method,
        docs,
        latency,
        concurrency: 8,
        store,
        checkpoints: true,
        clearCheckpoints: true,
      });
      const c = await runBuild({
        method,
        docs,
        latency,
        concurrency: 8,
        store: { dir: store.dir, calls: new FileCallCache(join(store.dir, 'calls')) },
        checkpoints: true,
        clearCheckpoints: true,
      });
      const dStore: Store = {
        dir: join(work, 'lat-resume'),
        calls: new FileCallCache(join(work, 'lat-resume', 'calls')),
      };
      const first = await runBuild({
        method,
        docs,
        latency,
        concurrency: 8,
        store: dStore,
        checkpoints: true,
        abortAfter,
      });
      const firstKeys = new Set(first.log.keys);
      const resumed = await runBuild({
        method,
        docs,
        latency,
        concurrency: 8,
        store: { dir: dStore.dir, calls: new FileCallCache(join(dStore.dir, 'calls')) },
        checkpoints: true,
        clearCheckpoints: true,
      });
      latencyReport = {
        chatMs: latency.chatMs,
        embedMs: latency.embedMs,
        cold: coldRows,
        cached8: b.ms,
        warm8: c.ms,
        resume8: {
          firstRunMs: first.ms,
          resumedMs: resumed.ms,
          resumedCalls: resumed.log.chatCalls + resumed.log.embeddedValues,
          repeatedCalls: resumed.log.keys.filter((k) => firstKeys.has(k)).length,
        },
      };
      log(
        `latency, concurrency 8: cached ${(b.ms / 1000).toFixed(1)} s, warm ${(c.ms / 1000).toFixed(1)} s, resumed ${(resumed.ms / 1000).toFixed(1)} s`,
      );
    }

    return {
      method,
      passages: docs.length,
      totals: {
        chatCalls: warmup.log.chatCalls,
        embedBatches: warmup.log.embedBatches,
        embeddedValues: warmup.log.embeddedValues,
        inputTokens: warmup.inputTokens,
        outputTokens: warmup.outputTokens,
        indexFiles: [...reference.keys()].sort(),
        indexBytes,
      },
      cold: spread(cold),
      coldIdentical,
      cacheOnly: spread(cacheOnly),
      cached: spread(cached),
      cachedIdentical,
      cacheDisk,
      checkpointDisk,
      warm: spread(warm),
      warmCalls,
      warmCacheHits,
      warmIdentical,
      resume: {
        abortAfter,
        firstRunMs: spread(r.firstRunMs),
        firstRunCalls: r.firstRunCalls,
        resumedMs: spread(r.resumedMs),
        resumedCalls: r.resumedCalls,
        resumedChatCalls: r.resumedChatCalls,
        repeatedCalls: r.repeatedCalls,
        resumedStages: r.resumedStages,
        identical: r.identical,
      },
      latency: latencyReport,
    };
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

interface FileCacheCost {
  entries: number;
  valueBytes: number;
  concurrency: number;
  fs: string;
  missUs: number;
  setUs: number;
  hitUs: number;
}

/** Time FileCallCache lookups and writes of chat-answer-sized entries in the temp directory. */
async function fileCacheCost(entries = 2000, concurrency = 8): Promise<FileCacheCost> {
  const dir = await mkdtemp(join(tmpdir(), 'grag-file-cache-'));
  try {
    const cache = new FileCallCache(dir);
    const keys = Array.from({ length: entries }, (_, i) => callCacheKey({ probe: i }));
    const value = { text: 'x'.repeat(1500), finishReason: 'stop' };
    const timed = async (op: (key: string) => Promise<unknown>) => {
      const t = performance.now();
      for (let i = 0; i < keys.length; i += concurrency) {
        await Promise.all(keys.slice(i, i + concurrency).map(op));
      }
      return ((performance.now() - t) / entries) * 1000;
    };
    const missUs = await timed((k) => cache.get(k));
    const setUs = await timed((k) => cache.set(k, value));
    const hitUs = await timed((k) => cache.get(k));
    let fs = 'unknown';
    try {
      const out = execFileSync('df', ['-T', tmpdir()], { encoding: 'utf8' }).trim().split('\n').at(-1)!;
      fs = out.split(/\s+/)[1] ?? fs;
    } catch {}
    return { entries, valueBytes: JSON.stringify(value).length, concurrency, fs, missUs, setUs, hitUs };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

const s = (ms: number) => (ms / 1000).toFixed(2);
const range = (x: Spread) => `${s(x.median)} (${s(x.min)}–${s(x.max)})`;
const kib = (n: number) => `${(n / 1024).toFixed(0)} KiB`;
const mib = (n: number) => `${(n / 2 ** 20).toFixed(1)} MiB`;
const allSame = (xs: boolean[]) =>
  xs.every(Boolean) ? 'yes' : `no (${xs.filter((x) => !x).length} of ${xs.length})`;
const uniq = <T>(xs: T[]) => [...new Set(xs.map((x) => JSON.stringify(x)))].map((x) => JSON.parse(x) as T);

function markdown(reports: MethodReport[], meta: Record<string, unknown>, runs: number): string {
  const m = meta.machine as ReturnType<typeof machine>;
  const load = meta.loadAverage as number[];
  const git = meta.git as { commit: string | null; dirty?: boolean; movedTo?: string | null };
  const lines: string[] = [
    '# Build runtime: model-call cache and checkpoints',
    '',
    `Run ${String(meta.date).slice(0, 10)} on ${m.cpu} (${m.cores} cores, ${m.memoryGiB} GiB), Node ${m.node}, ${m.platform};`,
    `1-minute load average ${load[0]} at the start and ${load[1]} at the end; whole run ${meta.minutes} min;`,
    `commit ${git.commit?.slice(0, 7) ?? 'unknown'}${git.dirty ? ' with uncommitted changes' : ''}${git.movedTo ? ` (HEAD moved to ${git.movedTo.slice(0, 7)} during the run)` : ''}.`,
    '',
    `Corpus: a MuSiQue slice of ${reports[0]?.passages} passages (the 20 context passages of MuSiQue questions taken in`,
    `seeded order, seed ${SEED}, deduplicated). Methods: \`ket-rag\` and \`da-rag\` from the CLI registry, built with`,
    '`entry.method.build(docs, ctx, {})` (default options) and an HNSW vector index, as `grag index` builds them.',
    '',
    'Providers stand in for a paid API: the prompt task suite (`createPromptTasks`) on a **simulated** chat model that',
    "answers every call with `@grag/offline`'s heuristics and renders the answer as model text",
    "(`createSimulatedChat(createOfflineTasks())`), and a simulated embedder with OpenAI's identity",
    '(text-embedding-3-small, 256 dims, hashed bag of words, not fittable). Both sit under `cachedChat` /',
    '`cachedEmbedder` exactly as `createProviders` puts an OpenAI model there, so every call goes through the cache.',
    'A "call" is a chat call or one embedded value (the unit the cache stores). Without added latency a model call',
    "costs what the simulated model spends on the CPU (wink-nlp heuristics, rendering); a hosted model's time is",
    'network and queueing instead, which the latency rows model with a fixed wait per chat call and per embedding batch.',
    '',
    `Times are build times (\`method.build\`, not the index write), seconds, median (min–max) of ${runs} runs, runtime`,
    'concurrency 8 (the CLI default) unless said otherwise. Each method runs in its own child process after one',
    "untimed warm-up build. Identical: the saved index has the same bytes as the first cold build's (every file;",
    'manifest `createdAt` ignored).',
    '',
    '## Calls per build',
    '',
    '| method | chat calls | input tokens | output tokens | embedding batches | embedded values | index files | index size |',
    '|---|---:|---:|---:|---:|---:|---:|---:|',
  ];
  for (const r of reports) {
    const t = r.totals;
    lines.push(
      `| ${r.method} | ${t.chatCalls} | ${t.inputTokens} | ${t.outputTokens} | ${t.embedBatches} | ${t.embeddedValues} | ${t.indexFiles.length} | ${kib(t.indexBytes)} |`,
    );
  }
  lines.push(
    '',
    'Tokens: cl100k_base counts of the prompts sent and the answers rendered by the simulated model (the meter of',
    '`grag index --estimate`); a hosted model would bill about these.',
    '',
    '## Cache and checkpoints, no added latency',
    '',
    '| method | (a) cold, no cache s | (b′) cold + cache s | (b) cold + cache + checkpoints s | overhead of (b) | calls/ on disk | builds/ on disk | (c) warm rebuild s | (c) model calls | (c) identical | (a) runs identical | (b) identical |',
    '|---|---:|---:|---:|---:|---|---|---:|---:|---|---|---|',
  );
  for (const r of reports) {
    const over = (r.cached.median / r.cold.median - 1) * 100;
    lines.push(
      `| ${r.method} | ${range(r.cold)} | ${range(r.cacheOnly)} | ${range(r.cached)} | ${over >= 0 ? '+' : ''}${over.toFixed(0)}% | ${r.cacheDisk.files} files, ${mib(r.cacheDisk.bytes)} (${mib(r.cacheDisk.allocated)} allocated) | ${r.checkpointDisk.files} files, ${mib(r.checkpointDisk.bytes)} (${mib(r.checkpointDisk.allocated)} allocated) | ${range(r.warm)} | ${uniq(r.warmCalls).join(', ')} | ${allSame(r.warmIdentical)} | ${allSame(r.coldIdentical)} | ${allSame(r.cachedIdentical)} |`,
    );
  }
  lines.push(
    '',
    '(b′) has the call cache without checkpoints, to split the overhead. calls/ is the call cache after one build, builds/ the checkpoints at the end of the build, before `grag index`',
    'clears them (allocated: blocks on disk; one small file per cached call). (c) rebuilds on the call cache of a',
    'finished (b) build with fresh checkpoints (cleared after (b), as the CLI does), so every stage runs again and',
    'every call is a cache hit; its time is the build without the model, cache reads included.',
    '',
    '## Resume after an abort at half of the calls',
    '',
    '| method | abort after calls | first run s | resumed run s | resumed / (a) | resumed / (b) | calls made by the resumed run | of them chat | calls repeated | stages restored | identical |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|---|---|',
  );
  for (const r of reports) {
    const d = r.resume;
    lines.push(
      `| ${r.method} | ${d.abortAfter} of ${r.totals.chatCalls + r.totals.embeddedValues} | ${range(d.firstRunMs)} | ${range(d.resumedMs)} | ${(d.resumedMs.median / r.cold.median).toFixed(2)} | ${(d.resumedMs.median / r.cached.median).toFixed(2)} | ${uniq(d.resumedCalls).join(', ')} | ${uniq(d.resumedChatCalls).join(', ')} | ${uniq(d.repeatedCalls).join(', ')} | ${uniq(
        d.resumedStages,
      )
        .map((x) => x.join(', '))
        .join(' / ')} | ${allSame(d.identical)} |`,
    );
  }
  lines.push(
    '',
    'The build is aborted through `ctx.signal` once that many calls have completed (calls in flight then finish and',
    'reach the cache, so the first run completes a few more); the resumed run uses the same call cache and',
    'checkpoint directory. Calls repeated: calls of the resumed run that the first run had already completed.',
    'Resumed / (b): against a cold build with the same cache and checkpoints (what a rerun without the abort costs).',
  );
  const fc = meta.fileCache as FileCacheCost;
  lines.push(
    '',
    `## FileCallCache per entry on this disk (${fc.entries} entries of ${kib(fc.valueBytes)} JSON, ${fc.concurrency} at a time)`,
    '',
    '| lookup, miss | write (temporary file + rename) | lookup, hit |',
    '|---:|---:|---:|',
    `| ${fc.missUs.toFixed(0)} µs | ${fc.setUs.toFixed(0)} µs | ${fc.hitUs.toFixed(0)} µs |`,
    '',
    `Temp directory on ${fc.fs}. One entry per chat call and per embedded value: a cold build with the cache pays a`,
    'miss and a write per call, a warm one a hit per call.',
  );
  const withLatency = reports.filter((r) => r.latency);
  if (withLatency.length > 0) {
    const l = withLatency[0]!.latency!;
    lines.push(
      '',
      `## With latency: ${l.chatMs} ms per chat call, ${l.embedMs} ms per embedding batch (one run each)`,
      '',
      '| method | calls × latency (serial) | cold, concurrency 1 s | cold, concurrency 4 s | cold, concurrency 8 s | speed-up 8 vs 1 | cold + cache + checkpoints (8) s | warm rebuild (8) s | resume at 50%: first run / resumed s | resumed calls (repeated) |',
      '|---|---:|---:|---:|---:|---:|---:|---:|---|---|',
    );
    for (const r of withLatency) {
      const x = r.latency!;
      const serial = r.totals.chatCalls * x.chatMs + r.totals.embedBatches * x.embedMs;
      const at = (c: number) => x.cold.find((row) => row.concurrency === c)!.ms;
      lines.push(
        `| ${r.method} | ${s(serial)} | ${s(at(1))} | ${s(at(4))} | ${s(at(8))} | ${(at(1) / at(8)).toFixed(1)}× | ${s(x.cached8)} | ${s(x.warm8)} | ${s(x.resume8.firstRunMs)} / ${s(x.resume8.resumedMs)} | ${x.resume8.resumedCalls} (${x.resume8.repeatedCalls}) |`,
      );
    }
    lines.push(
      '',
      "Calls × latency: the wait alone if every call ran one after another. Concurrency is the runtime's",
      '(`ctx.runtime.concurrency`, work items in flight per `rt.map`); stages that are not mapped (graph',
      'algorithms, index construction) run as before.',
    );
  }
  lines.push(
    '',
    'Reproduce: `npx -y pnpm@10 exec tsx benchmarks/build-runtime.ts` from the repository root.',
    '',
  );
  return lines.join('\n');
}

async function main(): Promise<void> {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: {
      methods: { type: 'string', default: 'ket-rag,da-rag' },
      passages: { type: 'string', default: '300' },
      runs: { type: 'string', default: '3' },
      'chat-latency': { type: 'string', default: '50' },
      'embed-latency': { type: 'string', default: '20' },
      out: { type: 'string', default: 'benchmarks/results' },
      single: { type: 'string' },
      tables: { type: 'boolean' },
    },
  });
  const root = resolve(positionals[0] ?? '../shared/datasets');
  const passages = Number(values.passages);
  const runs = Number(values.runs);
  const latency = { chatMs: Number(values['chat-latency']), embedMs: Number(values['embed-latency']) };
  if (values.tables) {
    // Render the markdown again from the JSON of an earlier run.
    const { reports, ...meta } = JSON.parse(readFileSync(join(values.out, 'build-runtime.json'), 'utf8')) as {
      reports: MethodReport[];
      runs: number;
    } & Record<string, unknown>;
    writeFileSync(join(values.out, 'build-runtime.md'), markdown(reports, meta, meta.runs));
    return;
  }
  if (values.single) {
    const report = await runMethod(root, values.single, passages, runs, latency);
    process.stdout.write(`${JSON.stringify(report)}\n`);
    return;
  }
  const self = fileURLToPath(import.meta.url);
  const started = performance.now();
  const loadBefore = loadavg()[0]!;
  const gitBefore = gitState();
  const reports: MethodReport[] = [];
  for (const method of values.methods.split(',')) {
    if (!findMethod(method)) throw new Error(`unknown method ${method}`);
    process.stderr.write(`running ${method} ...\n`);
    reports.push(
      runInChild<MethodReport>(self, [
        root,
        '--single',
        method,
        '--passages',
        String(passages),
        '--runs',
        String(runs),
        '--chat-latency',
        String(latency.chatMs),
        '--embed-latency',
        String(latency.embedMs),
      ]),
    );
  }
  const fileCache = await fileCacheCost();
  const meta = {
    benchmark: 'build-runtime',
    date: new Date().toISOString(),
    machine: machine(),
    datasetsRoot: 'shared/datasets',
    dataset: 'musique',
    seed: SEED,
    runs,
    minutes: Math.round((performance.now() - started) / 6000) / 10,
    loadAverage: [loadBefore, loadavg()[0]!].map((x) => Math.round(x * 100) / 100),
    fileCache,
    git: { ...gitBefore, ...(gitState().commit !== gitBefore.commit ? { movedTo: gitState().commit } : {}) },
    providers:
      'prompt task suite on createSimulatedChat(createOfflineTasks()) (openai:gpt-4o-mini identity); createSimulatedEmbedder openai:text-embedding-3-small 256 dims; HNSW vector index',
  };
  mkdirSync(values.out, { recursive: true });
  writeFileSync(join(values.out, 'build-runtime.json'), `${JSON.stringify({ ...meta, reports }, null, 2)}\n`);
  const md = markdown(reports, meta, runs);
  writeFileSync(join(values.out, 'build-runtime.md'), md);
  process.stdout.write(`${md}\n`);
}

await main();
