/** `loadIndexes`: saved indexes (directories or any `IndexStore`), loaded once, ready to serve. */
import {
  type BuildContext,
  type IndexManifest,
  type IndexStore,
  InvalidArgumentError,
  type Method,
} from '@grag/core';
import { readManifest } from '@grag/core/kit';
import type { ServedIndexInput } from './types.js';

/** What {@link loadIndexes} needs: the methods it may meet and the providers of each index. */
export interface LoadIndexesOptions {
  /** The methods whose indexes can be loaded, found by the `method` of each manifest. */
  // biome-ignore lint/suspicious/noExplicitAny: indexes of every method
  methods: readonly Method<any, any>[];
  /**
   * The context to load an index with, given its manifest (the CLI builds it from its config and
   * the manifest's provider fingerprints, so a query uses the embedder the index was built with).
   * Return a new context per call: loading restores a fitted embedder's state into the context's
   * embedder, so two indexes must not share one. `dir` is the directory, or the store's location.
   */
  context: (manifest: IndexManifest, dir: string) => BuildContext | Promise<BuildContext>;
}

/** An index loaded from a directory or a store: what `createGragServer` serves, and where it came from. */
export interface LoadedIndex extends ServedIndexInput {
  /** The directory it was loaded from, or the location of its store (a database URL without password, `#<index>`). */
  dir: string;
  manifest: IndexManifest;
  /** The context it was loaded with (its meter counts the queries' model calls; writes run with it). */
  context: BuildContext;
  /** Where it was loaded from: the directory or the store (writes save their new versions there). */
  target: string | IndexStore;
}

/** The current manifest of `store` (its snapshot released at once). */
export async function storeManifest(store: IndexStore): Promise<IndexManifest> {
  const snapshot = await store.open();
  try {
    return snapshot.manifest;
  } finally {
    await snapshot.release();
  }
}

/**
 * Load one saved index, from a directory or any `IndexStore` (e.g. a `@grag/postgres` store): read
 * its manifest, find its method in `options.methods`, and `method.load(target, context)`. Throws
 * `IndexFormatError` (no such directory, not an index, built with other providers) or
 * `InvalidArgumentError` (a method not in `options.methods`), each with a one-line message that
 * names the directory or the store's location. The store stays open; the index is in memory once
 * this resolves, so the caller may close it.
 */
export async function loadIndex(
  target: string | IndexStore,
  options: LoadIndexesOptions,
): Promise<LoadedIndex> {
  const dir = typeof target === 'string' ? target : target.location;
  const manifest = typeof target === 'string' ? await readManifest(dir) : await storeManifest(target);
  const method = options.methods.find((m) => m.name === manifest.method);
  if (!method) {
    throw new InvalidArgumentError(
      'index',
      `${dir} holds a '${manifest.method}' index, which this server does not know. Available: ${options.methods
        .map((m) => m.name)
        .join(', ')}.`,
    );
  }
  const context = await options.context(manifest, dir);
  const index: unknown = await method.load(target, context);
  return {
    dir,
    target,
    manifest,
    context,
    method,
    index,
    providers: { ...manifest.providers } as Record<string, string>,
    ...(manifest.stats ? { stats: manifest.stats } : {}),
    answer: context.tasks,
  };
}

/**
 * Load saved indexes, directories or stores (one per method: each is served under its method's
 * name), in parallel. Throws for the first that fails (see {@link loadIndex}) and when two hold indexes of the
 * same method.
 *
 * @example
 * ```ts
 * const indexes = await loadIndexes(['idx/bm25', 'idx/e2graphrag'], {
 *   methods: [bm25Rag, e2GraphRag],
 *   context: () => createBuildContext(createOfflineProviders()),
 * });
 * const server = await serve({ indexes, port: 8787 });
 * ```
 */
export async function loadIndexes(
  dirs: readonly (string | IndexStore)[],
  options: LoadIndexesOptions,
): Promise<LoadedIndex[]> {
  if (dirs.length === 0) {
    throw new InvalidArgumentError('dirs', 'loadIndexes: pass at least one index directory or store.');
  }
  const loaded = await Promise.all(dirs.map((dir) => loadIndex(dir, options)));
  const byMethod = new Map<string, string>();
  for (const ix of loaded) {
    const other = byMethod.get(ix.method.name);
    if (other !== undefined) {
      throw new InvalidArgumentError(
        'dirs',
        `${other} and ${ix.dir} both hold a '${ix.method.name}' index; give each a name (put them in one folder and serve it with openIndexFolder, grag serve --dir <folder>).`,
      );
    }
    byMethod.set(ix.method.name, ix.dir);
  }
  return loaded;
}

/**
 * Load the version the directory `dir` holds, its manifest read again once loaded: when a write
 * saved a newer version meanwhile, load again (at most `attempts` times), so the index is one
 * whole version, the one its `manifest` names.
 */
export async function loadSettledIndex(
  dir: string,
  options: LoadIndexesOptions,
  attempts = 5,
): Promise<LoadedIndex> {
  for (let attempt = 1; ; attempt++) {
    const ix = await loadIndex(dir, options);
    const after = await readManifest(dir);
    if (JSON.stringify(after) === JSON.stringify(ix.manifest) || attempt >= attempts) return ix;
  }
}
