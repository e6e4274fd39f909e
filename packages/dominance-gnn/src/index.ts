export {
  ATTENTION_MODEL_DEFAULTS,
  AttentionEmbedder,
  type AttentionModelOptions,
  type AttentionSizes,
} from './attention-embedder.js';
export * from './embedder.js';
export * from './gat.js';
export * from './graph.js';
export type { LabelFeatures, Weights } from './layers.js';
export * from './monotone.js';
export * from './pruning.js';
export { hashedLabelFeatures } from './random.js';
export * from './serialize.js';
export * from './train-gat.js';
export * from './train-monotone.js';
export * from './training-free.js';
export type { EpochInfo, TrainingReport, TrainingVertices, TrainLoopOptions } from './training-loop.js';
export * from './verify.js';
