import { AsyncLocalStorage } from 'node:async_hooks';
import type { MeterSnapshot, StageUsage, UsageMeter } from './contracts/meter.js';
import {
  type ChatCallOptions,
  type ChatModel,
  type Embedder,
  type FittableEmbedder,
  isFittableEmbedder,
  type TokenUsage,
} from './contracts/models.js';
import type { Tokenizer } from './contracts/tokenizer.js';
import { chatModelAs } from './model-identity.js';
import { findPrice, type PriceTable, priceTokens } from './pricing.js';

/** An all-zero {@link StageUsage}. */
export function emptyStageUsage(): StageUsage {
  return {
    chatCalls: 0,
    inputTokens: 0,
    outputTokens: 0,
    embedCalls: 0,
    embeddedValues: 0,
    embedTokens: 0,
    wallMs: 0,
    cacheHits: 0,
    cacheMisses: 0,
    usd: 0,
    models: {},
  };
}

function modelUsage(usage: StageUsage, model: string): StageUsage['models'][string] {
  let perModel = usage.models[model];
  if (!perModel) {
    perModel = { calls: 0, inputTokens: 0, outputTokens: 0 };
    usage.models[model] = perModel;
  }
  return perModel;
}

/** The counters of a {@link StageUsage} that add up. */
export const STAGE_COUNTERS = [
  'chatCalls',
  'inputTokens',
  'outputTokens',
  'embedCalls',
  'embeddedValues',
  'embedTokens',
  'wallMs',
  'cacheHits',
  'cacheMisses',
  'usd',
] as const;

/** Add the counts of `from` (per-model ones included) into `into`. */
export function addStageUsage(into: StageUsage, from: StageUsage): void {
  for (const key of STAGE_COUNTERS) into[key] += from[key];
  for (const [model, m] of Object.entries(from.models)) {
    const t = modelUsage(into, model);
    t.calls += m.calls;
    t.inputTokens += m.inputTokens;
    t.outputTokens += m.outputTokens;
  }
}

/** Stage name used for work done outside any `meter.stage(...)`. */
export const UNSTAGED = 'other';

/** Settings of a {@link Meter}. */
export interface MeterOptions {
  /**
   * Prices that turn tokens into `usd` (USD per 1M tokens by model; see {@link PriceTable}), e.g.
   * `OPENAI_PRICES` from `@grag/openai`. Models without a price add nothing to `usd` and are named
   * by {@link Meter.unpricedModels}.
   * @default {} (no prices: core holds no vendor's price list)
   */
  prices?: PriceTable;
}

/**
 * Counts model calls, input/output tokens, embedding tokens, US dollars and wall time per stage
 * and model. Wrap models with {@link meteredChat} / {@link meteredEmbedder}; name stages with
 * `meter.stage`.
 */
export class Meter implements UsageMeter {
  readonly #stages = new Map<string, StageUsage>();
  readonly #current = new AsyncLocalStorage<string>();
  /** The price table in use. */
  readonly prices: Readonly<PriceTable>;

  constructor(options: MeterOptions = {}) {
    this.prices = { ...options.prices };
  }

  /** The stage the caller runs in (`'other'` outside any stage). */
  get currentStage(): string {
    return this.#current.getStore() ?? UNSTAGED;
  }

  #usage(stage: string): StageUsage {
    let usage = this.#stages.get(stage);
    if (!usage) {
      usage = emptyStageUsage();
      this.#stages.set(stage, usage);
    }
    return usage;
  }

  /** Run `fn` as stage `name`: its model calls and wall time are counted under that name. */
  async stage<T>(name: string, fn: () => Promise<T> | T): Promise<T> {
    const started = performance.now();
    try {
      return await this.#current.run(name, fn);
    } finally {
      this.#usage(name).wallMs += performance.now() - started;
    }
  }

  recordChat(model: string, usage: { inputTokens: number; outputTokens: number }): void {
    const stage = this.#usage(this.currentStage);
    stage.chatCalls += 1;
    stage.inputTokens += usage.inputTokens;
    stage.outputTokens += usage.outputTokens;
    const perModel = modelUsage(stage, model);
    perModel.calls += 1;
    perModel.inputTokens += usage.inputTokens;
    perModel.outputTokens += usage.outputTokens;
  }

  recordEmbedding(model: string, values: number, tokens: number): void {
    const stage = this.#usage(this.currentStage);
    stage.embedCalls += 1;
    stage.embeddedValues += values;
    stage.embedTokens += tokens;
    const perModel = modelUsage(stage, model);
    perModel.calls += 1;
    perModel.inputTokens += tokens;
  }

  /** Count one call-cache lookup in the current stage. */
  recordCache(hit: boolean): void {
    const stage = this.#usage(this.currentStage);
    if (hit) stage.cacheHits += 1;
    else stage.cacheMisses += 1;
  }

  /** A copy of the counts so far, per stage and in total, with `usd` from the price table. */
  snapshot(): MeterSnapshot {
    const stages: Record<string, StageUsage> = {};
    const total = emptyStageUsage();
    for (const [name, usage] of this.#stages) {
      const copy = structuredClone(usage);
      copy.usd = 0;
      for (const [model, m] of Object.entries(copy.models)) {
        const price = findPrice(model, this.prices);
        if (price) copy.usd += priceTokens(price, m.inputTokens, m.outputTokens);
      }
      stages[name] = copy;
      addStageUsage(total, copy);
    }
    return { stages, total };
  }

  /** Models that made calls and have no price in the table (their cost is not in `usd`). */
  unpricedModels(): string[] {
    const models = new Set<string>();
    for (const usage of this.#stages.values()) {
      for (const model of Object.keys(usage.models)) if (!findPrice(model, this.prices)) models.add(model);
    }
    return [...models].sort();
  }

  reset(): void {
    this.#stages.clear();
  }
}

/**
 * Wrap a chat model so every call is recorded in `meter`. Token counts come from the provider's
 * usage; when it reports none, they are counted with `tokenizer` (when given). A model that streams
 * keeps streaming: its call is recorded when the stream finishes, or, when it ends early (aborted,
 * failed, or the caller stopped reading), with the text that had arrived.
 */
export function meteredChat(model: ChatModel, meter: UsageMeter, tokenizer?: Tokenizer): ChatModel {
  const id = `${model.provider}:${model.modelId}`;
  const record = (options: ChatCallOptions, text: string, usage: TokenUsage | undefined) =>
    meter.recordChat(
      id,
      usage ?? {
        inputTokens: tokenizer ? options.messages.reduce((n, m) => n + tokenizer.count(m.content), 0) : 0,
        outputTokens: tokenizer ? tokenizer.count(text) : 0,
      },
    );
  const wrapped = chatModelAs(model, async (options) => {
    const result = await model.doGenerate(options);
    record(options, result.text, result.usage);
    return result;
  });
  const stream = model.doStream?.bind(model);
  if (stream) {
    wrapped.doStream = async function* (options) {
      let text = '';
      let recorded = false;
      try {
        for await (const part of stream(options)) {
          if (part.type === 'text-delta') text += part.text;
          else if (!recorded) {
            recorded = true;
            record(options, text, part.usage);
          }
          yield part;
        }
      } finally {
        if (!recorded) record(options, text, undefined);
      }
    };
  }
  return wrapped;
}

/**
 * Wrap an embedder so every call is recorded in `meter` (tokens from usage, else from `tokenizer`).
 * A fittable embedder stays fittable: `fit`, `state` and `restore` are delegated.
 */
export function meteredEmbedder(embedder: Embedder, meter: UsageMeter, tokenizer?: Tokenizer): Embedder {
  const id = `${embedder.provider}:${embedder.modelId}`;
  const wrapped: Embedder = {
    specificationVersion: 'v1',
    provider: embedder.provider,
    modelId: embedder.modelId,
    get dimensions() {
      return embedder.dimensions;
    },
    maxBatchSize: embedder.maxBatchSize,
    async doEmbed(options) {
      const result = await embedder.doEmbed(options);
      const tokens =
        result.usage?.tokens ?? (tokenizer ? options.values.reduce((n, v) => n + tokenizer.count(v), 0) : 0);
      meter.recordEmbedding(id, options.values.length, tokens);
      return result;
    },
  };
  if (isFittableEmbedder(embedder)) {
    Object.defineProperty(wrapped, 'fitted', { get: () => embedder.fitted, enumerable: true });
    Object.assign(wrapped, {
      fit: (corpus: string[]) => embedder.fit(corpus),
      state: () => embedder.state(),
      restore: (state: unknown) => embedder.restore(state),
    });
    return wrapped as FittableEmbedder;
  }
  return wrapped;
}
