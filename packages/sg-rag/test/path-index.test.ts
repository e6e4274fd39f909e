import { describe, expect, it } from 'vitest';
import {
  adjacencyOf,
  buildPathIndex,
  enumeratePaths,
  graphFromTriples,
  PATH_INDEX_TEST_DEFAULTS,
  retrievePath,
  type Triple,
} from './helpers.js';

const T = (head: string, tail: string): Triple => ({ head, relation: 'r', tail });

describe('path index (Eq. 4)', () => {
  // a–b, b–c, c–a (a triangle) and c–d.
  const { graph } = graphFromTriples([T('a', 'b'), T('b', 'c'), T('c', 'a'), T('c', 'd')]);
  const adjacency = adjacencyOf(graph);

  it('enumerates every simple path once, without reversed duplicates', () => {
    const one = enumeratePaths(graph, adjacency, 1);
    expect(one.count).toBe(4);
    const two = enumeratePaths(graph, adjacency, 2);
    // By hand: middles a (b, c), b (a, c), c (a, b, d: 3 pairs), d (one neighbour: none) → 5.
    expect(two.count).toBe(5);
    const keys = new Set<string>();
    for (let p = 0; p < two.count; p++) {
      const [x, m, y] = Array.from(two.nodes.subarray(p * 3, p * 3 + 3));
      expect(x!).toBeLessThan(y!);
      expect(adjacency.edgeOf[m!]!.has(x!) && adjacency.edgeOf[m!]!.has(y!)).toBe(true);
      keys.add(`${x},${m},${y}`);
    }
    expect(keys.size).toBe(two.count);
    // Middles of degree above the cap are skipped: c (degree 3) at a cap of 2.
    expect(enumeratePaths(graph, adjacency, 2, 2)).toMatchObject({ count: 2, skippedMiddles: 1 });
  });

  for (const pathLength of [1, 2] as const) {
    it(`l = ${pathLength}: stores each path under its nodes and the dominance embeddings of their stars`, () => {
      const { paths, skippedMiddles } = buildPathIndex({
        graph,
        adjacency,
        ...PATH_INDEX_TEST_DEFAULTS,
        pathLength,
      });
      const k = pathLength + 1;
      const d = PATH_INDEX_TEST_DEFAULTS.dominanceDimensions;
      expect(skippedMiddles).toBe(0);
      expect(paths.tree.size).toBe(pathLength === 1 ? 4 : 5);
      expect(paths.pathNodes).toHaveLength(paths.tree.size * k);
      expect([paths.tree.dimensions, paths.tree.labelDimensions]).toEqual([k * d, k]);
      for (let id = 0; id < paths.tree.size; id++) {
        const nodes = Array.from(paths.pathNodes.subarray(id * k, id * k + k));
        const box = paths.tree.box(id);
        expect(Array.from(box.labelMin)).toEqual(nodes);
        expect(Array.from(box.labelMax)).toEqual(nodes);
        // The star of each node, embedded on its own: o(v) over v and its neighbours.
        nodes.forEach((v, i) => {
          const star = paths.embedder.embed(String(v), adjacency.neighbours[v]!.map(String));
          for (let j = 0; j < d; j++) expect(box.min[i * d + j]).toBeCloseTo(star[j]!, 5);
        });
      }
    });

    it(`l = ${pathLength}: never prunes a stored path queried with its own nodes`, () => {
      const { paths } = buildPathIndex({ graph, adjacency, ...PATH_INDEX_TEST_DEFAULTS, pathLength });
      const k = pathLength + 1;
      for (let id = 0; id < paths.tree.size; id++) {
        const nodes = Array.from(paths.pathNodes.subarray(id * k, id * k + k));
        // The query graph is the path alone, every node known: its stars are sub-stars of the data's.
        const query = {
          nodes: nodes.map((node, i) => ({ id: `q${i}`, node, isTarget: false })),
          edges: nodes.slice(1).map((_, i) => ({ source: i, target: i + 1, relation: 'r' })),
        };
        const path = nodes.map((_, i) => i);
        const { candidates } = retrievePath(query, path, new Map(), paths);
        expect(candidates.map((c) => c.pathId)).toContain(id);
        for (const c of candidates) expect(c.nodes).toEqual(nodes);
      }
    });
  }
});
