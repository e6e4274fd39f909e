/**
 * Helpers shared by the benchmark scripts, re-exported from `@grag/eval` (SQuAD normalization,
 * Coverage, Recall@k, nearest-rank percentiles, the dataset loader, the machine description).
 */
export {
  covers,
  loadQaDataset,
  machine,
  mean,
  normalizeAnswer,
  percentile,
  type QaDataset,
  type QaQuestion,
  recallAt,
} from '@grag/eval';
