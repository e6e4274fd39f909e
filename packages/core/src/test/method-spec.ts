/**
 * The shared vitest suite of the {@link Method} contract, as `runVectorIndexSpec` is for vector
 * indexes: every method runs the same checks of shape, budget, persistence, refusals, build
 * independence and abort.
 */
import { cp, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AbortError, IndexFormatError, InvalidArgumentError } from '../errors.js';
import type { BuildContext, Method, RetrieveOptions } from '../method.js';
import { INDEX_PROVIDER_KINDS, type IndexProviderKind } from '../method-index.js';
import { MANIFEST_FILE } from '../persistence.js';
import { trackBuilds } from '../runtime.js';
import type { Document, Retrieval } from '../types.js';
import { editedIndexCopy } from './index-files.js';
import { formatIndexFuzzReport, fuzzIndexLoad } from './index-fuzz.js';

/** Options of {@link runMethodSpec}. */
export interface MethodSpecOptions<Options> {
  /** Documents to build from (a few hundred words keeps the suite fast). */
  corpus: Document[];
  /** A new context for each build or load (the suite changes the providers of some). */
  makeContext: () => BuildContext | Promise<BuildContext>;
  /** Build options of every build in the suite (small chunks keep it fast). */
  buildOptions?: Partial<Options>;
  /** Queries to retrieve with. @default the titles (or first words) of the first three documents */
  queries?: string[];
  /** Budgets to retrieve within. @default [64, 400, 4000] */
  budgets?: number[];
  /** Further build options each of which `build` must refuse with an `InvalidArgumentError`. */
  badOptions?: Partial<Options>[];
  /** Cases of the load fuzz (`fuzzIndexLoad`): damaged files must be refused with a `GragError`. @default 300 */
  fuzzCases?: number;
  /** Per-test timeout in ms. @default 60000 */
  timeout?: number;
}

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
function comparable(value: unknown): unknown {
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

/** Where `needle` sits inside `haystack` (plain objects and arrays, a few levels deep), if anywhere. */
function findValue(haystack: unknown, needle: unknown, depth = 3, at = 'index'): string | undefined {
  if (haystack === needle) return at;
  if (depth === 0 || haystack === null || typeof haystack !== 'object' || ArrayBuffer.isView(haystack)) {
    return undefined;
  }
  const proto = Object.getPrototypeOf(haystack);
  if (proto !== Object.prototype && proto !== null && !Array.isArray(haystack)) return undefined;
  const entries = Array.isArray(haystack) ? haystack.slice(0, 50).entries() : Object.entries(haystack);
  for (const [k, v] of entries) {
    const found = findValue(v, needle, depth - 1, `${at}.${k}`);
    if (found) return found;
  }
  return undefined;
}

function checkShape(r: Retrieval, where: string): void {
  expect(typeof r.context, `${where}: context`).toBe('string');
  expect(Number.isInteger(r.tokens) && r.tokens >= 0, `${where}: tokens`).toBe(true);
  expect(Array.isArray(r.items), `${where}: items`).toBe(true);
  expect(r.trace !== null && typeof r.trace === 'object', `${where}: trace`).toBe(true);
  r.items.forEach((item, i) => {
    const at = `${where}: items[${i}]`;
    expect(typeof item.id === 'string' && item.id.length > 0, `${at}.id`).toBe(true);
    expect(typeof item.kind === 'string' && item.kind.length > 0, `${at}.kind`).toBe(true);
    expect(typeof item.text, `${at}.text`).toBe('string');
    expect(Number.isFinite(item.score), `${at}.score`).toBe(true);
    expect(Array.isArray(item.source?.chunkIds) && Array.isArray(item.source?.docIds), `${at}.source`).toBe(
      true,
    );
  });
  if (r.subgraph !== undefined) {
    expect(Array.isArray(r.subgraph.nodes) && Array.isArray(r.subgraph.edges), `${where}: subgraph`).toBe(
      true,
    );
  }
}

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  return undefined;
}

/**
 * The method contract, checked on `options.corpus`:
 * - it declares a name, a description, capabilities and option keys;
 * - every result has the `Retrieval` shape, `tokens <= budget` and `tokens` is the tokenizer's
 *   count of `context`;
 * - save → load → retrieve gives the same result (timings aside);
 * - load refuses another method, another format version, another provider of each kind the method
 *   declares it uses, and saved params that fail the method's checks, with an `IndexFormatError`;
 *   providers it does not use are not checked;
 * - an empty corpus, an unknown option and each of `badOptions` throw `InvalidArgumentError`;
 * - two builds on one context are independent (each has its own build runtime) and the index
 *   does not keep the context;
 * - an aborted signal stops a build with an `AbortError`;
 * - each JSON file of the index replaced by JSON of another shape, and damaged files
 *   (`fuzzIndexLoad`), are refused with an error naming the file, never a crash.
 */
export function runMethodSpec<Index, Options>(
  label: string,
  // biome-ignore lint/suspicious/noExplicitAny: any method's retrieve options
  method: Method<Index, Options, any>,
  options: MethodSpecOptions<Options>,
): void {
  const timeout = options.timeout ?? 60_000;
  const budgets = options.budgets ?? [64, 400, 4000];
  const queries =
    options.queries ??
    options.corpus
      .slice(0, 3)
      .map((d) => d.title ?? d.text.split(/\s+/).slice(0, 8).join(' '))
      .filter((q) => q.trim().length > 0);
  const buildOptions = (options.buildOptions ?? {}) as Partial<Options>;
  const build = (ctx: BuildContext, docs = options.corpus, extra: Partial<Options> = {}) =>
    method.build(docs, ctx, { ...buildOptions, ...extra });
  const retrieveAll = async (index: Index) => {
    const out: Retrieval[] = [];
    for (const query of queries) {
      for (const budgetTokens of budgets) out.push(await method.retrieve(index, query, { budgetTokens }));
    }
    return out;
  };

  describe(`${label}: method contract`, () => {
    let root: string;
    let ctx: BuildContext;
    let index: Index;
    let saved: string;
    let results: Retrieval[];

    beforeAll(async () => {
      root = await mkdtemp(join(tmpdir(), 'grag-method-spec-'));
      ctx = await options.makeContext();
      index = await build(ctx);
      saved = join(root, 'index');
      await method.save(index, saved);
      results = await retrieveAll(index);
    }, timeout * 2);

    afterAll(async () => {
      if (root) await rm(root, { recursive: true, force: true });
    });

    /** A copy of the saved index with its manifest edited by `edit`. */
    const editedCopy = (name: string, edit: (manifest: Record<string, unknown>) => void) =>
      editedIndexCopy(saved, join(root, name), MANIFEST_FILE, edit);

    it('declares a name, description, capabilities and option keys', () => {
      expect(method.name).toMatch(/^[a-z0-9][a-z0-9-]*$/);
      expect(method.description.trim().length).toBeGreaterThan(0);
      for (const kind of method.capabilities.uses) expect(INDEX_PROVIDER_KINDS).toContain(kind);
      expect(Number.isInteger(method.formatVersion) && method.formatVersion >= 1).toBe(true);
      expect(method.optionKeys?.build.length).toBeGreaterThan(0);
      expect(method.optionKeys?.retrieve).toEqual(expect.arrayContaining(['budgetTokens', 'topK', 'signal']));
    });

    it('returns the Retrieval shape within every budget, counted by the tokenizer', () => {
      expect(results.length).toBe(queries.length * budgets.length);
      let k = 0;
      for (const query of queries) {
        for (const budget of budgets) {
          const r = results[k++]!;
          const where = `"${query}" within ${budget}`;
          checkShape(r, where);
          expect(r.tokens, `${where}: tokens`).toBeLessThanOrEqual(budget);
          expect(r.tokens, `${where}: tokens is the tokenizer's count of context`).toBe(
            ctx.tokenizer.count(r.context),
          );
        }
      }
      // Something is found for some query at the largest budget.
      expect(results.some((r) => r.items.length > 0)).toBe(true);
    });

    it(
      'gives the same results after save → load',
      async () => {
        const loaded = await method.load(saved, await options.makeContext());
        expect((await retrieveAll(loaded)).map(comparable)).toEqual(results.map(comparable));
      },
      timeout,
    );

    it('refuses to load another method or format version', async () => {
      const other = await editedCopy('other-method', (m) => {
        m.method = `${method.name}-other`;
      });
      const e1 = await rejection(method.load(other, await options.makeContext()));
      expect(IndexFormatError.isInstance(e1), String(e1)).toBe(true);
      expect((e1 as Error).message).toContain(`${method.name}-other`);
      const newer = await editedCopy('other-format', (m) => {
        m.formatVersion = method.formatVersion + 1;
      });
      const e2 = await rejection(method.load(newer, await options.makeContext()));
      expect(IndexFormatError.isInstance(e2), String(e2)).toBe(true);
      expect((e2 as Error).message).toMatch(/rebuild/i);
    });

    for (const kind of INDEX_PROVIDER_KINDS) {
      it(`${method.capabilities.uses.includes(kind) ? 'refuses' : 'does not check'} another ${kind} on load`, async () => {
        const error = await rejection(method.load(saved, otherProvider(await options.makeContext(), kind)));
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
      const manifest = JSON.parse(await readFile(join(saved, MANIFEST_FILE), 'utf8')) as {
        params: Record<string, unknown>;
      };
      const key = Object.keys(manifest.params).find((k) =>
        ['number', 'boolean'].includes(typeof manifest.params[k]),
      );
      if (key === undefined) return; // nothing typed to break
      const dir = await editedCopy('bad-params', (m) => {
        (m.params as Record<string, unknown>)[key] = 'not-a-valid-value';
      });
      const error = await rejection(method.load(dir, await options.makeContext()));
      expect(IndexFormatError.isInstance(error), `${key}: ${String(error)}`).toBe(true);
      expect((error as Error).message).toContain(key);
    });

    it('refuses each JSON file of another shape with an IndexFormatError naming it', async () => {
      const files = (await readdir(saved)).filter((f) => f.endsWith('.json') && f !== MANIFEST_FILE);
      for (const file of files) {
        const dir = join(root, `shape-${file}`);
        await cp(saved, dir, { recursive: true });
        await writeFile(join(dir, file), JSON.stringify({ unexpected: [5] }));
        const error = await rejection(method.load(dir, await options.makeContext()));
        expect(IndexFormatError.isInstance(error), `${file}: ${String(error)}`).toBe(true);
        expect((error as Error).message).toContain(join(dir, file));
        expect((error as Error).message).toMatch(/rebuild the index\.$/);
      }
    });

    it(
      'refuses damaged index files with a GragError, never a crash (fuzz)',
      async () => {
        const report = await fuzzIndexLoad({
          dir: saved,
          cases: options.fuzzCases ?? 300,
          seed: 7,
          load: async (dir) => method.load(dir, await options.makeContext()),
          use: (loaded) => method.retrieve(loaded, queries[0]!, { budgetTokens: budgets.at(-1)! }),
        });
        expect(report.failures, formatIndexFuzzReport(report)).toEqual([]);
      },
      timeout * 4,
    );

    it('refuses an empty corpus, unknown options and bad option values with InvalidArgumentError', async () => {
      const c = await options.makeContext();
      const empty = await rejection(build(c, []));
      expect(InvalidArgumentError.isInstance(empty), `empty corpus: ${String(empty)}`).toBe(true);
      const unknown = await rejection(
        build(c, options.corpus, { notAnOption: 1 } as unknown as Partial<Options>),
      );
      expect(InvalidArgumentError.isInstance(unknown), `unknown option: ${String(unknown)}`).toBe(true);
      expect((unknown as Error).message).toContain('notAnOption');
      for (const bad of options.badOptions ?? []) {
        const error = await rejection(build(c, options.corpus, bad));
        expect(InvalidArgumentError.isInstance(error), `${JSON.stringify(bad)}: ${String(error)}`).toBe(true);
      }
      const query = await rejection(
        method.retrieve(index, queries[0]!, { notAnOption: 1 } as unknown as RetrieveOptions),
      );
      expect(InvalidArgumentError.isInstance(query), `unknown retrieve option: ${String(query)}`).toBe(true);
    });

    it(
      'runs two builds on one context independently and keeps no context in the index',
      async () => {
        const c = await options.makeContext();
        const builds = trackBuilds(c);
        const first = await build(c);
        const second = await build(c);
        expect(builds).toHaveLength(2);
        expect(builds[1]).not.toBe(builds[0]);
        expect(builds[1]!.stages).toEqual(builds[0]!.stages);
        expect(builds[1]!.issues).toHaveLength(builds[0]!.issues.length);
        expect((await retrieveAll(second)).map(comparable)).toEqual(
          (await retrieveAll(first)).map(comparable),
        );
        expect(findValue(first, c), 'the index holds its BuildContext').toBeUndefined();
      },
      timeout * 2,
    );

    it(
      'stops a build when its signal aborts',
      async () => {
        const before = new AbortController();
        before.abort();
        const c = { ...(await options.makeContext()), signal: before.signal };
        const e1 = await rejection(build(c));
        expect(AbortError.isInstance(e1), String(e1)).toBe(true);

        const during = new AbortController();
        let events = 0;
        const d: BuildContext = {
          ...(await options.makeContext()),
          signal: during.signal,
          onProgress: () => {
            events += 1;
            during.abort();
          },
        };
        const e2 = await rejection(build(d));
        if (events > 0) expect(AbortError.isInstance(e2), String(e2)).toBe(true);
      },
      timeout,
    );
  });
}
