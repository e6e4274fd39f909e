/**
 * The shared vitest suite of the {@link Method} contract, as `runVectorIndexSpec` is for vector
 * indexes: every method runs the same checks of shape, budget, persistence, refusals, build
 * independence and abort.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AbortError, InvalidArgumentError } from '../contracts/errors.js';
import type { BuildContext, Method, RetrieveOptions } from '../contracts/method.js';
import { INDEX_PROVIDER_KINDS } from '../contracts/method.js';
import type { IndexStore } from '../contracts/store.js';
import type { TaskName, TaskVersions } from '../contracts/tasks.js';
import type { Document, Retrieval } from '../contracts/types.js';
import { trackBuilds } from '../runtime.js';
import { recordTasks } from './fixtures.js';
import { comparable, persistenceChecks, rejection } from './method-spec-persistence.js';

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
  /**
   * Keep the suite's indexes in stores from this factory (each call: a new, empty store, e.g.
   * `() => memoryStore()`) instead of directories. The suite then runs its persistence checks only
   * (save → load, the load refusals; not the file fuzz, which damages files of a directory), plus
   * one more: the index loads from the store with the same results as from a directory. Each
   * store's `close()`, if any, is called after the suite.
   */
  store?: () => IndexStore | Promise<IndexStore>;
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

/**
 * The method contract, checked on `options.corpus`:
 * - it declares a name, a description, capabilities and option keys;
 * - the suite's build and retrieval call only the tasks the method declares
 *   (`capabilities.tasks`, when it declares them), each on its side;
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
 *
 * With `options.store`, the indexes are kept in stores from that factory and only the persistence
 * checks run (without the file fuzz), plus a comparison with the same index loaded from a directory.
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

  const store = options.store;
  describe(store ? `${label}: method persistence on a store` : `${label}: method contract`, () => {
    let root: string;
    let ctx: BuildContext;
    let index: Index;
    let saved: string | IndexStore;
    let results: Retrieval[];
    /** The tasks the suite's build and its retrievals called, in call order. */
    const taskCalls: { build: TaskName[]; retrieve: TaskName[] } = { build: [], retrieve: [] };
    /** Stores made for the suite, closed after it. */
    const made: IndexStore[] = [];
    /** A new, empty place for an index: a store from `options.store`, or a directory under `root`. */
    const makeTarget = async (name: string): Promise<string | IndexStore> => {
      if (!store) return join(root, name);
      const fresh = await store();
      made.push(fresh);
      return fresh;
    };

    beforeAll(async () => {
      root = await mkdtemp(join(tmpdir(), 'grag-method-spec-'));
      ctx = await options.makeContext();
      // Every task call is logged: the build's, then the retrievals' (the index keeps the suite).
      const recorded = recordTasks(ctx.tasks);
      ctx.tasks = recorded.tasks;
      index = await build(ctx);
      taskCalls.build = recorded.calls.splice(0);
      saved = await makeTarget('index');
      await method.save(index, saved);
      results = await retrieveAll(index);
      taskCalls.retrieve = recorded.calls.splice(0);
    }, timeout * 2);

    afterAll(async () => {
      for (const target of made) await target.close?.();
      if (root) await rm(root, { recursive: true, force: true });
    });

    persistenceChecks({
      method,
      makeContext: options.makeContext,
      makeTarget,
      saved: () => saved,
      results: () => results,
      retrieveAll,
      query: queries[0]!,
      budget: budgets.at(-1)!,
      fuzzCases: store ? 0 : (options.fuzzCases ?? 300),
      timeout,
    });

    if (store) {
      it(
        'loads from the store with the same results as from a directory',
        async () => {
          const dir = join(root, 'directory');
          await method.save(index, dir);
          const fromStore = await method.load(saved, await options.makeContext());
          const fromDir = await method.load(dir, await options.makeContext());
          expect((await retrieveAll(fromStore)).map(comparable)).toEqual(
            (await retrieveAll(fromDir)).map(comparable),
          );
        },
        timeout,
      );
      return;
    }

    contractChecks({
      method,
      options,
      build,
      retrieveAll,
      queries,
      budgets,
      timeout,
      ctx: () => ctx,
      index: () => index,
      results: () => results,
      taskCalls: () => taskCalls,
    });
  });
}

/** What {@link contractChecks} reads from {@link runMethodSpec}: the built index and its results are getters, set in `beforeAll`. */
interface ContractSuite<Index, Options> {
  // biome-ignore lint/suspicious/noExplicitAny: any method's retrieve options
  method: Method<Index, Options, any>;
  options: MethodSpecOptions<Options>;
  build: (ctx: BuildContext, docs?: Document[], extra?: Partial<Options>) => Promise<Index>;
  retrieveAll: (index: Index) => Promise<Retrieval[]>;
  queries: string[];
  budgets: number[];
  timeout: number;
  ctx: () => BuildContext;
  index: () => Index;
  /** The results of `retrieveAll(index)`, each query at each budget. */
  results: () => Retrieval[];
  /** The tasks the build of `index` and `retrieveAll(index)` called. */
  taskCalls: () => { build: TaskName[]; retrieve: TaskName[] };
}

/** The tasks in `calls` that `declared` leaves out, each once, in order of first call. */
function undeclared(calls: readonly TaskName[], declared: TaskVersions): TaskName[] {
  return [...new Set(calls)].filter((task) => declared[task] === undefined);
}

/** The contract checks beyond persistence: declarations, the result shape, argument errors, independent builds, aborts. */
function contractChecks<Index, Options>(suite: ContractSuite<Index, Options>): void {
  const { method, options, build, retrieveAll, queries, budgets, timeout, ctx, index, results, taskCalls } =
    suite;
  it('declares a name, description, capabilities and option keys', () => {
    expect(method.name).toMatch(/^[a-z0-9][a-z0-9-]*$/);
    expect(method.description.trim().length).toBeGreaterThan(0);
    for (const kind of method.capabilities.uses) expect(INDEX_PROVIDER_KINDS).toContain(kind);
    expect(Number.isInteger(method.formatVersion) && method.formatVersion >= 1).toBe(true);
    expect(method.optionKeys?.build.length).toBeGreaterThan(0);
    expect(method.optionKeys?.retrieve).toEqual(expect.arrayContaining(['budgetTokens', 'topK', 'signal']));
  });

  it.skipIf(method.capabilities.tasks === undefined)(
    'calls only the task contracts it declares, build and retrieve each',
    () => {
      const declared = method.capabilities.tasks!;
      const calls = taskCalls();
      expect(undeclared(calls.build, declared.build), 'tasks the build called, not in tasks.build').toEqual(
        [],
      );
      expect(
        undeclared(calls.retrieve, declared.retrieve),
        'tasks retrieve called, not in tasks.retrieve',
      ).toEqual([]);
      for (const version of [...Object.values(declared.build), ...Object.values(declared.retrieve)]) {
        expect(Number.isInteger(version) && version! >= 1, `declared version ${version}`).toBe(true);
      }
    },
  );

  it('returns the Retrieval shape within every budget, counted by the tokenizer', () => {
    expect(results().length).toBe(queries.length * budgets.length);
    let k = 0;
    for (const query of queries) {
      for (const budget of budgets) {
        const r = results()[k++]!;
        const where = `"${query}" within ${budget}`;
        checkShape(r, where);
        expect(r.tokens, `${where}: tokens`).toBeLessThanOrEqual(budget);
        expect(r.tokens, `${where}: tokens is the tokenizer's count of context`).toBe(
          ctx().tokenizer.count(r.context),
        );
      }
    }
    // Something is found for some query at the largest budget.
    expect(results().some((r) => r.items.length > 0)).toBe(true);
  });

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
      method.retrieve(index(), queries[0]!, { notAnOption: 1 } as unknown as RetrieveOptions),
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
      expect((await retrieveAll(second)).map(comparable)).toEqual((await retrieveAll(first)).map(comparable));
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
}
