import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, isAbsolute, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { InvalidArgumentError, type Loader, type RecordFields } from '@grag/core';

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
  /** CSV, JSON and JSONL files: the field (column) that holds a record's text. @default 'text' */
  textField?: string;
  /** The field that holds a record's title. @default 'title' */
  titleField?: string;
  /** The field that holds a record's id. @default 'id' (else `path#row` / `path#record`) */
  idField?: string;
  /**
   * Modules that export your own loaders (a `Loader`, an array of them, as the default export or
   * named exports), tried before the built-in ones. A path (`./loaders/rtf.js`) is resolved from the
   * config file's folder, a package name from there too.
   */
  loaders?: string[];
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
const OPTIONAL_KEYS: readonly string[] = [
  'apiKey',
  'baseURL',
  'embeddingDimensions',
  'cacheDir',
  'prices',
  'textField',
  'titleField',
  'idField',
  'loaders',
];

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
  GRAG_TEXT_FIELD: 'textField',
  GRAG_TITLE_FIELD: 'titleField',
  GRAG_ID_FIELD: 'idField',
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
  if (key === 'loaders') {
    const list = typeof value === 'string' ? [value] : value;
    if (
      !Array.isArray(list) ||
      list.length === 0 ||
      !list.every((item) => typeof item === 'string' && item.trim() !== '')
    ) {
      throw new InvalidArgumentError(
        key,
        `Bad ${from}: loaders must list modules that export a loader, e.g. ["./loaders/rtf.js"], got ${JSON.stringify(value)}.`,
      );
    }
    return list;
  }
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
    if (Array.isArray(config.loaders))
      config.loaders = (config.loaders as string[]).map((spec) => resolveModule(spec, path));
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

/**
 * A module named in the config file `configPath`, as a path or package name `import()` can load: a
 * path (`./x.js`, `../x.js`) from the config file's folder; a package name as Node resolves it from
 * there (`require.resolve`), else as written (resolved from grag's own folder when imported).
 */
function resolveModule(spec: string, configPath: string): string {
  if (spec.startsWith('./') || spec.startsWith('../')) return resolve(dirname(resolve(configPath)), spec);
  if (isAbsolute(spec)) return spec;
  try {
    return createRequire(resolve(configPath)).resolve(spec);
  } catch {
    return spec;
  }
}

/** Whether `value` has the shape of a {@link Loader}: a name, extensions, a `load` function. */
function isLoader(value: unknown): value is Loader {
  const v = value as Partial<Loader> | null;
  return (
    typeof v === 'object' &&
    v !== null &&
    typeof v.name === 'string' &&
    Array.isArray(v.extensions) &&
    v.extensions.every((e) => typeof e === 'string') &&
    typeof v.load === 'function'
  );
}

/**
 * The loaders the modules of `config.loaders` export, in the order listed: each module's default
 * export (a `Loader` or an array of them), else its named exports that are loaders (or arrays of
 * them). A module that cannot be imported or exports no loader is an {@link InvalidArgumentError}
 * naming it; an extension must start with a dot (`.rtf`).
 */
export async function importLoaders(specs: readonly string[] = []): Promise<Loader[]> {
  const out: Loader[] = [];
  for (const spec of specs) {
    let module: Record<string, unknown>;
    try {
      module = await import(isAbsolute(spec) ? pathToFileURL(spec).href : spec);
    } catch (error) {
      throw new InvalidArgumentError(
        'loaders',
        `Cannot load the loader module ${spec} named in the config (loaders): ${(error as Error).message.split('\n')[0]}`,
        { cause: error },
      );
    }
    const flat = (value: unknown) => (Array.isArray(value) ? value : [value]);
    const fromDefault = flat(module.default).filter(isLoader);
    const found = fromDefault.length
      ? fromDefault
      : Object.entries(module)
          .filter(([name]) => name !== 'default')
          .flatMap(([, value]) => flat(value))
          .filter(isLoader);
    if (found.length === 0)
      throw new InvalidArgumentError(
        'loaders',
        `The loader module ${spec} exports no loader: export { name, extensions: ['.ext'], load(input, options) } (a Loader of @grag/core), or an array of them.`,
      );
    for (const loader of found) {
      const bad = loader.extensions.find((e) => !/^\.[^./\\]+$/.test(e));
      if (bad !== undefined)
        throw new InvalidArgumentError(
          'loaders',
          `The loader "${loader.name}" of ${spec} lists the extension ${JSON.stringify(bad)}; write extensions with their dot, e.g. ".rtf".`,
        );
      out.push({
        ...loader,
        extensions: loader.extensions.map((e) => e.toLowerCase()),
        load: loader.load.bind(loader),
      });
    }
  }
  return out;
}

/** The record fields of `config` (`textField`, `titleField`, `idField`) as loaders take them. */
export function recordFields(config: GragConfig): RecordFields | undefined {
  const fields: RecordFields = {};
  if (config.textField !== undefined) fields.text = config.textField;
  if (config.titleField !== undefined) fields.title = config.titleField;
  if (config.idField !== undefined) fields.id = config.idField;
  return Object.keys(fields).length ? fields : undefined;
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
