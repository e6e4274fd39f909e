/**
 * Path-index helpers of the SG-RAG benchmark (benchmarks/sg-rag.ts): the dominance pruning power of
 * an l = 1 index, and the uncapped l = 2 path index restricted to the paths a star query can match.
 */
import { pathEmbedding } from '@grag/dominance-gnn';
import type { ErqaQuestion } from '@grag/eval';
import { RStarTree } from '@grag/rstar-index';
import { type PathIndexView, type SgRagIndex, starGraphOf } from '@grag/sg-rag';

/** Indexed paths sampled (seeded) per query path for the dominance pruning power. */
export const PRUNING_SAMPLE = 20000;

/** Dominance-only pruning power of an index (see {@link pathPruning}). */
export interface Pruning {
  power: number;
  compared: number;
  falseNegatives: number;
}

/**
 * Dominance-only pruning power of an l = 1 index: for every question, each query path [X, c]
 * (X bound to the gold answer, stars of the query graph) is compared with PRUNING_SAMPLE indexed
 * paths drawn with a fixed seed (both orientations); the share of the non-identical ones whose
 * box does not dominate o(p_q) is what the dominance test alone would prune (labels ignored).
 * False negatives: the true path [X, c] rejected.
 */
export function pathPruning(index: SgRagIndex, questions: readonly ErqaQuestion[]): Pruning {
  const { tree, embedder, pathNodes } = index.paths;
  const at = new Map(index.graph.ids.map((id, i) => [id, i]));
  let seed = 12345;
  const rand = () => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return seed / 2147483648;
  };
  const sample = Array.from({ length: PRUNING_SAMPLE }, () => Math.floor(rand() * tree.size));
  const boxes = sample.map((id) => tree.box(id).max.slice());
  let compared = 0;
  let pruned = 0;
  let falseNegatives = 0;
  const dominated = (o: Float32Array, box: ArrayLike<number>) => {
    for (let i = 0; i < o.length; i++) if (o[i]! > box[i]!) return false;
    return true;
  };
  for (const q of questions) {
    const x = at.get(q.meta.answerIds[0] ?? '');
    if (x === undefined) continue;
    const cs = q.meta.constraints.map((c) => at.get(c.entity)).filter((c) => c !== undefined);
    const ox = embedder.embed(String(x), cs.map(String));
    for (const c of cs) {
      const oc = embedder.embed(String(c), [String(x)]);
      const fwd = new Float32Array([...ox, ...oc]);
      const rev = new Float32Array([...oc, ...ox]);
      sample.forEach((id, s) => {
        const a = pathNodes[2 * id]!;
        const b = pathNodes[2 * id + 1]!;
        const ok = dominated(fwd, boxes[s]!) || dominated(rev, boxes[s]!);
        if ((a === x && b === c) || (a === c && b === x)) {
          if (!ok) falseNegatives++;
          return;
        }
        compared++;
        if (!ok) pruned++;
      });
      // The true path itself, wherever it is.
      const own = index.adjacency.edgeOf[x]!.get(c);
      if (own !== undefined && !dominated(fwd, tree.box(own).max) && !dominated(rev, tree.box(own).max)) {
        falseNegatives++;
      }
    }
  }
  return { power: compared ? pruned / compared : 0, compared, falseNegatives };
}

/**
 * The uncapped l = 2 path index of `index`'s whole graph, restricted to the 2-paths [a, m, b] whose
 * two ends are both in `ends` (any middle m, no degree cap). A star query's 2-paths are c–X–c' with
 * c, c' its normalized constraint nodes, so for questions whose normalized constraint nodes are all
 * in `ends` every path search and label completion finds exactly what the full uncapped index
 * (66.8M paths on FB15k-237) would: the entries that can match are the same, and the R*-tree
 * searches are exhaustive over the entries that pass their per-entry tests. The graph, the label
 * vocabulary and the dominance rows stay the whole KG's (rows: `index.paths.embedder` on the whole
 * graph's stars, as the build computes them for the training-free embedder).
 */
export function constraintPathIndex(
  index: SgRagIndex,
  ends: ReadonlySet<number>,
  nodeCapacity: number,
): PathIndexView {
  const { neighbours } = index.adjacency;
  const { embedder } = index.paths;
  const endsOf = new Map<number, number[]>();
  for (const c of [...ends].sort((a, b) => a - b)) {
    for (const m of neighbours[c]!) {
      const list = endsOf.get(m);
      if (list) list.push(c);
      else endsOf.set(m, [c]);
    }
  }
  const flat: number[] = [];
  for (const m of [...endsOf.keys()].sort((a, b) => a - b)) {
    const cs = endsOf.get(m)!;
    for (let i = 0; i < cs.length; i++) {
      // Ends ascend, so [cs[i], m, cs[j]] is the orientation `enumeratePaths` keeps.
      for (let j = i + 1; j < cs.length; j++) flat.push(cs[i]!, m, cs[j]!);
    }
  }
  const rows = embedder.embedGraph(starGraphOf(index.graph));
  const d = embedder.dimensions;
  const tree = new RStarTree({ dimensions: 3 * d, labelDimensions: 3, nodeCapacity });
  for (let p = 0; p < flat.length; p += 3) {
    const nodes = flat.slice(p, p + 3);
    tree.add(pathEmbedding(rows, nodes), undefined, nodes);
  }
  tree.finish();
  return { tree, pathNodes: Int32Array.from(flat), pathLength: 2, dimensions: d, embedder };
}
