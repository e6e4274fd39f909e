import { type BuildContext, InvalidArgumentError, type MethodTasks, type TaskSuite } from '@grag/core';
import { buildTaskNeeds, createBuildContext, defineMethod, type MethodIndexFormat } from '@grag/core/kit';
import { createScriptedEmbedder } from '@grag/core/test';
import { describe, expect, it } from 'vitest';

const TASKS: MethodTasks = { build: { summarize: 1 }, retrieve: { extractQueryEntities: 1 } };

/** A context whose task suite implements exactly `implemented`. */
const contextWith = (implemented: TaskSuite['implements']): BuildContext =>
  createBuildContext({
    embedder: createScriptedEmbedder({ dimensions: 4 }),
    tasks: { id: 'suite', implements: implemented } as TaskSuite,
  });

interface Toy {
  docs: string[];
  depth: number;
}

/** A toy method recording what the skeleton hands each step. */
function toyMethod(uses: readonly ('embedder' | 'tasks')[], reads?: readonly number[]) {
  const seen: { resolved: unknown[]; formats: MethodIndexFormat[]; updates: number } = {
    resolved: [],
    formats: [],
    updates: 0,
  };
  const method = defineMethod({
    name: 'toy',
    description: 'a toy',
    formatVersion: 3,
    ...(reads ? { reads } : {}),
    uses,
    tasks: TASKS,
    capabilities: { triples: true },
    optionKeys: { build: ['depth'], retrieve: ['topK'] },
    passageRanking: { kinds: ['chunk'] },
    resolve: (caller: string, options: Partial<{ depth: number }>) => {
      if (options.depth !== undefined && options.depth < 0) {
        throw new InvalidArgumentError('depth', `${caller}: depth must not be negative.`);
      }
      return { depth: options.depth ?? 2 };
    },
    build: async (docs, _ctx, options) => {
      seen.resolved.push(options);
      return { docs: docs.map((d) => d.id), depth: options.depth };
    },
    retrieve: (index: Toy, query) => {
      // Throws before any promise exists, as an option check of a plain function does.
      if (query === '') throw new InvalidArgumentError('query', 'toy retrieve: ask something.');
      return Promise.resolve({ context: `${query}:${index.depth}`, items: [], tokens: 0, trace: {} });
    },
    update: async (index: Toy) => {
      seen.updates += 1;
      return {
        index,
        report: { added: [], removed: [], replaced: [], stages: { incremental: [], global: [] } },
      } as never;
    },
    save: async (_index, _target, format) => {
      seen.formats.push(format);
    },
    load: async (_target, _ctx, format) => {
      seen.formats.push(format);
      return { docs: [], depth: 0 };
    },
  });
  return { method, seen };
}

describe('defineMethod', () => {
  it('declares what the definition declares', () => {
    const { method } = toyMethod(['embedder']);
    expect(method.name).toBe('toy');
    expect(method.description).toBe('a toy');
    expect(method.formatVersion).toBe(3);
    expect(method.capabilities).toEqual({ triples: true, uses: ['embedder'], tasks: TASKS });
    expect(method.optionKeys).toEqual({ build: ['depth'], retrieve: ['topK'] });
    expect(method.passageRanking).toEqual({ kinds: ['chunk'] });
  });

  it('resolves the build options with the build named, then hands them to build', async () => {
    const { method, seen } = toyMethod(['embedder']);
    const ctx = contextWith({ summarize: 1 });
    await expect(method.build([{ id: 'a', text: 'x' }], ctx, { depth: 5 })).resolves.toEqual({
      docs: ['a'],
      depth: 5,
    });
    await method.build([], ctx);
    expect(seen.resolved).toEqual([{ depth: 5 }, { depth: 2 }]);
    await expect(method.build([], ctx, { depth: -1 })).rejects.toThrow(
      'toy build: depth must not be negative.',
    );
  });

  it('checks the build tasks before a build and an update, and the retrieve ones too when the index uses the suite', async () => {
    const lacksRetrieve = contextWith({ summarize: 1 });
    const withoutSuite = toyMethod(['embedder']);
    await expect(withoutSuite.method.build([], lacksRetrieve)).resolves.toBeDefined();
    const withSuite = toyMethod(['embedder', 'tasks']);
    await expect(withSuite.method.build([], lacksRetrieve)).rejects.toThrow(
      /toy build: the task suite 'suite' lacks extractQueryEntities version 1/,
    );
    const index = { docs: [], depth: 1 };
    await expect(withSuite.method.update(index, {}, lacksRetrieve)).rejects.toThrow(/toy update: .*lacks/);
    expect(withSuite.seen.updates).toBe(0);
    await expect(withoutSuite.method.update(index, {}, contextWith({}))).rejects.toThrow(
      /toy update: the task suite 'suite' lacks summarize version 1/,
    );
    await withSuite.method.update(index, {}, contextWith({ summarize: 1, extractQueryEntities: 1 }));
    expect(withSuite.seen.updates).toBe(1);
  });

  it('checks the retrieve tasks before a load, and hands save and load the index format', async () => {
    const { method, seen } = toyMethod(['embedder', 'tasks'], [1, 2]);
    await expect(method.load('dir', contextWith({ summarize: 1 }))).rejects.toThrow(
      /toy load: .*extractQueryEntities/,
    );
    await method.load('dir', contextWith({ extractQueryEntities: 1 }));
    await method.save({ docs: [], depth: 1 }, 'dir');
    const format = {
      method: 'toy',
      formatVersion: 3,
      uses: ['embedder', 'tasks'],
      reads: [1, 2],
      tasks: TASKS.build,
    };
    expect(seen.formats).toEqual([format, format]);
    const plain = toyMethod(['embedder']);
    await plain.method.save({ docs: [], depth: 1 }, 'dir');
    expect(plain.seen.formats[0]).not.toHaveProperty('reads');
  });

  it('retrieves with empty options by default and turns a thrown error into a rejection', async () => {
    const { method } = toyMethod(['embedder']);
    await expect(method.retrieve({ docs: [], depth: 4 }, 'q')).resolves.toMatchObject({ context: 'q:4' });
    await expect(method.retrieve({ docs: [], depth: 4 }, '')).rejects.toThrow('toy retrieve: ask something.');
  });
});

describe('buildTaskNeeds', () => {
  it('adds the retrieve tasks only when the index fingerprints the suite', () => {
    expect(buildTaskNeeds(TASKS, ['embedder'])).toEqual({ summarize: 1 });
    expect(buildTaskNeeds(TASKS, ['embedder', 'tasks'])).toEqual({ summarize: 1, extractQueryEntities: 1 });
  });
});
