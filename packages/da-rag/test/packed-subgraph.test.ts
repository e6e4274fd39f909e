import { mulberry32 } from '@grag/core/test';
import { describe, expect, test } from 'vitest';
import { type Candidate, packedSubgraph } from '../src/pack.js';
import type { DaRagIndex, Layer } from '../src/types.js';

type Packed = Pick<Candidate, 'layer' | 'nodes' | 'edges'>;

/**
 * The straightforward subgraph of packed communities: every node key, and every edge as its two
 * prefixed keys in string order, deduplicated by that pair's JSON text in first-seen order.
 */
function oracle(index: DaRagIndex, packed: readonly Packed[]) {
  const key = (layer: Layer, v: number) =>
    layer === 'chunk' ? `chunk:${index.chunks[v]!.id}` : `entity:${index.entities[v]!.id}`;
  const nodes = new Set<string>();
  const edges = new Map<string, [string, string]>();
  for (const c of packed) {
    for (const v of c.nodes) nodes.add(key(c.layer, v));
    for (const [a, b] of c.edges) {
      const x = key(c.layer, a);
      const y = key(c.layer, b);
      const pair: [string, string] = x < y ? [x, y] : [y, x];
      edges.set(JSON.stringify(pair), pair);
    }
  }
  return { nodes: [...nodes], edges: [...edges.values()] };
}

/**
 * An index of `chunks` chunks and `entities` entities whose ids sort otherwise than their indices
 * (so that the string order of an edge's keys is not the order of its node indices).
 */
function randomIndex(rand: () => number, chunks: number, entities: number): DaRagIndex {
  const ids = (n: number, stem: string) =>
    Array.from({ length: n }, (_, i) => ({ id: `${stem}${Math.floor(rand() * 1000)}-${i}` }));
  return { chunks: ids(chunks, 'c'), entities: ids(entities, 'e') } as unknown as DaRagIndex;
}

/** Communities on random layers with random edges, often repeating an edge, either way round. */
function randomCommunities(rand: () => number, index: DaRagIndex, count: number): Packed[] {
  const layers: Layer[] = ['chunk', 'kg', 'sim'];
  const out: Packed[] = [];
  for (let i = 0; i < count; i++) {
    const layer = layers[Math.floor(rand() * 3)]!;
    const n = layer === 'chunk' ? index.chunks.length : index.entities.length;
    const pick = () => Math.floor(rand() * n);
    const nodes = Array.from({ length: 1 + Math.floor(rand() * 6) }, pick);
    const edges: [number, number][] = [];
    for (let e = Math.floor(rand() * 12); e > 0; e--) {
      const a = pick();
      let b = pick();
      if (b === a) b = (a + 1) % n;
      edges.push(rand() < 0.5 ? [a, b] : [b, a]);
    }
    out.push({ layer, nodes, edges });
  }
  return out;
}

describe('packedSubgraph', () => {
  test('equals the keyed-by-JSON subgraph on random communities (same nodes, same edges in the same order)', () => {
    const rand = mulberry32(2029);
    for (let trial = 0; trial < 200; trial++) {
      // Small layers, so that edges repeat within and across communities and across KG and Similarity.
      const index = randomIndex(rand, 2 + Math.floor(rand() * 6), 2 + Math.floor(rand() * 6));
      const packed = randomCommunities(rand, index, Math.floor(rand() * 6));
      expect(packedSubgraph(index, packed)).toEqual(oracle(index, packed));
    }
  });

  test('an edge of the KG and of the Similarity layer between the same entities is one edge', () => {
    const index = randomIndex(mulberry32(1), 2, 3);
    const packed: Packed[] = [
      { layer: 'kg', nodes: [0, 2], edges: [[2, 0]] },
      {
        layer: 'sim',
        nodes: [0, 2, 1],
        edges: [
          [0, 2],
          [1, 2],
        ],
      },
      { layer: 'chunk', nodes: [0, 1], edges: [[0, 1]] },
    ];
    const out = packedSubgraph(index, packed);
    expect(out.edges).toHaveLength(3);
    expect(out).toEqual(oracle(index, packed));
  });
});
