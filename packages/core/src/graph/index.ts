/**
 * `@grag/core/graph`: the graph algorithms several grag packages share — a CSR view of graphology
 * graphs (or of an edge list) on typed arrays, PageRank and personalized PageRank, exact
 * k-nearest-neighbour graphs, knowledge-graph assembly with entity merging, corpus-level entity
 * linking and the entity vocabulary of an index, GraphRAG's local search (KET-RAG Algorithm 2), and
 * the passage–entity graph read without a model (E2GraphRAG's entity graph with its entity↔chunk
 * indexes, the entity extractor over a `TextAnalyzer`, chunk-level entity linking) with grag's
 * bridge expansion over it. Pure functions over plain data or graphology graphs, each with a `*_DEFAULTS`
 * table.
 *
 * @packageDocumentation
 */
export {
  BRIDGE_OPTION_RULES,
  BRIDGE_ORDERS,
  type Bridge,
  type BridgeInput,
  type BridgeOptions,
  type BridgeOrder,
  bridgeOptionsOf,
  expandBridges,
  homeChunks,
  type PlaceBridgesInput,
  placeBridges,
} from './bridges.js';
export {
  type ChunkEntityGraph,
  chunkEntityGraph,
  entityVocabulary,
  type LinkChunk,
  type LinkedChunkEntities,
  linkChunkEntities,
  linkQueryEntities,
} from './chunk-linking.js';
export {
  CSR_DEFAULTS,
  type Csr,
  type CsrFromEdgesOptions,
  csrFromEdges,
  type IndexEdge,
  type IndexEdgeList,
  type ToCsrOptions,
  toCsr,
} from './csr.js';
export {
  contextEntityExtractor,
  createEntityExtractor,
  ENTITY_EXTRACTOR_DEFAULTS,
  type EntityExtractor,
  type EntityExtractorOptions,
  type EntityExtractorUser,
  entityExtractorFromFunction,
  sentencesOf,
} from './entity-extractor.js';
export { EntityGraph, type EntityGraphData } from './entity-graph.js';
export {
  assembleKnowledgeGraph,
  type ExtractionItem,
  type ExtractionLike,
  type ExtractionSource,
  KnowledgeGraph,
  KnowledgeGraphBuilder,
  type KnowledgeGraphLinking,
  type KnowledgeGraphOptions,
  relationId,
  type SkippedExtraction,
  UNKNOWN_ENTITY_TYPE,
} from './kg.js';
export {
  buildKnnGraph,
  KNN_DEFAULTS,
  KNN_TO_GRAPH_DEFAULTS,
  type KnnEdge,
  type KnnGraph,
  type KnnOptions,
  type KnnToGraphOptions,
  knnEdges,
  knnGraphToGraphology,
} from './knn.js';
export { type LinkToken, linkKey, linkTokens, stripDisambiguator } from './link-keys.js';
export {
  type AliasKind,
  type EntityLinking,
  type EntityLinkingOptions,
  type EntityLinkingStats,
  type LinkableItem,
  linkEntities,
} from './linking.js';
export {
  LOCAL_SEARCH_DEFAULTS,
  type LocalSearchOptions,
  type LocalSearchResult,
  localSearch,
  renderLocalSearchItem,
} from './local-search.js';
export {
  type LocalSearchEntity,
  type LocalSearchGraph,
  type LocalSearchInput,
  type LocalSearchRelationship,
  type LocalSearchTextUnit,
  prepareLocalSearch,
} from './local-search-graph.js';
export {
  type RankedRelationship,
  type RankedTextUnit,
  rankRelationships,
  rankTextUnits,
  type SeedEntity,
  selectSeedEntities,
} from './local-search-ranking.js';
export { cleanEntityName, normalizeEntityName } from './names.js';
export {
  assertPprOptions,
  PAGERANK_DEFAULTS,
  type PageRankOptions,
  PPR_DEFAULTS,
  type PprOptions,
  type PprUpdate,
  pageRank,
  pageRankCsr,
  personalizationVector,
  personalizedPageRank,
  personalizedPageRankCsr,
} from './pagerank.js';
export { type PprTransition, pprTransition } from './power-iteration.js';
export { EntityVocabulary, type VocabularyEntry, withVocabularyMatches } from './vocabulary.js';
