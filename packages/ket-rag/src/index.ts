/**
 * @grag/ket-rag: KET-RAG (Huang et al. 2025) — a knowledge-graph skeleton extracted from the
 * PageRank core chunks plus a text-keyword bipartite graph over all chunks, searched by two channels —
 * with the baselines and ablations of its evaluation as variants.
 */
export { createKetRag, ketRag, ketRagVariants } from './method.js';
export {
  type BudgetSplit,
  KET_RAG_DEFAULTS,
  KET_RAG_PAPER_SETTINGS,
  KET_RAG_PRESET_OPTIONS,
  KET_RAG_PRESETS,
  type KetRagOptions,
  type KetRagPreset,
  type KetRagRetrieveOptions,
  type KetRagSettings,
  resolveKetRagOptions,
} from './options.js';
export type {
  KetRagEntryIndex,
  KetRagIndex,
  KetRagKeywordIndex,
  KetRagSkeleton,
  KetRagStats,
  KetRagUpdateState,
  StoredExtraction,
} from './types.js';
export {
  isKetRagVariant,
  KET_RAG_VARIANT_PRESETS,
  KET_RAG_VARIANTS,
  type KetRagVariant,
  parseKetRagVariant,
  type TextChannel,
  type VariantPreset,
} from './variants.js';
