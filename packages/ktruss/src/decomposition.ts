import { InvalidArgumentError } from '@grag/core';
import type { AbstractGraph } from 'graphology-types';
import { asTrussGraph, findEdge, isTrussGraph, type TrussGraph } from './graph.js';
import { type EdgeTriangles, edgeSupport } from './triangles.js';

/** The result of {@link trussDecomposition}. */
export interface TrussDecomposition {
  /** The graph the decomposition is of (edge ids index the arrays below). */
  graph: TrussGraph;
  /**
   * Trussness of every edge: the largest `k` such that the edge belongs to the k-truss (every edge of
   * which is in at least `k - 2` triangles inside it). An edge in no triangle has trussness 2.
   */
  trussness: Uint32Array;
  /** Support (triangle count) of every edge in the whole graph. */
  support: Uint32Array;
  /** Largest trussness of any edge; 0 for a graph without edges. */
  maxTrussness: number;
}

/** Options of {@link trussDecomposition}. */
export interface TrussDecompositionOptions {
  /** The graph's triangles ({@link edgeTriangles}), when already listed: peeling reads them. */
  triangles?: EdgeTriangles;
}

/** Each edge's triangle count: the lengths of its list in a listing. */
function listSupport(offsets: Uint32Array): Uint32Array {
  const support = new Uint32Array(offsets.length - 1);
  for (let e = 0; e < support.length; e++) support[e] = offsets[e + 1]! - offsets[e]!;
  return support;
}

/** Options of {@link assignTrussness}. */
export interface AssignTrussnessOptions {
  /** Edge attribute that receives the trussness. @default 'trussness' */
  edgeAttribute: string;
  /**
   * Node attribute that receives the node's trussness (the largest trussness of its edges, 0 for an
   * isolated node), or `null` for none. @default null
   */
  nodeAttribute: string | null;
}

/** Defaults of {@link assignTrussness}. */
export const ASSIGN_TRUSSNESS_DEFAULTS: AssignTrussnessOptions = {
  edgeAttribute: 'trussness',
  nodeAttribute: null,
};

/**
 * Truss decomposition (Wang & Cheng, "Truss decomposition in massive networks", PVLDB 2012): the
 * trussness of every edge. Supports are counted by {@link edgeSupport}; edges are then bin-sorted by
 * support and peeled in increasing order (as Batagelj–Zaversnik peel k-cores): removing edge
 * `{u, v}` of current support `s` fixes its trussness at `s + 2` and decrements the support of the
 * edges of every triangle `{u, v, w}` still present, never below `s`. The common neighbours are found
 * from the endpoint of smaller degree by binary search in the other's sorted row. O(m^1.5 · log d)
 * time, O(n + m) memory.
 *
 * With `options.triangles` (the graph's {@link edgeTriangles} listing), supports are the lengths of
 * the edges' lists and the triangles of a peeled edge are read from its list: the same result in
 * O(triangles), without counting or searching rows.
 *
 * @param input A {@link TrussGraph} or a simple undirected graphology graph.
 * @throws InvalidArgumentError for a directed graph, self-loops or parallel edges, or a listing that
 * is not of the graph's edges.
 * @example
 * const { trussness, maxTrussness } = trussDecomposition(graph);
 */
export function trussDecomposition(
  input: TrussGraph | AbstractGraph,
  options: TrussDecompositionOptions = {},
): TrussDecomposition {
  const g = asTrussGraph(input);
  const { m, offsets, neighbors, edgeIds, sources, targets } = g;
  const listed = options.triangles;
  if (listed !== undefined && listed.offsets.length !== m + 1) {
    throw new InvalidArgumentError(
      'options.triangles',
      `trussDecomposition: the listing covers ${listed.offsets.length - 1} edges but the graph has ${m}; pass edgeTriangles of this graph.`,
    );
  }
  const support = listed === undefined ? edgeSupport(g) : listSupport(listed.offsets);
  const sup = support.slice();
  const trussness = new Uint32Array(m);
  if (m === 0) return { graph: g, trussness, support, maxTrussness: 0 };

  let maxSupport = 0;
  for (let e = 0; e < m; e++) if (sup[e]! > maxSupport) maxSupport = sup[e]!;
  // Bin sort: binStart[s] is the position in `order` of the first unprocessed edge of support s.
  const binStart = new Uint32Array(maxSupport + 2);
  for (let e = 0; e < m; e++) binStart[sup[e]! + 1]!++;
  for (let s = 0; s <= maxSupport; s++) binStart[s + 1]! += binStart[s]!;
  const order = new Uint32Array(m);
  const position = new Uint32Array(m);
  {
    const fill = binStart.slice(0, maxSupport + 1);
    for (let e = 0; e < m; e++) {
      const at = fill[sup[e]!]!++;
      order[at] = e;
      position[e] = at;
    }
  }
  const removed = new Uint8Array(m);
  // Move edge f one bin down (its support drops by one): swap it with the first edge of its bin.
  const decrement = (f: number) => {
    const s = sup[f]!;
    const first = binStart[s]!;
    const other = order[first]!;
    if (other !== f) {
      const pf = position[f]!;
      order[pf] = other;
      position[other] = pf;
      order[first] = f;
      position[f] = first;
    }
    binStart[s]!++;
    sup[f] = s - 1;
  };

  let maxTrussness = 2;
  for (let i = 0; i < m; i++) {
    const e = order[i]!;
    const s = sup[e]!;
    const k = s + 2;
    trussness[e] = k;
    if (k > maxTrussness) maxTrussness = k;
    if (listed !== undefined) {
      const { offsets: from, entries } = listed;
      for (let q = from[e]!; q < from[e + 1]!; q++) {
        const aw = entries[3 * q + 1]!;
        const bw = entries[3 * q + 2]!;
        if (removed[aw] === 1 || removed[bw] === 1) continue;
        if (sup[aw]! > s) decrement(aw);
        if (sup[bw]! > s) decrement(bw);
      }
      removed[e] = 1;
      continue;
    }
    let a = sources[e]!;
    let b = targets[e]!;
    if (offsets[a + 1]! - offsets[a]! > offsets[b + 1]! - offsets[b]!) {
      const t = a;
      a = b;
      b = t;
    }
    // Common neighbours w of a and b: a merge of the two sorted rows when their lengths are close,
    // a binary search in b's row for each of a's neighbours when b's row is much longer.
    const aEnd = offsets[a + 1]!;
    const bStart = offsets[b]!;
    const bEnd = offsets[b + 1]!;
    if ((bEnd - bStart) >> 3 <= aEnd - offsets[a]!) {
      let q = bStart;
      for (let p = offsets[a]!; p < aEnd && q < bEnd; p++) {
        const w = neighbors[p]!;
        while (q < bEnd && neighbors[q]! < w) q++;
        if (q === bEnd || neighbors[q] !== w) continue;
        const aw = edgeIds[p]!;
        const bw = edgeIds[q]!;
        q++;
        if (removed[aw] === 1 || removed[bw] === 1) continue;
        if (sup[aw]! > s) decrement(aw);
        if (sup[bw]! > s) decrement(bw);
      }
    } else {
      for (let p = offsets[a]!; p < aEnd; p++) {
        const aw = edgeIds[p]!;
        if (removed[aw] === 1 || aw === e) continue;
        const bw = findEdge(g, b, neighbors[p]!);
        if (bw < 0 || removed[bw] === 1) continue;
        if (sup[aw]! > s) decrement(aw);
        if (sup[bw]! > s) decrement(bw);
      }
    }
    removed[e] = 1;
  }
  return { graph: g, trussness, support, maxTrussness };
}

/**
 * Write each edge's trussness into a graphology graph (and optionally each node's), as graphology's
 * `.assign` variants do. Returns the decomposition.
 */
export function assignTrussness(
  graph: AbstractGraph,
  options: Partial<AssignTrussnessOptions> = {},
): TrussDecomposition {
  const { edgeAttribute, nodeAttribute } = { ...ASSIGN_TRUSSNESS_DEFAULTS, ...options };
  const decomposition = trussDecomposition(graph);
  const { graph: g, trussness } = decomposition;
  const keys = g.edgeKeys!;
  for (let e = 0; e < g.m; e++) graph.setEdgeAttribute(keys[e]!, edgeAttribute, trussness[e]!);
  if (nodeAttribute !== null) {
    const nodeTruss = nodeTrussness(decomposition);
    for (let i = 0; i < g.n; i++) graph.setNodeAttribute(g.nodeIds[i]!, nodeAttribute, nodeTruss[i]!);
  }
  return decomposition;
}

/** Trussness of every node: the largest trussness among its edges (0 for an isolated node). */
export function nodeTrussness(decomposition: TrussDecomposition): Uint32Array {
  const { graph: g, trussness } = decomposition;
  const out = new Uint32Array(g.n);
  for (let e = 0; e < g.m; e++) {
    const k = trussness[e]!;
    const s = g.sources[e]!;
    const t = g.targets[e]!;
    if (k > out[s]!) out[s] = k;
    if (k > out[t]!) out[t] = k;
  }
  return out;
}

/** A connected part of a k-truss: its nodes and edges (indices of the {@link TrussGraph}). */
export interface TrussComponent {
  /** Node indices, ascending. */
  nodes: Uint32Array;
  /** Edge ids, ascending. */
  edges: Uint32Array;
}

/** The maximal k-truss of a graph and its connected components. */
export interface KTruss {
  k: number;
  /** The graph the indices refer to. */
  graph: TrussGraph;
  /** Nodes with at least one edge in the k-truss, ascending. */
  nodes: Uint32Array;
  /** Edges of the k-truss (trussness ≥ k), ascending. */
  edges: Uint32Array;
  /** Connected components of the k-truss, largest first (ties: smallest node first). */
  components: TrussComponent[];
}

/** Options of {@link maximalKTruss}. */
export interface MaximalKTrussOptions {
  /** Trussness of every edge, when already computed (saves the decomposition). */
  trussness?: ArrayLike<number>;
}

/** Throw unless `k` is an integer ≥ 2 (the 2-truss is every edge). */
export function assertK(caller: string, k: number): void {
  if (!Number.isInteger(k) || k < 2) {
    throw new InvalidArgumentError(
      'k',
      `${caller}: k must be an integer of at least 2 (the 2-truss is the whole graph without isolated nodes), got ${String(k)}.`,
    );
  }
}

/**
 * The maximal k-truss — the largest subgraph in which every edge is in at least `k - 2` triangles
 * of the subgraph (Cohen 2008) — and its connected components (plain connectivity, as DA-RAG §5
 * defines a connected k-truss; not triangle connectivity). Its edges are exactly those of trussness
 * ≥ k. Empty when no edge reaches k.
 *
 * @throws InvalidArgumentError for `k` below 2 or not an integer, a `trussness` of the wrong length,
 * or an input graph that is not simple and undirected.
 */
export function maximalKTruss(
  input: TrussGraph | AbstractGraph,
  k: number,
  options: MaximalKTrussOptions = {},
): KTruss {
  assertK('maximalKTruss', k);
  const g = asTrussGraph(input);
  const trussness = options.trussness ?? trussDecomposition(g).trussness;
  if (trussness.length !== g.m) {
    throw new InvalidArgumentError(
      'options.trussness',
      `maximalKTruss: trussness has ${trussness.length} entries but the graph has ${g.m} edges; pass the decomposition of this graph.`,
    );
  }
  const mask = new Uint8Array(g.m);
  for (let e = 0; e < g.m; e++) if (trussness[e]! >= k) mask[e] = 1;
  return trussFromMask(g, k, mask);
}

/** The k-truss made of the edges flagged in `mask`, with its components. */
export function trussFromMask(g: TrussGraph, k: number, mask: Uint8Array): KTruss {
  const { n, m, offsets, neighbors, edgeIds, sources } = g;
  // Components by depth-first search over the flagged edges, numbered in order of their first node.
  const componentOf = new Int32Array(n).fill(-1);
  const stack = new Uint32Array(n);
  const sizes: number[] = [];
  let inTruss = 0;
  for (let start = 0; start < n; start++) {
    if (componentOf[start] !== -1) continue;
    let touches = false;
    for (let p = offsets[start]!; p < offsets[start + 1]!; p++) {
      if (mask[edgeIds[p]!] === 1) {
        touches = true;
        break;
      }
    }
    if (!touches) continue;
    const c = sizes.length;
    let size = 0;
    let top = 0;
    componentOf[start] = c;
    stack[top++] = start;
    while (top > 0) {
      const u = stack[--top]!;
      size++;
      const end = offsets[u + 1]!;
      for (let p = offsets[u]!; p < end; p++) {
        const v = neighbors[p]!;
        if (componentOf[v] === -1 && mask[edgeIds[p]!] === 1) {
          componentOf[v] = c;
          stack[top++] = v;
        }
      }
    }
    sizes.push(size);
    inTruss += size;
  }
  const count = sizes.length;
  // Nodes and edges grouped by component by a counting pass in ascending order, so each group is
  // ascending.
  const nodeStart = new Uint32Array(count + 1);
  const edgeStart = new Uint32Array(count + 1);
  for (let c = 0; c < count; c++) nodeStart[c + 1] = nodeStart[c]! + sizes[c]!;
  const nodes = new Uint32Array(inTruss);
  const grouped = new Uint32Array(inTruss);
  const cursor = nodeStart.slice(0, count);
  for (let v = 0, at = 0; v < n; v++) {
    const c = componentOf[v]!;
    if (c < 0) continue;
    nodes[at++] = v;
    grouped[cursor[c]!++] = v;
  }
  let edgeCount = 0;
  for (let e = 0; e < m; e++) {
    if (mask[e] !== 1) continue;
    edgeCount++;
    edgeStart[componentOf[sources[e]!]! + 1]!++;
  }
  for (let c = 0; c < count; c++) edgeStart[c + 1]! += edgeStart[c]!;
  const edges = new Uint32Array(edgeCount);
  const groupedEdges = new Uint32Array(edgeCount);
  cursor.set(edgeStart.subarray(0, count));
  for (let e = 0, at = 0; e < m; e++) {
    if (mask[e] !== 1) continue;
    edges[at++] = e;
    groupedEdges[cursor[componentOf[sources[e]!]!]!++] = e;
  }
  const components: TrussComponent[] = sizes.map((_, c) => ({
    nodes: grouped.slice(nodeStart[c]!, nodeStart[c + 1]!),
    edges: groupedEdges.slice(edgeStart[c]!, edgeStart[c + 1]!),
  }));
  components.sort((x, y) => y.nodes.length - x.nodes.length || x.nodes[0]! - y.nodes[0]!);
  return { k, graph: g, nodes, edges, components };
}

/**
 * The maximal k-truss of a graphology graph as a new graph of the same kind (graphology's
 * `kTruss(graph, k)` shape): a null copy (same type and options) with the k-truss's nodes, their attributes, and its edges
 * with their keys and attributes.
 *
 * @throws InvalidArgumentError as {@link maximalKTruss}.
 */
export function kTruss(graph: AbstractGraph, k: number): AbstractGraph {
  if (isTrussGraph(graph)) {
    throw new InvalidArgumentError(
      'graph',
      'kTruss: pass a graphology graph; for a TrussGraph use maximalKTruss(graph, k).',
    );
  }
  const truss = maximalKTruss(graph, k);
  const g = truss.graph;
  const out = graph.nullCopy();
  for (const i of truss.nodes) {
    const key = g.nodeIds[i]!;
    out.addNode(key, { ...graph.getNodeAttributes(key) });
  }
  for (const e of truss.edges) {
    const key = g.edgeKeys![e]!;
    out.addUndirectedEdgeWithKey(key, graph.source(key), graph.target(key), {
      ...graph.getEdgeAttributes(key),
    });
  }
  return out;
}
