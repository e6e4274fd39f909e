/**
 * Every method the CLI knows declares the task contracts it calls (`capabilities.tasks`), and this
 * checks the declarations against the calls: each method is built, queried and updated on a tiny
 * invented corpus under each of its presets (and the variants named below), with the offline task
 * suite behind a recorder that logs every task call.
 * - A task that build or update calls and `tasks.build` leaves out, or that retrieve calls and
 *   `tasks.retrieve` leaves out, fails the test.
 * - A declared task that no configuration calls also fails it: a declaration says what the method
 *   needs, and an unneeded entry would refuse suites for nothing. A task only some options call
 *   stays declared (the declaration covers every option), so a configuration here reaches it.
 * And a build with a suite that lacks a declared task is refused before any task is called.
 */

import { mkdir, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BuildContext, Document, Method, TaskName, TaskVersions } from '@grag/core';
import { InvalidArgumentError } from '@grag/core';
import { createBuildContext } from '@grag/core/kit';
import { memoryStore } from '@grag/core/store';
import { recordTasks } from '@grag/core/test';
import { createOfflineProviders } from '@grag/offline';
import { describe, expect, it } from 'vitest';
import { run } from '../src/index.js';
import { METHODS } from '../src/registry.js';
import { captureIO } from './helpers.js';
import { CORPUS, SMALL } from './tiny-corpus.js';

/** Added by the update of each configuration (one document out, this one in). */
const ADDED: Document = {
  id: 'shipyard',
  title: 'Kessler Shipyard',
  text: 'The Kessler Shipyard in Port Halvard builds ferries such as the Sable Gull. Tobias Wren visited the Kessler Shipyard.',
};

const QUERIES = [
  'Where was Ilse Marren born?',
  'Which shipyard built the Sable Gull?',
  'Who is married to Tobias Wren?',
];

interface Configuration {
  label: string;
  build: Record<string, unknown>;
}

/** Each method's configurations: its presets, and ket-rag's variants without a skeleton. */
function configurations(method: Method<unknown>): Configuration[] {
  const small = SMALL[method.name] ?? {};
  const presets = method.optionKeys?.build.includes('preset') ? ['paper', 'offline'] : [undefined];
  const out: Configuration[] = presets.map((preset) => ({
    label: preset ? `the ${preset} preset` : 'its defaults',
    build: { ...small, ...(preset ? { preset } : {}) },
  }));
  if (method.name === 'ket-rag')
    out.push({ label: 'the keyword-rag variant', build: { ...small, variant: 'keyword-rag' } });
  return out;
}

/** Offline providers whose task calls are logged in `calls`. */
function recordingContext() {
  const offline = createOfflineProviders();
  const recorded = recordTasks(offline.tasks);
  const ctx = createBuildContext({
    embedder: offline.embedder,
    tasks: recorded.tasks,
    textAnalyzer: offline.textAnalyzer,
  });
  return { ctx, calls: recorded.calls };
}

/** The tasks in `calls` that `declared` leaves out, each once. */
const undeclared = (calls: readonly TaskName[], declared: TaskVersions) =>
  [...new Set(calls)].filter((task) => declared[task] === undefined);

describe.each(METHODS.map((entry) => [entry.name, entry.method] as const))('%s', (_name, method) => {
  const declared = method.capabilities.tasks;
  /** The tasks called under every configuration so far, by side. */
  const seen = { build: new Set<TaskName>(), retrieve: new Set<TaskName>() };

  it('declares its tasks, build and retrieve, each at a version its contract has', () => {
    expect(declared).toBeDefined();
    for (const side of [declared!.build, declared!.retrieve]) {
      for (const version of Object.values(side)) expect(version).toBe(1);
    }
  });

  it.each(configurations(method))(
    'calls only declared tasks with $label (build, retrieve, update)',
    async ({ build }) => {
      const { ctx, calls } = recordingContext();
      const index = await method.build(CORPUS, ctx, build);
      if (method.update) {
        const { index: updated } = await method.update(index, { add: [ADDED], remove: ['gull'] }, ctx);
        const buildCalls = calls.splice(0);
        for (const query of QUERIES) await method.retrieve(updated, query, { budgetTokens: 2000 });
        check(buildCalls, calls.splice(0));
      } else {
        const buildCalls = calls.splice(0);
        for (const query of QUERIES) await method.retrieve(index, query, { budgetTokens: 2000 });
        check(buildCalls, calls.splice(0));
      }
    },
  );

  function check(buildCalls: TaskName[], retrieveCalls: TaskName[]): void {
    expect(undeclared(buildCalls, declared!.build), 'called by build or update, not in tasks.build').toEqual(
      [],
    );
    expect(
      undeclared(retrieveCalls, declared!.retrieve),
      'called by retrieve, not in tasks.retrieve',
    ).toEqual([]);
    for (const task of buildCalls) seen.build.add(task);
    for (const task of retrieveCalls) seen.retrieve.add(task);
  }

  it('calls every declared task under some configuration', () => {
    expect([...seen.build].sort(), 'tasks.build').toEqual(Object.keys(declared!.build).sort());
    expect([...seen.retrieve].sort(), 'tasks.retrieve').toEqual(Object.keys(declared!.retrieve).sort());
  });

  const needed = Object.keys(declared?.build ?? {}) as TaskName[];
  it.skipIf(needed.length === 0)(
    'refuses a suite that lacks a declared build task, naming the method, the task and the suite',
    async () => {
      const { ctx, calls } = recordingContext();
      const [lacking, ...kept] = needed;
      ctx.tasks = {
        ...ctx.tasks,
        id: 'partial-suite',
        implements: Object.fromEntries(kept.map((task) => [task, 1])),
      };
      const error = await method.build(CORPUS, ctx, configurations(method)[0]!.build).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(InvalidArgumentError.isInstance(error), String(error)).toBe(true);
      const message = (error as Error).message;
      expect(message).toContain(`${method.name} build`);
      expect(message).toContain(`${lacking} version 1 (not implemented)`);
      expect(message).toContain("'partial-suite'");
      expect(calls).toEqual([]);
    },
  );

  const retrieveNeeded = Object.keys(declared?.retrieve ?? {}) as TaskName[];
  it.skipIf(retrieveNeeded.length === 0)(
    'refuses at build and at load a suite that lacks a declared retrieve task (the index retrieves with it)',
    async () => {
      const [lacking] = retrieveNeeded;
      const partial = (ctx: BuildContext) => {
        const implemented = { ...declared!.build, ...declared!.retrieve } as Record<string, number>;
        delete implemented[lacking!];
        return { ...ctx, tasks: { ...ctx.tasks, id: 'partial-suite', implements: implemented } };
      };
      const build = configurations(method)[0]!.build;
      const { ctx, calls } = recordingContext();
      const refused = await method.build(CORPUS, partial(ctx), build).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(String(refused)).toContain(
        `${method.name} build: the task suite 'partial-suite' lacks ${lacking} version 1`,
      );
      expect(calls).toEqual([]);

      const store = memoryStore();
      await method.save(await method.build(CORPUS, ctx, build), store);
      const onLoad = await method.load(store, partial(ctx)).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(InvalidArgumentError.isInstance(onLoad), String(onLoad)).toBe(true);
      expect((onLoad as Error).message).toContain(
        `${method.name} load: the task suite 'partial-suite' lacks ${lacking}`,
      );
    },
  );
});

describe('grag methods and grag index show the tasks', () => {
  it('grag methods lists each method with the tasks it calls under its line, and --json its capabilities', async () => {
    const io = captureIO(tmpdir());
    expect(await run(['methods'], io)).toBe(0);
    const lines = io.out().split('\n');
    const after = (name: string) => lines[lines.findIndex((l) => l.startsWith(`${name} `)) + 1];
    expect(after('sg-rag')).toBe(
      '               tasks: build extractGraph v1; retrieve extractQueryGraph v1',
    );
    expect(after('e2graphrag')).toBe('               tasks: build summarize v1');
    expect(after('bm25')).toBe('               tasks: none');
    expect(lines.filter((l) => l.startsWith('               tasks: '))).toHaveLength(METHODS.length);

    const json = captureIO(tmpdir());
    expect(await run(['methods', '--json'], json)).toBe(0);
    const listed = JSON.parse(json.out()) as { name: string; capabilities: { tasks?: unknown } }[];
    expect(listed.map((m) => m.name)).toEqual(METHODS.map((m) => m.name));
    expect(listed.find((m) => m.name === 'da-rag')!.capabilities.tasks).toEqual({
      build: { extractGraph: 1, titleAndDescription: 1 },
      retrieve: { assessCommunity: 1 },
    });
  });

  it('grag index reports the tasks of the build in one line, and the manifest records them', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'grag-task-report-'));
    const corpus = join(dir, 'corpus');
    await mkdir(corpus);
    for (const doc of CORPUS) await writeFile(join(corpus, `${doc.id}.md`), `# ${doc.title}\n\n${doc.text}`);
    const io = captureIO(dir);
    const out = join(dir, 'idx');
    expect(await run(['index', corpus, '--method', 'sg-rag', '--out', out], io), io.err()).toBe(0);
    const taskLines = io.errLines((l) => l.startsWith('grag: tasks'));
    expect(taskLines).toEqual([
      'grag: tasks of offline:wink: build extractGraph v1; retrieve extractQueryGraph v1',
    ]);
    const manifest = JSON.parse(await readFile(join(out, 'manifest.json'), 'utf8'));
    expect(manifest.tasks).toEqual({ extractGraph: 1 });

    const bm25 = captureIO(dir);
    expect(await run(['index', corpus, '--method', 'bm25', '--out', join(dir, 'bm25')], bm25)).toBe(0);
    expect(bm25.errLines((l) => l.startsWith('grag: tasks'))).toEqual(['grag: tasks: none']);
  });
});
