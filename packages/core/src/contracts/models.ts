/**
 * Model contracts. Small versioned types with one `do*` method each; providers
 * (`@grag/openai`, `@grag/offline`, scripted test models) implement them.
 */

import { throwIfAborted } from './errors.js';

/** Who wrote a {@link ChatMessage}. */
export type ChatRole = 'system' | 'user' | 'assistant';

/** One message of a chat call. */
export interface ChatMessage {
  role: ChatRole;
  content: string;
}

/** What a chat call sends: the messages and the call settings ({@link ChatModel.doGenerate}). */
export interface ChatCallOptions {
  messages: ChatMessage[];
  /** Sampling temperature. Tasks use 0 unless told otherwise. */
  temperature?: number;
  /** Upper bound on generated tokens. */
  maxOutputTokens?: number;
  /** Ask for a JSON object when the provider supports it. */
  responseFormat?: 'text' | 'json';
  stop?: string[];
  seed?: number;
  abortSignal?: AbortSignal;
  /**
   * What the call is for, set by the prompt task suite. Providers ignore it and call caches leave it
   * out of the key; a simulated model (the `grag index --estimate` dry run) answers from it.
   */
  task?: ChatTaskInfo;
}

/** The task a chat call serves: its name, its arguments, and the turn within a multi-turn task. */
export interface ChatTaskInfo {
  /** Task name, e.g. `'extractGraph'`. */
  name: string;
  /** The task's arguments (options without their abort signal). */
  args: unknown[];
  /** 0 for the first call of a task; gleaning passes count up from 1. @default 0 */
  turn?: number;
  /** `'gleaning-check'` for GraphRAG's "are there more?" question, `'repair'` for a repair retry. */
  kind?: string;
}

/** Tokens a model call consumed, as the provider reports them. */
export interface TokenUsage {
  inputTokens: number;
  outputTokens: number;
}

/** What a chat call returns: the text, and usage and finish reason when the provider reports them. */
export interface ChatResult {
  text: string;
  usage?: TokenUsage;
  finishReason?: 'stop' | 'length' | 'content-filter' | 'error' | 'other';
}

/**
 * A part of a streamed chat response ({@link ChatModel.doStream}): pieces of the text as the model
 * writes them, then one `finish` part with what `doGenerate` would report besides the text.
 */
export type ChatStreamPart =
  | { type: 'text-delta'; text: string }
  | { type: 'finish'; usage?: TokenUsage; finishReason?: ChatResult['finishReason'] };

/** A chat (completion) model. */
export interface ChatModel {
  readonly specificationVersion: 'v1';
  /** Provider name, e.g. `'openai'`, `'offline'`, `'scripted'`. */
  readonly provider: string;
  readonly modelId: string;
  doGenerate(options: ChatCallOptions): Promise<ChatResult>;
  /**
   * Optional: the same call, streamed. Yields `text-delta` parts as the text arrives and ends with
   * one `finish` part; the deltas joined are the text `doGenerate` would return. Throws (from the
   * iteration) what `doGenerate` throws, also mid-stream, and an `AbortError` once
   * `options.abortSignal` aborts. Stopping the iteration early ends the call. Callers use
   * `streamChat` (from `@grag/core`), which falls back to `doGenerate` for a model without it.
   */
  doStream?(options: ChatCallOptions): AsyncIterable<ChatStreamPart>;
}

/** What an embedding call sends ({@link Embedder.doEmbed}). */
export interface EmbedCallOptions {
  values: string[];
  abortSignal?: AbortSignal;
}

/** What an embedding call returns: one vector per value, and usage when reported. */
export interface EmbedResult {
  embeddings: Float32Array[];
  usage?: { tokens: number };
}

/** A text embedding model. */
export interface Embedder {
  readonly specificationVersion: 'v1';
  readonly provider: string;
  readonly modelId: string;
  readonly dimensions: number;
  /**
   * Largest number of values one `doEmbed` call accepts; callers split larger batches.
   * `Infinity` when unbounded.
   */
  readonly maxBatchSize?: number;
  doEmbed(options: EmbedCallOptions): Promise<EmbedResult>;
}

/**
 * An embedder that must see the corpus before use (e.g. TF-IDF statistics) and is persisted with
 * the index. Methods call `fit` at build time and store `state()`; providers restore it on load.
 */
export interface FittableEmbedder extends Embedder {
  readonly fitted: boolean;
  fit(corpus: string[]): Promise<void> | void;
  /** JSON-serializable state that restores the fitted embedder. */
  state(): unknown;
  /** Restore the state written by `state()`. */
  restore(state: unknown): void;
}

/** Whether `embedder` is a {@link FittableEmbedder} (fitted on the corpus it indexes). */
export function isFittableEmbedder(embedder: Embedder): embedder is FittableEmbedder {
  const e = embedder as Partial<FittableEmbedder>;
  return typeof e.fit === 'function' && typeof e.state === 'function' && typeof e.restore === 'function';
}

/** A string that identifies a model for manifests and caches: `provider:modelId[:dimensions]`. */
export function modelFingerprint(model: ChatModel | Embedder): string {
  return 'dimensions' in model
    ? `${model.provider}:${model.modelId}:${model.dimensions}`
    : `${model.provider}:${model.modelId}`;
}

/**
 * Embed many values, splitting into batches of `embedder.maxBatchSize` (or `batchSize`). Throws
 * an `AbortError` before the next batch once `abortSignal` is aborted.
 */
export async function embedAll(
  embedder: Embedder,
  values: string[],
  options: { batchSize?: number; abortSignal?: AbortSignal } = {},
): Promise<Float32Array[]> {
  const size = Math.max(
    1,
    Math.min(options.batchSize ?? Number.POSITIVE_INFINITY, embedder.maxBatchSize ?? 256),
  );
  const out: Float32Array[] = [];
  for (let i = 0; i < values.length; i += size) {
    // Between batches too: an embedder that ignores the signal still stops at the next batch.
    throwIfAborted(options.abortSignal);
    const batch = values.slice(i, i + size);
    const { embeddings } = await embedder.doEmbed({ values: batch, abortSignal: options.abortSignal });
    out.push(...embeddings);
  }
  return out;
}

/** Generate text with a chat model from a system and a user prompt. */
export async function generateText(
  model: ChatModel,
  prompt: { system?: string; user: string },
  options: Omit<ChatCallOptions, 'messages'> = {},
): Promise<ChatResult> {
  const messages: ChatMessage[] = [];
  if (prompt.system) messages.push({ role: 'system', content: prompt.system });
  messages.push({ role: 'user', content: prompt.user });
  return model.doGenerate({ temperature: 0, ...options, messages });
}
