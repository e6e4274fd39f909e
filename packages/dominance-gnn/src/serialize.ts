import { InvalidArgumentError } from '@grag/core';
import type { DominanceEmbedder, SerializedDominanceEmbedder } from './embedder.js';
import { GatEmbedder, type GatModelOptions } from './gat.js';
import type { LabelFeatures } from './layers.js';
import { MonotoneEmbedder, type MonotoneModelOptions } from './monotone.js';
import { TrainingFreeEmbedder } from './training-free.js';

/** Options of {@link loadDominanceEmbedder}. */
export interface LoadEmbedderOptions {
  /** The label features the model was trained with, when they were not the default hashed ones. */
  labelFeatures?: LabelFeatures;
}

/**
 * Rebuild an embedder from its `toJSON()` output (e.g. read back from an index directory).
 *
 * @throws InvalidArgumentError when `json` is not a serialized embedder of a known kind and
 *   version, or when the model used custom label features and none are passed.
 */
export function loadDominanceEmbedder(json: unknown, options: LoadEmbedderOptions = {}): DominanceEmbedder {
  const s = json as Partial<SerializedDominanceEmbedder> | null;
  if (s === null || typeof s !== 'object' || s.format !== 'grag-dominance-embedder') {
    throw new InvalidArgumentError(
      'json',
      'loadDominanceEmbedder: not a serialized dominance embedder (expected format "grag-dominance-embedder").',
    );
  }
  if (s.version !== 1) {
    throw new InvalidArgumentError(
      'json',
      `loadDominanceEmbedder: format version ${String(s.version)} is not supported (this release reads version 1).`,
    );
  }
  const config = s.config ?? {};
  if (s.kind === 'training-free') {
    return new TrainingFreeEmbedder({ dimensions: s.dimensions, seed: s.seed });
  }
  if (s.kind !== 'gat' && s.kind !== 'monotone-gat') {
    throw new InvalidArgumentError(
      'json',
      `loadDominanceEmbedder: unknown embedder kind "${String(s.kind)}".`,
    );
  }
  if (config.labelFeatures === 'custom' && options.labelFeatures === undefined) {
    throw new InvalidArgumentError(
      'labelFeatures',
      `loadDominanceEmbedder: this ${s.kind} model was trained with custom label features — pass the same \`labelFeatures\`.`,
    );
  }
  const { labelFeatures: _mode, ...numbers } = config;
  const model = {
    ...numbers,
    dimensions: s.dimensions,
    seed: s.seed,
    ...(options.labelFeatures ? { labelFeatures: options.labelFeatures } : {}),
  };
  const weights = s.weights ?? {};
  return s.kind === 'gat'
    ? new GatEmbedder(model as Partial<GatModelOptions>, weights)
    : new MonotoneEmbedder(model as Partial<MonotoneModelOptions>, weights);
}
