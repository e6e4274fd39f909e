/**
 * HNSW semantic edges laid on a graph's arrays rather than through graphology: what
 * {@link addSemanticEdges} does to a graph, made as a new graph read from arrays (as a loaded index
 * is), without adding hundreds of thousands of graphology edges that the index's arrays are then
 * made from again.
 */
import { EDGE_KINDS, type HeteroGraphArrays } from './compact.js';
import { HeteroGraph } from './graph.js';

const HNSW_KIND = EDGE_KINDS.indexOf('hnsw');

/**
 * The graph `hetero` becomes when {@link addSemanticEdges} lays the pairs of `lists` on it, as a new
 * graph on arrays ({@link HeteroGraph.fromArrays}); `hetero` is left as it was. Same nodes, edges,
 * edge order, orientation and weights: a new pair is a new edge of kind `hnsw` and weight 1 after
 * the existing ones, in the order the lists give it; a pair already joined by a structural edge adds
 * 1 to that edge's weight; a pair gets one HNSW contribution however often it is listed. Pairs whose
 * ends are not nodes are counted as skipped, a node listed with itself is ignored.
 *
 * @param lists node key → neighbour keys (e.g. the level-0 links of an HNSW index).
 */
export function withSemanticEdges(
  hetero: HeteroGraph,
  lists: Iterable<readonly [string, Iterable<string>]>,
): { graph: HeteroGraph; added: number; reinforced: number; skipped: number } {
  const arrays = hetero.toArrays();
  const n = arrays.keys.length;
  const position = new Map<string, number>();
  arrays.keys.forEach((key, i) => {
    position.set(key, i);
  });
  const m = arrays.edgeA.length;
  // the edge of each unordered pair (smaller position · n + larger), existing and new
  const edgeOf = new Map<number, number>();
  const pair = (a: number, b: number) => (a < b ? a * n + b : b * n + a);
  for (let e = 0; e < m; e++) edgeOf.set(pair(arrays.edgeA[e]!, arrays.edgeB[e]!), e);
  const reinforcedEdges: number[] = [];
  const reinforcedSeen = new Set<number>();
  const newA: number[] = [];
  const newB: number[] = [];
  let skipped = 0;
  for (const [key, neighbors] of lists) {
    for (const other of neighbors) {
      if (other === key) continue;
      const a = position.get(key);
      const b = position.get(other);
      if (a === undefined || b === undefined) {
        skipped++;
        continue;
      }
      const e = edgeOf.get(pair(a, b));
      if (e === undefined) {
        edgeOf.set(pair(a, b), m + newA.length);
        newA.push(a);
        newB.push(b);
      } else if (e < m && arrays.edgeHnsw[e] === 0 && !reinforcedSeen.has(e)) {
        reinforcedSeen.add(e);
        reinforcedEdges.push(e);
      }
    }
  }
  const graph = HeteroGraph.fromArrays(appendEdges(arrays, newA, newB, reinforcedEdges));
  return { graph, added: newA.length, reinforced: reinforcedEdges.length, skipped };
}

/** Copies of the edge arrays of `arrays` with the new HNSW edges after the others and `reinforced` given their HNSW weight. */
function appendEdges(
  arrays: HeteroGraphArrays,
  newA: readonly number[],
  newB: readonly number[],
  reinforced: readonly number[],
): HeteroGraphArrays {
  const m = arrays.edgeA.length;
  const total = m + newA.length;
  const grown = <T extends Uint8Array | Uint32Array | Float64Array>(
    old: T,
    make: (length: number) => T,
  ): T => {
    const out = make(total);
    out.set(old);
    return out;
  };
  const edgeA = grown(arrays.edgeA, (l) => new Uint32Array(l));
  const edgeB = grown(arrays.edgeB, (l) => new Uint32Array(l));
  const edgeKinds = grown(arrays.edgeKinds, (l) => new Uint8Array(l));
  const edgeBaseWeight = grown(arrays.edgeBaseWeight, (l) => new Float64Array(l));
  const edgeHnsw = grown(arrays.edgeHnsw, (l) => new Uint8Array(l));
  const edgeWeight = arrays.edgeWeight && grown(arrays.edgeWeight, (l) => new Float64Array(l));
  for (const e of reinforced) {
    edgeHnsw[e] = 1;
    if (edgeWeight) edgeWeight[e]! += 1;
  }
  for (let i = 0; i < newA.length; i++) {
    const e = m + i;
    edgeA[e] = newA[i]!;
    edgeB[e] = newB[i]!;
    edgeKinds[e] = HNSW_KIND;
    edgeHnsw[e] = 1;
    if (edgeWeight) edgeWeight[e] = 1;
  }
  return {
    ...arrays,
    edgeA,
    edgeB,
    edgeKinds,
    edgeBaseWeight,
    edgeHnsw,
    ...(edgeWeight ? { edgeWeight } : {}),
  };
}
