import { BuildStageError, type TaskSuite } from '@grag/core';
import { createBuildContext } from '@grag/core/kit';
import { createScriptedEmbedder } from '@grag/core/test';
import { describe, expect, it } from 'vitest';
import { createSgRag } from '../src/index.js';

describe('building from documents', () => {
  // Each document states one fact "Head|relation|Tail"; chunks finish in reverse order.
  const facts = ['Alpha|likes|Beta', 'Beta|knows|Gamma', 'Gamma|owns|Alpha', 'Alpha|met|Delta'];
  const docs = facts.map((text, i) => ({ id: `d${i}`, title: '', text }));
  const tasks = (onStart: () => void = () => {}, onEnd: () => void = () => {}) =>
    ({
      async extractGraph(text: string) {
        onStart();
        const i = facts.indexOf(text.trim());
        await new Promise((resolve) => setTimeout(resolve, (facts.length - i) * 5));
        onEnd();
        if (text.includes('Gamma') && text.includes('fail')) throw new Error('model refused');
        const [head, relation, tail] = text.trim().split('|') as [string, string, string];
        return {
          entities: [head, tail].map((name) => ({ name, type: 'thing', description: `${name} in ${i}` })),
          relations: [{ source: head, target: tail, description: relation, weight: 1 }],
          issues: [],
        };
      },
    }) as unknown as TaskSuite;

  it('extracts chunks concurrently and merges them in chunk order', async () => {
    let inFlight = 0;
    let maxInFlight = 0;
    const progress: [number, number | undefined, string | undefined][] = [];
    const ctx = createBuildContext({
      embedder: createScriptedEmbedder(),
      tasks: tasks(
        () => {
          inFlight += 1;
          maxInFlight = Math.max(maxInFlight, inFlight);
        },
        () => {
          inFlight -= 1;
        },
      ),
      runtime: { concurrency: 3 },
      onProgress: (e) => {
        if (e.stage === 'extract') progress.push([e.done, e.total, e.unit]);
      },
    });
    const index = await createSgRag().build(docs, ctx, {});
    expect(maxInFlight).toBe(3);
    expect(progress).toEqual([
      [1, 4, 'chunks'],
      [2, 4, 'chunks'],
      [3, 4, 'chunks'],
      [4, 4, 'chunks'],
    ]);
    // First appearance in chunk order, whatever order the chunks finished in.
    expect(index.graph.labels).toEqual(['Alpha', 'Beta', 'Gamma', 'Delta']);
    expect(index.graph.edges).toEqual([
      { a: 0, b: 1, facts: [{ relation: 'likes', forward: true }], chunkIds: ['d0#0'], docIds: ['d0'] },
      { a: 1, b: 2, facts: [{ relation: 'knows', forward: true }], chunkIds: ['d1#0'], docIds: ['d1'] },
      { a: 0, b: 2, facts: [{ relation: 'owns', forward: false }], chunkIds: ['d2#0'], docIds: ['d2'] },
      { a: 0, b: 3, facts: [{ relation: 'met', forward: true }], chunkIds: ['d3#0'], docIds: ['d3'] },
    ]);
    expect(index.graph.descriptions[0]).toBe('Alpha in 0 Alpha in 2 Alpha in 3');
    expect(index.stats).toMatchObject({ skippedExtractions: 0, nodes: 4, edges: 4, paths: 4 });
  });

  it('names the stage and the chunk when an extraction fails', async () => {
    const failing = docs.map((d) => (d.text.includes('Gamma') ? { ...d, text: `${d.text} fail` } : d));
    const ctx = createBuildContext({ embedder: createScriptedEmbedder(), tasks: tasks() });
    const error = await createSgRag()
      .build(failing, ctx, {})
      .catch((e: unknown) => e);
    expect(BuildStageError.isInstance(error)).toBe(true);
    // d1 and d2 both fail; the earliest chunk is named.
    expect(error).toMatchObject({ stage: 'extract', item: 'd1#0' });
    expect((error as Error).message).toContain('model refused');
  });
});
