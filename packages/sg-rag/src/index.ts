export { type Assembly, type AssemblyInput, assembleSubgraphs } from './assemble.js';
export { decomposeQuery } from './decompose.js';
export {
  createDominanceModel,
  type DominanceModel,
  type DominanceModelOptions,
  starGraphOf,
} from './dominance.js';
export {
  type Adjacency,
  adjacencyOf,
  edgeSentences,
  enumeratePaths,
  factSentence,
  graphFromExtractions,
  graphFromTriples,
  type PathEnumeration,
  pairKey,
  type SgEdge,
  type SgGraph,
  type Triple,
} from './kg.js';
export {
  type Combinations,
  completeLabels,
  type LabelCompletion,
  type LabelCompletionInput,
  labelCombinations,
} from './labels.js';
export { type MatchInput, type MatchResult, matchQueryGraph } from './match.js';
export { createSgRag, SG_RAG_FORMAT_VERSION, sgRag } from './method.js';
export { coverageAnswers, type GatherInput, gatherEdges } from './neighbourhood.js';
export {
  type DominanceEmbedderChoice,
  isDominanceEmbedder,
  SG_RAG_DEFAULTS,
  SG_RAG_RETRIEVE_DEFAULTS,
  type SgRagIndexOptions,
  type SgRagMode,
  type SgRagOptions,
  type SgRagQueryOptions,
  type SgRagRetrieveOptions,
  type SgRagSettings,
} from './options.js';
export {
  type BuiltPathIndex,
  buildPathIndex,
  type PathIndexInput,
  type PathIndexView,
} from './path-index.js';
export { queryPathEmbedding, retrievePath } from './path-search.js';
export type { Embedding, NormalizedQueryGraph, PathCandidate, QueryPath } from './query-graph.js';
export { type RankedMatch, type RankMatchesInput, rankMatches } from './rank.js';
export type { KeptChunk, KeptExtraction, SgRagIndex, SgRagUpdateState } from './types.js';
