/** `loadGragIndex`: open a saved grag index with the vector index it was built with. */
import {
  type BuildContext,
  IndexFormatError,
  type IndexStore,
  InvalidArgumentError,
  type Method,
  type VectorIndexFactory,
} from '@grag/core';
import { flatIndexFactory } from '@grag/core/kit';
import { toIndexStore } from '@grag/core/store';
import { describe } from './errors.js';

/**
 * The vector indexes this loader finds by the kind an index's manifest records: core's exact
 * `flat`, and `hnsw` from `@grag/hnsw` when it is installed (an optional peer dependency, loaded
 * only for an index built with it). `pgvector` is not among them: its factory needs a database
 * connection, so pass `pgVectorIndexFactory({ … })` from `@grag/postgres` in the context.
 */
const FACTORIES: Readonly<
  Record<string, { package: string; call: string; make: () => Promise<VectorIndexFactory> }>
> = {
  flat: { package: '@grag/core', call: 'flatIndexFactory', make: async () => flatIndexFactory },
  hnsw: {
    package: '@grag/hnsw',
    call: 'hnswIndexFactory()',
    make: async () => (await import('@grag/hnsw')).hnswIndexFactory(),
  },
};

/** Whether `error`, or an error it wraps (a loader's or bundler's), says the package `name` is not installed. */
function isMissingPackage(error: unknown, name: string): boolean {
  for (let e = error, depth = 0; e && depth < 4; e = (e as { cause?: unknown }).cause, depth++) {
    const { code, message } = e as { code?: unknown; message?: unknown };
    const missing = code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND';
    if (missing && typeof message === 'string' && message.includes(name)) return true;
  }
  return false;
}

/** The vector-index kind recorded in the manifest of the version `store` serves now, if any. */
async function builtVectorIndex(store: IndexStore): Promise<{ kind?: string; formatVersion: number }> {
  const stored = await store.open();
  try {
    const { providers, formatVersion } = stored.manifest;
    return { kind: providers?.vectorIndex, formatVersion };
  } finally {
    await stored.release();
  }
}

/**
 * Load a saved grag index (a directory written by `grag index` or `method.save`, or any
 * `IndexStore`) with `method.load(target, ctx)`, using the vector index the index was built with
 * when the context holds another: an index built by `grag index` with HNSW loads with
 * `hnswIndexFactory()` from `@grag/hnsw` when that package is installed, one built with the flat
 * index with core's `flatIndexFactory`, whatever `ctx.vectorIndex` is (`createBuildContext`'s
 * default is flat). The other providers (embedder, tasks) must still be the ones it was built with;
 * the method's load says which differs.
 *
 * Throws `IndexFormatError` when the index was built with HNSW and `@grag/hnsw` is not installed
 * (the message names the package and the call), and whatever `method.load` throws (a missing
 * index, another method's, a different embedder, a vector index this loader does not make, such as
 * pgvector: pass its factory in `ctx`).
 *
 * @example
 * ```ts
 * // built with `grag index docs --method noderag --out idx/noderag` (HNSW when available)
 * const index = await loadGragIndex(nodeRag, 'idx/noderag', createBuildContext(createOfflineProviders()));
 * const retriever = new GragRetriever({ index, method: nodeRag, k: 8 });
 * ```
 */
export async function loadGragIndex<Index>(
  // biome-ignore lint/suspicious/noExplicitAny: the build and retrieve options play no part here.
  method: Method<Index, any, any>,
  target: string | IndexStore,
  ctx: BuildContext,
): Promise<Index> {
  if (typeof method !== 'object' || method === null || typeof method.load !== 'function') {
    throw new InvalidArgumentError(
      'method',
      `@grag/langchain: loadGragIndex needs a grag Method such as \`nodeRag\` from @grag/noderag (got ${describe(method)}).`,
    );
  }
  const store = toIndexStore(target);
  const built = await builtVectorIndex(store);
  const current = ctx?.vectorIndex?.kind;
  const known = built.kind === undefined ? undefined : FACTORIES[built.kind];
  if (known === undefined || built.kind === current) return method.load(target, ctx);
  let vectorIndex: VectorIndexFactory;
  try {
    vectorIndex = await known.make();
  } catch (error) {
    if (!isMissingPackage(error, known.package)) throw error;
    throw new IndexFormatError(
      store.location,
      built.formatVersion,
      `${store.location} was built with vectorIndex '${built.kind}', and ${known.package} is not installed: ` +
        `install it (\`npm install ${known.package}\`) to load the index, or pass \`vectorIndex: ${known.call}\` from ${known.package} in the context.`,
      { cause: error },
    );
  }
  return method.load(target, { ...ctx, vectorIndex });
}
