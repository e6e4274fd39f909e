import type { Document } from '@grag/core';
import { createBuildContext } from '@grag/core/kit';
import { createOfflineProviders } from '@grag/offline';
import { describe, expect, it } from 'vitest';
import { nodeRag } from '../src/index.js';

/** Forty short log entries, each naming the vessel asked about, and each far below the budget. */
const LOGS: Document[] = Array.from({ length: 40 }, (_, i) => ({
  id: `log${i}`,
  title: `Harbour log ${i + 1}`,
  text: `The vessel Nordlys called at Port Halvard on day ${i + 1} and took on fresh water.`,
}));
const QUESTION = 'When did the vessel Nordlys call at Port Halvard?';

describe('noderag offline preset: cross nodes that fill the budget', () => {
  it('takes the top 30 nodes of each type (the paper takes 10), so more passages reach the context', async () => {
    const { tasks, embedder } = createOfflineProviders();
    const index = await nodeRag.build(LOGS, createBuildContext({ tasks, embedder }), {
      chunking: 'document',
      hnswM: 4,
      hnswEfConstruction: 16,
      preset: 'offline',
    });
    const texts = async (crossNodes?: number) => {
      const r = await nodeRag.retrieve(index, QUESTION, crossNodes === undefined ? {} : { crossNodes });
      return new Set(r.items.filter((i) => i.kind === 'text').map((i) => i.id));
    };
    const [byDefault, ten, thirty] = await Promise.all([texts(), texts(10), texts(30)]);
    expect(byDefault).toEqual(thirty);
    // The 10 taken as cross nodes are among the 30 (the same ranking, cut later).
    for (const id of ten) expect(byDefault.has(id)).toBe(true);
    expect(byDefault.size).toBeGreaterThanOrEqual(30);
    expect(ten.size).toBeLessThan(byDefault.size);
  });
});
