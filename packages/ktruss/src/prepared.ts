/**
 * A maximal k-truss prepared for peeling (its supports, truss-only rows and triangles), in a module
 * of its own so that the peeling modules and the shortcut import it without an import cycle.
 */
import type { KTruss } from './decomposition.js';
import type { Pinning } from './phase-bound.js';
import { type EdgeTriangles, edgeSupport, edgeTriangles, edgeTrianglesWithin } from './triangles.js';

/**
 * A maximal k-truss prepared for peeling: supports inside it, adjacency rows of its edges only, and
 * its triangles on each edge.
 */
export interface PreparedTruss {
  truss: KTruss;
  /** Support of every edge of the graph inside the truss (0 outside it). */
  support: Uint32Array;
  /** Row starts over all nodes of the graph (length n + 1); rows hold the truss edges only. */
  offsets: Uint32Array;
  neighbors: Uint32Array;
  edgeIds: Uint32Array;
  /**
   * The triangles inside the truss on each of its edges ({@link edgeTriangles} of the truss), so
   * that peeling reads the triangles at a node or an edge without searching rows. Made by
   * {@link prepareTruss}; made (and set here) by `peelTruss` when absent.
   */
  triangles?: EdgeTriangles;
  /** What pins nodes during the QRScore phase (made on first use by the shortcut, see `QPeelOptions.shortcut`). */
  pinning?: Pinning;
}

/**
 * Supports, truss-only adjacency rows and the triangles on each edge of a maximal k-truss: what
 * peeling it needs. O(m^1.5) time; 36 bytes per triangle of the truss.
 */
export function prepareTruss(truss: KTruss): PreparedTruss {
  const g = truss.graph;
  const mask = trussMask(truss);
  const support = edgeSupport(g, mask);
  return { truss, support, ...trussRows(truss), triangles: edgeTriangles(g, mask, support) };
}

/**
 * {@link prepareTruss} of `truss` from the triangles of a smaller k's truss on the same graph (which
 * holds it): its triangles are those whose edges are all in `truss`, so they are filtered rather
 * than listed again. The same result as `prepareTruss(truss)`; O(triangles of the smaller truss).
 */
export function prepareTrussWithin(lower: EdgeTriangles, truss: KTruss): PreparedTruss {
  const mask = trussMask(truss);
  return { truss, ...edgeTrianglesWithin(lower, mask), ...trussRows(truss) };
}

/**
 * Adjacency rows over all nodes of the graph that hold the truss's edges only (each edge in the rows
 * of both its ends, in edge-list order): the rows a peel scans. O(n + m).
 */
export function trussRows(truss: KTruss): Pick<PreparedTruss, 'offsets' | 'neighbors' | 'edgeIds'> {
  const g = truss.graph;
  const offsets = new Uint32Array(g.n + 1);
  for (const e of truss.edges) {
    offsets[g.sources[e]! + 1]!++;
    offsets[g.targets[e]! + 1]!++;
  }
  for (let i = 0; i < g.n; i++) offsets[i + 1]! += offsets[i]!;
  const neighbors = new Uint32Array(2 * truss.edges.length);
  const edgeIds = new Uint32Array(2 * truss.edges.length);
  const cursor = offsets.slice(0, g.n);
  for (const e of truss.edges) {
    const s = g.sources[e]!;
    const t = g.targets[e]!;
    let at = cursor[s]!++;
    neighbors[at] = t;
    edgeIds[at] = e;
    at = cursor[t]!++;
    neighbors[at] = s;
    edgeIds[at] = e;
  }
  return { offsets, neighbors, edgeIds };
}

/** The triangles of `prepared` (see {@link PreparedTruss.triangles}), listed and set on first use. */
export function trianglesOf(prepared: PreparedTruss): EdgeTriangles {
  prepared.triangles ??= edgeTriangles(prepared.truss.graph, trussMask(prepared.truss), prepared.support);
  return prepared.triangles;
}

/** 1 for each edge of the graph in `truss`, 0 for the others. */
function trussMask(truss: KTruss): Uint8Array {
  const mask = new Uint8Array(truss.graph.m);
  for (const e of truss.edges) mask[e] = 1;
  return mask;
}
