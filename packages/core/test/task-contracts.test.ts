import { describe, expect, expectTypeOf, it } from 'vitest';
import {
  InvalidArgumentError,
  TASK_CONTRACTS,
  type TaskArguments,
  type TaskName,
  type TaskResult,
  type TaskSuite,
  taskVersion,
} from '../src/index.js';
import {
  createBuildContext,
  indexProviders,
  openMethodIndex,
  requireTasks,
  writeMethodIndex,
} from '../src/kit.js';
import { memoryStore } from '../src/store/index.js';
import { createPromptTasks } from '../src/tasks/index.js';
import { createScriptedChatModel, createScriptedEmbedder, recordTasks } from '../src/test/index.js';

/** The eight tasks of the suite, written out by hand (the independent expectation). */
const EIGHT = [
  'answer',
  'assessCommunity',
  'decomposeSemanticUnits',
  'extractGraph',
  'extractQueryEntities',
  'extractQueryGraph',
  'summarize',
  'titleAndDescription',
];

describe('TASK_CONTRACTS', () => {
  it('holds one frozen contract per task, each named as its key, at specification version 1', () => {
    expect(Object.keys(TASK_CONTRACTS).sort()).toEqual(EIGHT);
    expect(Object.isFrozen(TASK_CONTRACTS)).toBe(true);
    for (const [key, contract] of Object.entries(TASK_CONTRACTS)) {
      expect(Object.isFrozen(contract), key).toBe(true);
      expect(contract.name).toBe(key);
      expect(contract.specificationVersion).toBe(1);
      expect(contract.description.length).toBeGreaterThan(10);
    }
    expect(() => {
      (TASK_CONTRACTS as unknown as Record<string, unknown>).summarize = undefined;
    }).toThrow(TypeError);
  });

  it('names exactly the task methods of TaskSuite, with their argument and result types', () => {
    expectTypeOf<TaskName>().toEqualTypeOf<Exclude<keyof TaskSuite, 'id' | 'judgement' | 'implements'>>();
    expectTypeOf<TaskResult<'summarize'>>().toEqualTypeOf<string>();
    expectTypeOf<TaskArguments<'summarize'>[0]>().toEqualTypeOf<string[]>();
    expectTypeOf<TaskResult<'extractGraph'>['entities']>().toBeArray();
  });

  it('has a method of the prompt suite behind every contract, which implements each at version 1', () => {
    const prompt = createPromptTasks(createScriptedChatModel([]));
    for (const name of EIGHT) expect(typeof prompt[name as TaskName], name).toBe('function');
    expect(prompt.implements).toEqual(Object.fromEntries(EIGHT.map((name) => [name, 1])));
  });
});

describe('taskVersion', () => {
  it('takes a suite that declares nothing to implement every task at version 1', () => {
    const suite = { id: 'plain' };
    for (const name of EIGHT) expect(taskVersion(suite, name as TaskName)).toBe(1);
  });

  it('reads a declaration, a task left out being not implemented', () => {
    const suite = { id: 'partial', implements: { summarize: 2, answer: 1 } };
    expect(taskVersion(suite, 'summarize')).toBe(2);
    expect(taskVersion(suite, 'answer')).toBe(1);
    expect(taskVersion(suite, 'extractGraph')).toBeUndefined();
  });
});

describe('requireTasks', () => {
  const suite = { id: 'my-suite', implements: { summarize: 2, answer: 1 } };

  it('accepts a suite that implements every needed task at the needed version', () => {
    expect(() => requireTasks('demo build', { answer: 1 }, suite)).not.toThrow();
    expect(() => requireTasks('demo build', {}, suite)).not.toThrow();
    expect(() => requireTasks('demo build', undefined, suite)).not.toThrow();
    expect(() =>
      requireTasks('demo build', { extractGraph: 1, summarize: 1 }, { id: 'plain' }),
    ).not.toThrow();
  });

  it('refuses in one line naming the method, each task it lacks with both versions, and the suite', () => {
    let error: unknown;
    try {
      requireTasks('noderag build', { answer: 1, summarize: 1, titleAndDescription: 1 }, suite);
    } catch (e) {
      error = e;
    }
    expect(InvalidArgumentError.isInstance(error)).toBe(true);
    expect((error as InvalidArgumentError).argument).toBe('tasks');
    const message = (error as Error).message;
    expect(message).not.toContain('\n');
    expect(message).toMatch(/^noderag build: the task suite 'my-suite' lacks /);
    expect(message).toContain('summarize version 1 (it implements version 2)');
    expect(message).toContain('titleAndDescription version 1 (not implemented)');
    // A task the suite has at the right version is not named.
    expect(message).not.toContain('answer');
  });
});

describe('recordTasks', () => {
  it('logs each task call in order and keeps the suite id, judgement and versions', async () => {
    const base = createPromptTasks(
      createScriptedChatModel(['A short summary.', 'ENTITIES: Ilse Marren | Merrow Falls']),
    );
    const { tasks, calls } = recordTasks(base);
    expect(tasks.id).toBe(base.id);
    expect(tasks.implements).toEqual(base.implements);
    expect(await tasks.summarize(['Ilse Marren keeps the lighthouse at Merrow Falls.'])).toBe(
      'A short summary.',
    );
    await tasks.extractQueryEntities('Where does Ilse Marren live?');
    expect(calls).toEqual(['summarize', 'extractQueryEntities']);
  });

  it('leaves out a task the wrapped suite does not have', () => {
    const { tasks } = recordTasks({ id: 'bare' } as TaskSuite);
    expect(tasks.summarize).toBeUndefined();
    expect(tasks.id).toBe('bare');
  });
});

describe('the manifest records the tasks of a build', () => {
  const ctx = createBuildContext({
    embedder: createScriptedEmbedder({ dimensions: 2 }),
    tasks: { id: 't1' } as TaskSuite,
  });
  const header = {
    method: 'demo',
    formatVersion: 1,
    providers: indexProviders(ctx),
    params: {},
    uses: ['embedder'] as const,
  };
  const open = (store: ReturnType<typeof memoryStore>) =>
    openMethodIndex(store, ctx, { method: 'demo', formatVersion: 1, params: (saved) => saved });

  it('writes the declared build tasks with their versions', async () => {
    const store = memoryStore();
    await writeMethodIndex(store, { ...header, tasks: { extractGraph: 1, summarize: 1 } }, async () => {});
    expect((await open(store)).manifest.tasks).toEqual({ extractGraph: 1, summarize: 1 });
  });

  it('writes none when the method declares none, and such a manifest loads as before', async () => {
    const store = memoryStore();
    await writeMethodIndex(store, header, async () => {});
    const opened = await open(store);
    expect(opened.manifest.tasks).toBeUndefined();
    expect(Object.keys(opened.manifest)).not.toContain('tasks');
  });
});
