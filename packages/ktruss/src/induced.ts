/**
 * Induced subgraphs, and their triangles read from the whole graph's listing: what a search on the
 * subgraph induced by a node set (DA-RAG's working subgraphs of the KG and Similarity layers, one per
 * query) needs without listing its triangles again.
 */
import { InvalidArgumentError } from '@grag/core';
import type { TrussGraph } from './graph.js';
import type { EdgeTriangles } from './triangles.js';

/** A subgraph induced by a node set, with the way back to the graph it was taken from. */
export interface InducedSubgraph {
  /** The subgraph. Node `i` is node `nodes[i]` of the graph (with its key); edge `j` is edge `edges[j]`. */
  graph: TrussGraph;
  /** The graph's node of each subgraph node (ascending). */
  nodes: Uint32Array;
  /** The graph's edge of each subgraph edge. */
  edges: Uint32Array;
}

/**
 * The subgraph of `graph` induced by `nodes` (ascending, distinct node indices): every edge of the
 * graph between two of them. Node `i` of the subgraph is `nodes[i]`, so node order (and the order of
 * each edge's ends) is the graph's; edges are numbered by their smaller end, then their larger one.
 * O(n + the degrees of `nodes`).
 *
 * @throws InvalidArgumentError when `nodes` is not ascending or holds an index outside the graph.
 */
export function inducedSubgraph(graph: TrussGraph, nodes: ArrayLike<number>): InducedSubgraph {
  const local = new Int32Array(graph.n).fill(-1);
  for (let i = 0; i < nodes.length; i++) {
    const v = nodes[i]!;
    if (!(Number.isInteger(v) && v >= 0 && v < graph.n) || (i > 0 && v <= nodes[i - 1]!)) {
      throw new InvalidArgumentError(
        'nodes',
        `inducedSubgraph: nodes must be distinct node indices of the graph (0 to ${graph.n - 1}) in ascending order; got ${String(v)} at position ${i}.`,
      );
    }
    local[v] = i;
  }
  const n = nodes.length;
  const { offsets: rows, neighbors: row, edgeIds: rowEdges } = graph;
  // The graph's rows are ascending and node order is kept, so the subgraph's rows come out sorted:
  // no sort, and no check for loops or parallel edges (the graph has none).
  const offsets = new Uint32Array(n + 1);
  let m = 0;
  for (let i = 0; i < n; i++) {
    const v = nodes[i]!;
    let degree = 0;
    for (let p = rows[v]!; p < rows[v + 1]!; p++) {
      const w = row[p]!;
      if (local[w]! >= 0) {
        degree++;
        if (w > v) m++;
      }
    }
    offsets[i + 1] = offsets[i]! + degree;
  }
  // Edges numbered by smaller end, then larger end: edge {v, w} (v < w) when v's row is read.
  const localEdge = new Int32Array(graph.m);
  const edges = new Uint32Array(m);
  const sources = new Uint32Array(m);
  const targets = new Uint32Array(m);
  const neighbors = new Uint32Array(2 * m);
  const edgeIds = new Uint32Array(2 * m);
  for (let i = 0, e = 0; i < n; i++) {
    const v = nodes[i]!;
    for (let p = rows[v]!; p < rows[v + 1]!; p++) {
      const w = row[p]!;
      if (w > v && local[w]! >= 0) {
        localEdge[rowEdges[p]!] = e;
        edges[e] = rowEdges[p]!;
        sources[e] = i;
        targets[e] = local[w]!;
        e++;
      }
    }
  }
  for (let i = 0, at = 0; i < n; i++) {
    const v = nodes[i]!;
    for (let p = rows[v]!; p < rows[v + 1]!; p++) {
      const w = local[row[p]!]!;
      if (w < 0) continue;
      neighbors[at] = w;
      edgeIds[at++] = localEdge[rowEdges[p]!]!;
    }
  }
  const nodeArray = Uint32Array.from(nodes);
  const nodeIds = Array.from(nodeArray, (v) => graph.nodeIds[v]!);
  const index = new Map(nodeIds.map((id, i) => [id, i]));
  return {
    graph: { n, m, nodeIds, index, offsets, neighbors, edgeIds, sources, targets },
    nodes: nodeArray,
    edges,
  };
}

/**
 * The triangles of an induced subgraph, from the listing of the graph it was taken from
 * (`edgeTriangles(graph)`): on each subgraph edge, the triangles of its graph edge whose third node
 * is in the subgraph (their two other edges are then in it too), in the same order. Equal to
 * `edgeTriangles(sub.graph)`, since node order is the graph's; O(triangles on the subgraph's edges in
 * the graph), no row search.
 *
 * @throws InvalidArgumentError when `triangles` is not a listing of `graph`'s edges.
 */
export function inducedTriangles(
  triangles: EdgeTriangles,
  graph: TrussGraph,
  sub: InducedSubgraph,
): EdgeTriangles {
  if (triangles.offsets.length !== graph.m + 1) {
    throw new InvalidArgumentError(
      'triangles',
      `inducedTriangles: the listing covers ${triangles.offsets.length - 1} edges but the graph has ${graph.m}; pass edgeTriangles of the graph the subgraph was induced from.`,
    );
  }
  const { offsets: from, entries: src } = triangles;
  const local = new Int32Array(graph.n).fill(-1);
  for (let i = 0; i < sub.nodes.length; i++) local[sub.nodes[i]!] = i;
  const localEdge = new Int32Array(graph.m).fill(-1);
  for (let j = 0; j < sub.edges.length; j++) localEdge[sub.edges[j]!] = j;
  const m = sub.edges.length;
  const offsets = new Uint32Array(m + 1);
  for (let j = 0; j < m; j++) {
    const e = sub.edges[j]!;
    let count = 0;
    for (let q = from[e]!; q < from[e + 1]!; q++) if (local[src[3 * q]!]! >= 0) count++;
    offsets[j + 1] = offsets[j]! + count;
  }
  const entries = new Uint32Array(3 * offsets[m]!);
  for (let j = 0, at = 0; j < m; j++) {
    const e = sub.edges[j]!;
    for (let q = from[e]!; q < from[e + 1]!; q++) {
      const x = local[src[3 * q]!]!;
      if (x < 0) continue;
      entries[at++] = x;
      entries[at++] = localEdge[src[3 * q + 1]!]!;
      entries[at++] = localEdge[src[3 * q + 2]!]!;
    }
  }
  return { offsets, entries };
}
