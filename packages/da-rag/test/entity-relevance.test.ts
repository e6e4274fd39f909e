import { embedAll } from '@grag/core';
import { createBuildContext } from '@grag/core/kit';
import { mulberry32 } from '@grag/core/test';
import { createOfflineProviders } from '@grag/offline';
import { beforeAll, describe, expect, test } from 'vitest';
import { type DaRagIndex, daRag } from '../src/index.js';
import { resolveQueryOptions } from '../src/options.js';
import { nodeRelevance } from '../src/relevance.js';
import { RetrievalRun } from '../src/retrieval-run.js';
import { unit } from '../src/util.js';
import { CORPUS } from './corpus.js';

const QUERIES = [
  'Who directs the institute that operates the research vessel built by the Kessler Shipyard?',
  'Which city hosts the shipyard?',
  'zzz unrelated words',
];

let index: DaRagIndex;
beforeAll(async () => {
  const { tasks, embedder } = createOfflineProviders();
  index = await daRag.build(CORPUS, createBuildContext({ embedder, tasks }));
});

/** A retrieval run of `query` with `relevance`, its query embedded. */
async function runOf(query: string, relevance: 'dense' | 'hybrid'): Promise<RetrievalRun> {
  const q = resolveQueryOptions('test', index.options, { relevance });
  const run = new RetrievalRun(index, query, q, 'evidence', true, undefined);
  const [vector] = await embedAll(index.providers.embedder, [query]);
  run.queryUnit = unit(vector!);
  return run;
}

/** Relevance of every entity, computed over all of them (the postings when sparse), then read at `nodes`. */
function allThenPicked(run: RetrievalRun, relevance: 'dense' | 'hybrid', nodes: readonly number[]): number[] {
  const all = nodeRelevance({
    mode: relevance,
    query: run.query,
    queryUnit: run.queryUnit,
    vectors: index.entityVectors,
    lexical: () => {
      throw new Error('not asked for dense relevance');
    },
    postings: () => null,
  });
  return nodes.map((v) => all[v]!);
}

describe('entityRelevance of a working subgraph', () => {
  test('dense relevance of a few entities equals, bit for bit, the relevance of all of them read there', async () => {
    const rand = mulberry32(7);
    const n = index.entities.length;
    expect(n).toBeGreaterThan(8);
    for (const query of QUERIES) {
      for (let trial = 0; trial < 5; trial++) {
        // Fewer than a quarter of the entities, ascending (a working subgraph), then any order.
        const picked = [
          ...new Set(Array.from({ length: 1 + Math.floor((rand() * n) / 5) }, () => Math.floor(rand() * n))),
        ];
        const nodes = trial % 2 === 0 ? picked.sort((a, b) => a - b) : picked;
        const run = await runOf(query, 'dense');
        const got = Array.from(run.entityRelevance(nodes));
        const want = allThenPicked(run, 'dense', nodes);
        expect(got).toHaveLength(want.length);
        for (let i = 0; i < want.length; i++) expect(Object.is(got[i], want[i]), `${query} #${i}`).toBe(true);
        // And the same through the postings that a whole-layer search builds.
        const whole = run.entityRelevance(Array.from({ length: n }, (_, v) => v));
        for (let i = 0; i < nodes.length; i++) expect(Object.is(got[i], whole[nodes[i]!])).toBe(true);
      }
    }
  });

  test('hybrid relevance still ranks every entity: a subgraph reads the relevance of all of them', async () => {
    const run = await runOf(QUERIES[0]!, 'hybrid');
    const n = index.entities.length;
    const all = run.entityRelevance(Array.from({ length: n }, (_, v) => v));
    const nodes = [n - 1, 0];
    expect(Array.from(run.entityRelevance(nodes))).toEqual([all[n - 1], all[0]]);
  });
});
