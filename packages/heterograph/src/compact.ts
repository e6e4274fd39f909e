/**
 * A heterograph as flat arrays ({@link HeteroGraphArrays}): what a saved index stores and loads
 * without building a graphology graph. Nodes and edges keep the graph's iteration (insertion)
 * order, so the CSR made from the arrays ({@link arraysCsr}) is entry for entry the one `toCsr`
 * makes from the graph, and a graph made from them ({@link arraysGraph}) is the graph they came from.
 */
import { InvalidArgumentError } from '@grag/core';
import type { Csr } from '@grag/core/graph';
import { stringTable } from '@grag/core/kit';
import { UndirectedGraph } from 'graphology';
import {
  ALL_NODE_TYPES,
  type EdgeKind,
  type HeteroEdgeAttributes,
  type HeteroNodeAttributes,
  type NodeType,
} from './types.js';

/** Edge kinds by code in {@link HeteroGraphArrays.edgeKinds}. */
export const EDGE_KINDS: readonly EdgeKind[] = ['d', 'r', 'a', 'h', 'o', 's', 'hnsw'];

/**
 * The nodes and edges of a heterograph, in its iteration order. Node i has key `keys[i]`, type
 * `ALL_NODE_TYPES[types[i]]`, its text, weight and provenance (chunk ids
 * `strings[chunkRefs[chunkOffsets[i] … chunkOffsets[i + 1]]]`, documents alike) and its extra
 * attributes (`extra`, by node position). Edge e joins nodes `edgeA[e]` and `edgeB[e]` (as added),
 * with kind `EDGE_KINDS[edgeKinds[e]]`, its base weight and HNSW weight (0 or 1); its weight is
 * `edgeWeight[e]` when given, else base weight + HNSW weight.
 */
export interface HeteroGraphArrays {
  keys: string[];
  types: Uint8Array;
  texts: string[];
  weights: Float64Array;
  /** Distinct chunk and document ids the provenance refers to. */
  strings: string[];
  chunkOffsets: Uint32Array;
  chunkRefs: Uint32Array;
  docOffsets: Uint32Array;
  docRefs: Uint32Array;
  extra: Map<number, Record<string, unknown>>;
  edgeA: Uint32Array;
  edgeB: Uint32Array;
  edgeKinds: Uint8Array;
  edgeBaseWeight: Float64Array;
  edgeHnsw: Uint8Array;
  edgeWeight?: Float64Array;
}

const TYPE_CODES = new Map(ALL_NODE_TYPES.map((t, i) => [t, i]));
const KIND_CODES = new Map(EDGE_KINDS.map((k, i) => [k, i]));

/** The arrays of `graph` (see {@link HeteroGraphArrays}). */
export function graphArrays(
  graph: UndirectedGraph<HeteroNodeAttributes, HeteroEdgeAttributes>,
): HeteroGraphArrays {
  const n = graph.order;
  const position = new Map<string, number>();
  const keys: string[] = [];
  const types = new Uint8Array(n);
  const texts: string[] = [];
  const weights = new Float64Array(n);
  const { strings, ref } = stringTable();
  const chunkOffsets = new Uint32Array(n + 1);
  const docOffsets = new Uint32Array(n + 1);
  const chunkRefs: number[] = [];
  const docRefs: number[] = [];
  const extra = new Map<number, Record<string, unknown>>();
  graph.forEachNode((key, attrs) => {
    const i = keys.length;
    position.set(key, i);
    const { type, text, weight, chunks, docs, ...rest } = attrs;
    keys.push(key);
    types[i] = TYPE_CODES.get(type)!;
    texts.push(text);
    weights[i] = weight;
    for (const c of chunks) chunkRefs.push(ref(c));
    for (const d of docs) docRefs.push(ref(d));
    chunkOffsets[i + 1] = chunkRefs.length;
    docOffsets[i + 1] = docRefs.length;
    if (Object.keys(rest).length > 0) extra.set(i, rest);
  });
  const m = graph.size;
  const edgeA = new Uint32Array(m);
  const edgeB = new Uint32Array(m);
  const edgeKinds = new Uint8Array(m);
  const edgeBaseWeight = new Float64Array(m);
  const edgeHnsw = new Uint8Array(m);
  const edgeWeight = new Float64Array(m);
  let derived = true;
  let e = 0;
  graph.forEachEdge((_, attrs, a, b) => {
    edgeA[e] = position.get(a)!;
    edgeB[e] = position.get(b)!;
    edgeKinds[e] = KIND_CODES.get(attrs.kind)!;
    edgeBaseWeight[e] = attrs.baseWeight;
    edgeHnsw[e] = attrs.hnsw;
    edgeWeight[e] = attrs.weight;
    if (attrs.weight !== attrs.baseWeight + attrs.hnsw) derived = false;
    e++;
  });
  return {
    keys,
    types,
    texts,
    weights,
    strings,
    chunkOffsets,
    chunkRefs: Uint32Array.from(chunkRefs),
    docOffsets,
    docRefs: Uint32Array.from(docRefs),
    extra,
    edgeA,
    edgeB,
    edgeKinds,
    edgeBaseWeight,
    edgeHnsw,
    ...(derived ? {} : { edgeWeight }),
  };
}

/** The weight of edge `e` of `arrays`. */
export function edgeWeightOf(arrays: HeteroGraphArrays, e: number): number {
  return arrays.edgeWeight ? arrays.edgeWeight[e]! : arrays.edgeBaseWeight[e]! + arrays.edgeHnsw[e]!;
}

/**
 * Check that `arrays` describe a heterograph: lengths agree, every type, kind and reference is in
 * range, keys are distinct, no edge joins a node to itself and no two edges join the same pair.
 * Returns the position of every key and the adjacency (the CSR of base weights, whose rows list each
 * node's neighbours in graphology's order). @throws InvalidArgumentError naming what is wrong.
 */
export function checkArrays(arrays: HeteroGraphArrays): { index: Map<string, number>; adjacency: Csr } {
  const fail = (problem: string): never => {
    throw new InvalidArgumentError('arrays', `HeteroGraph.fromArrays: ${problem}.`);
  };
  const n = arrays.keys.length;
  if (arrays.types.length !== n || arrays.texts.length !== n || arrays.weights.length !== n)
    fail(
      `${n} keys but ${arrays.types.length} types, ${arrays.texts.length} texts, ${arrays.weights.length} weights`,
    );
  for (const [name, offsets, refs] of [
    ['chunk', arrays.chunkOffsets, arrays.chunkRefs],
    ['document', arrays.docOffsets, arrays.docRefs],
  ] as const) {
    if (offsets.length !== n + 1 || offsets[0] !== 0 || offsets[n] !== refs.length)
      fail(`the ${name} offsets do not cover the ${refs.length} ${name} references of ${n} nodes`);
    for (let i = 0; i < n; i++)
      if (offsets[i]! > offsets[i + 1]!) fail(`the ${name} offsets decrease at node ${i}`);
    for (const r of refs) if (r >= arrays.strings.length) fail(`a ${name} reference is out of range`);
  }
  const index = new Map<string, number>();
  for (let i = 0; i < n; i++) {
    if (arrays.types[i]! >= ALL_NODE_TYPES.length) fail(`node ${i} has type code ${arrays.types[i]}`);
    if (typeof arrays.keys[i] !== 'string' || typeof arrays.texts[i] !== 'string')
      fail(`node ${i} has no key or text`);
    if (index.has(arrays.keys[i]!)) fail(`the key ${JSON.stringify(arrays.keys[i])} repeats`);
    index.set(arrays.keys[i]!, i);
  }
  for (const i of arrays.extra.keys())
    if (!(i >= 0 && i < n)) fail(`extra attributes of node ${i}, not a node`);
  const m = arrays.edgeA.length;
  const { edgeB, edgeKinds, edgeBaseWeight, edgeHnsw, edgeWeight } = arrays;
  if (edgeB.length !== m || edgeKinds.length !== m || edgeBaseWeight.length !== m || edgeHnsw.length !== m)
    fail('the edge arrays have different lengths');
  if (edgeWeight && edgeWeight.length !== m) fail('the edge weights do not cover every edge');
  for (let e = 0; e < m; e++) {
    const a = arrays.edgeA[e]!;
    const b = edgeB[e]!;
    if (a >= n || b >= n || a === b) fail(`edge ${e} joins nodes ${a} and ${b}, not two of the ${n} nodes`);
    if (edgeKinds[e]! >= EDGE_KINDS.length || edgeHnsw[e]! > 1)
      fail(`edge ${e} has a bad kind or HNSW weight`);
    const w = edgeWeightOf(arrays, e);
    if (!(edgeBaseWeight[e]! >= 0) || !(w >= 0) || !Number.isFinite(w)) fail(`edge ${e} has a bad weight`);
  }
  // No pair twice: within each node's row of the adjacency, no neighbour twice.
  const adjacency = arraysCsr(arrays, index, 'baseWeight');
  const stamp = new Int32Array(n).fill(-1);
  for (let v = 0; v < n; v++) {
    for (let k = adjacency.offsets[v]!; k < adjacency.offsets[v + 1]!; k++) {
      const other = adjacency.targets[k]!;
      if (stamp[other] === v)
        fail(`edge ${adjacency.edgeIds[k]} repeats the pair of nodes ${v} and ${other}`);
      stamp[other] = v;
    }
  }
  return { index, adjacency };
}

/** The attributes of node `i` of `arrays` (a new object). */
export function nodeAttributes(arrays: HeteroGraphArrays, i: number): HeteroNodeAttributes {
  const { strings } = arrays;
  const list = (offsets: Uint32Array, refs: Uint32Array) => {
    const out: string[] = [];
    for (let r = offsets[i]!; r < offsets[i + 1]!; r++) out.push(strings[refs[r]!]!);
    return out;
  };
  return {
    ...arrays.extra.get(i),
    type: ALL_NODE_TYPES[arrays.types[i]!] as NodeType,
    text: arrays.texts[i]!,
    weight: arrays.weights[i]!,
    chunks: list(arrays.chunkOffsets, arrays.chunkRefs),
    docs: list(arrays.docOffsets, arrays.docRefs),
  };
}

/**
 * The graphology graph of `arrays`: nodes and edges added in order, node `i` with `attributes(i)`
 * (so attribute objects handed out before keep being the live ones).
 */
export function arraysGraph(
  arrays: HeteroGraphArrays,
  attributes: (i: number) => HeteroNodeAttributes,
): UndirectedGraph<HeteroNodeAttributes, HeteroEdgeAttributes> {
  const graph = new UndirectedGraph<HeteroNodeAttributes, HeteroEdgeAttributes>();
  const { keys } = arrays;
  for (let i = 0; i < keys.length; i++) graph.addNode(keys[i]!, attributes(i));
  for (let e = 0; e < arrays.edgeA.length; e++) {
    graph.addUndirectedEdge(keys[arrays.edgeA[e]!]!, keys[arrays.edgeB[e]!]!, {
      kind: EDGE_KINDS[arrays.edgeKinds[e]!]!,
      weight: edgeWeightOf(arrays, e),
      baseWeight: arrays.edgeBaseWeight[e]!,
      hnsw: arrays.edgeHnsw[e]!,
    });
  }
  return graph;
}

/**
 * The CSR `toCsr(graph, { weightAttribute })` makes of the graph of `arrays` ('weight' or
 * 'baseWeight'), entry for entry: rows in node order, each edge giving both directions in edge
 * order, out-weights summed in edge order. `index` is the key → position map.
 */
export function arraysCsr(
  arrays: HeteroGraphArrays,
  index: Map<string, number>,
  weightAttribute: 'weight' | 'baseWeight',
): Csr {
  const n = arrays.keys.length;
  const m = arrays.edgeA.length;
  const { edgeA, edgeB } = arrays;
  const offsets = new Uint32Array(n + 1);
  for (let e = 0; e < m; e++) {
    offsets[edgeA[e]! + 1]!++;
    offsets[edgeB[e]! + 1]!++;
  }
  for (let k = 0; k < n; k++) offsets[k + 1]! += offsets[k]!;
  const targets = new Uint32Array(2 * m);
  const edgeIds = new Uint32Array(2 * m);
  const weights = new Float64Array(2 * m);
  const outWeight = new Float64Array(n);
  const cursor = offsets.slice(0, n);
  for (let e = 0; e < m; e++) {
    const s = edgeA[e]!;
    const t = edgeB[e]!;
    const weight = weightAttribute === 'weight' ? edgeWeightOf(arrays, e) : arrays.edgeBaseWeight[e]!;
    let at = cursor[s]!++;
    targets[at] = t;
    edgeIds[at] = e;
    weights[at] = weight;
    outWeight[s]! += weight;
    at = cursor[t]!++;
    targets[at] = s;
    edgeIds[at] = e;
    weights[at] = weight;
    outWeight[t]! += weight;
  }
  return { nodeIds: arrays.keys.slice(), index, offsets, targets, weights, edgeIds, outWeight };
}
