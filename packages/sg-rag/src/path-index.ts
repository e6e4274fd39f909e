import { InvalidArgumentError } from '@grag/core';
import {
  createTrainingFreeEmbedder,
  type DominanceEmbedder,
  pathEmbedding,
  type StarEmbeddings,
} from '@grag/dominance-gnn';
import { RStarTree } from '@grag/rstar-index';
import { starGraphOf } from './dominance.js';
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
  /** Seed of the training-free label vectors (when no `embedder` is given). */
  seed: number;
  /**
   * The dominance embedder (default: the training-free one with `dominanceDimensions`, `seed`);
   * its `dimensions` must equal `dominanceDimensions`.
   */
  embedder?: DominanceEmbedder;
  /** Its data-side rows of the graph's star graph (node order), when already computed. */
  rows?: StarEmbeddings;
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
 * The path index I_l of SG-RAG (§4.2, Eq. 4): each node gets a dominance embedding of its star,
 * labelled by node identity (by default the training-free o(v) = x(v) + Σ x(u) over its
 * neighbours; any `embedder` fits); every simple path
 * of l edges (reversed duplicates removed, see `enumeratePaths`) is stored in an R*-tree with the
 * concatenated dominance embeddings of its nodes (Eq. 16) as its box and its node indexes as its
 * label box (MBR_0). Entry ids are path positions in `pathNodes`.
 */
export function buildPathIndex(input: PathIndexInput): BuiltPathIndex {
  const { graph, pathLength, dominanceDimensions } = input;
  const embedder =
    input.embedder ?? createTrainingFreeEmbedder({ dimensions: dominanceDimensions, seed: input.seed });
  if (embedder.dimensions !== dominanceDimensions) {
    throw new InvalidArgumentError(
      'embedder',
      `buildPathIndex: the embedder has ${embedder.dimensions} dimensions, dominanceDimensions is ${dominanceDimensions}; pass the same value.`,
    );
  }
  const rows = input.rows ?? embedder.embedGraph(starGraphOf(graph));
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
