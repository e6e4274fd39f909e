import { createRequire } from 'node:module';
import { GragError } from '@grag/core';
import type * as Hnswlib from 'hnswlib-node';

/** What to do when hnswlib-node's native addon is missing, for error messages and READMEs. */
export const HNSW_ENABLE_HINT =
  'To enable HNSW, let hnswlib-node build its native addon: npm and yarn build it on install ' +
  '(node-gyp needs Python 3 and a C++ compiler); with pnpm, `pnpm add <package> --allow-build=hnswlib-node` ' +
  '(with `--force` when it is installed already), or list hnswlib-node in `pnpm.onlyBuiltDependencies` ' +
  'and run `pnpm install --force` (`pnpm rebuild` does not build it)';

/**
 * The `hnswlib-node` native addon could not be loaded (not compiled, e.g. because pnpm skipped its
 * build script, or disabled with `GRAG_DISABLE_NATIVE=1`). `reason` says why in one line. Callers
 * that can do without approximate search fall back to `flatIndexFactory` from `@grag/core`.
 */
export class HnswUnavailableError extends GragError {
  /** One line: why the addon is unavailable. */
  readonly reason: string;
  constructor(reason: string, options?: { cause?: unknown }) {
    super('hnsw-unavailable', `HNSW is unavailable: ${reason}. ${HNSW_ENABLE_HINT}.`, options);
    this.name = 'HnswUnavailableError';
    this.reason = reason;
  }
  static override isInstance(error: unknown): error is HnswUnavailableError {
    return GragError.isInstance(error) && error.code === 'hnsw-unavailable';
  }
}

type HnswlibModule = typeof Hnswlib;

let loaded: { module: HnswlibModule } | { error: unknown } | undefined;

/** Whether native addons are switched off: `GRAG_DISABLE_NATIVE=1` (read here only). */
function nativeDisabled(): boolean {
  const value = typeof process === 'undefined' ? undefined : process.env.GRAG_DISABLE_NATIVE;
  return value !== undefined && value !== '' && value !== '0' && value.toLowerCase() !== 'false';
}

/**
 * `hnswlib-node`, loaded on first use (never when this package is imported), so a missing native
 * binding only matters to code that builds or loads an HNSW index. Throws
 * {@link HnswUnavailableError} when the addon cannot be loaded or `GRAG_DISABLE_NATIVE=1` is set.
 */
export function loadHnswlib(): HnswlibModule {
  if (nativeDisabled()) throw new HnswUnavailableError('native addons are disabled by GRAG_DISABLE_NATIVE');
  if (loaded === undefined) {
    try {
      const require = createRequire(import.meta.url);
      loaded = { module: require('hnswlib-node') as HnswlibModule };
    } catch (error) {
      loaded = { error };
    }
  }
  if ('module' in loaded) return loaded.module;
  const first =
    (loaded.error instanceof Error ? loaded.error.message : String(loaded.error)).split('\n')[0] ?? '';
  const reason = /bindings file|\.node\b/i.test(first)
    ? 'the hnswlib-node native addon is not built (no compiled binding found)'
    : `hnswlib-node failed to load (${first.replace(/[.:]\s*$/, '')})`;
  throw new HnswUnavailableError(reason, { cause: loaded.error });
}

/**
 * Whether HNSW can be used here, without throwing: `{ available: true }`, or `{ available: false,
 * error }` with the {@link HnswUnavailableError} (its `reason` and `message` say why and how to
 * enable it). Loads the addon on first call.
 */
export function hnswAvailability(): { available: true } | { available: false; error: HnswUnavailableError } {
  try {
    loadHnswlib();
    return { available: true };
  } catch (error) {
    if (HnswUnavailableError.isInstance(error)) return { available: false, error };
    throw error;
  }
}
