/**
 * The meter contract: what a build context's meter counts ({@link StageUsage} per stage and model)
 * and how methods and model wrappers talk to it ({@link UsageMeter}). `Meter` in `@grag/core/kit`
 * implements it.
 */
/** Usage counted for one stage (or in total). */
export interface StageUsage {
  chatCalls: number;
  inputTokens: number;
  outputTokens: number;
  embedCalls: number;
  /** Values (texts) embedded. */
  embeddedValues: number;
  embedTokens: number;
  /** Wall time spent inside `meter.stage(name, ...)`, in milliseconds. */
  wallMs: number;
  /** Model calls (chat calls, embedded values) answered from a call cache. */
  cacheHits: number;
  /** Model calls looked up in a call cache and not found there. */
  cacheMisses: number;
  /**
   * Cost in US dollars of the priced models' tokens (see the meter's price table). Models without
   * a price add nothing; {@link UsageMeter.unpricedModels} names them.
   */
  usd: number;
  /** Usage per model id (`provider:modelId`). */
  models: Record<string, { calls: number; inputTokens: number; outputTokens: number }>;
}

/** What a meter counted so far: per stage, and in total. */
export interface MeterSnapshot {
  stages: Record<string, StageUsage>;
  total: StageUsage;
}

/**
 * Counts model calls, input/output tokens, embedding tokens, US dollars and wall time per stage
 * and model: the `meter` of a build context. `Meter` in `@grag/core/kit` implements it; wrap models
 * with its `meteredChat` / `meteredEmbedder`, name stages with {@link UsageMeter.stage}.
 */
export interface UsageMeter {
  /** The stage the caller runs in (`'other'` outside any stage). */
  readonly currentStage: string;
  /** Run `fn` as stage `name`: its model calls and wall time are counted under that name. */
  stage<T>(name: string, fn: () => Promise<T> | T): Promise<T>;
  /** Count one chat call of `model` (`provider:modelId`) in the current stage. */
  recordChat(model: string, usage: { inputTokens: number; outputTokens: number }): void;
  /** Count one embedding call of `model` over `values` texts of `tokens` tokens in the current stage. */
  recordEmbedding(model: string, values: number, tokens: number): void;
  /** Count one call-cache lookup in the current stage. */
  recordCache(hit: boolean): void;
  /** A copy of the counts so far, per stage and in total, with `usd` from the meter's prices. */
  snapshot(): MeterSnapshot;
  /** Models that made calls and have no price (their cost is not in `usd`). */
  unpricedModels(): string[];
  /** Forget every count. */
  reset(): void;
}
