/**
 * A short bounded load on a tiny index: 32 connections for 2 s over loopback, with the runner the
 * load benchmark uses. Only that nothing fails is asserted; timings belong to the benchmark.
 */
import { bm25Rag } from '@grag/naive-rag';
import { expect, it } from 'vitest';
import { runLoad } from '../../../benchmarks/server-load.js';
import { buildIndexes, DOCS, serveForTests } from './helpers.js';

const served = serveForTests(async () => {
  const { bm25 } = await buildIndexes();
  return {
    indexes: [{ method: bm25Rag, index: bm25 }],
    token: 'load-token',
  };
});

it('holds 32 concurrent connections for 2 s with no error and no non-2xx response', async () => {
  const bodies = DOCS.map((d) => JSON.stringify({ question: `What about ${d.title}?`, topK: 2 }));
  const result = await runLoad(served().url, {
    connections: 32,
    durationS: 2,
    bodies,
    headers: { authorization: 'Bearer load-token' },
  });
  expect(result.requests).toBeGreaterThan(32);
  expect(result).toMatchObject({ errors: 0, timeouts: 0, non2xx: 0 });
  expect(Object.keys(result.statusCodes)).toEqual(['200']);
}, 30_000);
