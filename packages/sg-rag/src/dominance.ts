import {
  createStarGraph,
  createTrainingFreeEmbedder,
  type DominanceEmbedder,
  type StarEmbeddings,
  type StarGraph,
  type TrainingReport,
  trainGatEmbedder,
  trainMonotoneEmbedder,
} from '@grag/dominance-gnn';
import type { SgGraph } from './kg.js';
import type { SgRagIndexOptions } from './options.js';

/** Training samples per training vertex: sub-stars for the GAT, negatives for the monotone model. */
export const TRAIN_SAMPLES_PER_VERTEX = 4;

/** The dominance model of an index: the embedder, its data-side rows and what training did. */
export interface DominanceModel {
  embedder: DominanceEmbedder;
  /** Data-side star embeddings, one row per data node (node order). */
  rows: StarEmbeddings;
  /** The training report of a trained embedder (`'gat'`, `'monotone'`). */
  training: TrainingReport | undefined;
}

/**
 * The star graph of the data graph with node identities as labels (SG-RAG's label keys are node
 * ids, so a star's labels are its nodes); rows follow node order.
 */
export function starGraphOf(graph: SgGraph): StarGraph {
  const labels = new Map(graph.ids.map((_, i) => [String(i), String(i)]));
  return createStarGraph(
    labels,
    graph.edges.map((e) => [String(e.a), String(e.b)] as const),
  );
}

/** Options of {@link createDominanceModel}. */
export type DominanceModelOptions = Pick<
  SgRagIndexOptions,
  'dominanceDimensions' | 'dominanceEpochs' | 'dominanceTrainVertices' | 'seed'
> & {
  /** A name, or an embedder object to use as it is. */
  embedder: 'training-free' | 'gat' | 'monotone' | DominanceEmbedder;
  signal?: AbortSignal;
};

/**
 * The dominance embedder of SG-RAG's index (Algorithm 1, lines 4–5) and the data-side embedding of
 * every node's star: training-free (no training), the paper's GAT or the monotone model (trained
 * on `star`, seeded with `seed`: `dominanceEpochs` epochs over at most `dominanceTrainVertices`
 * vertices of degree ≤ 10, {@link TRAIN_SAMPLES_PER_VERTEX} samples each, hashed node-id label
 * features), or a given embedder. The GAT's data
 * rows get the closure correction (nodes with more than 1024 sub-stars saturate to 1).
 */
export async function createDominanceModel(
  star: StarGraph,
  options: DominanceModelOptions,
): Promise<DominanceModel> {
  const { embedder: choice, dominanceDimensions: dimensions, seed } = options;
  const train = {
    dimensions,
    seed,
    epochs: options.dominanceEpochs,
    maxTrainVertices: options.dominanceTrainVertices,
    ...(options.signal ? { signal: options.signal } : {}),
  };
  // 4 sub-stars (GAT) or 4 negatives (monotone) per vertex, as benchmarks/dominance-gnn.ts trains.
  const perVertex = {
    subStarsPerVertex: TRAIN_SAMPLES_PER_VERTEX,
    negativesPerVertex: TRAIN_SAMPLES_PER_VERTEX,
  };
  let embedder: DominanceEmbedder;
  let training: TrainingReport | undefined;
  if (choice === 'training-free') embedder = createTrainingFreeEmbedder({ dimensions, seed });
  else if (choice === 'gat')
    ({ embedder, report: training } = await trainGatEmbedder(star, {
      ...train,
      subStarsPerVertex: perVertex.subStarsPerVertex,
    }));
  else if (choice === 'monotone')
    ({ embedder, report: training } = await trainMonotoneEmbedder(star, {
      ...train,
      negativesPerVertex: perVertex.negativesPerVertex,
    }));
  else embedder = choice;
  return { embedder, rows: embedder.embedGraph(star), training };
}
