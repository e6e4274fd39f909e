import { describe, expect, test } from 'vitest';
import {
  createGatEmbedder,
  createStarGraph,
  createTrainingFreeEmbedder,
  type DominanceEmbedder,
  embedStarGraph,
  pruningPower,
} from '../src/index.js';
import { randomGraph } from './fixtures.js';

/**
 * Test embedders. `exact`: one-hot centre label then neighbour-label counts, so o(q) ≤ o(g) holds
 * exactly when g contains q — an oracle with pruning power 1. `constant`: prunes nothing.
 */
function stub(kind: 'exact' | 'constant', labels: string[]): DominanceEmbedder {
  const d = 2 * labels.length;
  const e: DominanceEmbedder = {
    kind: 'training-free',
    dimensions: d,
    monotone: true,
    upperBound: Number.POSITIVE_INFINITY,
    embed(centre, neighbours) {
      const o = new Float32Array(d);
      if (kind === 'constant') return o;
      o[labels.indexOf(centre)] = 1;
      for (const l of neighbours) o[labels.length + labels.indexOf(l)]!++;
      return o;
    },
    embedGraph: (graph, options) => embedStarGraph(e, graph, options),
    toJSON: () => {
      throw new Error('not serializable');
    },
  };
  return e;
}

describe('pruningPower', () => {
  const graph = randomGraph(60, 140, 4, 3);
  const labels = ['L0', 'L1', 'L2', 'L3'];

  test('an exact containment embedding prunes every non-matching star and path and no match', () => {
    const r = pruningPower(stub('exact', labels), graph, { queries: 50, pathQueries: 50 });
    expect(r.stars.queries).toBe(50);
    expect(r.stars.candidates).toBe(50 * graph.ids.length);
    expect(r.stars.matching).toBeGreaterThanOrEqual(50); // every query matches at least its source
    expect(r.stars.power).toBe(1);
    expect(r.stars.sameLabel.power).toBe(1);
    expect(r.paths.power).toBe(1);
    expect(r.stars.falseNegatives + r.paths.falseNegatives).toBe(0);
    expect(r.paths.matching).toBeGreaterThanOrEqual(50);
  });

  test('a constant embedding prunes nothing, on the same candidates', () => {
    const exact = pruningPower(stub('exact', labels), graph, { queries: 50, pathQueries: 50 });
    const none = pruningPower(stub('constant', labels), graph, { queries: 50, pathQueries: 50 });
    expect(none.stars.power).toBe(0);
    expect(none.paths.power).toBe(0);
    expect(none.stars.matching).toBe(exact.stars.matching);
    expect(none.stars.sameLabel.nonMatching).toBe(exact.stars.sameLabel.nonMatching);
    expect(none.paths.candidates).toBe(exact.paths.candidates);
  });

  test('the training-free embedding prunes part of the non-matching stars and never a match', () => {
    const r = pruningPower(createTrainingFreeEmbedder({ dimensions: 4 }), graph);
    expect(r.stars.power).toBeGreaterThan(0);
    expect(r.stars.power).toBeLessThan(1);
    expect(r.stars.falseNegatives).toBe(0);
    expect(r.paths.falseNegatives).toBe(0);
  });

  test('an uncorrected paper GAT can reject true matches; the closure prevents it', () => {
    const gat = createGatEmbedder({ seed: 4 });
    const raw = pruningPower(gat, graph, { correction: 'none' });
    expect(raw.stars.falseNegatives + raw.paths.falseNegatives).toBeGreaterThan(0);
    const closed = pruningPower(gat, graph);
    expect(closed.stars.falseNegatives + closed.paths.falseNegatives).toBe(0);
  });

  test('a graph without edges gives no queries and an undefined (NaN) power', () => {
    const r = pruningPower(createTrainingFreeEmbedder(), createStarGraph({ a: 'x', b: 'y' }, []));
    expect(r.stars.queries).toBe(0);
    expect(r.stars.candidates).toBe(0);
    expect(Number.isNaN(r.stars.power)).toBe(true);
  });
});
