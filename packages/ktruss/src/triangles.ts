/**
 * The triangles of a graph, listed once each by the forward algorithm (Schank & Wagner 2005): the
 * support of every edge, and the triangles on every edge with their other two edges.
 */
import { InvalidArgumentError } from '@grag/core';
import type { AbstractGraph } from 'graphology-types';
import { asTrussGraph, type TrussGraph } from './graph.js';

/**
 * Support of every edge: the number of triangles it is in. With `mask`, only edges `e` with
 * `mask[e] !== 0` count, and only triangles made of such edges (the support inside that subgraph;
 * masked-out edges get 0).
 *
 * Triangles are listed once each by the forward algorithm (Schank & Wagner 2005): edges are oriented
 * from lower to higher (degree, index) rank, the out-neighbours of `u` are marked, and every
 * out-neighbour `v` of `u` scans its own out-neighbours for marks. O(m^1.5) time, O(n + m) memory.
 */
export function edgeSupport(input: TrussGraph | AbstractGraph, mask?: ArrayLike<number>): Uint32Array {
  const g = asTrussGraph(input);
  checkMask('edgeSupport', g.m, mask);
  const support = new Uint32Array(g.m);
  if (g.m === 0) return support;
  forEachTriangle(g, mask, (_u, _v, _w, uv, uw, vw) => {
    support[uv]!++;
    support[uw]!++;
    support[vw]!++;
  });
  return support;
}

/**
 * Visit every triangle `{u, v, w}` of `g` (with `mask`, of its flagged edges) once, with its edges
 * `uv`, `uw` and `vw`, by the forward algorithm: edges oriented from lower to higher (degree, index)
 * rank, the out-neighbours of `u` marked, and every out-neighbour `v` of `u` scanning its own
 * out-neighbours `w` for marks.
 */
function forEachTriangle(
  g: TrussGraph,
  mask: ArrayLike<number> | undefined,
  visit: (u: number, v: number, w: number, uv: number, uw: number, vw: number) => void,
): void {
  const { n } = g;
  const { outOffsets, outNeighbors, outEdges } = orient(g, mask);
  const mark = new Int32Array(n).fill(-1);
  for (let u = 0; u < n; u++) {
    const start = outOffsets[u]!;
    const end = outOffsets[u + 1]!;
    if (end - start < 2) continue;
    for (let p = start; p < end; p++) mark[outNeighbors[p]!] = outEdges[p]!;
    for (let p = start; p < end; p++) {
      const v = outNeighbors[p]!;
      const uv = outEdges[p]!;
      const vEnd = outOffsets[v + 1]!;
      for (let q = outOffsets[v]!; q < vEnd; q++) {
        const w = outNeighbors[q]!;
        const uw = mark[w]!;
        if (uw >= 0) visit(u, v, w, uv, uw, outEdges[q]!);
      }
    }
    for (let p = start; p < end; p++) mark[outNeighbors[p]!] = -1;
  }
}

/** Throw unless `mask` (when given) has one flag for each of the `m` edges of `what`. */
function checkMask(caller: string, m: number, mask: ArrayLike<number> | undefined, what = 'the graph'): void {
  if (mask !== undefined && mask.length !== m) {
    throw new InvalidArgumentError(
      'mask',
      `${caller}: mask has ${mask.length} entries but ${what} has ${m} edges; pass one flag per edge.`,
    );
  }
}

/**
 * The edges of `g` (those flagged in `mask`) oriented from lower to higher (degree, index) rank, as
 * out-rows: out-degrees are then at most √(2m).
 */
function orient(g: TrussGraph, mask: ArrayLike<number> | undefined) {
  const { n, offsets, neighbors, edgeIds } = g;
  const outOffsets = new Uint32Array(n + 1);
  const deg = (i: number) => offsets[i + 1]! - offsets[i]!;
  const before = (u: number, v: number) => {
    const du = deg(u);
    const dv = deg(v);
    return du < dv || (du === dv && u < v);
  };
  for (let u = 0; u < n; u++) {
    let count = 0;
    const end = offsets[u + 1]!;
    for (let p = offsets[u]!; p < end; p++) {
      if ((mask === undefined || mask[edgeIds[p]!] !== 0) && before(u, neighbors[p]!)) count++;
    }
    outOffsets[u + 1] = outOffsets[u]! + count;
  }
  const outTotal = outOffsets[n]!;
  const outNeighbors = new Uint32Array(outTotal);
  const outEdges = new Uint32Array(outTotal);
  for (let u = 0, at = 0; u < n; u++) {
    const end = offsets[u + 1]!;
    for (let p = offsets[u]!; p < end; p++) {
      const v = neighbors[p]!;
      if ((mask === undefined || mask[edgeIds[p]!] !== 0) && before(u, v)) {
        outNeighbors[at] = v;
        outEdges[at] = edgeIds[p]!;
        at++;
      }
    }
  }
  return { outOffsets, outNeighbors, outEdges };
}

/** The triangles on every edge, as {@link edgeTriangles} returns them. */
export interface EdgeTriangles {
  /**
   * Start of each edge's triangles, length `m + 1`: edge `e` is in `offsets[e + 1] - offsets[e]`
   * triangles (its support).
   */
  offsets: Uint32Array;
  /**
   * Three numbers per triangle of each edge: for edge `e = {s, t}` (`s < t`, its `sources` and
   * `targets` entries) and its `i`-th triangle `{s, t, x}` (`i` in `offsets[e] .. offsets[e + 1] - 1`),
   * the third node `x` at `3i`, the edge `{s, x}` at `3i + 1` and the edge `{t, x}` at `3i + 2`.
   * Within each edge, ascending by third node.
   */
  entries: Uint32Array;
}

/**
 * Every triangle of the graph listed on each of its three edges (with `mask`, only edges `e` with
 * `mask[e] !== 0` and triangles made of such edges), ordered by third node, so that the triangles on
 * an edge are read without searching rows. Listed by the forward algorithm as {@link edgeSupport}
 * counts them; `support`, when given, must be that count (it saves the counting pass). O(m^1.5)
 * time plus the sort of each edge's triangles; 36 bytes per triangle.
 */
export function edgeTriangles(
  input: TrussGraph | AbstractGraph,
  mask?: ArrayLike<number>,
  support?: ArrayLike<number>,
): EdgeTriangles {
  const g = asTrussGraph(input);
  checkMask('edgeTriangles', g.m, mask);
  const { m, sources } = g;
  const counts = support ?? edgeSupport(g, mask);
  if (counts.length !== m) {
    throw new InvalidArgumentError(
      'support',
      `edgeTriangles: support has ${counts.length} entries but the graph has ${m} edges; pass edgeSupport of this graph and mask.`,
    );
  }
  const offsets = new Uint32Array(m + 1);
  for (let e = 0; e < m; e++) offsets[e + 1] = offsets[e]! + counts[e]!;
  const entries = new Uint32Array(3 * offsets[m]!);
  if (offsets[m] === 0) return { offsets, entries };
  const cursor = offsets.slice(0, m);
  /** Record triangle `{a, b, x}` on edge `ab`, given its edges `ax` and `bx`. */
  const put = (ab: number, a: number, x: number, ax: number, bx: number) => {
    const at = 3 * cursor[ab]!++;
    entries[at] = x;
    // Then {source, x} and {target, x}.
    if (sources[ab] === a) {
      entries[at + 1] = ax;
      entries[at + 2] = bx;
    } else {
      entries[at + 1] = bx;
      entries[at + 2] = ax;
    }
  };
  forEachTriangle(g, mask, (u, v, w, uv, uw, vw) => {
    put(uv, u, w, uw, vw);
    put(uw, u, v, uv, vw);
    put(vw, v, u, uv, uw);
  });
  for (let e = 0; e < m; e++) sortByThird(entries, offsets[e]!, offsets[e + 1]!);
  return { offsets, entries };
}

/** Sort the triangles `lo .. hi - 1` of {@link EdgeTriangles} by third node (distinct within an edge). */
function sortByThird(entries: Uint32Array, lo: number, hi: number): void {
  const d = hi - lo;
  if (d < 2) return;
  if (d <= 32) {
    for (let i = lo + 1; i < hi; i++) {
      const x = entries[3 * i]!;
      const f = entries[3 * i + 1]!;
      const h = entries[3 * i + 2]!;
      let j = i - 1;
      for (; j >= lo && entries[3 * j]! > x; j--) {
        entries[3 * j + 3] = entries[3 * j]!;
        entries[3 * j + 4] = entries[3 * j + 1]!;
        entries[3 * j + 5] = entries[3 * j + 2]!;
      }
      entries[3 * j + 3] = x;
      entries[3 * j + 4] = f;
      entries[3 * j + 5] = h;
    }
    return;
  }
  // Longer lists: a numeric sort of keys `x · d + position`, then the triangles moved into place.
  const keys = new Float64Array(d);
  for (let i = 0; i < d; i++) keys[i] = entries[3 * (lo + i)]! * d + i;
  keys.sort();
  const old = entries.slice(3 * lo, 3 * hi);
  for (let i = 0; i < d; i++) {
    const from = keys[i]! % d;
    entries.set(old.subarray(3 * from, 3 * from + 3), 3 * (lo + i));
  }
}

/**
 * The triangles of a subgraph, from those of a graph that contains it: the triangles of `triangles`
 * (an {@link edgeTriangles} listing) whose three edges are flagged in `mask`, in the same order,
 * and each flagged edge's count of them (its support inside the subgraph; 0 for unflagged edges).
 * Equal to `edgeTriangles(g, mask)` when `triangles` lists the triangles of a subgraph of `g` that
 * holds every flagged edge (a k-truss from a k'-truss, k' < k). O(triangles) time, no row search.
 * When every edge of a triangle is flagged (the 3-truss of a graph from its listing), the listing
 * given is returned as it is, not copied: listings are read, never written.
 */
export function edgeTrianglesWithin(
  triangles: EdgeTriangles,
  mask: ArrayLike<number>,
): { support: Uint32Array; triangles: EdgeTriangles } {
  const m = triangles.offsets.length - 1;
  checkMask('edgeTrianglesWithin', m, mask, 'the listing');
  const { offsets: from, entries: src } = triangles;
  let keepsAll = true;
  for (let e = 0; e < m && keepsAll; e++) if (mask[e] === 0 && from[e + 1]! > from[e]!) keepsAll = false;
  if (keepsAll) {
    const support = new Uint32Array(m);
    for (let e = 0; e < m; e++) if (mask[e] !== 0) support[e] = from[e + 1]! - from[e]!;
    return { support, triangles };
  }
  const support = new Uint32Array(m);
  for (let e = 0; e < m; e++) {
    if (mask[e] === 0) continue;
    let count = 0;
    for (let q = from[e]!; q < from[e + 1]!; q++) {
      if (mask[src[3 * q + 1]!] !== 0 && mask[src[3 * q + 2]!] !== 0) count++;
    }
    support[e] = count;
  }
  const offsets = new Uint32Array(m + 1);
  for (let e = 0; e < m; e++) offsets[e + 1] = offsets[e]! + support[e]!;
  const entries = new Uint32Array(3 * offsets[m]!);
  for (let e = 0, at = 0; e < m; e++) {
    if (support[e] === 0) continue;
    for (let q = from[e]!; q < from[e + 1]!; q++) {
      if (mask[src[3 * q + 1]!] === 0 || mask[src[3 * q + 2]!] === 0) continue;
      entries[at++] = src[3 * q]!;
      entries[at++] = src[3 * q + 1]!;
      entries[at++] = src[3 * q + 2]!;
    }
  }
  return { support, triangles: { offsets, entries } };
}
