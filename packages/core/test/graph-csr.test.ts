import fc from 'fast-check';
import { DirectedGraph, MultiGraph, UndirectedGraph } from 'graphology';
import { describe, expect, it } from 'vitest';
import { InvalidArgumentError } from '../src/contracts/errors.js';
import { type Csr, csrFromEdges, toCsr } from '../src/graph/index.js';

/** Row of `node` as sorted `target:weight` strings, independent of the order inside the row. */
function row(csr: Csr, node: string): string[] {
  const i = csr.index.get(node)!;
  const out: string[] = [];
  for (let e = csr.offsets[i]!; e < csr.offsets[i + 1]!; e++) {
    out.push(`${csr.nodeIds[csr.targets[e]!]}:${csr.weights[e]}`);
  }
  return out.sort();
}

function mixedGraph() {
  const graph = new MultiGraph(); // type 'mixed' by default
  for (const n of ['a', 'b', 'c']) graph.addNode(n);
  graph.addDirectedEdge('a', 'b', { weight: 2 });
  graph.addUndirectedEdge('b', 'c', { weight: 5 });
  return graph;
}

describe('toCsr', () => {
  it('keeps node insertion order and indexes every node', () => {
    const graph = new DirectedGraph();
    for (const n of ['z', 'a', 'm']) graph.addNode(n);
    const csr = toCsr(graph);
    expect(csr.nodeIds).toEqual(['z', 'a', 'm']);
    expect([...csr.index]).toEqual([
      ['z', 0],
      ['a', 1],
      ['m', 2],
    ]);
    expect([...csr.offsets]).toEqual([0, 0, 0, 0]);
  });

  it('stores a directed edge once, from source to target', () => {
    const graph = new DirectedGraph();
    graph.mergeEdge('a', 'b', { weight: 3 });
    graph.mergeEdge('b', 'c');
    const csr = toCsr(graph);
    expect(row(csr, 'a')).toEqual(['b:3']);
    expect(row(csr, 'b')).toEqual(['c:1']);
    expect(row(csr, 'c')).toEqual([]);
    expect(csr.targets.length).toBe(2);
  });

  it('stores an undirected edge in both directions and a self-loop once', () => {
    const graph = new UndirectedGraph();
    graph.mergeEdge('a', 'b', { weight: 2 });
    graph.mergeEdge('b', 'b', { weight: 7 });
    const csr = toCsr(graph);
    expect(row(csr, 'a')).toEqual(['b:2']);
    expect(row(csr, 'b')).toEqual(['a:2', 'b:7']);
    // outWeight: a = 2, b = 2 + 7 (the loop counts once)
    expect([...csr.outWeight]).toEqual([2, 9]);
    expect([...csr.offsets]).toEqual([0, 1, 3]);
  });

  it('reads each edge of a mixed graph by its own direction under directed: auto', () => {
    const csr = toCsr(mixedGraph());
    expect(row(csr, 'a')).toEqual(['b:2']);
    expect(row(csr, 'b')).toEqual(['c:5']);
    expect(row(csr, 'c')).toEqual(['b:5']);
  });

  it('reads every edge as source → target under directed: true', () => {
    const csr = toCsr(mixedGraph(), { directed: true });
    expect(row(csr, 'a')).toEqual(['b:2']);
    expect(row(csr, 'b')).toEqual(['c:5']);
    expect(row(csr, 'c')).toEqual([]);
  });

  it('symmetrizes directed edges under directed: false', () => {
    const csr = toCsr(mixedGraph(), { directed: false });
    expect(row(csr, 'a')).toEqual(['b:2']);
    expect(row(csr, 'b')).toEqual(['a:2', 'c:5']);
    expect(row(csr, 'c')).toEqual(['b:5']);
  });

  it('keeps parallel edges of a multigraph as separate entries', () => {
    const graph = new MultiGraph({ type: 'directed' });
    graph.addNode('a');
    graph.addNode('b');
    graph.addEdge('a', 'b', { weight: 1 });
    graph.addEdge('a', 'b', { weight: 4 });
    const csr = toCsr(graph);
    expect(row(csr, 'a')).toEqual(['b:1', 'b:4']);
    expect(csr.outWeight[0]).toBe(5);
  });

  it('weighs an edge 1 when its attribute is missing, and every edge 1 when weightAttribute is null', () => {
    const graph = new DirectedGraph();
    graph.mergeEdge('a', 'b', { score: 0.5 });
    graph.mergeEdge('a', 'c', {});
    expect(row(toCsr(graph, { weightAttribute: 'score' }), 'a')).toEqual(['b:0.5', 'c:1']);
    graph.mergeEdge('a', 'd', { weight: 9 });
    expect(row(toCsr(graph, { weightAttribute: null }), 'a')).toEqual(['b:1', 'c:1', 'd:1']);
  });

  it('rejects a weight that is not a finite number, naming the edge', () => {
    const graph = new DirectedGraph();
    graph.mergeEdgeWithKey('e1', 'a', 'b', { weight: 'heavy' });
    let error: unknown;
    try {
      toCsr(graph);
    } catch (e) {
      error = e;
    }
    expect(InvalidArgumentError.isInstance(error)).toBe(true);
    expect((error as Error).message).toMatch(/edge "e1".*weightAttribute: null/);
    graph.setEdgeAttribute('e1', 'weight', Number.NaN);
    expect(() => toCsr(graph)).toThrow(/not a finite number/);
  });
});

describe('csrFromEdges', () => {
  it('builds the same rows as toCsr on the equivalent graphology graph', () => {
    const edges: [number, number, number?][] = [
      [0, 1, 2],
      [1, 2],
      [2, 2, 3],
      [3, 0, 0.5],
    ];
    for (const directed of [true, false]) {
      const graph = directed ? new DirectedGraph() : new UndirectedGraph();
      for (let i = 0; i < 4; i++) graph.addNode(String(i));
      for (const [s, t, w] of edges)
        graph.addEdge(String(s), String(t), w === undefined ? {} : { weight: w });
      const a = toCsr(graph);
      const b = csrFromEdges(4, edges, { directed });
      for (const node of ['0', '1', '2', '3']) expect(row(b, node)).toEqual(row(a, node));
      expect([...b.offsets]).toEqual([...a.offsets]);
      expect([...b.outWeight]).toEqual([...a.outWeight]);
    }
  });

  it('uses given ids as node keys', () => {
    const csr = csrFromEdges(2, [[0, 1]], { directed: true, ids: ['x', 'y'] });
    expect(csr.nodeIds).toEqual(['x', 'y']);
    expect(row(csr, 'x')).toEqual(['y:1']);
  });

  it('rejects endpoints outside [0, n), bad weights and mismatched ids', () => {
    expect(() => csrFromEdges(2, [[0, 2]], { directed: true })).toThrow(/\[0, 2\]/);
    expect(() => csrFromEdges(2, [[0, 0.5]], { directed: true })).toThrow(InvalidArgumentError);
    expect(() => csrFromEdges(2, [[0, 1, Number.POSITIVE_INFINITY]], { directed: true })).toThrow(/finite/);
    expect(() => csrFromEdges(2, [], { directed: true, ids: ['a'] })).toThrow(/one key per node/);
    expect(() => csrFromEdges(2, [], { directed: true, ids: ['a', 'a'] })).toThrow(/duplicate/);
    expect(() => csrFromEdges(-1, [], { directed: true })).toThrow(/non-negative integer/);
  });
});

describe('edge ids and sorted rows', () => {
  /** Every entry of every row as `row>target#edge`. */
  function entries(csr: Csr): string[] {
    const out: string[] = [];
    for (let i = 0; i < csr.nodeIds.length; i++) {
      for (let p = csr.offsets[i]!; p < csr.offsets[i + 1]!; p++) {
        out.push(`${i}>${csr.targets[p]}#${csr.edgeIds[p]}`);
      }
    }
    return out;
  }

  it('gives both entries of an undirected edge the edge list position as their id', () => {
    const csr = csrFromEdges(
      3,
      [
        [2, 0],
        [0, 1],
        [1, 1],
      ],
      { directed: false },
    );
    expect(entries(csr)).toEqual(['0>2#0', '0>1#1', '1>0#1', '1>1#2', '2>0#0']);
  });

  it('sorts every row ascending by target, ties in edge order, for symmetric and directed graphs', () => {
    const edges: [number, number, number][] = [
      [3, 1, 1],
      [0, 3, 2],
      [3, 0, 3],
      [1, 0, 4],
      [0, 1, 5],
      [2, 2, 6],
    ];
    for (const directed of [false, true]) {
      const plain = csrFromEdges(4, edges, { directed });
      const sorted = csrFromEdges(4, edges, { directed, sortRows: true });
      expect([...sorted.offsets]).toEqual([...plain.offsets]);
      expect([...sorted.outWeight]).toEqual([...plain.outWeight]);
      for (let i = 0; i < 4; i++) {
        const row = entries(sorted).filter((e) => e.startsWith(`${i}>`));
        const targets = row.map((e) => Number(e.split('>')[1]!.split('#')[0]));
        expect(targets).toEqual([...targets].sort((a, b) => a - b));
        // Same entries as the unsorted rows, weights carried along with their edge.
        expect(row.slice().sort()).toEqual(
          entries(plain)
            .filter((e) => e.startsWith(`${i}>`))
            .sort(),
        );
        for (let p = sorted.offsets[i]!; p < sorted.offsets[i + 1]!; p++) {
          expect(sorted.weights[p]).toBe(edges[sorted.edgeIds[p]!]![2]);
        }
      }
      // Ties (parallel edges) keep edge order.
      const row0 = entries(sorted).filter((e) => e.startsWith('0>'));
      expect(row0).toEqual(directed ? ['0>1#4', '0>3#1'] : ['0>1#3', '0>1#4', '0>3#1', '0>3#2']);
    }
  });

  it('sorts the rows of toCsr the same way, mixed graphs included', () => {
    const graph = new MultiGraph();
    for (const n of ['a', 'b', 'c', 'd']) graph.addNode(n);
    graph.addDirectedEdge('a', 'd', { weight: 1 });
    graph.addUndirectedEdge('a', 'c', { weight: 2 });
    graph.addDirectedEdge('a', 'b', { weight: 3 });
    graph.addUndirectedEdge('d', 'a', { weight: 4 });
    const csr = toCsr(graph, { sortRows: true });
    expect(entries(csr)).toEqual(['0>1#2', '0>2#1', '0>3#0', '0>3#3', '2>0#1', '3>0#3']);
    expect([...csr.weights]).toEqual([3, 2, 1, 4, 2, 4]);
  });

  it('reads a flat typed array of pairs as unit-weight edges', () => {
    const flat = csrFromEdges(3, Uint32Array.of(0, 1, 1, 2), { directed: false, sortRows: true });
    const tuples = csrFromEdges(
      3,
      [
        [0, 1],
        [1, 2],
      ],
      { directed: false, sortRows: true },
    );
    expect(entries(flat)).toEqual(entries(tuples));
    expect([...flat.weights]).toEqual([1, 1, 1, 1]);
    expect([...flat.outWeight]).toEqual([1, 2, 1]);
    expect(() => csrFromEdges(3, Uint32Array.of(0, 1, 2), { directed: false })).toThrow(/must be even/);
    expect(() => csrFromEdges(2, Int32Array.of(0, -1), { directed: false })).toThrow(/\[0, -1\]/);
  });

  it('sorted rows hold exactly the unsorted entries, ascending by target (property)', () => {
    const graphs = fc
      .integer({ min: 1, max: 12 })
      .chain((n) =>
        fc.tuple(
          fc.constant(n),
          fc.array(fc.tuple(fc.nat(n - 1), fc.nat(n - 1), fc.integer({ min: 1, max: 9 })), { maxLength: 40 }),
          fc.boolean(),
        ),
      );
    fc.assert(
      fc.property(graphs, ([n, edges, directed]) => {
        const plain = csrFromEdges(n, edges, { directed });
        const sorted = csrFromEdges(n, edges, { directed, sortRows: true });
        expect([...sorted.offsets]).toEqual([...plain.offsets]);
        for (let i = 0; i < n; i++) {
          const row = (c: Csr) => {
            const out: [number, number, number][] = [];
            for (let p = c.offsets[i]!; p < c.offsets[i + 1]!; p++)
              out.push([c.targets[p]!, c.edgeIds[p]!, c.weights[p]!]);
            return out;
          };
          const s = row(sorted);
          const byTargetThenEdge = (a: [number, number, number], b: [number, number, number]) =>
            a[0] - b[0] || a[1] - b[1];
          expect(s).toEqual(row(plain).sort(byTargetThenEdge));
        }
      }),
      { numRuns: 200 },
    );
  });

  it('names the caller a wrapping builder passes in its errors', () => {
    expect(() => csrFromEdges(2, [[0, 5]], { directed: false, caller: 'trussGraphFromEdges' })).toThrow(
      /^trussGraphFromEdges: edge 0 is \[0, 5\]/,
    );
  });
});
