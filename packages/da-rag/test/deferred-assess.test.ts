import type { TaskSuite } from '@grag/core';
import { createBuildContext } from '@grag/core/kit';
import { createOfflineProviders } from '@grag/offline';
import { beforeAll, describe, expect, test } from 'vitest';
import { type DaRagIndex, daRag, type TracedCommunity } from '../src/index.js';
import { CORPUS } from './corpus.js';

const QUERIES = [
  'Who directs the institute that operates the research vessel built by the Kessler Shipyard?',
  'Which ferry crosses the strait?',
  'Where was the shipyard that built the Meridian?',
];

describe('deferred assessments (a heuristic suite, scores not from the assessment)', () => {
  let index: DaRagIndex;
  let eager: DaRagIndex;
  beforeAll(async () => {
    const { tasks, embedder } = createOfflineProviders();
    index = await daRag.build(CORPUS, createBuildContext({ embedder, tasks }));
    // The same suite without the heuristic capability: every candidate is assessed, as before.
    const plain: TaskSuite = { ...index.providers.tasks };
    delete (plain as { judgement?: unknown }).judgement;
    eager = { ...index, providers: { ...index.providers, tasks: plain } };
  });

  test('retrieve exactly what assessing every candidate retrieves, with no more calls', async () => {
    let fewer = 0;
    for (const query of QUERIES) {
      for (const budgetTokens of [150, 400, 700, 1500, 12000]) {
        for (const options of [
          { scoring: 'evidence' as const },
          { scoring: 'qrscore' as const, anchors: 2 },
          { scoring: 'evidence' as const, packing: 'truncate' as const },
          { scoring: 'evidence' as const, communityText: 'members' as const },
          { scoring: 'evidence' as const, communityText: 'report' as const, topK: 3 },
        ]) {
          const lazy = await daRag.retrieve(index, query, { budgetTokens, ...options });
          const all = await daRag.retrieve(eager, query, { budgetTokens, ...options });
          const what = `${query} / ${budgetTokens} / ${JSON.stringify(options)}`;
          expect(lazy.items, what).toEqual(all.items);
          expect(lazy.context, what).toBe(all.context);
          expect(lazy.tokens, what).toBe(all.tokens);
          expect(lazy.subgraph, what).toEqual(all.subgraph);
          const packed = (r: typeof lazy) =>
            (r.trace.communities as TracedCommunity[]).filter((c) => c.packed);
          expect(packed(lazy), what).toEqual(packed(all));
          const calls = (r: typeof lazy) => r.trace.assessCalls as number;
          expect(calls(lazy), what).toBeLessThanOrEqual(calls(all));
          expect(calls(lazy), what).toBeGreaterThanOrEqual(packed(lazy).length);
          if (calls(lazy) < calls(all)) fewer++;
        }
      }
    }
    // Small budgets leave candidates out whatever their reports.
    expect(fewer).toBeGreaterThan(0);
  });
});
