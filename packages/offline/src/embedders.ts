/**
 * Choosing an offline embedder, and the offline providers in one call.
 */
import {
  type Embedder,
  type FittableEmbedder,
  InvalidArgumentError,
  type TaskSuite,
  type TextAnalyzer,
} from '@grag/core';
import { SifGloveEmbedder, type SifGloveOptions } from './glove.js';
import { createOfflineTasks } from './tasks.js';
import type { OfflineTasksOptions } from './tasks-options.js';
import { createWinkTextAnalyzer } from './text-analyzer.js';
import { HashedTfidfEmbedder, type HashedTfidfOptions } from './tfidf-embedder.js';

/** The offline embedders: hashed TF-IDF (no dependency) or SIF on GloVe (optional package). */
export type OfflineEmbedderKind = 'tfidf' | 'glove';

/**
 * The embedder `createOfflineEmbedder()` makes when no kind is given. A benchmark decides it (see
 * the README section "Which embedder is the default").
 */
export const DEFAULT_OFFLINE_EMBEDDER: OfflineEmbedderKind = 'tfidf';

/** Model ids accepted by {@link createOfflineEmbedder} in place of a kind (as written in manifests). */
const MODEL_ID_KINDS: Readonly<Record<string, OfflineEmbedderKind>> = {
  tfidf: 'tfidf',
  glove: 'glove',
  'hashed-tfidf-v1': 'tfidf',
  'sif-glove-sg-100d': 'glove',
};

/**
 * Create an offline embedder: `'tfidf'` ({@link HashedTfidfEmbedder}) or `'glove'`
 * ({@link SifGloveEmbedder}). The model ids `'hashed-tfidf-v1'` and `'sif-glove-sg-100d'` are accepted
 * as their kinds, so a stored `modelId` recreates its embedder (restore the fitted state after).
 */
export function createOfflineEmbedder(
  kind: 'tfidf',
  options?: Partial<HashedTfidfOptions>,
): HashedTfidfEmbedder;
export function createOfflineEmbedder(kind: 'glove', options?: Partial<SifGloveOptions>): SifGloveEmbedder;
export function createOfflineEmbedder(
  kind?: OfflineEmbedderKind | (string & {}),
  options?: Partial<HashedTfidfOptions> | Partial<SifGloveOptions>,
): FittableEmbedder;
export function createOfflineEmbedder(
  kind: OfflineEmbedderKind | (string & {}) = DEFAULT_OFFLINE_EMBEDDER,
  options: Partial<HashedTfidfOptions> | Partial<SifGloveOptions> = {},
): FittableEmbedder {
  const resolved = Object.hasOwn(MODEL_ID_KINDS, kind) ? MODEL_ID_KINDS[kind] : undefined;
  if (resolved === 'tfidf') return new HashedTfidfEmbedder(options as Partial<HashedTfidfOptions>);
  if (resolved === 'glove') return new SifGloveEmbedder(options as Partial<SifGloveOptions>);
  throw new InvalidArgumentError(
    'kind',
    `createOfflineEmbedder: unknown kind ${JSON.stringify(kind)}; use 'tfidf' or 'glove' (or the model ids 'hashed-tfidf-v1', 'sif-glove-sg-100d').`,
  );
}

/**
 * The fitted embedder a `state()` describes: a {@link HashedTfidfEmbedder} with the state's options,
 * or a {@link SifGloveEmbedder} (vectors still load on first use). `options` go to the GloVe
 * embedder (e.g. `vectorsPath`).
 */
export function restoreOfflineEmbedder(
  state: unknown,
  options: Partial<SifGloveOptions> = {},
): FittableEmbedder {
  const kind = (state as { kind?: unknown } | null)?.kind;
  if (kind === 'hashed-tfidf') return HashedTfidfEmbedder.fromState(state);
  if (kind === 'sif-glove') {
    const s = state as { a?: unknown; priorTokens?: unknown };
    const embedder = new SifGloveEmbedder({
      ...options,
      ...(typeof s.a === 'number' ? { a: s.a } : {}),
      ...(typeof s.priorTokens === 'number' ? { priorTokens: s.priorTokens } : {}),
    });
    embedder.restore(state);
    return embedder;
  }
  throw new InvalidArgumentError(
    'state',
    `restoreOfflineEmbedder: unknown state kind ${JSON.stringify(kind)}; pass the value an offline embedder's state() returned.`,
  );
}

/** Options of {@link createOfflineProviders}. */
export interface OfflineProvidersOptions {
  /** An embedder kind or an embedder instance. @default DEFAULT_OFFLINE_EMBEDDER */
  embedder?: OfflineEmbedderKind | Embedder;
  /** Options of the embedder when `embedder` is a kind. */
  embedderOptions?: Partial<HashedTfidfOptions> | Partial<SifGloveOptions>;
  /** Options of the heuristic tasks (their `embedder` is the one created here). */
  tasks?: Partial<Omit<OfflineTasksOptions, 'embedder'>>;
}

/**
 * The offline task suite, an offline embedder (the tasks score relevance with it) and the wink text
 * analyzer ({@link createWinkTextAnalyzer}): spread into `createBuildContext` for a context that
 * builds every grag method with no network.
 */
export function createOfflineProviders(options: OfflineProvidersOptions = {}): {
  tasks: TaskSuite;
  embedder: Embedder;
  textAnalyzer: TextAnalyzer;
} {
  const embedder =
    typeof options.embedder === 'object' && options.embedder !== null
      ? options.embedder
      : createOfflineEmbedder(options.embedder ?? DEFAULT_OFFLINE_EMBEDDER, options.embedderOptions);
  return {
    tasks: createOfflineTasks({ ...options.tasks, embedder }),
    embedder,
    textAnalyzer: createWinkTextAnalyzer(),
  };
}
