/**
 * Writes to one index run one at a time, in the order they came: each starts from the version the
 * one before it swapped in, so none is lost. Writes to different indexes do not wait for each other's
 * queue.
 */
import { describe, expect, it } from 'vitest';
import type { Job } from '../src/index.js';
import { call, docIdsOf, jobEvents, servedFolder } from './writes-fixture.js';

const served = servedFolder();

const submit = async (index: string, id: string): Promise<Job> => {
  const res = await call(served.server.url, 'POST', `/v1/indexes/${index}/documents`, {
    documents: [{ id, text: `Ledger entry ${id}: the Veldt harbour master logged a Brannock cider cask.` }],
  });
  expect(res.status).toBe(202);
  return res.json();
};

describe('the queue of an index', () => {
  it('runs writes sent at once one after the other, each from the version the one before swapped in', async () => {
    const initial = (await (await call(served.server.url, 'GET', '/v1/indexes/harbour')).json()).version;
    const ids = ['q-1', 'q-2', 'q-3', 'q-4', 'q-5'];
    // All sent before any is done; one to the other index among them.
    const queued = await Promise.all([
      ...ids.map((id) => submit('harbour', id)),
      submit('orchard', 'q-other'),
    ]);
    const finals = await Promise.all(
      queued.map(async (job) => (await jobEvents(served.server.url, job.id)).at(-1)!.data),
    );
    const harbour = finals.slice(0, ids.length);
    expect(harbour.map((j) => j.status)).toEqual(ids.map(() => 'done'));
    // A chain: one started from the first version, each other from the version another made.
    let base = initial;
    const left = [...harbour];
    while (left.length > 0) {
      const next = left.findIndex((job) => job.baseVersion === base);
      expect(next, `no job started from ${base}`).toBeGreaterThanOrEqual(0);
      base = left.splice(next, 1)[0]!.version as string;
    }
    expect((await (await call(served.server.url, 'GET', '/v1/indexes/harbour')).json()).version).toBe(base);
    // Every write is in the last version.
    const answer = await (
      await call(served.server.url, 'POST', '/v1/indexes/harbour/query', {
        question: 'Ledger entry harbour master cask',
        topK: 20,
      })
    ).json();
    for (const id of ids) expect(docIdsOf(answer)).toContain(id);
    expect(finals.at(-1)).toMatchObject({ index: 'orchard', status: 'done' });
  });
});
