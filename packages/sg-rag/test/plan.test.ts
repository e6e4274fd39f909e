import { describe, expect, it } from 'vitest';
import {
  adjacencyOf,
  assembleSubgraphs,
  buildPathIndex,
  completeLabels,
  decomposeQuery,
  graphFromTriples,
  labelCombinations,
  type NormalizedQueryGraph,
  PATH_INDEX_TEST_DEFAULTS,
} from './helpers.js';

const unknown = (id: string) => ({ id, node: null, isTarget: id === 'X' });

describe('query plan (Algorithms 4-6, 8)', () => {
  it('decomposes a query graph into paths that cover every edge', () => {
    // A star of four leaves around X plus a tail edge from one leaf.
    const q: NormalizedQueryGraph = {
      nodes: ['X', 'a', 'b', 'c', 'd', 'e'].map(unknown),
      edges: [
        { source: 0, target: 1, relation: '' },
        { source: 0, target: 2, relation: '' },
        { source: 0, target: 3, relation: '' },
        { source: 0, target: 4, relation: '' },
        { source: 4, target: 5, relation: '' },
      ],
    };
    for (const l of [1, 2]) {
      const paths = decomposeQuery(q, l);
      const covered = new Set(
        paths.flatMap((p) => p.slice(1).map((n, i) => [p[i]!, n].sort((x, y) => x - y).join('-'))),
      );
      expect(covered).toEqual(new Set(['0-1', '0-2', '0-3', '0-4', '4-5']));
      for (const p of paths) expect(p.length).toBe(l + 1);
    }
    // Two-edge paths: 5 edges need at least 3 paths; greedy with minimal overlap finds 3.
    expect(decomposeQuery(q, 2)).toHaveLength(3);
    // A lone edge cannot be covered by a two-edge path: it gets a one-edge path.
    expect(decomposeQuery({ nodes: q.nodes.slice(0, 2), edges: q.edges.slice(0, 1) }, 2)).toEqual([[0, 1]]);
  });

  it('completes unknown labels with the intersection of what their paths allow', () => {
    // p–x, p–y, q–x, q–z: an unknown node joined to p and q can only be x.
    const { graph } = graphFromTriples(
      [
        ['p', 'x'],
        ['p', 'y'],
        ['q', 'x'],
        ['q', 'z'],
      ].map(([head, tail]) => ({ head: head!, relation: 'r', tail: tail! })),
    );
    const adjacency = adjacencyOf(graph);
    const node = (id: string) => graph.ids.indexOf(id);
    const { paths: index } = buildPathIndex({ graph, adjacency, ...PATH_INDEX_TEST_DEFAULTS, pathLength: 1 });
    const query: NormalizedQueryGraph = {
      nodes: [
        unknown('X'),
        { id: 'P', node: node('p'), isTarget: false },
        { id: 'Q', node: node('q'), isTarget: false },
      ],
      edges: [
        { source: 0, target: 1, relation: '' },
        { source: 0, target: 2, relation: '' },
      ],
    };
    const paths = decomposeQuery(query, 1);
    const input = { query, paths, index, maxCandidates: 10, neighbours: adjacency.neighbours };
    expect(completeLabels(input).candidates).toEqual(new Map([[0, [node('x')]]]));
    // Unconstrained: an unknown node joined only to another unknown one takes any node, capped.
    const free: NormalizedQueryGraph = { nodes: [unknown('X'), unknown('Y')], edges: [query.edges[0]!] };
    const capped = completeLabels({
      ...input,
      query: free,
      paths: decomposeQuery(free, 1),
      maxCandidates: 3,
    });
    expect(capped.capped).toEqual([0, 1]);
    expect(capped.candidates.get(0)).toHaveLength(3);
  });

  it('combines candidate labels without binding two query nodes to one data node', () => {
    const query: NormalizedQueryGraph = {
      nodes: [unknown('X'), unknown('Y'), { id: 'k', node: 9, isTarget: false }],
      edges: [],
    };
    const candidates = new Map([
      [0, [1, 2, 9]],
      [1, [1, 3]],
    ]);
    const r = labelCombinations(query, candidates, 10);
    // X = 9 is the known node (1 conflict, X's loop); (1, 1) repeats a node (1 conflict).
    expect(r.bindings.map((b) => [b.get(0), b.get(1)])).toEqual([
      [1, 3],
      [2, 1],
      [2, 3],
    ]);
    expect(r.conflicts).toBe(2);
    expect(r.capped).toBe(false);
    const cut = labelCombinations(query, candidates, 2);
    expect(cut.bindings).toHaveLength(2);
    expect(cut.capped).toBe(true);
  });

  it('assembles only combinations that agree on shared nodes and keep query nodes apart', () => {
    const query: NormalizedQueryGraph = {
      nodes: ['X', 'a', 'b'].map(unknown),
      edges: [
        { source: 0, target: 1, relation: '' },
        { source: 0, target: 2, relation: '' },
      ],
    };
    const paths = [
      [0, 1],
      [0, 2],
    ];
    const candidateLists = [
      [{ pathId: 0, nodes: [5, 7] }],
      [
        { pathId: 1, nodes: [5, 7] }, // b = 7 = a: injectivity conflict
        { pathId: 2, nodes: [6, 8] }, // X = 6 ≠ 5: mapping conflict
        { pathId: 3, nodes: [5, 8] }, // the only match
      ],
    ];
    const r = assembleSubgraphs({ query, paths, candidateLists, maxMatches: 10 });
    expect(r.matches).toEqual([[5, 7, 8]]);
    expect(r.injectivityConflicts).toBe(1);
    expect(r.conflicts).toBe(1);
    // The edge check refuses X = 5, b = 8.
    const checked = assembleSubgraphs({
      query,
      paths,
      candidateLists,
      maxMatches: 10,
      edgeOk: (_e, a, b) => !(a === 5 && b === 8),
    });
    expect(checked.matches).toEqual([]);
  });
});
