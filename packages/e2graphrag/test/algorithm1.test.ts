import { buildSummaryTree } from '@grag/summary-tree';
import { describe, expect, test } from 'vitest';
import { type E2GraphRagRetrieveOptions, EntityGraph, entityAwareRank } from '../src/index.js';
import { build, CORPUS_A, CORPUS_B, chunkIds, denseOracle, method, traceOf } from './fixtures.js';

describe('Algorithm 1 on a hand-made corpus', async () => {
  const index = await build(CORPUS_A);
  const ask = (q: string, o: E2GraphRagRetrieveOptions = {}) => method.retrieve(index, q, o);

  test('builds one tree over six passages: two summaries, and the entity graph of the sentences', () => {
    expect(index.stats).toMatchObject({ chunks: 6, summaries: 2, levels: [6, 2], entities: 8, edges: 8 });
  });

  test('no entity: global mode, dense top-k over the collapsed tree', async () => {
    const r = await ask('what happened at the market?', { topK: 3 });
    expect(traceOf(r)).toMatchObject({ mode: 'global', branch: 'no-entity', entities: [], candidates: 3 });
    expect(r.items.map((i) => i.id)).toEqual(
      (await denseOracle(index, 'what happened at the market?')).slice(0, 3),
    );
  });

  test('entities not in the graph are dropped, which can leave none', async () => {
    const r = await ask('has Zed met Yuri?', { topK: 2 });
    expect(traceOf(r)).toMatchObject({
      branch: 'no-entity',
      queryEntities: ['Zed', 'Yuri'],
      dropped: ['Zed', 'Yuri'],
    });
  });

  test('one entity: global mode, dense top-2k ranked by occurrence weight, non-zero only', async () => {
    // Eve occurs twice in d4 and once in d5; summary:1:0 covers d0-d4 (weight 2), summary:1:1 covers d5 (weight 1).
    const r = await ask('where does Eve sing?', { topK: 4 });
    const t = traceOf(r);
    expect(t).toMatchObject({
      mode: 'global',
      branch: 'no-pair',
      fallbacks: ['single-entity'],
      candidates: 8,
    });
    const weights = r.items.map((i) => [i.id, i.score]);
    expect(new Set(weights.map(([id]) => id))).toEqual(new Set(['d4', 'summary:1:0', 'd5', 'summary:1:1']));
    // Ranked by weight; equal weights keep the dense order.
    const dense = await denseOracle(index, 'where does Eve sing?');
    const expected = [
      ['d4', 2],
      ['summary:1:0', 2],
      ['d5', 1],
      ['summary:1:1', 1],
    ].sort(
      (a, b) =>
        (b[1] as number) - (a[1] as number) || dense.indexOf(a[0] as string) - dense.indexOf(b[0] as string),
    );
    expect(weights).toEqual(expected);
    expect(r.items.find((i) => i.id === 'summary:1:0')!.source.chunkIds).toEqual([
      'd0',
      'd1',
      'd2',
      'd3',
      'd4',
    ]);
    expect(r.items.find((i) => i.id === 'summary:1:0')!.kind).toBe('summary');
  });

  test('a single entity and a top-2k without it: the dense order is kept', async () => {
    // k = 1: only the two nearest nodes are candidates; weights are zero unless one of them holds Dave.
    const r = await ask('what does Dave paint?', { topK: 1 });
    const dense = await denseOracle(index, 'what does Dave paint?');
    const daveWeight: Record<string, number> = { d3: 2, 'summary:1:0': 2 };
    const candidates = dense.slice(0, 2);
    const weighted = candidates.filter((id) => daveWeight[id]);
    expect(r.items.map((i) => i.id)).toEqual(
      weighted.length > 0 ? weighted.slice(0, 1) : candidates.slice(0, 1),
    );
    expect(traceOf(r).fallbacks).toEqual(
      weighted.length > 0 ? ['single-entity'] : ['single-entity', 'no-occurrence'],
    );
  });

  test('unrelated pair (no path within h hops): global occurrence ranking over both entities', async () => {
    const r = await ask('did Eve ever meet Carol?', { topK: 10 });
    const t = traceOf(r);
    expect(t).toMatchObject({ mode: 'global', branch: 'no-pair', fallbacks: ['unrelated-pairs'] });
    expect(t.pairs).toEqual([{ a: 'Eve', b: 'Carol', hops: null }]);
    // Weights: d2 Carol 1, d3 Carol 1, d4 Eve 2, d5 Eve 1; summary:1:0 = 4, summary:1:1 = 1.
    expect(Object.fromEntries(r.items.map((i) => [i.id, i.score]))).toEqual({
      'summary:1:0': 4,
      d4: 2,
      d2: 1,
      d3: 1,
      d5: 1,
      'summary:1:1': 1,
    });
    expect(r.items[0]!.id).toBe('summary:1:0');
  });

  test('related pair: local mode, the chunks holding both entities', async () => {
    const r = await ask('did Alice meet Bob in Paris?');
    const t = traceOf(r);
    expect(t).toMatchObject({ mode: 'local', branch: 'local', hopsUsed: 4, fallbacks: [] });
    expect(t.pairs).toEqual([
      { a: 'Alice', b: 'Bob', hops: 1 },
      { a: 'Alice', b: 'Paris', hops: 1 },
      { a: 'Bob', b: 'Paris', hops: 1 },
    ]);
    expect(t.steps).toEqual([{ hops: 4, pairs: 3, chunks: 1 }]);
    expect(r.context).toBe('[d0] Alice-Bob-Paris: Alice met Bob in Paris.');
    expect(r.subgraph?.nodes).toEqual(['Alice', 'Bob', 'Paris']);
  });

  test('each chunk once, under the entities that reached it; groups by coverage, then document order', async () => {
    const r = await ask('how are Alice, Bob and Acme linked?');
    expect(r.context.split('\n\n')).toEqual([
      '[d0] Alice-Bob: Alice met Bob in Paris.',
      '[d1] Bob-Acme: Bob works at Acme.',
      '[d5] Alice-Acme: Alice visited Acme. Eve came too.',
    ]);
  });

  test('a pair within h hops that shares no chunk falls back to global occurrence ranking', async () => {
    // Paris - Alice - Acme: 2 hops, but no passage names both Paris and Acme.
    const r = await ask('is Paris far from Acme?', { topK: 10 });
    const t = traceOf(r);
    expect(t).toMatchObject({ mode: 'global', branch: 'no-shared-chunk', fallbacks: ['no-shared-chunk'] });
    expect(t.pairs).toEqual([{ a: 'Paris', b: 'Acme', hops: 2 }]);
    expect(new Set(r.items.map((i) => i.id))).toEqual(
      new Set(['d0', 'd1', 'd5', 'summary:1:0', 'summary:1:1']),
    );
  });

  test('a smaller h filters the pair out', async () => {
    const r = await ask('is Paris far from Acme?', { hops: 1, topK: 10 });
    expect(traceOf(r)).toMatchObject({ branch: 'no-pair', fallbacks: ['unrelated-pairs'] });
    expect(traceOf(r).pairs).toEqual([{ a: 'Paris', b: 'Acme', hops: null }]);
  });

  test('ablations: dense only, and global mode without occurrence ranking or without dense retrieval', async () => {
    const dense = await denseOracle(index, 'did Alice meet Bob in Paris?');
    const only = await ask('did Alice meet Bob in Paris?', { denseOnly: true, topK: 3 });
    expect(traceOf(only).branch).toBe('dense-only');
    expect(only.items.map((i) => i.id)).toEqual(dense.slice(0, 3));

    const eveDense = await denseOracle(index, 'where does Eve sing?');
    const noOcc = await ask('where does Eve sing?', { occurrenceRanking: false, topK: 3 });
    expect(noOcc.items.map((i) => i.id)).toEqual(eveDense.slice(0, 3));

    const noDense = await ask('where does Eve sing?', { denseRetrieval: false, topK: 3 });
    // Every node with a non-zero weight, heaviest first (ties in node order: leaves before summaries).
    expect(noDense.items.map((i) => [i.id, i.score])).toEqual([
      ['d4', 2],
      ['summary:1:0', 2],
      ['d5', 1],
    ]);
    const nothing = await ask('what happened at the market?', { denseRetrieval: false });
    expect(nothing.items).toEqual([]);
    expect(traceOf(nothing).fallbacks).toEqual(['dense-disabled']);
  });
});

describe('h reduction', async () => {
  const index = await build(CORPUS_B, 'b');

  test('too many chunks: h is decreased until at most the threshold remain', async () => {
    const r = await method.retrieve(index, 'Xavier, Yara and Zeno?', { hops: 2, chunkThreshold: 2 });
    const t = traceOf(r);
    // h = 2 keeps all three pairs: {b0} ∪ {b1, b2, b4} ∪ {b3}; h = 1 keeps Xavier-Yara: {b0}.
    expect(t.steps).toEqual([
      { hops: 2, pairs: 3, chunks: 5 },
      { hops: 1, pairs: 1, chunks: 1 },
    ]);
    expect(t).toMatchObject({ mode: 'local', branch: 'local', hopsUsed: 1, keptPairs: [['Xavier', 'Yara']] });
    expect(chunkIds(r)).toEqual(['b0']);
  });

  test('with the default threshold of 25 the five chunks are kept at h = 2', async () => {
    const r = await method.retrieve(index, 'Xavier, Yara and Zeno?', { hops: 2 });
    expect(traceOf(r).steps).toEqual([{ hops: 2, pairs: 3, chunks: 5 }]);
    expect(r.context.split('\n\n')).toEqual([
      '[b0] Xavier-Yara: Xavier saw Yara.',
      '[b1] Xavier-Zeno: Xavier ran. Zeno ran.',
      '[b2] Xavier-Zeno: Xavier walked. Zeno walked.',
      '[b4] Xavier-Zeno: Xavier met Quinn. Quinn met Zeno.',
      '[b3] Yara-Zeno: Yara met Wendy. Wendy met Zeno. Zeno smiled.',
    ]);
  });

  test('without the graph filter every pair is kept and h is never reduced', async () => {
    const r = await method.retrieve(index, 'Xavier, Yara and Zeno?', {
      hops: 2,
      chunkThreshold: 2,
      topK: 2,
      graphFilter: false,
    });
    const t = traceOf(r);
    expect(t.steps).toEqual([{ hops: 2, pairs: 3, chunks: 5 }]);
    expect(t).toMatchObject({ branch: 'local-ranked', fallbacks: ['graph-filter-off'] });
    // Coverage: b0 {X,Y}, b1 {X,Z}, b2 {X,Z}, b3 {Y,Z}, b4 {X,Z} all 2; occurrences 2, 2, 2, 3, 2 → b3, then b0.
    expect(new Set(chunkIds(r))).toEqual(new Set(['b3', 'b0']));
  });
});

// Corpus D: a chain Ann - Ben - Cal - Dan - Eli; Ann and Eli share passage e4 but no sentence,
// so they are exactly 4 hops apart.
const CORPUS_D = [
  'Ann met Ben.', // e0
  'Ben met Cal.', // e1
  'Cal met Dan.', // e2
  'Dan met Eli.', // e3
  'Ann sailed north. Eli rowed south.', // e4
];

describe('the hop limit h', async () => {
  const index = await build(CORPUS_D, 'e');

  test("defaults to the paper's 4 (Appendix C): a pair 4 hops apart is kept and its shared chunk returned", async () => {
    const r = await method.retrieve(index, 'did Ann ever see Eli?');
    const t = traceOf(r);
    expect(t.hops).toBe(4);
    expect(t.pairs).toEqual([{ a: 'Ann', b: 'Eli', hops: 4 }]);
    expect(t).toMatchObject({ mode: 'local', branch: 'local', hopsUsed: 4, keptPairs: [['Ann', 'Eli']] });
    expect(t.steps).toEqual([{ hops: 4, pairs: 1, chunks: 1 }]);
    expect(r.context).toBe('[e4] Ann-Eli: Ann sailed north. Eli rowed south.');
  });

  test('h = 3 drops that pair: global mode over both entities', async () => {
    const r = await method.retrieve(index, 'did Ann ever see Eli?', { hops: 3 });
    const t = traceOf(r);
    expect(t.pairs).toEqual([{ a: 'Ann', b: 'Eli', hops: null }]);
    expect(t).toMatchObject({ mode: 'global', branch: 'no-pair', fallbacks: ['unrelated-pairs'] });
  });
});

// Corpus C: every pair of Pia, Quin, Rex is 1 hop apart and shares many passages.
const CORPUS_C = [
  'Pia met Quin.', // c0: P1 Q1
  'Pia met Quin. Rex met Quin.', // c1: P1 Q2 R1
  'Pia and Rex talked.', // c2: P1 R1
  'Quin and Rex talked. Quin laughed.', // c3: Q2 R1
  'Pia, Quin and Rex dined. Pia paid. Pia left.', // c4: P3 Q1 R1
];

describe('reduction to empty', async () => {
  const index = await build(CORPUS_C, 'c');

  test('falls back to the last non-empty set and ranks it by entity coverage, then occurrences', async () => {
    const r = await method.retrieve(index, 'Pia, Quin and Rex?', { hops: 1, chunkThreshold: 2, topK: 3 });
    const t = traceOf(r);
    expect(t.steps).toEqual([
      { hops: 1, pairs: 3, chunks: 5 },
      { hops: 0, pairs: 0, chunks: 0 },
    ]);
    expect(t).toMatchObject({
      mode: 'local',
      branch: 'local-ranked',
      hopsUsed: 1,
      fallbacks: ['reduced-to-empty'],
    });
    // Coverage 3: c4 (5 occurrences), c1 (4); coverage 2: c3 (3) beats c0 and c2 (2 each).
    expect(r.context.split('\n\n')).toEqual([
      '[c1] Pia-Quin-Rex: Pia met Quin. Rex met Quin.',
      '[c4] Pia-Quin-Rex: Pia, Quin and Rex dined. Pia paid. Pia left.',
      '[c3] Quin-Rex: Quin and Rex talked. Quin laughed.',
    ]);
    const one = await method.retrieve(index, 'Pia, Quin and Rex?', { hops: 1, chunkThreshold: 2, topK: 1 });
    expect(chunkIds(one)).toEqual(['c4']);
  });

  test('without entity-aware ranking the first k in document order are kept', async () => {
    const r = await method.retrieve(index, 'Pia, Quin and Rex?', {
      hops: 1,
      chunkThreshold: 2,
      topK: 3,
      entityAwareRanking: false,
    });
    expect(r.context.split('\n\n')).toEqual([
      '[c1] Pia-Quin-Rex: Pia met Quin. Rex met Quin.',
      '[c0] Pia-Quin: Pia met Quin.',
      '[c2] Pia-Rex: Pia and Rex talked.',
    ]);
  });

  test('adjacent runs can come before occurrences, as in the official code', async () => {
    // Leaves 0 and 1 are consecutive chunks of one document; leaf 3 stands alone but names Pia more often.
    const tree = await buildSummaryTree(
      [
        { id: 'a#0', text: 'Pia Quin', docId: 'a' },
        { id: 'a#1', text: 'Pia Quin', docId: 'a' },
        { id: 'b#0', text: 'Rex', docId: 'b' },
        { id: 'c#0', text: 'Pia Quin Pia', docId: 'c' },
      ],
      { summarize: async () => 'overview' },
    );
    const graph = EntityGraph.fromSentences([
      [['Pia', 'Quin']],
      [['Pia', 'Quin']],
      [['Rex']],
      [['Pia', 'Quin', 'Pia']],
    ]);
    const ids = [graph.id('Pia')!, graph.id('Quin')!];
    expect(entityAwareRank({ tree, graph }, [0, 1, 3], ids)).toEqual([3, 0, 1]);
    expect(entityAwareRank({ tree, graph }, [0, 1, 3], ids, true)).toEqual([0, 1, 3]);
  });
});
