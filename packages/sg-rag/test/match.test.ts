import { mulberry32 } from '@grag/core/test';
import { describe, expect, it } from 'vitest';
import {
  adjacencyOf,
  buildPathIndex,
  graphFromTriples,
  matchQueryGraph,
  type NormalizedQueryGraph,
  PATH_INDEX_TEST_DEFAULTS,
  type Triple,
} from './helpers.js';

/** Every injective map of the query's nodes onto data nodes that keeps known nodes and every query edge (brute force). */
function bruteForce(
  q: NormalizedQueryGraph,
  triples: readonly Triple[],
  ids: string[],
  matchRelations: boolean,
) {
  const facts = new Set(triples.map((t) => `${t.head}>${t.relation}>${t.tail}`));
  const pairs = new Set(triples.flatMap((t) => [`${t.head}|${t.tail}`, `${t.tail}|${t.head}`]));
  const joined = (a: number, b: number) => pairs.has(`${ids[a]}|${ids[b]}`);
  const out: string[] = [];
  const map: number[] = [];
  const rec = (i: number): void => {
    if (i === q.nodes.length) {
      const ok = q.edges.every((e) =>
        matchRelations
          ? facts.has(`${ids[map[e.source]!]}>${e.relation}>${ids[map[e.target]!]}`)
          : joined(map[e.source]!, map[e.target]!),
      );
      if (ok) out.push(map.join(','));
      return;
    }
    const fixed = q.nodes[i]!.node;
    for (let d = 0; d < ids.length; d++) {
      if ((fixed !== null && d !== fixed) || map.slice(0, i).includes(d)) continue;
      map[i] = d;
      rec(i + 1);
    }
  };
  rec(0);
  return out.sort();
}

/** A random connected query graph planted in the data graph: query node i is data node `planted[i]`. */
function plantedQuery(rand: () => number, triples: readonly Triple[], ids: string[]): NormalizedQueryGraph {
  const index = new Map(ids.map((id, i) => [id, i]));
  const planted: number[] = [index.get(triples[Math.floor(rand() * triples.length)]!.head)!];
  const edges: NormalizedQueryGraph['edges'] = [];
  const size = 2 + Math.floor(rand() * 3); // 2-4 edges
  for (let tries = 0; edges.length < size && tries < 200; tries++) {
    const t = triples[Math.floor(rand() * triples.length)]!;
    const [h, tl] = [index.get(t.head)!, index.get(t.tail)!];
    const hq = planted.indexOf(h);
    const tq = planted.indexOf(tl);
    if (hq < 0 && tq < 0) continue; // keep the query connected
    if (
      hq >= 0 &&
      tq >= 0 &&
      edges.some((e) => (e.source === hq && e.target === tq) || (e.source === tq && e.target === hq))
    )
      continue;
    if (hq >= 0 && tq >= 0 && planted.length < 3) continue; // grow before closing cycles
    const source = hq >= 0 ? hq : planted.push(h) - 1;
    const target = tq >= 0 ? tq : planted.push(tl) - 1;
    edges.push({ source, target, relation: t.relation });
  }
  return {
    nodes: planted.map((node, i) => ({ id: `q${i}`, node: rand() < 0.4 ? node : null, isTarget: i === 0 })),
    edges,
  };
}

describe('matchQueryGraph', () => {
  // a–b, b–c, c–a (a triangle) and c–d.
  const tiny: Triple[] = [
    { head: 'a', relation: 'r', tail: 'b' },
    { head: 'b', relation: 'r', tail: 'c' },
    { head: 'c', relation: 'r', tail: 'a' },
    { head: 'c', relation: 's', tail: 'd' },
  ];
  const { graph } = graphFromTriples(tiny);
  const adjacency = adjacencyOf(graph);
  const node = (id: string) => graph.ids.indexOf(id);
  const unknown = (id: string) => ({ id, node: null, isTarget: false });

  for (const pathLength of [1, 2] as const) {
    const { paths } = buildPathIndex({ graph, adjacency, ...PATH_INDEX_TEST_DEFAULTS, pathLength });
    const match = (query: NormalizedQueryGraph, matchRelations = false) =>
      matchQueryGraph({
        query,
        graph,
        adjacency,
        paths,
        maxLabelCandidates: 100,
        maxLabelCombinations: 100,
        maxMatches: 100,
        matchRelations,
      })
        .matches.map((m) => m.map((n) => graph.ids[n]).join(''))
        .sort();

    it(`l = ${pathLength}: binds the ends of a two-edge path around a known middle to distinct neighbours`, () => {
      const q: NormalizedQueryGraph = {
        nodes: [unknown('X'), { id: 'Y', node: node('c'), isTarget: false }, unknown('Z')],
        edges: [
          { source: 0, target: 1, relation: 'r' },
          { source: 1, target: 2, relation: 'r' },
        ],
      };
      // X, Z ∈ N(c) = {a, b, d}, X ≠ Z: six ordered pairs.
      expect(match(q)).toEqual(['acb', 'acd', 'bca', 'bcd', 'dca', 'dcb']);
      // With relations and direction, X --r--> c --r--> Z: only "b r c" and "c r a" read so.
      expect(match(q, true)).toEqual(['bca']);
    });

    it(`l = ${pathLength}: finds the triangle in every orientation and no triangle through d`, () => {
      const q: NormalizedQueryGraph = {
        nodes: [unknown('X'), unknown('Y'), unknown('Z')],
        edges: [
          { source: 0, target: 1, relation: '' },
          { source: 1, target: 2, relation: '' },
          { source: 2, target: 0, relation: '' },
        ],
      };
      expect(match(q)).toEqual(['abc', 'acb', 'bac', 'bca', 'cab', 'cba']);
      q.nodes[0] = { id: 'X', node: node('d'), isTarget: false };
      expect(match(q)).toEqual([]);
    });
  }

  it('agrees with a brute-force oracle on random graphs and planted query graphs', () => {
    const rand = mulberry32(11);
    let cases = 0;
    for (let g = 0; g < 6; g++) {
      const n = 8 + (g % 3);
      const triples: Triple[] = [];
      const pairs = new Set<string>();
      while (triples.length < 15) {
        const x = Math.floor(rand() * n);
        const y = Math.floor(rand() * n);
        if (x === y || pairs.has(`${Math.min(x, y)} ${Math.max(x, y)}`)) continue;
        pairs.add(`${Math.min(x, y)} ${Math.max(x, y)}`);
        triples.push({ head: `e${x}`, relation: rand() < 0.5 ? 'r' : 's', tail: `e${y}` });
      }
      const { graph } = graphFromTriples(triples);
      const adjacency = adjacencyOf(graph);
      for (const pathLength of [1, 2] as const) {
        const { paths } = buildPathIndex({ graph, adjacency, ...PATH_INDEX_TEST_DEFAULTS, pathLength });
        for (let k = 0; k < 8; k++) {
          const query = plantedQuery(rand, triples, graph.ids);
          const matchRelations = k % 2 === 1;
          const found = matchQueryGraph({
            query,
            graph,
            adjacency,
            paths,
            maxLabelCandidates: 1e6,
            maxLabelCombinations: 1e6,
            maxMatches: 1e6,
            matchRelations,
          });
          const expected = bruteForce(query, triples, graph.ids, matchRelations);
          expect(expected.length).toBeGreaterThan(0); // the planted match
          expect(found.matches.map((m) => m.join(',')).sort()).toEqual(expected);
          cases++;
        }
      }
    }
    expect(cases).toBe(96);
  });

  it('stops at maxMatches', () => {
    const { paths } = buildPathIndex({ graph, adjacency, ...PATH_INDEX_TEST_DEFAULTS, pathLength: 1 });
    const q: NormalizedQueryGraph = {
      nodes: [unknown('X'), unknown('Y')],
      edges: [{ source: 0, target: 1, relation: '' }],
    };
    const all = { query: q, graph, adjacency, paths, maxLabelCandidates: 100, maxLabelCombinations: 100 };
    // Four edges, two orientations each.
    expect(matchQueryGraph({ ...all, maxMatches: 100, matchRelations: false }).matches).toHaveLength(8);
    expect(matchQueryGraph({ ...all, maxMatches: 3, matchRelations: false }).matches).toHaveLength(3);
  });
});
