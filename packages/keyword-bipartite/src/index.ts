/**
 * @grag/keyword-bipartite: the index structures of KET-RAG (Huang et al. 2025) — the KNN chunk
 * graph, PageRank core-chunk selection, sub-chunk splitting, the text-keyword bipartite graph and its
 * keyword retrieval channel.
 */
export {
  BIPARTITE_DEFAULTS,
  type BipartiteOptions,
  type BipartiteSentence,
  type BipartiteUnit,
  buildKeywordBipartite,
  embedKeywordBipartite,
  type KeywordBipartite,
  keywordDescription,
  keywordVectors,
  keywordVectorsOfSparse,
  type SparseSentenceVectors,
} from './bipartite.js';
export {
  KEYWORD_CHANNEL_DEFAULTS,
  type KeywordCandidate,
  type KeywordChannelIndex,
  type KeywordChannelOptions,
  type KeywordChannelResult,
  keywordChannel,
  queryKeywordSeeds,
  rankKeywords,
} from './channel.js';
export {
  CORE_CHUNK_DEFAULTS,
  type CoreChunkOptions,
  type CoreChunks,
  type CoreSelection,
  seededShuffle,
  selectCoreChunks,
} from './core-chunks.js';
export {
  cosineScores,
  descendingRankOf,
  descendingRanks,
  type UnitColumns,
  unitColumns,
} from './cosines.js';
export {
  distinctKeywords,
  ENGLISH_STOP_WORDS,
  KEYWORD_DEFAULTS,
  type KeywordOptions,
  keywordTokens,
} from './keywords.js';
export {
  buildChunkKnnGraph,
  CHUNK_KNN_DEFAULTS,
  type ChunkKnnEdge,
  type ChunkKnnGraph,
  type ChunkKnnOptions,
  chunkKnnCsr,
  type KnnChunk,
  lexicalNeighbors,
  type Neighbors,
  semanticNeighbors,
} from './knn.js';
export {
  halvingRanges,
  SUB_CHUNK_DEFAULTS,
  type SubChunk,
  type SubChunkOptions,
  splitChunk,
  splitChunks,
} from './split.js';
