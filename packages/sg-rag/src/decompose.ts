import {
  edgeKey,
  type NormalizedQueryGraph,
  type QueryPath,
  queryDegrees,
  queryNeighbours,
} from './query-graph.js';

/** Every simple path of `length` edges in the query graph (one orientation per path). */
function queryPathsOfLength(q: NormalizedQueryGraph, length: number): QueryPath[] {
  const adj = queryNeighbours(q);
  const out: QueryPath[] = [];
  const keys = new Set<string>();
  const walk = (path: number[]): void => {
    if (path.length === length + 1) {
      const rev = [...path].reverse();
      const key = (path[0]! <= path.at(-1)! ? path : rev).join(',');
      if (!keys.has(key)) {
        keys.add(key);
        out.push(path[0]! <= path.at(-1)! ? [...path] : rev);
      }
      return;
    }
    for (const n of adj[path.at(-1)!]!) if (!path.includes(n)) walk([...path, n]);
  };
  q.nodes.forEach((_, i) => {
    walk([i]);
  });
  return out;
}

function pathEdges(p: QueryPath): string[] {
  const out: string[] = [];
  for (let i = 0; i + 1 < p.length; i++) out.push(edgeKey(p[i]!, p[i + 1]!));
  return out;
}

/**
 * Cost-aware path decomposition (SG-RAG Algorithm 4). From the highest-degree query node, each
 * initial path of `length` edges seeds a plan that grows greedily — the next path is one connected
 * to the plan (when any is) that covers at least one uncovered edge with the least overlap, then the
 * least weight w(p) = −Σ deg(q_i) — until every query edge is covered; the cheapest plan (Σ w) wins.
 * Edges no path of `length` edges can cover (a component too small) get paths of one edge.
 */
export function decomposeQuery(q: NormalizedQueryGraph, length: number): QueryPath[] {
  const all = new Set(q.edges.filter((e) => e.source !== e.target).map((e) => edgeKey(e.source, e.target)));
  if (all.size === 0) return [];
  const deg = queryDegrees(q);
  const weight = (p: QueryPath) => -p.reduce((s, n) => s + deg[n]!, 0);
  let candidates = queryPathsOfLength(q, length);
  // Edges that no path of this length covers are covered by single-edge paths.
  const coverable = new Set(candidates.flatMap(pathEdges));
  for (const k of all) {
    if (!coverable.has(k)) {
      const [a, b] = k.split(' ').map(Number) as [number, number];
      candidates = [...candidates, [a, b]];
    }
  }
  let start = 0;
  deg.forEach((d, i) => {
    if (d > deg[start]!) start = i;
  });
  const initial = candidates.filter((p) => p.includes(start));
  let best: QueryPath[] = [];
  let bestCost = Number.POSITIVE_INFINITY;
  for (const first of initial.length > 0 ? initial : candidates) {
    const plan: QueryPath[] = [first];
    const covered = new Set(pathEdges(first));
    const planNodes = new Set(first);
    let cost = weight(first);
    while (covered.size < all.size) {
      let pick: QueryPath | undefined;
      let pickScore: [number, number, number] = [1, Number.POSITIVE_INFINITY, Number.POSITIVE_INFINITY];
      for (const p of candidates) {
        const edges = pathEdges(p);
        const fresh = edges.filter((e) => !covered.has(e)).length;
        if (fresh === 0) continue;
        const score: [number, number, number] = [
          p.some((n) => planNodes.has(n)) ? 0 : 1,
          edges.length - fresh,
          weight(p),
        ];
        if (
          score[0] < pickScore[0] ||
          (score[0] === pickScore[0] &&
            (score[1] < pickScore[1] || (score[1] === pickScore[1] && score[2] < pickScore[2])))
        ) {
          pick = p;
          pickScore = score;
        }
      }
      if (!pick) break;
      plan.push(pick);
      for (const e of pathEdges(pick)) covered.add(e);
      for (const n of pick) planNodes.add(n);
      cost += weight(pick);
    }
    if (cost < bestCost) {
      best = plan;
      bestCost = cost;
    }
  }
  return best;
}
