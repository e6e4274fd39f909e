/**
 * `@grag/eval`: dataset loaders, metrics, model judges, the benchmark runner and reports for grag.
 *
 * @packageDocumentation
 */
export { mapLimit } from './concurrency.js';
export {
  entityDocId,
  type KgDocumentOptions,
  type KgLoadOptions,
  type KgTriple,
  type KgTriples,
  kgToDocuments,
  loadKgTriples,
  relationHeadType,
  relationPhrase,
} from './datasets/kg.js';
export { type DatasetLayout, detectLayout, loadDataset } from './datasets/load.js';
export { loadBookDataset, loadInfiniteBench, loadNovelQa } from './datasets/longdoc.js';
export { loadMultihopQa, type MultihopLoadOptions } from './datasets/multihop.js';
export {
  type FolderCorpus,
  loadFolderDataset,
  loadGragDataset,
  loadQaDataset,
  loadUserDataset,
  type UserDatasetPaths,
} from './datasets/qa.js';
export { passageId, readRecords, type SourceRecord } from './datasets/read.js';
export type {
  EvalDataset,
  EvalQuestion,
  LoadOptions,
  QaDataset,
  QaQuestion,
  QuestionFormat,
  SkippedRecord,
} from './datasets/types.js';
export {
  ERQA_DEFAULTS,
  type ErqaConstraint,
  type ErqaOptions,
  type ErqaQuestion,
  type ErqaResult,
  generateErqa,
  writeErqaDataset,
} from './erqa.js';
export type { IndexStoreFor } from './index-source.js';
export {
  type CorrectnessJudgment,
  type EmpowermentScore,
  empowermentScores,
  JUDGE_DEFAULTS,
  type JudgeOptions,
  judgeCorrectness,
  judgePair,
  type PairJudgment,
  type PairShowing,
  parseCorrectness,
  parsePairwiseVerdict,
  parseWinner,
  type Slot,
  type WinRates,
  winRates,
} from './judges/judges.js';
export * from './judges/prompts.js';
export {
  coverage,
  covers,
  type EntityMetrics,
  entityMetrics,
  exactMatch,
  multipleChoiceAccuracy,
  type PrecisionRecallF1,
  parseEntityList,
  pickOption,
  rougeL,
  rougeTokens,
  tokenF1,
} from './metrics/answer.js';
export {
  chunkPassageMap,
  type PassageSpan,
  type RankedPassagesOptions,
  rankedPassages,
  recallAt,
} from './metrics/retrieval.js';
export {
  adjacencyOf,
  averagePairwiseSimilarity,
  type EdgeList,
  type NeighborFn,
  qrScore,
  subgraphDensity,
  subgraphDiameter,
} from './metrics/subgraph.js';
export { answerTokens, NORMALIZE_DEFAULTS, type NormalizeOptions, normalizeAnswer } from './normalize.js';
export { answerMetrics, answerQuery } from './question-run.js';
export { type Random, randomInt, seededRandom, shuffle } from './random.js';
export {
  buildStagesTable,
  jsonReport,
  METRIC_COLUMNS,
  markdownReport,
  methodsTable,
  QUALITY_PREFERENCE,
  qualityMetric,
  type ReportFiles,
  reportCharts,
  writeReports,
} from './report/report.js';
export {
  type BarSpec,
  barChart,
  CHART_DEFAULTS,
  type ChartFrame,
  escapeXml,
  niceTicks,
  PALETTE,
  type ScatterPoint,
  type ScatterSpec,
  scatterChart,
} from './report/svg.js';
export { datasetFingerprint, providerFingerprint } from './run-records.js';
export {
  type BuildRecord,
  type EvalRun,
  type JudgeSettings,
  type MethodSpec,
  type MethodSummary,
  type QuestionResult,
  RUN_DEFAULTS,
  type RunManifest,
  type RunOptions,
} from './run-types.js';
export { runEval } from './runner.js';
export { type GitState, gitState, type MachineInfo, machine, mean, peakRssMiB, percentile } from './stats.js';
export { addSnapshots, modelTokens } from './usage.js';
