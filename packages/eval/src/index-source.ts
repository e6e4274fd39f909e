/**
 * Where `runEval` keeps the index of each method between sessions: `out/indexes/<label>` by
 * default (loaded again only by a resumed run of the same `out`), or a store the caller names per
 * label (`RunOptions.indexStore`), whose index any later run loads instead of building.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import {
  type BuildContext,
  IndexFormatError,
  type IndexStore,
  type MeterSnapshot,
  type Method,
} from '@grag/core';
import { Meter } from '@grag/core/kit';
import { directoryStore } from '@grag/core/store';
import type { EvalDataset } from './datasets/types.js';
import { peakRssMiB } from './stats.js';

/**
 * The store that keeps the index of the method labelled `label`: a directory path (as
 * `method.save(index, path)` takes it) or any `IndexStore` (`memoryStore`, `@grag/postgres`'s
 * `postgresStore`). Called at most once per label and run, only for a method with questions left.
 */
export type IndexStoreFor = (label: string) => string | IndexStore;

/** How a method's index came to be in a session, as `MethodSummary.index` reports it. */
export interface IndexProvenance {
  seconds: number;
  usage: MeterSnapshot;
  source: 'built' | 'loaded' | 'skipped';
  peakRssMiB: number;
}

/** The earlier build of a method with the same settings, from `builds.jsonl`. */
export interface EarlierBuild {
  seconds: number;
  usage: MeterSnapshot;
  peakRssMiB: number;
  indexDir?: string;
}

/** What {@link obtainIndex} needs of the runner. */
export interface ObtainIndexInput {
  label: string;
  // biome-ignore lint/suspicious/noExplicitAny: a run holds methods of every index type
  method: Method<any, any, any>;
  options: Record<string, unknown>;
  ctx: BuildContext;
  dataset: EvalDataset;
  /** The latest build record of this label and settings in `out`, if any. */
  builtBefore: EarlierBuild | undefined;
  /** Save a built index (to `store`, else to `indexDir`). */
  save: boolean;
  /** The default place of the index: `out/indexes/<label>`. */
  indexDir: string;
  /** The caller's store for this label; replaces `indexDir` when given. */
  store: IndexStore | undefined;
  log: (line: string) => void;
  /** Record a build (a line of `builds.jsonl`) and where it was saved, if it was. */
  recordBuild: (build: {
    seconds: number;
    usage: MeterSnapshot;
    peakRssMiB: number;
    saved?: { indexDir: string } | { indexStore: string };
  }) => void;
}

/**
 * Load the index of a method saved by an earlier session, else build it (and save it). Without a
 * store, an index is loaded from `out/indexes/<label>` when `builds.jsonl` says it was built there
 * with the same settings. With a store, the index the store holds is loaded when it was written by
 * this method with the same build options (a store written with other options, by another method
 * or with other providers is rebuilt and replaced); its build cost is the recorded one when this
 * `out` built it, else unknown (`NaN` seconds, no usage), as nothing was built.
 */
// biome-ignore lint/suspicious/noExplicitAny: the index type of the method
export async function obtainIndex(input: ObtainIndexInput): Promise<{ index: any; build: IndexProvenance }> {
  const { label, method, ctx, builtBefore, store, log } = input;
  const loadedBuild = (): IndexProvenance => ({
    seconds: builtBefore?.seconds ?? Number.NaN,
    usage: builtBefore?.usage ?? new Meter().snapshot(),
    source: 'loaded',
    peakRssMiB: builtBefore?.peakRssMiB ?? Number.NaN,
  });
  const source: string | IndexStore | undefined = store
    ? (await storedIndexMatches(store, method, input.options, label, log))
      ? store
      : undefined
    : builtBefore?.indexDir && existsSync(join(builtBefore.indexDir, 'manifest.json'))
      ? builtBefore.indexDir
      : undefined;
  if (source !== undefined) {
    const where = typeof source === 'string' ? source : source.location;
    try {
      const index = await method.load(source, ctx);
      log(
        store
          ? `${label}: loaded the index from ${where}.`
          : `${label}: loaded the index built in an earlier session from ${where}.`,
      );
      return { index, build: loadedBuild() };
    } catch (error) {
      if (!IndexFormatError.isInstance(error)) throw error;
      log(`${label}: cannot load ${where} (${error.message}); rebuilding.`);
    }
  }
  const started = performance.now();
  const index = await method.build(input.dataset.corpus, ctx, input.options);
  const seconds = (performance.now() - started) / 1000;
  const usage = ctx.meter.snapshot();
  let saved: { indexDir: string } | { indexStore: string } | undefined;
  if (input.save) {
    await method.save(index, store ?? input.indexDir);
    saved = store ? { indexStore: store.location } : { indexDir: input.indexDir };
  }
  const peak = peakRssMiB();
  input.recordBuild({ seconds, usage, peakRssMiB: peak, ...(saved ? { saved } : {}) });
  log(`${label}: built the index in ${seconds.toFixed(2)} s.`);
  const build: IndexProvenance = { seconds, usage, source: 'built', peakRssMiB: peak };
  // Stored with float16 vectors, the index is asked as it was stored (as a later session would load it).
  if (saved && store?.vectorPrecision === 'float16') {
    log(`${label}: loaded the index back from ${store.location} (float16 vectors).`);
    return { index: await method.load(store, ctx), build };
  }
  return { index, build };
}

/**
 * Whether `store` holds an index of `method` built with `options`: every option the manifest
 * records (its `params`) has the value `build` would run with (`method.resolveBuildOptions`,
 * defaults included, so an option set before and not now counts; without it, the given options
 * only). An option it does not record, e.g. a build's concurrency, is not compared. Providers and
 * format are checked by `method.load`.
 */
async function storedIndexMatches(
  store: IndexStore,
  // biome-ignore lint/suspicious/noExplicitAny: a run holds methods of every index type
  method: Method<any, any, any>,
  given: Record<string, unknown>,
  label: string,
  log: (line: string) => void,
): Promise<boolean> {
  const methodName = method.name;
  const options = method.resolveBuildOptions?.(given) ?? given;
  if ((await store.target()) !== 'index') return false;
  const snapshot = await store.open();
  let manifest: typeof snapshot.manifest;
  try {
    manifest = snapshot.manifest;
  } finally {
    await snapshot.release();
  }
  if (manifest.method !== methodName) {
    log(`${label}: ${store.location} holds an index of ${manifest.method}, not ${methodName}; rebuilding.`);
    return false;
  }
  const changed = Object.keys(options).filter(
    (key) => key in manifest.params && canonical(manifest.params[key]) !== canonical(options[key]),
  );
  if (changed.length > 0) {
    log(`${label}: ${store.location} holds an index built with other ${changed.join(', ')}; rebuilding.`);
    return false;
  }
  const precision = manifest.vectorPrecision ?? 'float32';
  if (store.vectorPrecision !== undefined && store.vectorPrecision !== precision) {
    log(`${label}: ${store.location} holds ${precision} vectors, not ${store.vectorPrecision}; rebuilding.`);
    return false;
  }
  return true;
}

/** JSON with sorted keys, so equal option values compare equal whatever their key order. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value && typeof value === 'object')
    return `{${Object.keys(value as object)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical((value as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  return JSON.stringify(value) ?? 'null';
}

/**
 * The stores of one run, made from {@link IndexStoreFor} on first use (a path becomes a
 * `directoryStore`) and closed by {@link closeStore} / {@link closeAll}.
 */
export class RunStores {
  readonly #make: IndexStoreFor | undefined;
  readonly #open = new Map<string, IndexStore>();

  constructor(make: IndexStoreFor | undefined) {
    this.#make = make;
  }

  /** The store of `label`, or `undefined` when the run keeps indexes in `out/indexes`. */
  get(label: string): IndexStore | undefined {
    if (!this.#make) return undefined;
    const made = this.#make(label);
    const store = typeof made === 'string' ? directoryStore(made) : made;
    this.#open.set(label, store);
    return store;
  }

  /** Close the store of `label` (if it has `close()`); errors on close are ignored once the work is done. */
  async closeStore(label: string): Promise<void> {
    const store = this.#open.get(label);
    this.#open.delete(label);
    await store?.close?.().catch(() => {});
  }

  /** Close every store still open. */
  async closeAll(): Promise<void> {
    await Promise.all([...this.#open.keys()].map((label) => this.closeStore(label)));
  }
}
