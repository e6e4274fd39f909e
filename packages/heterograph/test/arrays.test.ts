/**
 * A heterograph as arrays (`toArrays` / `fromArrays`) is the graph it came from: the same nodes with
 * the same attributes, the same edges in the same order, so the CSR, neighbour order, statistics,
 * search results and the graphology graph made on first change are those of the original graph.
 */
import { InvalidArgumentError } from '@grag/core';
import { toCsr } from '@grag/core/graph';
import { mulberry32 } from '@grag/core/test';
import { describe, expect, it } from 'vitest';
import { ALL_NODE_TYPES, HeteroGraph, HeteroSearch, type NodeType } from '../src/index.js';

/** A random heterograph: structural edges of every kind, HNSW edges (some on structural ones), extra attributes. */
function randomHetero(seed: number): HeteroGraph {
  const rand = mulberry32(seed);
  const g = new HeteroGraph();
  const keys: string[] = [];
  for (let i = 0; i < 120; i++) {
    const type = ALL_NODE_TYPES[Math.floor(rand() * ALL_NODE_TYPES.length)] as NodeType;
    const key = `${type}:${i}`;
    g.addNode(key, type, {
      text: `text of ${key}`,
      weight: 1 + Math.floor(rand() * 3),
      chunks: [`c${i % 7}`, `c${(i * 3) % 11}`],
      docs: [`d${i % 5}`],
      ...(i % 10 === 0 ? { extra: { level: i } } : {}),
    });
    keys.push(key);
  }
  const kinds = ['d', 'r', 'a', 'h', 'o', 's'] as const;
  for (let e = 0; e < 300; e++) {
    const a = keys[Math.floor(rand() * keys.length)]!;
    const b = keys[Math.floor(rand() * keys.length)]!;
    if (a !== b) g.connect(a, b, kinds[e % kinds.length]!, rand() < 0.2 ? 2 : 1);
  }
  for (let e = 0; e < 300; e++) {
    const a = keys[Math.floor(rand() * keys.length)]!;
    const b = keys[Math.floor(rand() * keys.length)]!;
    if (a !== b) g.addSemanticEdge(a, b);
  }
  return g;
}

const exported = (g: HeteroGraph) => {
  const { edges, ...rest } = g.graph.export();
  return { ...rest, edges: edges.map(({ key: _k, ...edge }) => edge) };
};

describe('HeteroGraph arrays', () => {
  it('give back the same graph, CSR, neighbours and statistics', () => {
    for (const seed of [1, 2, 3]) {
      const original = randomHetero(seed);
      const loaded = HeteroGraph.fromArrays(original.toArrays());
      expect(loaded.order).toBe(original.order);
      expect(loaded.size).toBe(original.size);
      expect(loaded.stats()).toEqual(original.stats());
      for (const attribute of ['weight', 'baseWeight'] as const) {
        expect(loaded.csr(attribute)).toEqual(toCsr(original.graph, { weightAttribute: attribute }));
      }
      for (const key of original.nodes()) {
        expect(loaded.neighbors(key)).toEqual(original.neighbors(key));
        expect(loaded.neighbors(key, 'S')).toEqual(original.neighbors(key, 'S'));
        expect(loaded.node(key)).toEqual(original.node(key));
        expect(loaded.typeOf(key)).toBe(original.typeOf(key));
        expect(loaded.textOf(key)).toBe(original.textOf(key));
      }
      for (const type of ALL_NODE_TYPES) expect(loaded.nodes(type)).toEqual(original.nodes(type));
      expect(loaded.hasNode('T:nowhere')).toBe(false);
      // the search is the same, scores included
      const entries = { exact: original.nodes('N').slice(0, 3), vector: original.nodes('S').slice(0, 4) };
      const a = new HeteroSearch(original).search(entries);
      const b = new HeteroSearch(loaded).search(entries);
      expect(b.nodes).toEqual(a.nodes);
      expect(b.ppr).toEqual(a.ppr);
      // and the graphology graph made from the arrays is the original one
      expect(exported(loaded)).toEqual(exported(original));
    }
  });

  it('a loaded graph that changes keeps the attribute objects it handed out', () => {
    const original = randomHetero(4);
    const loaded = HeteroGraph.fromArrays(original.toArrays());
    const key = original.nodes('S')[0]!;
    const attrs = loaded.node(key);
    loaded.addNode(key, 'S', { text: 'ignored', weight: 2, chunks: ['c-new'] });
    expect(loaded.node(key)).toBe(attrs);
    expect(attrs.weight).toBe(original.node(key).weight + 2);
    expect(attrs.chunks).toContain('c-new');
    expect(loaded.toArrays().weights).not.toEqual(original.toArrays().weights);
  });

  it('refuses arrays that do not describe a heterograph', () => {
    const arrays = randomHetero(5).toArrays();
    const bad = [
      { ...arrays, keys: arrays.keys.map((k, i) => (i === 1 ? arrays.keys[0]! : k)) },
      { ...arrays, edgeB: Uint32Array.from(arrays.edgeB, (b, e) => (e === 0 ? 10_000 : b)) },
      { ...arrays, edgeB: Uint32Array.from(arrays.edgeB, (b, e) => (e === 0 ? arrays.edgeA[0]! : b)) },
      {
        ...arrays,
        edgeA: Uint32Array.of(...arrays.edgeA, arrays.edgeA[0]!),
        edgeB: Uint32Array.of(...arrays.edgeB, arrays.edgeB[0]!),
        edgeKinds: Uint8Array.of(...arrays.edgeKinds, 0),
        edgeBaseWeight: Float64Array.of(...arrays.edgeBaseWeight, 1),
        edgeHnsw: Uint8Array.of(...arrays.edgeHnsw, 0),
      },
      { ...arrays, types: Uint8Array.from(arrays.types, (t, i) => (i === 0 ? 9 : t)) },
      { ...arrays, chunkRefs: Uint32Array.from(arrays.chunkRefs, (r, i) => (i === 0 ? 99_999 : r)) },
      { ...arrays, edgeBaseWeight: Float64Array.from(arrays.edgeBaseWeight, (w, e) => (e === 0 ? -1 : w)) },
    ];
    const messages = [
      /repeats/,
      /joins nodes \d+ and 10000/,
      /joins nodes (\d+) and \1/,
      /repeats the pair/,
      /type code 9/,
      /reference is out of range/,
      /bad weight/,
    ];
    bad.forEach((arrays, i) => {
      expect(() => HeteroGraph.fromArrays(arrays), String(i)).toThrow(InvalidArgumentError);
      expect(() => HeteroGraph.fromArrays(arrays), String(i)).toThrow(messages[i]!);
    });
  });
});
