/**
 * What the two attention embedders (the paper's GAT and the monotone model) share: the checked
 * model (architecture, weights, label projector), a copy of the weights, the embedding of a whole
 * star graph and the serialized form. A subclass states its kind, whether it is monotone, and
 * `embed`.
 */
import {
  type DominanceEmbedder,
  type DominanceEmbedderKind,
  type EmbedGraphOptions,
  embedStarGraph,
  type SerializedDominanceEmbedder,
  type StarEmbeddings,
} from './embedder.js';
import type { StarGraph } from './graph.js';
import {
  type AttentionModel,
  type AttentionShape,
  attentionModel,
  copyWeights,
  type LabelFeatures,
  serializeAttentionModel,
  type Weights,
} from './layers.js';

/** The architecture options of both attention models (the GAT adds its own). */
export interface AttentionModelOptions {
  /** Output dimensions d. @default 2 (GNN-PE's vertex embedding dimension) */
  dimensions: number;
  /** Attention heads. @default 3 (GNN-PE code) */
  heads: number;
  /** Hidden units per head. @default 32 (GNN-PE code) */
  hidden: number;
  /** Length of the label input features F. @default 16 */
  featureDimensions: number;
  /**
   * Label → input features. Default: a seeded hashed vector per label (`hashedLabelFeatures`);
   * pass e.g. label embeddings of an LLM (SG-RAG §4.2). Not serialized: pass it again on load.
   */
  labelFeatures?: LabelFeatures;
  /** Seed of the initial weights and of the default label features. @default 2022 (GNN-PE code) */
  seed: number;
}

/** Defaults of {@link AttentionModelOptions}. */
export const ATTENTION_MODEL_DEFAULTS: Omit<AttentionModelOptions, 'labelFeatures'> = {
  dimensions: 2,
  heads: 3,
  hidden: 32,
  featureDimensions: 16,
  seed: 2022,
};

/** The sizes a model's weight shapes are read from. */
export type AttentionSizes = Omit<AttentionShape, 'seed'>;

/** The skeleton of {@link GatEmbedder} and {@link MonotoneEmbedder}. */
export abstract class AttentionEmbedder<O extends AttentionShape> implements DominanceEmbedder {
  abstract readonly kind: DominanceEmbedderKind;
  abstract readonly monotone: boolean;
  readonly upperBound = 1;
  readonly dimensions: number;
  /** The architecture (without the label features). */
  readonly options: Readonly<O>;
  /** Whether the label features are the seeded default (`false`: a caller's function). */
  readonly hashedFeatures: boolean;
  /** The checked model: its options, weights and label projector. */
  protected readonly model: AttentionModel<O>;

  /** Check the architecture and the weights as {@link attentionModel} does and set the model up. */
  protected constructor(
    defaults: O,
    options: Partial<O> & { labelFeatures?: LabelFeatures },
    weights: Record<string, ArrayLike<number>>,
    sizes: (o: O) => Record<string, number>,
    name: string,
  ) {
    const model = attentionModel(defaults, options, weights, sizes, name);
    this.model = model;
    this.options = model.options;
    this.dimensions = model.options.dimensions;
    this.hashedFeatures = model.hashedFeatures;
  }

  /** A copy of the weights (as stored: the values the model reads them from). */
  weights(): Weights {
    return copyWeights(this.model.weights);
  }

  abstract embed(centre: string, neighbours: readonly string[]): Float32Array;

  embedGraph(graph: StarGraph, options?: Partial<EmbedGraphOptions>): StarEmbeddings {
    return embedStarGraph(this, graph, options);
  }

  toJSON(): SerializedDominanceEmbedder {
    return serializeAttentionModel(this, this.model);
  }
}
