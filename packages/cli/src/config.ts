import { readFile } from 'node:fs/promises';
import { InvalidArgumentError } from '@grag/core';

/** Everything the CLI can be configured with. */
export interface GragConfig {
  /** `'auto'` uses an OpenAI-compatible endpoint when one is configured, else runs offline. */
  provider: 'auto' | 'offline' | 'openai';
  apiKey?: string;
  baseURL?: string;
  chatModel: string;
  embeddingModel: string;
  embeddingDimensions?: number;
  /** Local embedder used offline. */
  offlineEmbedder: 'tfidf' | 'glove';
  vectorIndex: 'flat' | 'hnsw';
  /** Context budget in tokens. */
  budget: number;
  /** Concurrent model calls (and work items of a build stage). */
  concurrency: number;
  /** Model-call cache and build checkpoints; default `.grag-cache` next to the index. */
  cacheDir?: string;
  /** A JSON price table (USD per 1M tokens by model) merged over the defaults. */
  prices?: string;
  /**
   * Seconds a write waits for another grag writing the same index directory before giving up with
   * one line naming it; 0 gives up at once.
   */
  lockWait: number;
}

export const CONFIG_DEFAULTS: GragConfig = {
  provider: 'auto',
  chatModel: 'gpt-4o-mini',
  embeddingModel: 'text-embedding-3-small',
  offlineEmbedder: 'tfidf',
  vectorIndex: 'hnsw',
  budget: 12_000,
  concurrency: 8,
  lockWait: 60,
};

/** Keys a config may set that have no default. */
const OPTIONAL_KEYS: readonly string[] = ['apiKey', 'baseURL', 'embeddingDimensions', 'cacheDir', 'prices'];

/** Config file read from the working directory when `--config` is not given. */
export const CONFIG_FILE = 'grag.config.json';

const ENV: Record<string, keyof GragConfig> = {
  GRAG_PROVIDER: 'provider',
  OPENAI_API_KEY: 'apiKey',
  OPENAI_BASE_URL: 'baseURL',
  GRAG_CHAT_MODEL: 'chatModel',
  GRAG_EMBEDDING_MODEL: 'embeddingModel',
  GRAG_EMBEDDING_DIMENSIONS: 'embeddingDimensions',
  GRAG_OFFLINE_EMBEDDER: 'offlineEmbedder',
  GRAG_VECTOR_INDEX: 'vectorIndex',
  GRAG_BUDGET: 'budget',
  GRAG_CONCURRENCY: 'concurrency',
  GRAG_CACHE_DIR: 'cacheDir',
  GRAG_PRICES: 'prices',
  GRAG_LOCK_WAIT: 'lockWait',
};

const CHOICES: Partial<Record<keyof GragConfig, readonly string[]>> = {
  provider: ['auto', 'offline', 'openai'],
  offlineEmbedder: ['tfidf', 'glove'],
  vectorIndex: ['flat', 'hnsw'],
};
const INTEGERS: ReadonlySet<keyof GragConfig> = new Set(['embeddingDimensions', 'budget', 'concurrency']);
/** Integers that may be 0. */
const COUNTS: ReadonlySet<keyof GragConfig> = new Set(['lockWait']);

/** Check and convert one configuration value; `from` names where it came from for the error. */
function coerce(key: keyof GragConfig, value: unknown, from: string): unknown {
  if (COUNTS.has(key)) {
    const n = typeof value === 'number' ? value : Number(value);
    if (!Number.isInteger(n) || n < 0 || (typeof value === 'string' && value.trim() === '')) {
      throw new InvalidArgumentError(
        key,
        `Bad ${from}: ${key} must be a whole number of seconds (0 or more), got "${String(value)}".`,
      );
    }
    return n;
  }
  if (INTEGERS.has(key)) {
    const n = typeof value === 'number' ? value : Number(value);
    if (!Number.isInteger(n) || n <= 0) {
      throw new InvalidArgumentError(
        key,
        `Bad ${from}: ${key} must be a positive integer, got "${String(value)}".`,
      );
    }
    return n;
  }
  if (typeof value !== 'string' || value.trim() === '') {
    throw new InvalidArgumentError(
      key,
      `Bad ${from}: ${key} must be a non-empty string, got ${JSON.stringify(value)}.`,
    );
  }
  const choices = CHOICES[key];
  if (choices && !choices.includes(value)) {
    throw new InvalidArgumentError(
      key,
      `Bad ${from}: ${key} must be one of ${choices.join(', ')}, got "${value}".`,
    );
  }
  return value;
}

/**
 * Resolve the configuration: defaults, then the config file, then the environment, then flags
 * (later wins). Throws {@link InvalidArgumentError} naming the bad value and where it came from.
 */
export async function resolveConfig(
  flags: Partial<Record<keyof GragConfig, unknown>>,
  options: { configPath?: string; env?: NodeJS.ProcessEnv; cwd?: string } = {},
): Promise<GragConfig> {
  const env = options.env ?? process.env;
  const config: Record<string, unknown> = { ...CONFIG_DEFAULTS };
  const path = options.configPath ?? `${options.cwd ?? process.cwd()}/${CONFIG_FILE}`;
  let text: string | undefined;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if (options.configPath) {
      throw new InvalidArgumentError(
        'config',
        `Cannot read config file ${path} (${(error as NodeJS.ErrnoException).code}).`,
      );
    }
  }
  if (text !== undefined) {
    let file: unknown;
    try {
      file = JSON.parse(text);
    } catch {
      throw new InvalidArgumentError('config', `Config file ${path} is not valid JSON.`);
    }
    if (typeof file !== 'object' || file === null || Array.isArray(file)) {
      throw new InvalidArgumentError('config', `Config file ${path} must hold a JSON object.`);
    }
    for (const [key, value] of Object.entries(file)) {
      if (!(key in CONFIG_DEFAULTS) && !OPTIONAL_KEYS.includes(key)) {
        throw new InvalidArgumentError(
          key,
          `Config file ${path}: unknown key "${key}". Known keys: ${[...Object.keys(CONFIG_DEFAULTS), ...OPTIONAL_KEYS].join(', ')}.`,
        );
      }
      config[key] = coerce(key as keyof GragConfig, value, `config file ${path}`);
    }
  }
  for (const [name, key] of Object.entries(ENV)) {
    const value = env[name];
    if (value !== undefined && value !== '') config[key] = coerce(key, value, `environment variable ${name}`);
  }
  for (const [key, value] of Object.entries(flags)) {
    if (value !== undefined) config[key] = coerce(key as keyof GragConfig, value, `option --${kebab(key)}`);
  }
  return config as unknown as GragConfig;
}

function kebab(key: string): string {
  return key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);
}

/** Whether the configuration calls for the OpenAI-compatible provider. */
export function usesOpenAI(config: GragConfig): boolean {
  if (config.provider === 'openai') return true;
  if (config.provider === 'offline') return false;
  return Boolean(config.apiKey || config.baseURL);
}
