import type {
  BuildContext,
  ChatModel,
  Embedder,
  IndexManifest,
  TaskSuite,
  VectorIndexFactory,
} from '@grag/core';
import {
  cachedChat,
  cachedEmbedder,
  createBuildContext,
  flatIndexFactory,
  getTokenizer,
  Meter,
  type ModelCallCache,
  meteredChat,
  meteredEmbedder,
  type PriceTable,
  readOnlyCache,
} from '@grag/core/kit';
import { createPromptTasks, createSimulatedChat } from '@grag/core/tasks';
import { hnswAvailability, hnswIndexFactory } from '@grag/hnsw';
import { createOfflineEmbedder, createOfflineTasks, createWinkTextAnalyzer } from '@grag/offline';
import { createOpenAI, KNOWN_EMBEDDING_DIMENSIONS, OPENAI_PRICES } from '@grag/openai';
import { type GragConfig, usesOpenAI } from './config.js';
import { createSimulatedEmbedder } from './simulate.js';

export interface Providers {
  ctx: BuildContext;
  mode: 'offline' | 'openai' | 'estimate';
  /**
   * One line that says what runs; a second line when HNSW was asked for but is unavailable, so
   * the exact flat index stands in (see {@link Providers.vectorIndexNotice}).
   */
  summary: string;
  /** Why the vector index is not the configured one and how to enable it, when that is so. */
  vectorIndexNotice?: string;
}

/**
 * The vector index factory for a run. HNSW's native addon is loaded only here, when a run needs
 * it. A build that asks for HNSW where the addon is unavailable uses core's exact flat index and
 * says why in `notice`; querying an index built with HNSW keeps the HNSW factory, so loading it
 * fails with `HnswUnavailableError`, whose message says how to enable HNSW.
 */
export function chooseVectorIndex(
  kind: 'flat' | 'hnsw' | (string & {}),
  querying = false,
): { factory: VectorIndexFactory; notice?: string } {
  if (kind === 'flat') return { factory: flatIndexFactory };
  const availability = hnswAvailability();
  if (availability.available || querying) return { factory: hnswIndexFactory() };
  return {
    factory: flatIndexFactory,
    notice: `grag: using the exact flat vector index instead of HNSW: ${availability.error.reason}. ${HNSW_HOW_TO}`,
  };
}

/** How to enable HNSW, for the CLI's one-line notice. */
const HNSW_HOW_TO =
  'To enable HNSW with pnpm: `pnpm add -g @grag/cli --allow-build=hnswlib-node --force` (without -g in a project); or install with npm.';

/** Parse an embedder fingerprint `provider:modelId[:dims]` from a manifest. */
function parseFingerprint(
  fp: string | undefined,
): { provider: string; modelId: string; dimensions?: number } | undefined {
  if (!fp) return undefined;
  const [provider, ...rest] = fp.split(':');
  const last = rest.at(-1);
  const dims = last !== undefined && /^\d+$/.test(last) ? Number(last) : undefined;
  const modelId = (dims !== undefined ? rest.slice(0, -1) : rest).join(':');
  return dims !== undefined
    ? { provider: provider!, modelId, dimensions: dims }
    : { provider: provider!, modelId };
}

/** The offline heuristics and embedders run locally and cost nothing. */
const LOCAL_PRICES: PriceTable = { 'offline:*': { input: 0, output: 0 } };

/**
 * The price table of a run's meter: OpenAI's list prices (`OPENAI_PRICES` from `@grag/openai`),
 * the free local providers, and the user's `--prices` over both (a key given there wins).
 */
export function runPrices(overrides: PriceTable = {}): PriceTable {
  return { ...OPENAI_PRICES, ...LOCAL_PRICES, ...overrides };
}

/** What else a run's providers need. */
export interface ProviderOptions {
  /** The index being queried: its embedder and vector index are used. */
  manifest?: IndexManifest;
  /** Model-call cache in front of the OpenAI-compatible models. */
  cache?: ModelCallCache;
  /** Price overrides for the meter, over {@link runPrices}' defaults. */
  prices?: PriceTable;
}

/**
 * Providers for `grag index --estimate`: the prompt task suite runs on a simulated chat model
 * that answers with the offline heuristics, and a simulated embedder, both reporting the
 * configured OpenAI-compatible models' identities, so the meter counts and prices exactly what a
 * real build would send, without any call. With `options.cache`, calls the cache already holds
 * are answered from it (read only) and cost nothing, as in the real build.
 */
export function createEstimateProviders(config: GragConfig, options: ProviderOptions = {}): Providers {
  const meter = new Meter({ prices: runPrices(options.prices) });
  const tokenizer = getTokenizer();
  const probe = options.cache ? readOnlyCache(options.cache) : undefined;
  const local = createOfflineEmbedder(config.offlineEmbedder);
  let chat = meteredChat(
    createSimulatedChat(createOfflineTasks({ embedder: local }), {
      provider: 'openai',
      modelId: config.chatModel,
    }),
    meter,
    tokenizer,
  );
  if (probe) chat = cachedChat(chat, probe, meter);
  let embedder = meteredEmbedder(
    createSimulatedEmbedder({
      provider: 'openai',
      modelId: config.embeddingModel,
      dimensions: config.embeddingDimensions ?? KNOWN_EMBEDDING_DIMENSIONS[config.embeddingModel] ?? 1536,
    }),
    meter,
    tokenizer,
  );
  if (probe) embedder = cachedEmbedder(embedder, probe, meter);
  const ctx = createBuildContext({
    embedder,
    meterEmbedder: false,
    tasks: createPromptTasks(chat),
    tokenizer,
    meter,
    // The vector index a real build uses (NodeRAG lays its HNSW base layer; on the flat index it
    // would compute the exact one, O(n²)); it calls no model, so it costs nothing either way.
    vectorIndex: chooseVectorIndex(config.vectorIndex).factory,
    textAnalyzer: createWinkTextAnalyzer(),
    chat,
  });
  return {
    ctx,
    mode: 'estimate',
    summary: `grag: estimating a build with chat ${config.chatModel} and embeddings ${config.embeddingModel}; no model is called (grag's offline heuristics stand in for the model's answers${probe ? '; calls already in the cache count as free' : ''}).`,
  };
}

/**
 * Create the providers for a run. When `options.manifest` is given (querying an index), the
 * embedder and vector index it was built with are used, so a query always matches its index.
 * With `options.cache`, OpenAI-compatible calls are answered from the cache when it holds them
 * (the meter counts only the calls that reach the model, and cache hits and misses).
 */
export function createProviders(config: GragConfig, options: ProviderOptions = {}): Providers {
  const { manifest, cache } = options;
  const meter = new Meter({ prices: runPrices(options.prices) });
  const tokenizer = getTokenizer();
  const built = parseFingerprint(manifest?.providers.embedder);
  const vectorKind = manifest?.providers.vectorIndex ?? config.vectorIndex;
  const { factory: vectorIndex, notice } = chooseVectorIndex(vectorKind, manifest !== undefined);
  const openaiMode = built ? built.provider === 'openai' || usesOpenAI(config) : usesOpenAI(config);

  let embedder: Embedder;
  let tasks: TaskSuite;
  let chat: ChatModel | undefined;
  let summary: string;
  if (openaiMode) {
    const openai = createOpenAI({
      apiKey: config.apiKey,
      baseURL: config.baseURL,
      concurrency: config.concurrency,
    });
    chat = meteredChat(openai.chat(config.chatModel), meter, tokenizer);
    if (cache) chat = cachedChat(chat, cache, meter);
    tasks = createPromptTasks(chat);
    if (built && built.provider === 'offline') {
      embedder = createOfflineEmbedder(built.modelId);
    } else {
      const model = built?.modelId ?? config.embeddingModel;
      const dimensions = built?.dimensions ?? config.embeddingDimensions;
      embedder = openai.embedding(model, dimensions !== undefined ? { dimensions } : {});
    }
    summary = `grag: using ${config.baseURL ?? 'the OpenAI API'} (chat ${config.chatModel}, embeddings ${embedder.modelId}).`;
  } else {
    embedder = createOfflineEmbedder(built?.provider === 'offline' ? built.modelId : config.offlineEmbedder);
    tasks = createOfflineTasks({ embedder });
    summary = `grag: no OpenAI-compatible endpoint configured (set OPENAI_API_KEY or OPENAI_BASE_URL); running offline with wink-nlp heuristics and the ${embedder.modelId} embedder.`;
  }
  // Metered inside the cache, so only calls that reach the model are counted (fittable local
  // embedders pass through the cache uncached).
  const metered = meteredEmbedder(embedder, meter, tokenizer);
  const ctx = createBuildContext({
    embedder: cache ? cachedEmbedder(metered, cache, meter) : metered,
    meterEmbedder: false,
    tasks,
    tokenizer,
    meter,
    vectorIndex,
    // Methods that read text without a model (E2GraphRAG's entity graph) read it with wink, offline
    // or not.
    textAnalyzer: createWinkTextAnalyzer(),
    ...(chat ? { chat } : {}),
  });
  return {
    ctx,
    mode: openaiMode ? 'openai' : 'offline',
    summary: notice ? `${summary}\n${notice}` : summary,
    ...(notice ? { vectorIndexNotice: notice } : {}),
  };
}
