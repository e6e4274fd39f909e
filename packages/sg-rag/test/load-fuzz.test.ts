import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createBuildContext, IndexFormatError } from '@grag/core';
import { createScriptedEmbedder, formatIndexFuzzReport, fuzzIndexLoad } from '@grag/core/test';
import { createOfflineProviders } from '@grag/offline';
import { describe, expect, it } from 'vitest';
import { createSgRag, type Triple } from '../src/index.js';

const T = (head: string, relation: string, tail: string): Triple => ({ head, relation, tail });
const triples: Triple[] = [
  T('heat', 'starring', 'deniro'),
  T('heat', 'starring', 'pacino'),
  T('heat', 'directed by', 'mann'),
  T('heat', 'genre', 'crime'),
  T('ronin', 'starring', 'deniro'),
  T('ronin', 'starring', 'reno'),
  T('ronin', 'genre', 'crime'),
  T('alien', 'starring', 'weaver'),
  T('alien', 'genre', 'scifi'),
  T('deniro', 'born in', 'new york'),
];
const method = createSgRag();
const context = () =>
  createBuildContext({ embedder: createScriptedEmbedder(), tasks: createOfflineProviders().tasks });
const queryGraph = {
  nodes: [
    { id: 'X', label: null, isTarget: true },
    { id: 'c0', label: 'deniro', isTarget: false },
    { id: 'c1', label: 'crime', isTarget: false },
  ],
  edges: [
    { source: 'X', target: 'c0', relation: 'starring' },
    { source: 'X', target: 'c1', relation: 'genre' },
  ],
  issues: [],
};

async function saved(prefix: string): Promise<string> {
  const dir = join(await mkdtemp(join(tmpdir(), prefix)), 'idx');
  await method.save(await method.build([], context(), { triples, pathLength: 2 }), dir);
  return dir;
}

describe('sg-rag index loading', () => {
  it('refuses a file of the wrong shape with an IndexFormatError naming it', async () => {
    for (const [name, content] of [
      ['graph.json', '{"nodes": 5}'],
      ['dominance.json', '[]'],
      ['tree.bin', 'not a tree'],
      ['paths.bin', 'abc'],
    ] as const) {
      const dir = await saved('grag-sg-shape-');
      const file = join(dir, name);
      await writeFile(file, content);
      const error = await method.load(dir, context()).catch((e: unknown) => e);
      expect(IndexFormatError.isInstance(error), String(error)).toBe(true);
      expect((error as Error).message).toContain(file);
      expect((error as Error).message).toMatch(/rebuild the index\.$/);
    }
  });

  it('fuzz: a damaged index is refused with a GragError, never a crash', async () => {
    const dir = await saved('grag-sg-fuzz-');
    const report = await fuzzIndexLoad({
      dir,
      cases: 1000,
      seed: 71,
      load: (d) => method.load(d, context()),
      use: (index) => method.retrieve(index, 'Which crime film stars De Niro?', { queryGraph }),
    });
    console.log(`sg-rag: ${formatIndexFuzzReport(report)}`);
    expect(report.failures, formatIndexFuzzReport(report)).toEqual([]);
  }, 120_000);
});
