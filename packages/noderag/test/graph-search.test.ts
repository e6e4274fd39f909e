import type { Document } from '@grag/core';
import { createBuildContext } from '@grag/core/kit';
import { createPromptTasks } from '@grag/core/tasks';
import { createScriptedChatModel, createScriptedEmbedder } from '@grag/core/test';
import { beforeAll, describe, expect, it } from 'vitest';
import { type NodeRagIndex, type NodeRagRetrieveOptions, nodeRag } from '../src/index.js';

/**
 * A two-hop question over a hand-built corpus: the mill passage names its builder, the builder's
 * passage says where she grew up. The scripted model decomposes each passage into one semantic unit;
 * the scripted embedder puts the question and the mill's unit on one axis and every other text on
 * another, so the one vector entry point is the mill's unit.
 */
const QUESTION = 'Where did the builder of Harlow Mill grow up?';
const MILL_UNIT = 'Harlow Mill was built by Edda Voss.';
const ANSWER_UNIT = 'Edda Voss spent her childhood in Tarnby.';
const DOCS: Document[] = [
  { id: 'mill', title: 'Harlow Mill', text: MILL_UNIT },
  { id: 'voss', title: 'Edda Voss', text: ANSWER_UNIT },
];
const UNITS: Record<string, unknown[]> = {
  mill: [
    {
      semantic_unit: MILL_UNIT,
      entities: ['Harlow Mill', 'Edda Voss'],
      relationships: ['Edda Voss, built, Harlow Mill'],
    },
  ],
  voss: [
    {
      semantic_unit: ANSWER_UNIT,
      entities: ['Edda Voss', 'Tarnby'],
      relationships: ['Edda Voss, spent her childhood in, Tarnby'],
    },
  ],
};
const R_BUILT = 'R:edda voss|built|harlow mill';
const R_CHILDHOOD = 'R:edda voss|spent her childhood in|tarnby';

async function build(options: { hnswEdges: boolean }): Promise<NodeRagIndex> {
  const chat = createScriptedChatModel((call) => {
    const text = call.messages.map((m) => m.content).join('\n');
    if (text.includes('semantic units')) {
      return JSON.stringify({ units: UNITS[text.includes(MILL_UNIT) ? 'mill' : 'voss'] });
    }
    if (text.includes('short title')) return JSON.stringify({ title: 'Theme', description: 'Insight.' });
    if (text.includes('List the entities named in the question')) {
      return JSON.stringify({ entities: ['Harlow Mill'] });
    }
    throw new Error(`unexpected prompt: ${text.slice(0, 200)}`);
  });
  const embedder = createScriptedEmbedder({
    dimensions: 4,
    embed: (text) => (text === QUESTION || text === MILL_UNIT ? [1, 0, 0, 0] : [0, 1, 0, 0]),
  });
  const ctx = createBuildContext({ embedder, tasks: createPromptTasks(chat), chat });
  // One passage per chunk; no attribute (no entity is extracted three times).
  return nodeRag.build(DOCS, ctx, { chunking: 'document', attributeMinMentions: 3, ...options });
}

/** Dense entry points only, the best one: the mill's unit. */
const ENTRY: NodeRagRetrieveOptions = { entryPoints: 'dense', vectorTopK: 1 };

async function scores(index: NodeRagIndex, options: NodeRagRetrieveOptions = {}) {
  const r = await nodeRag.retrieve(index, QUESTION, { ...ENTRY, ...options });
  return { r, scores: Object.fromEntries(r.items.map((item) => [item.id, item.score])) };
}

/**
 * The walk by hand, without HNSW edges. Entries (each weighing ½): N:harlow mill (exact match) and
 * S:0, the mill's unit (vector). Degrees: S:0 4 (N:harlow mill, N:edda voss, R_BUILT, T:mill),
 * N:harlow mill 2, N:edda voss 4 (S:0, R_BUILT, S:1, R_CHILDHOOD), R_BUILT 3, T:mill 1.
 *   π1 = ½p + ½Pᵀp: N:harlow mill 5/16, S:0 3/8, R_BUILT 3/16, N:edda voss 1/16, T:mill 1/16.
 *   π2 = ½p + ½Pᵀπ1: S:0 ½ + ½(5/32 + 1/16 + 1/64 + 1/16) = 51/128; R_BUILT ½(5/32 + 3/32 + 1/64) =
 *   17/128; T:mill ½(3/32) = 3/64; S:1 = R_CHILDHOOD = ½(1/64) = 1/128 (two hops, through Edda Voss).
 */
const T2 = { 'S:0': 51 / 128, 'S:1': 1 / 128, 'T:mill': 3 / 64, [R_BUILT]: 17 / 128, [R_CHILDHOOD]: 1 / 128 };

function expectScores(actual: Record<string, number>, expected: Record<string, number>) {
  expect(Object.keys(actual).sort()).toEqual(Object.keys(expected).sort());
  for (const [key, score] of Object.entries(expected)) expect(actual[key], key).toBeCloseTo(score, 12);
}

describe('noderag graph search on a hand-built two-hop corpus', () => {
  let plain: NodeRagIndex;
  let withHnsw: NodeRagIndex;
  beforeAll(async () => {
    plain = await build({ hnswEdges: false });
    withHnsw = await build({ hnswEdges: true });
  });

  it('is the graph the hand computation assumes', () => {
    const g = plain.graph;
    expect(g.node('S:0').text).toBe(MILL_UNIT);
    expect(g.node('S:1').text).toBe(ANSWER_UNIT);
    expect(g.neighbors('S:0').sort()).toEqual(['N:edda voss', 'N:harlow mill', R_BUILT, 'T:mill'].sort());
    expect(g.neighbors('N:harlow mill').sort()).toEqual(['S:0', R_BUILT].sort());
    expect(g.neighbors('N:edda voss').sort()).toEqual(['S:0', 'S:1', R_BUILT, R_CHILDHOOD].sort());
    expect(g.neighbors(R_BUILT).sort()).toEqual(['N:edda voss', 'N:harlow mill', 'S:0'].sort());
    expect(g.neighbors('T:mill')).toEqual(['S:0']);
  });

  it('retrieves the answer unit, which is no entry point, only through two PPR iterations', async () => {
    for (const crossNodeSelection of ['official', 'paper'] as const) {
      const { r, scores: walked } = await scores(plain, { crossNodeSelection });
      expect(r.trace.entryNodes).toEqual({ exact: ['N:harlow mill'], vector: ['S:0'] });
      expectScores(walked, T2);
      // Zero iterations: the scores are the personalization vector, nothing beyond the entries.
      expectScores((await scores(plain, { crossNodeSelection, pprIterations: 0 })).scores, { 'S:0': 0.5 });
      // One iteration reaches one hop: π1 above.
      expectScores((await scores(plain, { crossNodeSelection, pprIterations: 1 })).scores, {
        'S:0': 3 / 8,
        'T:mill': 1 / 16,
        [R_BUILT]: 3 / 16,
      });
    }
    // The same entry point without the graph step.
    const vectorOnly = await nodeRag.retrieve(plain, QUESTION, { ...ENTRY, graphSearch: false, topK: 1 });
    expect(vectorOnly.items.map((item) => item.id)).toEqual(['S:0']);
  });

  it('changes what is retrieved with the cross-node selection', async () => {
    // One cross node. Official: the shared T/S/A/H bucket past the vector entry takes T:mill
    // (3/64 > S:1's 1/128), the relationship bucket (30) takes both relationships. Paper: the top one
    // of each type: T:mill, S:0 (the entry holds the S place, so S:1 stays out), R_BUILT (17/128 over
    // R_CHILDHOOD's 1/128); no A, and no H has mass.
    const official = await scores(plain, { crossNodeSelection: 'official', crossNodes: 1 });
    expectScores(official.scores, {
      'S:0': T2['S:0'],
      'T:mill': T2['T:mill'],
      [R_BUILT]: T2[R_BUILT],
      [R_CHILDHOOD]: T2[R_CHILDHOOD],
    });
    expect(official.r.trace.reasons).toEqual({ entry: 1, cross: 1, relationship: 2 });
    const paper = await scores(plain, { crossNodeSelection: 'paper', crossNodes: 1 });
    expectScores(paper.scores, { 'S:0': T2['S:0'], 'T:mill': T2['T:mill'], [R_BUILT]: T2[R_BUILT] });
    expect(paper.r.trace.reasons).toEqual({ entry: 1, cross: 2 });
    expect(paper.r.trace.crossNodeSelection).toBe('paper');
  });

  it('runs each PPR ablation to the scores computed by hand', async () => {
    // Lazy update (official code): π2 = ½π1 + ½Pᵀπ1.
    const lazy = (await scores(plain, { pprUpdate: 'lazy' })).scores;
    expect(lazy['S:0']).toBeCloseTo(3 / 16 + 19 / 128, 12); // ½·3/8 + ½·(5/32 + 1/16 + 1/64 + 1/16)
    expect(lazy[R_BUILT]).toBeCloseTo(3 / 32 + 17 / 128, 12);
    expect(lazy['T:mill']).toBeCloseTo(1 / 32 + 3 / 64, 12);
    // Teleport α = 0.2: π1 = N:harlow mill .2, S:0 .3, R_BUILT .3, N:edda voss .1, T:mill .1;
    // π2: S:0 .1 + .8(.1 + .1 + .025 + .1) = .36, S:1 = .8 · .1/4 = .02.
    const teleport = (await scores(plain, { teleport: 0.2 })).scores;
    expect(teleport['S:0']).toBeCloseTo(0.36, 12);
    expect(teleport['S:1']).toBeCloseTo(0.02, 12);
    expect(teleport['T:mill']).toBeCloseTo(0.06, 12);
    // Unbalance adjustment: N:edda voss → S:1 weighs min(1, 1/max(4, deg S:1 = 5)) = 1/5 of its
    // out-weight 1/4 + 1/4 + 1/5 + 1/4 = 19/20, so S:1 = ½ · 1/16 · 4/19 = 1/152; S:0 keeps 1/4 per
    // edge, π1(S:0) = ¼ + ½ · ½ · 3/7 = 5/14 and T:mill = ½ · 5/14 · ¼ = 5/112.
    const adjusted = (await scores(plain, { edgeWeighting: 'unbalance-adjust' })).scores;
    expect(adjusted['S:1']).toBeCloseTo(1 / 152, 12);
    expect(adjusted['T:mill']).toBeCloseTo(5 / 112, 12);
    // Without the semantic edges, the index built with HNSW walks as the one built without.
    const noSemantic = await scores(withHnsw, { semanticEdges: false });
    expect(withHnsw.graph.stats().hnswEdges).toBeGreaterThan(0);
    expectScores(noSemantic.scores, T2);
    expect((await scores(withHnsw)).scores['S:0']).not.toBeCloseTo(T2['S:0'], 6);
  });
});
