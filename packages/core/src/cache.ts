import { createHash, randomBytes } from 'node:crypto';
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { UsageMeter } from './contracts/meter.js';
import {
  type ChatCallOptions,
  type ChatModel,
  type ChatResult,
  type Embedder,
  isFittableEmbedder,
} from './contracts/models.js';
import { chatModelAs, embedderAs } from './model-identity.js';

/**
 * A persistent store of model-call results, content-addressed by (provider, model, parameters,
 * input). Rebuilding an index with the same inputs then makes no model calls.
 */
export interface ModelCallCache {
  get(key: string): Promise<unknown | undefined>;
  set(key: string, value: unknown): Promise<void>;
}

/**
 * JSON with object keys sorted, so equal values always serialize alike. Maps and Sets become
 * tagged arrays of their entries, typed arrays plain arrays, so none of them hashes as `{}`.
 */
export function stableJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) => {
    if (v instanceof Map) return { $map: [...v.entries()] };
    if (v instanceof Set) return { $set: [...v] };
    if (ArrayBuffer.isView(v)) return Array.from(v as unknown as ArrayLike<number>);
    return v && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : 1)))
      : v;
  });
}

/** The SHA-256 of `data` (UTF-8 for a string), in hex: how index files record their checksums. */
export function sha256Hex(data: Uint8Array | string): string {
  return createHash('sha256').update(data).digest('hex');
}

/** The cache key of a call: SHA-256 of the stable JSON of its parts. */
export function callCacheKey(parts: unknown): string {
  return sha256Hex(stableJson(parts));
}

/**
 * The cache key of a chat call: provider, model and the call's options without its abort signal
 * and task metadata (they do not change the answer).
 */
export function chatCallKey(
  model: Pick<ChatModel, 'provider' | 'modelId'>,
  options: ChatCallOptions,
): string {
  const { abortSignal: _signal, task: _task, ...call } = options;
  return callCacheKey({ kind: 'chat', provider: model.provider, modelId: model.modelId, call });
}

/** The cache key of one embedded value: provider, model, dimensions and the text. */
export function embeddingKey(
  embedder: Pick<Embedder, 'provider' | 'modelId' | 'dimensions'>,
  value: string,
): string {
  return callCacheKey({
    kind: 'embed',
    provider: embedder.provider,
    modelId: embedder.modelId,
    dimensions: embedder.dimensions,
    value,
  });
}

/** A cache in memory (tests, one process). */
export class MemoryCallCache implements ModelCallCache {
  readonly #entries = new Map<string, string>();
  async get(key: string): Promise<unknown | undefined> {
    const hit = this.#entries.get(key);
    return hit === undefined ? undefined : JSON.parse(hit);
  }
  async set(key: string, value: unknown): Promise<void> {
    this.#entries.set(key, JSON.stringify(value));
  }
  get size(): number {
    return this.#entries.size;
  }
}

/**
 * The embedded default: one JSON file per entry under `dir` (sharded by the key's first two hex
 * digits). Each file is written to a temporary name and renamed into place, so concurrent writers
 * (several builds, several processes) never leave a torn entry; a reader sees a whole entry or none.
 */
export class FileCallCache implements ModelCallCache {
  readonly dir: string;
  /** Shard directories known to exist, so a write makes no `mkdir` call after the first. */
  readonly #shards = new Set<string>();
  constructor(dir: string) {
    this.dir = dir;
  }
  #path(key: string): string {
    return join(this.dir, key.slice(0, 2), `${key}.json`);
  }
  async get(key: string): Promise<unknown | undefined> {
    try {
      return JSON.parse(await readFile(this.#path(key), 'utf8'));
    } catch {
      return undefined;
    }
  }
  async set(key: string, value: unknown): Promise<void> {
    const path = this.#path(key);
    const shard = key.slice(0, 2);
    const tmp = `${path}.${process.pid}-${randomBytes(4).toString('hex')}.tmp`;
    const text = JSON.stringify(value);
    for (let attempt = 0; ; attempt++) {
      if (!this.#shards.has(shard)) {
        await mkdir(join(this.dir, shard), { recursive: true });
        this.#shards.add(shard);
      }
      try {
        await writeFile(tmp, text);
        await rename(tmp, path);
        return;
      } catch (error) {
        await rm(tmp, { force: true });
        // The directory was removed under us: make it again, once.
        if ((error as NodeJS.ErrnoException).code === 'ENOENT' && attempt === 0) {
          this.#shards.delete(shard);
          continue;
        }
        throw error;
      }
    }
  }
}

/**
 * A view of `cache` that reads and never writes: a dry run (`grag index --estimate`) sees which
 * calls a real build would find cached without storing its own simulated answers.
 */
export function readOnlyCache(cache: ModelCallCache): ModelCallCache {
  return {
    get: (key) => cache.get(key),
    set: async () => {},
  };
}

/**
 * Wrap a chat model so identical calls (same provider, model, messages and sampling parameters)
 * are answered from `cache`; identical calls in flight together make one model call. Hits and
 * misses are counted in `meter` when given.
 */
export function cachedChat(model: ChatModel, cache: ModelCallCache, meter?: UsageMeter): ChatModel {
  // Identical calls in flight at the same time share one model call.
  const inFlight = new Map<string, Promise<ChatResult>>();
  return chatModelAs(model, async (options: ChatCallOptions): Promise<ChatResult> => {
    const key = chatCallKey(model, options);
    const pending = inFlight.get(key);
    if (pending) {
      meter?.recordCache(true);
      return pending;
    }
    const hit = (await cache.get(key)) as ChatResult | undefined;
    meter?.recordCache(hit !== undefined);
    if (hit !== undefined) return hit;
    const again = inFlight.get(key);
    if (again) return again;
    const promise = (async () => {
      const result = await model.doGenerate(options);
      await cache.set(key, result);
      return result;
    })();
    inFlight.set(key, promise);
    try {
      return await promise;
    } finally {
      inFlight.delete(key);
    }
  });
}

/** A vector as stored in a call cache: its float32 bytes in base64 (a quarter of JSON numbers' size). */
function encodeVector(vector: Float32Array): { f32: string } {
  return { f32: Buffer.from(vector.buffer, vector.byteOffset, vector.byteLength).toString('base64') };
}

/** A vector read from a call cache (also the plain number arrays older entries hold). */
function decodeVector(value: unknown): Float32Array | undefined {
  if (Array.isArray(value)) return Float32Array.from(value as number[]);
  const f32 = (value as { f32?: unknown } | undefined)?.f32;
  if (typeof f32 !== 'string') return undefined;
  const bytes = Buffer.from(f32, 'base64');
  const out = new Float32Array(bytes.byteLength >>> 2);
  new Uint8Array(out.buffer).set(bytes.subarray(0, out.byteLength));
  return out;
}

/**
 * Wrap an embedder so each value already embedded by the same provider, model and dimensions is
 * answered from `cache`; only the misses of a batch reach the model. A fittable embedder (whose
 * vectors depend on its fitted state) is returned as it is, uncached.
 */
export function cachedEmbedder(embedder: Embedder, cache: ModelCallCache, meter?: UsageMeter): Embedder {
  if (isFittableEmbedder(embedder)) return embedder;
  const keyOf = (value: string) => embeddingKey(embedder, value);
  return embedderAs(embedder, async (options) => {
    const keys = options.values.map(keyOf);
    const found = await Promise.all(keys.map((k) => cache.get(k)));
    const embeddings: (Float32Array | undefined)[] = found.map(decodeVector);
    const missing = embeddings.flatMap((v, i) => (v ? [] : [i]));
    for (let i = 0; i < embeddings.length; i++) meter?.recordCache(embeddings[i] !== undefined);
    let tokens = 0;
    if (missing.length > 0) {
      const result = await embedder.doEmbed({
        values: missing.map((i) => options.values[i]!),
        ...(options.abortSignal ? { abortSignal: options.abortSignal } : {}),
      });
      tokens = result.usage?.tokens ?? 0;
      await Promise.all(
        missing.map((i, j) => {
          embeddings[i] = result.embeddings[j]!;
          return cache.set(keys[i]!, encodeVector(result.embeddings[j]!));
        }),
      );
    }
    return { embeddings: embeddings as Float32Array[], usage: { tokens } };
  });
}
