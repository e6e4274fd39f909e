/**
 * The persistence checks of `runMethodSpec`: save → load gives the same results, and load refuses
 * another method, format version, provider, bad saved params and artifacts of another shape, on
 * directories (the default) or on any `IndexStore`.
 */
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { IndexFormatError } from '../contracts/errors.js';
import type { BuildContext, Method } from '../contracts/method.js';
import { INDEX_PROVIDER_KINDS, type IndexProviderKind } from '../contracts/method.js';
import type { IndexStore } from '../contracts/store.js';
import type { Retrieval } from '../contracts/types.js';
import { toIndexStore } from '../store/directory.js';
import { copyStoredIndex, type StoredIndexEdits } from './index-files.js';
import { formatIndexFuzzReport, fuzzIndexLoad } from './index-fuzz.js';

/** A copy of `target` whose `key` reads `value` (methods still run on `target`). */
function withProperty<T extends object>(target: T, key: string, value: unknown): T {
  return new Proxy(target, {
    get(t, p) {
      if (p === key) return value;
      const v = Reflect.get(t, p, t);
      return typeof v === 'function' ? v.bind(t) : v;
    },
  });
}

/** A context whose provider `kind` has another fingerprint. */
function otherProvider(ctx: BuildContext, kind: IndexProviderKind): BuildContext {
  switch (kind) {
    case 'embedder':
      return { ...ctx, embedder: withProperty(ctx.embedder, 'modelId', `${ctx.embedder.modelId}-other`) };
    case 'tasks':
      return { ...ctx, tasks: withProperty(ctx.tasks, 'id', `${ctx.tasks.id}-other`) };
    case 'vectorIndex':
      return { ...ctx, vectorIndex: withProperty(ctx.vectorIndex, 'kind', `${ctx.vectorIndex.kind}-other`) };
  }
}

/** A retrieval without its timings (`ms`, `*Ms`, `elapsed…`), which differ from run to run. */
export function comparable(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(comparable);
  if (value instanceof Map) return new Map([...value].map(([k, v]) => [k, comparable(v)]));
  if (value !== null && typeof value === 'object' && !ArrayBuffer.isView(value)) {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) {
      if (/^(ms|.*Ms|elapsed.*|.*[Tt]ime)$/.test(k)) continue;
      out[k] = comparable(v);
    }
    return out;
  }
  return value;
}

/** The error `promise` rejects with, or `undefined`. */
export async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  return undefined;
}

/** What the persistence checks run on, filled in by the suite's `beforeAll`. */
export interface PersistenceEnv<Index> {
  // biome-ignore lint/suspicious/noExplicitAny: any method's retrieve options
  method: Method<Index, any, any>;
  makeContext: () => BuildContext | Promise<BuildContext>;
  /** A new, empty target named `name`: a directory path, or a store from the suite's factory. */
  makeTarget: (name: string) => Promise<string | IndexStore>;
  /** Where the suite's index was saved. */
  saved: () => string | IndexStore;
  /** The built index's results for every query and budget. */
  results: () => Retrieval[];
  retrieveAll: (index: Index) => Promise<Retrieval[]>;
  /** The first query and the largest budget (for the fuzz's use of a loaded index). */
  query: string;
  budget: number;
  /** Cases of the load fuzz; 0 skips it. */
  fuzzCases: number;
  timeout: number;
}

/** Register the persistence checks (see `runMethodSpec`) in the current `describe`. */
export function persistenceChecks<Index>(env: PersistenceEnv<Index>): void {
  const { method, makeContext, timeout } = env;
  const load = async (target: string | IndexStore) => method.load(target, await makeContext());
  /** A copy of the saved index with `edits`, in a new target. */
  const editedCopy = async (name: string, edits: StoredIndexEdits) => {
    const target = await env.makeTarget(name);
    await copyStoredIndex(toIndexStore(env.saved()), toIndexStore(target), edits);
    return target;
  };
  const savedSnapshot = async () => {
    const snapshot = await toIndexStore(env.saved()).open();
    await snapshot.release();
    return snapshot;
  };

  it(
    'gives the same results after save → load',
    async () => {
      const loaded = await load(env.saved());
      expect((await env.retrieveAll(loaded)).map(comparable)).toEqual(env.results().map(comparable));
    },
    timeout,
  );

  it('refuses to load another method or format version', async () => {
    const other = await editedCopy('other-method', {
      manifest: (m) => {
        m.method = `${method.name}-other`;
      },
    });
    const e1 = await rejection(load(other));
    expect(IndexFormatError.isInstance(e1), String(e1)).toBe(true);
    expect((e1 as Error).message).toContain(`${method.name}-other`);
    const newer = await editedCopy('other-format', {
      manifest: (m) => {
        m.formatVersion = method.formatVersion + 1;
      },
    });
    const e2 = await rejection(load(newer));
    expect(IndexFormatError.isInstance(e2), String(e2)).toBe(true);
    expect((e2 as Error).message).toMatch(/rebuild/i);
  });

  for (const kind of INDEX_PROVIDER_KINDS) {
    it(`${method.capabilities.uses.includes(kind) ? 'refuses' : 'does not check'} another ${kind} on load`, async () => {
      const error = await rejection(method.load(env.saved(), otherProvider(await makeContext(), kind)));
      if (method.capabilities.uses.includes(kind)) {
        expect(IndexFormatError.isInstance(error), String(error)).toBe(true);
        expect((error as Error).message).toContain(kind);
        expect((error as Error).message).toMatch(/rebuild/i);
      } else {
        expect(error).toBeUndefined();
      }
    });
  }

  it('validates saved params on load instead of trusting them', async () => {
    const { params } = (await savedSnapshot()).manifest;
    const key = Object.keys(params).find((k) => ['number', 'boolean'].includes(typeof params[k]));
    if (key === undefined) return; // nothing typed to break
    const target = await editedCopy('bad-params', {
      manifest: (m) => {
        m.params[key] = 'not-a-valid-value';
      },
    });
    const error = await rejection(load(target));
    expect(IndexFormatError.isInstance(error), `${key}: ${String(error)}`).toBe(true);
    expect((error as Error).message).toContain(key);
  });

  it('refuses each JSON artifact of another shape with an IndexFormatError naming it', async () => {
    const files = (await savedSnapshot()).names.filter((f) => f.endsWith('.json'));
    for (const file of files) {
      const target = await editedCopy(`shape-${file}`, {
        artifact: (name) =>
          name === file ? new TextEncoder().encode(JSON.stringify({ unexpected: [5] })) : undefined,
      });
      const error = await rejection(load(target));
      expect(IndexFormatError.isInstance(error), `${file}: ${String(error)}`).toBe(true);
      const store = toIndexStore(target);
      const where = store.kind === 'directory' ? join(store.location, file) : `${store.location}/${file}`;
      expect((error as Error).message).toContain(where);
      expect((error as Error).message).toMatch(/rebuild the index\.$/);
    }
  });

  if (env.fuzzCases > 0) {
    it(
      'refuses damaged index files with a GragError, never a crash (fuzz)',
      async () => {
        const saved = env.saved();
        if (typeof saved !== 'string') throw new TypeError('the load fuzz runs on an index directory');
        const report = await fuzzIndexLoad({
          dir: saved,
          cases: env.fuzzCases,
          seed: 7,
          load: async (dir) => method.load(dir, await makeContext()),
          use: (loaded) => method.retrieve(loaded, env.query, { budgetTokens: env.budget }),
        });
        expect(report.failures, formatIndexFuzzReport(report)).toEqual([]);
      },
      timeout * 4,
    );
  }
}
