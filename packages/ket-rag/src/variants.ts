/**
 * The solutions of KET-RAG §6.1 as presets of one configurable method: the paper implements the
 * baselines "within the KET-RAG framework", and so does this package.
 */
import { InvalidArgumentError } from '@grag/core';
import type { CoreSelection } from '@grag/keyword-bipartite';

/** Every variant, by CLI name. */
export const KET_RAG_VARIANTS = [
  'ket-rag-p',
  'ket-rag-u',
  'skeleton-rag',
  'keyword-rag',
  'ms-graph-rag',
  'hybrid-rag',
  'text-rag',
  'knng-rag',
] as const;

/** A variant of {@link KET_RAG_VARIANTS}. */
export type KetRagVariant = (typeof KET_RAG_VARIANTS)[number];

/**
 * The channel that fills the budget left by the knowledge-graph channel:
 * - `'keyword'`: the text-keyword bipartite graph (Algorithm 4, lines 2-4);
 * - `'dense'`: the chunks most similar to the query (Text-RAG);
 * - `'knn'`: those chunks and their KNN-graph neighbours (KNNG-RAG);
 * - `'entry'`: the sub-chunks found by the entry-point search alone (`entryPoints`: dense, BM25 or
 *   both), no graph: the "entry points only" baseline of the graph channels;
 * - `'none'`: no text channel; the knowledge graph gets the whole budget.
 */
export type TextChannel = 'keyword' | 'dense' | 'knn' | 'entry' | 'none';

/** What a variant fixes. */
export interface VariantPreset {
  /** Fraction of chunks whose graph is extracted (0: no knowledge graph, 1: all chunks). */
  beta: number;
  coreSelection: CoreSelection;
  /** Share λ of the budget for the knowledge-graph channel. */
  lambda: number;
  textChannel: TextChannel;
}

/**
 * The presets, as KET-RAG §6.1 defines each solution:
 * - `ket-rag-p` / `ket-rag-u`: skeleton on the β = 0.8 PageRank / uniformly sampled core chunks, plus
 *   the keyword channel, λ = 0.5;
 * - `skeleton-rag`: the skeleton only (λ = 1);
 * - `keyword-rag`: the bipartite graph only (λ = 0, no extraction);
 * - `ms-graph-rag`: the full knowledge graph (β = 1) and its local search only (λ = 1);
 * - `hybrid-rag`: the full knowledge graph and Text-RAG, half the budget each;
 * - `text-rag`: chunks by similarity to the query; `knng-rag`: those chunks and their KNN neighbours.
 */
export const KET_RAG_VARIANT_PRESETS: Readonly<Record<KetRagVariant, Readonly<VariantPreset>>> = {
  'ket-rag-p': { beta: 0.8, coreSelection: 'pagerank', lambda: 0.5, textChannel: 'keyword' },
  'ket-rag-u': { beta: 0.8, coreSelection: 'uniform', lambda: 0.5, textChannel: 'keyword' },
  'skeleton-rag': { beta: 0.8, coreSelection: 'pagerank', lambda: 1, textChannel: 'none' },
  'keyword-rag': { beta: 0, coreSelection: 'pagerank', lambda: 0, textChannel: 'keyword' },
  'ms-graph-rag': { beta: 1, coreSelection: 'pagerank', lambda: 1, textChannel: 'none' },
  'hybrid-rag': { beta: 1, coreSelection: 'pagerank', lambda: 0.5, textChannel: 'dense' },
  'text-rag': { beta: 0, coreSelection: 'pagerank', lambda: 0, textChannel: 'dense' },
  'knng-rag': { beta: 0, coreSelection: 'pagerank', lambda: 0, textChannel: 'knn' },
};

/** Whether `name` is a variant name. */
export function isKetRagVariant(name: unknown): name is KetRagVariant {
  return typeof name === 'string' && (KET_RAG_VARIANTS as readonly string[]).includes(name);
}

/**
 * The variant named `name`, read case-insensitively with `_` as `-` (`KET_RAG_P` is `ket-rag-p`).
 * @throws InvalidArgumentError naming the variants when `name` is not one.
 */
export function parseKetRagVariant(name: string): KetRagVariant {
  const normalized = name.trim().toLowerCase().replace(/_/g, '-');
  if (isKetRagVariant(normalized)) return normalized;
  throw new InvalidArgumentError(
    'variant',
    `ket-rag: unknown variant ${JSON.stringify(name)}; use one of ${KET_RAG_VARIANTS.join(', ')}.`,
  );
}
