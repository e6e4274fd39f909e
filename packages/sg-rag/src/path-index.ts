import {
  createStarGraph,
  createTrainingFreeEmbedder,
  type DominanceEmbedder,
  pathEmbedding,
} from '@grag/dominance-gnn';
import { RStarTree } from '@grag/rstar-index';
import { type Adjacency, enumeratePaths, type SgGraph } from './kg.js';

/** The path index of SG-RAG (Eq. 4): what path retrieval and label completion read. */
export interface PathIndexView {
  tree: RStarTree;
  /** Node indexes of every data path, flattened (`pathLength + 1` per path); path id = position. */
  pathNodes: Int32Array;
  pathLength: number;
  /** Dominance dimensions per node (d). */
  dimensions: number;
  embedder: DominanceEmbedder;
}

/** Input of {@link buildPathIndex}. */
export interface PathIndexInput {
  graph: SgGraph;
  adjacency: Adjacency;
  /** Edges per indexed path, l (1 or 2). */
  pathLength: 1 | 2;
  /** Dominance dimensions per node, d. */
  dominanceDimensions: number;
  /** Seed of the training-free label vectors. */
  seed: number;
  /** l = 2: middle nodes of higher degree are skipped. */
  maxMiddleDegree: number;
  /** R*-tree node capacity M. */
  nodeCapacity: number;
}

/** Result of {@link buildPathIndex}. */
export interface BuiltPathIndex {
  paths: PathIndexView;
  /** Middle nodes skipped for their degree (l = 2). */
  skippedMiddles: number;
}

/**
 * The path index I_l of SG-RAG (§4.2, Eq. 4): each node gets a training-free dominance embedding of
 * its star, labelled by node identity (o(v) = x(v) + Σ x(u) over its neighbours); every simple path
 * of l edges (reversed duplicates removed, see `enumeratePaths`) is stored in an R*-tree with the
 * concatenated dominance embeddings of its nodes (Eq. 16) as its box and its node indexes as its
 * label box (MBR_0). Entry ids are path positions in `pathNodes`.
 */
export function buildPathIndex(input: PathIndexInput): BuiltPathIndex {
  const { graph, pathLength, dominanceDimensions } = input;
  const labels = new Map(graph.ids.map((_, i) => [String(i), String(i)]));
  const star = createStarGraph(
    labels,
    graph.edges.map((e) => [String(e.a), String(e.b)] as const),
  );
  const embedder = createTrainingFreeEmbedder({ dimensions: dominanceDimensions, seed: input.seed });
  const rows = embedder.embedGraph(star);
  const enumeration = enumeratePaths(graph, input.adjacency, pathLength, input.maxMiddleDegree);
  const k = pathLength + 1;
  const tree = new RStarTree({
    dimensions: k * dominanceDimensions,
    labelDimensions: k,
    nodeCapacity: input.nodeCapacity,
  });
  for (let p = 0; p < enumeration.count; p++) {
    const nodes = Array.from(enumeration.nodes.subarray(p * k, p * k + k));
    // Star graph rows follow the label map's order, which is node order.
    tree.add(pathEmbedding(rows, nodes), undefined, nodes);
  }
  tree.finish();
  return {
    paths: { tree, pathNodes: enumeration.nodes, pathLength, dimensions: dominanceDimensions, embedder },
    skippedMiddles: enumeration.skippedMiddles,
  };
}
