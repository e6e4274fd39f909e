import { mulberry32 } from '@grag/core/test';
import { describe, expect, it } from 'vitest';
import { addSemanticEdges, HeteroGraph, withSemanticEdges } from '../src/index.js';

/** A small graph: S units joined to N entities, one R node, and an H/O pair. */
function structural(): HeteroGraph {
  const g = new HeteroGraph();
  g.addNode('S:0', 'S', { text: 'Ada wrote notes.', chunks: ['c1'], docs: ['d1'] });
  g.addNode('S:1', 'S', { text: 'Ada met Babbage.', chunks: ['c1', 'c2'], docs: ['d1'] });
  g.addNode('N:ada', 'N', { text: 'Ada', chunks: ['c1'] });
  g.addNode('N:babbage', 'N', { text: 'Babbage', chunks: ['c2'] });
  g.addNode('R:ada|met|babbage', 'R', { text: 'Ada met Babbage', chunks: ['c2'] });
  g.addNode('H:0', 'H', { text: 'Computing pioneers.', chunks: ['c1'], extra: { community: 0 } });
  g.addNode('O:0', 'O', { text: 'Pioneers', extra: { community: 0 } });
  g.connect('S:0', 'N:ada', 'd');
  g.connect('S:1', 'N:ada', 'd');
  g.connect('S:1', 'R:ada|met|babbage', 'd');
  g.connect('R:ada|met|babbage', 'N:ada', 'r');
  g.connect('R:ada|met|babbage', 'N:babbage', 'r');
  g.connect('S:1', 'N:ada', 'd'); // weight 2
  g.connect('H:0', 'O:0', 'o');
  g.connect('S:0', 'H:0', 'h');
  return g;
}

describe('withSemanticEdges', () => {
  it('makes the graph addSemanticEdges makes: same arrays, counts, and the input graph unchanged', () => {
    const lists: [string, string[]][] = [
      ['S:0', ['S:1', 'H:0', 'S:0', 'T:missing']], // new, reinforces S:0–H:0, self, skipped
      ['S:1', ['S:0', 'N:ada', 'H:0']], // repeated pair, reinforces S:1–N:ada, new
      ['H:0', ['S:0', 'S:1', 'O:0']], // repeated, repeated, reinforces H:0–O:0
      ['T:missing', ['S:0']], // skipped
    ];
    const input = structural();
    const before = input.toArrays();
    const got = withSemanticEdges(input, lists);
    const want = structural();
    const counts = addSemanticEdges(want, lists);
    expect({ added: got.added, reinforced: got.reinforced, skipped: got.skipped }).toEqual(counts);
    expect(counts).toEqual({ added: 2, reinforced: 3, skipped: 2 });
    expect(got.graph.toArrays()).toEqual(want.toArrays());
    expect(got.graph.stats()).toEqual(want.stats());
    expect(input.toArrays()).toEqual(before);
    expect(input.stats().hnswEdges).toBe(0);
    // the walk's CSR, with and without the semantic edges, as the graphology graph gives it
    for (const weight of ['weight', 'baseWeight'] as const) {
      expect(got.graph.csr(weight)).toEqual(want.csr(weight));
    }
  });

  it('agrees with addSemanticEdges on random neighbour lists, over a graph already on arrays', () => {
    const rand = mulberry32(17);
    const base = new HeteroGraph();
    const keys = Array.from({ length: 60 }, (_, i) => `S:${i}`);
    for (const key of keys) base.addNode(key, 'S', { text: key });
    for (let e = 0; e < 90; e++) {
      const a = keys[Math.floor(rand() * 60)]!;
      const b = keys[Math.floor(rand() * 60)]!;
      if (a !== b) base.connect(a, b, 'd', 1 + Math.floor(rand() * 3));
    }
    const lists: [string, string[]][] = keys.map((key) => [
      key,
      Array.from({ length: 8 }, () => keys[Math.floor(rand() * 60)]!),
    ]);
    const onArrays = HeteroGraph.fromArrays(base.toArrays());
    const got = withSemanticEdges(onArrays, lists);
    const want = HeteroGraph.fromArrays(base.toArrays());
    const counts = addSemanticEdges(want, lists);
    expect({ added: got.added, reinforced: got.reinforced, skipped: got.skipped }).toEqual(counts);
    expect(got.graph.toArrays()).toEqual(want.toArrays());
    expect(got.graph.neighbors('S:3')).toEqual(want.neighbors('S:3'));
    // laid twice: the second lay only repeats pairs
    const again = withSemanticEdges(got.graph, lists);
    expect({ added: again.added, reinforced: again.reinforced }).toEqual({ added: 0, reinforced: 0 });
    expect(again.graph.toArrays()).toEqual(got.graph.toArrays());
  });
});
