import { InvalidArgumentError } from '@grag/core';
import OpenAI from 'openai';
import { OpenAIChatModel, type OpenAIChatSettings } from './chat.js';
import { OpenAIEmbedder, type OpenAIEmbeddingSettings } from './embedding.js';
import type { RequestRuntime } from './request.js';
import { Semaphore } from './semaphore.js';

/** A `fetch` implementation (the global `fetch` by default). */
export type FetchFunction = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;

/** Settings of {@link createOpenAI}. Every field is optional; defaults are in {@link OPENAI_DEFAULTS}. */
export interface OpenAIProviderSettings {
  /**
   * API key sent as `Authorization: Bearer …`. Defaults to `OPENAI_API_KEY`, read at the first
   * request. When neither is set and `baseURL` points elsewhere than api.openai.com (a local
   * server), a placeholder key is sent.
   */
  apiKey?: string;
  /**
   * Base URL of an OpenAI-compatible API, e.g. `http://localhost:11434/v1` (Ollama). Defaults to
   * `OPENAI_BASE_URL`, read at the first request, else `https://api.openai.com/v1`.
   */
  baseURL?: string;
  /** OpenAI organization id (`OpenAI-Organization` header). */
  organization?: string;
  /** Extra headers sent with every request (e.g. `api-key` for Azure). */
  headers?: Record<string, string>;
  /** Timeout of one attempt (headers and body), in milliseconds. @default 60000 */
  timeoutMs?: number;
  /** Retries after a failed attempt (408, 409, 429, 5xx, connection errors, timeouts). @default 5 */
  maxRetries?: number;
  /** Backoff cap of the first retry, doubled per retry (full jitter). @default 500 */
  retryBaseDelayMs?: number;
  /** Largest wait between attempts, also the cap on a server's `Retry-After`. @default 30000 */
  retryMaxDelayMs?: number;
  /** Requests in flight at once, shared by every chat and embedding model of this provider. @default 8 */
  concurrency?: number;
  /** Custom `fetch` (proxies, tests, instrumentation). */
  fetch?: FetchFunction;
}

/** Defaults of {@link OpenAIProviderSettings}. */
export const OPENAI_DEFAULTS = {
  timeoutMs: 60_000,
  maxRetries: 5,
  retryBaseDelayMs: 500,
  retryMaxDelayMs: 30_000,
  concurrency: 8,
} as const;

/** Creates OpenAI-compatible chat and embedding models that share one client, retry policy and concurrency limit. */
export interface OpenAIProvider {
  /** A {@link ChatModel} on `/chat/completions`. */
  chat(modelId: string, settings?: OpenAIChatSettings): OpenAIChatModel;
  /**
   * An {@link Embedder} on `/embeddings`. Throws {@link InvalidArgumentError} when `modelId` has no
   * known output size and `settings.dimensions` is not given.
   */
  embedding(modelId: string, settings?: OpenAIEmbeddingSettings): OpenAIEmbedder;
}

const OPENAI_HOST = 'api.openai.com';
/** Sent to servers that need no key (Ollama, vLLM, llama.cpp, LM Studio); the SDK requires one. */
const PLACEHOLDER_KEY = 'not-needed';

function readEnv(name: string): string | undefined {
  const value = typeof process === 'undefined' ? undefined : process.env[name];
  return value === undefined || value.trim() === '' ? undefined : value.trim();
}

function checkNumber(name: string, value: number, integer: boolean, min: number): void {
  const ok = integer ? Number.isInteger(value) : Number.isFinite(value);
  if (!ok || value < min) {
    throw new InvalidArgumentError(
      name,
      `@grag/openai: createOpenAI: ${name} must be ${integer ? 'an integer' : 'a number'} >= ${min}, got ${value}.`,
    );
  }
}

/**
 * Create a provider for an OpenAI-compatible API. `baseURL` selects the server: OpenAI (default),
 * Azure OpenAI's v1 endpoint, Ollama, vLLM, llama.cpp server or LM Studio.
 *
 * Nothing is read or checked against the environment until the first request.
 *
 * @example
 * ```ts
 * const ollama = createOpenAI({ baseURL: 'http://localhost:11434/v1' });
 * const chat = ollama.chat('llama3.1');
 * const embedder = ollama.embedding('nomic-embed-text', { dimensions: 768 });
 * ```
 */
export function createOpenAI(settings: OpenAIProviderSettings = {}): OpenAIProvider {
  const options = { ...OPENAI_DEFAULTS, ...dropUndefined(settings) };
  checkNumber('timeoutMs', options.timeoutMs, false, 1);
  checkNumber('maxRetries', options.maxRetries, true, 0);
  checkNumber('retryBaseDelayMs', options.retryBaseDelayMs, false, 0);
  checkNumber('retryMaxDelayMs', options.retryMaxDelayMs, false, 0);
  const limiter = new Semaphore(options.concurrency);

  let client: OpenAI | undefined;
  const runtime: RequestRuntime = {
    client() {
      client ??= buildClient(options);
      return client;
    },
    limiter,
    retry: {
      maxRetries: options.maxRetries,
      baseDelayMs: options.retryBaseDelayMs,
      maxDelayMs: options.retryMaxDelayMs,
    },
    timeoutMs: options.timeoutMs,
    random: Math.random,
  };

  return {
    chat: (modelId, chatSettings) => new OpenAIChatModel(modelId, chatSettings, runtime),
    embedding: (modelId, embeddingSettings) => new OpenAIEmbedder(modelId, embeddingSettings, runtime),
  };
}

function dropUndefined<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}

function buildClient(options: OpenAIProviderSettings & { timeoutMs: number }): OpenAI {
  const baseURL = options.baseURL ?? readEnv('OPENAI_BASE_URL');
  let apiKey = options.apiKey ?? readEnv('OPENAI_API_KEY');
  if (apiKey === undefined) {
    if (baseURL === undefined || hostOf(baseURL) === OPENAI_HOST) {
      throw new InvalidArgumentError(
        'apiKey',
        '@grag/openai: no API key — set OPENAI_API_KEY or pass createOpenAI({ apiKey }); for a local server (Ollama, vLLM, llama.cpp, LM Studio) pass its baseURL.',
      );
    }
    apiKey = PLACEHOLDER_KEY;
  }
  return new OpenAI({
    apiKey,
    // `null` stops the SDK from reading OPENAI_BASE_URL / OPENAI_ORG_ID on its own.
    baseURL: baseURL ?? null,
    organization: options.organization ?? null,
    defaultHeaders: options.headers,
    timeout: options.timeoutMs,
    // Retries are done by this package (see sendWithRetry), never by the SDK.
    maxRetries: 0,
    fetch: options.fetch,
  });
}

function hostOf(url: string): string | undefined {
  try {
    return new URL(url).hostname;
  } catch {
    throw new InvalidArgumentError('baseURL', `@grag/openai: baseURL is not a URL: ${JSON.stringify(url)}.`);
  }
}

/**
 * The default provider: API key and base URL from `OPENAI_API_KEY` / `OPENAI_BASE_URL`, read at the
 * first request (importing this package never throws).
 */
export const openai: OpenAIProvider = createOpenAI();

/** `openai.chat(modelId, settings)` on the default provider. */
export function openaiChat(modelId: string, settings?: OpenAIChatSettings): OpenAIChatModel {
  return openai.chat(modelId, settings);
}

/** `openai.embedding(modelId, settings)` on the default provider. */
export function openaiEmbedder(modelId: string, settings?: OpenAIEmbeddingSettings): OpenAIEmbedder {
  return openai.embedding(modelId, settings);
}
