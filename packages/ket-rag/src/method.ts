import { join } from 'node:path';
import {
  assertKnownOptions,
  assertSameProviders,
  Bm25Index,
  type BuildContext,
  type BuildRuntime,
  startBuild,
  type Chunk,
  checkIndexFile,
  checkVectorRows,
  chunkCorpus as chunkCorpusBy,
  chunkFields,
  chunkSchema,
  cosineSimilarity,
  DEFAULT_BUDGET_TOKENS,
  type Document,
  ENTRY_POINT_MODES,
  EntityVocabulary,
  type EntryPointMode,
  embedAll,
  type Infer,
  InvalidArgumentError,
  indexFileError,
  indexVectors,
  isFittableEmbedder,
  KnowledgeGraphBuilder,
  type LocalSearchEntity,
  type LocalSearchGraph,
  type LocalSearchRelationship,
  type LocalSearchResult,
  localSearch,
  MANIFEST_FILE,
  type Method,
  modelFingerprint,
  normalizeEntityName,
  optionKeys,
  packContext,
  prepareLocalSearch,
  type Retrieval,
  type RetrievedItem,
  type RetrieveOptions,
  RRF_K,
  readJson,
  readManifest,
  reciprocalRankFusion,
  renderLocalSearchItem,
  restoreEmbedderState,
  saveEmbedderState,
  searchEntryPoints,
  shapeIssue,
  type VectorHit,
  type VectorIndex,
  v,
  validate as validateShape,
  withTitle,
  writeIndexDir,
  writeJson,
} from '@grag/core';
import {
  buildChunkKnnGraph,
  buildKeywordBipartite,
  type ChunkKnnGraph,
  type CoreSelection,
  distinctKeywords,
  type KeywordBipartite,
  keywordChannel,
  keywordVectors,
  queryKeywordSeeds,
  rankKeywords,
  type SubChunk,
  selectCoreChunks,
  splitChunks,
} from '@grag/keyword-bipartite';
import { readVectors, writeVectors } from './util.js';
import {
  KET_RAG_VARIANT_PRESETS,
  KET_RAG_VARIANTS,
  type KetRagVariant,
  parseKetRagVariant,
  type TextChannel,
} from './variants.js';

/** Build options of KET-RAG. Defaults: {@link KET_RAG_DEFAULTS}, then the variant's preset. */
export interface KetRagOptions {
  /** Which solution of KET-RAG §6.1 to build; sets `beta`, `coreSelection`, `lambda`, `textChannel`. @default 'ket-rag-p' */
  variant: KetRagVariant;
  /**
   * `'fixed'`: token windows of `chunkSize` with `overlap`; `'document'`: one chunk per document (a
   * corpus of short passages). @default 'fixed'
   */
  chunking: 'fixed' | 'document';
  /** Tokens per chunk. @default 1200 (KET-RAG §6.1, GraphRAG) */
  chunkSize: number;
  /** Tokens shared by consecutive chunks. @default 100 (GraphRAG) */
  overlap: number;
  /** Write the document title as the first line of every chunk and sub-chunk text. @default true */
  includeTitle: boolean;
  /** Tokens per sub-chunk. @default 150 (official KET-RAG code; 3 halvings of a 1200-token chunk) */
  subChunkSize: number;
  /** Split chunks by this many recursive halvings instead of by `subChunkSize` (KET-RAG §5.1's m). */
  halvings?: number;
  /** Lexical neighbours per chunk in the KNN graph. @default 1 (official KET-RAG code) */
  lexicalK: number;
  /** Semantic neighbours per chunk in the KNN graph. @default 1 (official KET-RAG code) */
  semanticK: number;
  /** Keywords in more than this fraction of chunks do not count for lexical similarity. @default 1 */
  maxDocumentFrequency: number;
  /** Fraction β of chunks whose graph is extracted. @default 0.8 (KET-RAG §6.1) */
  beta: number;
  /** How core chunks are chosen. @default 'pagerank' (KET-RAG-P) */
  coreSelection: CoreSelection;
  /** PageRank damping (teleport `1 - damping`). @default 0.85 (KET-RAG §5.1) */
  damping: number;
  /** Seed of the uniform core sample (KET-RAG-U). @default 42 (official KET-RAG code) */
  seed: number;
  /** Entity types to extract. @default the task suite's default (GraphRAG's four) */
  entityTypes?: string[];
  /** Gleaning passes of the extraction task. @default the task suite's default */
  gleanings?: number;
  /**
   * Merge the several descriptions of an entity or relationship with the summarize task (GraphRAG
   * does); otherwise they are joined. Either way a description is cut to `descriptionMaxTokens`.
   * @default true
   */
  summarizeDescriptions: boolean;
  /** Longest entity or relationship description, in tokens. @default 200 */
  descriptionMaxTokens: number;
  /**
   * Chunks (extraction) or descriptions (summaries) sent to the model at once while indexing; set
   * it to override the build runtime's concurrency for this method.
   * @default the build runtime's (`ctx.runtime.concurrency`, 8)
   */
  concurrency?: number;
  /** Share λ of the budget for the knowledge-graph channel. @default 0.5 (official KET-RAG README) */
  lambda: number;
  /** Channel that fills the rest of the budget. @default 'keyword' */
  textChannel: TextChannel;
  /** Seed entities of the local search. @default 10 (KET-RAG §2.3) */
  topKEntities: number;
  /** Out-network relationships per seed. @default 10 (GraphRAG) */
  topKRelationships: number;
  /** Share of the local-search budget for text units. @default 0.5 (GraphRAG `text_unit_prop`) */
  textUnitProp: number;
  /** The keyword channel collects candidates up to this multiple of its budget. @default 2 (official KET-RAG code) */
  collectFactor: number;
  /** Most seed keywords examined per query. @default 1000 (official KET-RAG code) */
  maxSeedKeywords: number;
  /**
   * How both channels find their entry points for a query: `'dense'` by the embedder (the paper:
   * seed entities by their description embeddings, seed keywords by their sentence embeddings,
   * candidate sub-chunks by cosine), `'lexical'` by BM25 (seed entities by BM25 over `name:
   * description`, seed keywords = the query's own keywords, rarest first, sub-chunks by BM25),
   * `'hybrid'` by both, fused by reciprocal rank. BM25 is rebuilt at load from the stored texts.
   * @default 'hybrid' (measured offline; the paper's is 'dense')
   */
  entryPoints: EntryPointMode;
  /**
   * Entity linking in the skeleton: document titles are entities (every chunk of a titled document
   * and every chunk that writes its title links to it), aliases fold into their canonical entity,
   * the extraction task gets the title as the chunk's subject, and entities written in the query
   * (longest match over the skeleton's names and aliases) become the first seed entities.
   * @default true (measured offline; the paper merges entities by exact name)
   */
  entityLinking: boolean;
  /**
   * With `entityLinking`, a title entity's text units are every sub-chunk of its document, core
   * chunk or not, before the other sub-chunks that mention it (the skeleton otherwise knows only the
   * core chunks' text). No extraction is added. @default true (measured offline)
   */
  titleUnits: boolean;
  /**
   * How the knowledge-graph channel picks its seed entities: `'query'` by the `entryPoints` search
   * over the entities' `name: description` texts (the paper's Algorithm 2); `'units'` from the text
   * units the `entryPoints` search finds first: for each of the `seedUnits` best sub-chunks, the
   * title entity of its document, then the other title entities it links to (GraphRAG local search
   * from the entities of the best passages; needs `entityLinking`); `'both'`: the two lists
   * alternate, units first. With `entityLinking`, entities written in the query come first either
   * way. @default 'units' (measured offline; the paper's is 'query')
   */
  entitySeeds: 'query' | 'units' | 'both';
  /** Entry sub-chunks whose entities seed the graph channel (`entitySeeds` `'units'` or `'both'`). @default 5 */
  seedUnits: number;
  /**
   * Most text units the local search takes from one seed entity (its first ones: with `titleUnits`,
   * its own document's), so that a hub entity mentioned in many chunks ("United States") does not
   * fill the text-unit share alone. `0`: no cap (GraphRAG). @default 1 (measured offline)
   */
  unitsPerEntity: number;
}

/** Defaults of {@link KetRagOptions} before the variant's preset is applied. */
export const KET_RAG_DEFAULTS: Omit<KetRagOptions, 'halvings' | 'entityTypes' | 'gleanings' | 'concurrency'> =
  {
    variant: 'ket-rag-p',
    chunking: 'fixed',
    chunkSize: 1200,
    overlap: 100,
    includeTitle: true,
    subChunkSize: 150,
    lexicalK: 1,
    semanticK: 1,
    maxDocumentFrequency: 1,
    ...KET_RAG_VARIANT_PRESETS['ket-rag-p'],
    damping: 0.85,
    seed: 42,
    summarizeDescriptions: true,
    descriptionMaxTokens: 200,
    topKEntities: 10,
    topKRelationships: 10,
    textUnitProp: 0.5,
    collectFactor: 2,
    maxSeedKeywords: 1000,
    entryPoints: 'hybrid',
    entityLinking: true,
    titleUnits: true,
    entitySeeds: 'units',
    seedUnits: 5,
    unitsPerEntity: 1,
  };

/**
 * The settings of the paper (and of grag before measured offline defaults): dense entry points, no
 * entity linking. `createKetRag({ defaults: KET_RAG_PAPER_SETTINGS })`, or from the command line
 * `--set entryPoints=dense --set entityLinking=false --set titleUnits=false --set unitsPerEntity=0
 * --set entitySeeds=query`.
 */
export const KET_RAG_PAPER_SETTINGS: Readonly<
  Pick<KetRagOptions, 'entryPoints' | 'entityLinking' | 'titleUnits' | 'unitsPerEntity' | 'entitySeeds'>
> = {
  entryPoints: 'dense',
  entityLinking: false,
  titleUnits: false,
  unitsPerEntity: 0,
  entitySeeds: 'query',
};

/** Retrieval options of KET-RAG. */
export interface KetRagRetrieveOptions extends RetrieveOptions {
  /** Override the index's λ for this query (ignored when the text channel is `'none'`). */
  lambda?: number;
}

/** Every build option key (`variant` included); others are refused. */
const BUILD_OPTION_KEYS = optionKeys<KetRagOptions>({
  ...KET_RAG_DEFAULTS,
  halvings: undefined,
  entityTypes: undefined,
  gleanings: undefined,
  concurrency: undefined,
});
/** Every retrieve option key; others are refused. */
const RETRIEVE_OPTION_KEYS = optionKeys<KetRagRetrieveOptions>({
  budgetTokens: undefined,
  topK: undefined,
  signal: undefined,
  lambda: undefined,
});

/** What indexing cost, as counted by the method itself (model-independent). */
export interface KetRagStats {
  documents: number;
  chunks: number;
  subChunks: number;
  coreChunks: number;
  knnEdges: number;
  /** Graph-extraction calls (one per core chunk) and the tokens of the texts sent. */
  extraction: {
    calls: number;
    inputTokens: number;
    entities: number;
    relations: number;
    /** Parse issues reported by the extraction task. */
    issues: number;
    /** Extracted records not merged (empty names, self-relations, invalid weights). */
    skipped: number;
  };
  /** Summarize calls that merged descriptions. */
  summaries: number;
  entities: number;
  relationships: number;
  keywords: number;
  sentences: number;
}

/** The knowledge-graph skeleton, with text units rewired to sub-chunks. */
export interface KetRagSkeleton {
  entities: LocalSearchEntity[];
  relationships: LocalSearchRelationship[];
  /** Entity embeddings (of `name: description`), ids = entity positions. */
  entityVectors: VectorIndex;
  /** Prepared for local search. */
  graph: LocalSearchGraph;
  /** Names folded into each entity by entity linking (entity id → aliases), for the vocabulary. */
  aliases: [string, string[]][];
  /** Document id → id of its title entity (entity linking). */
  titleEntities: [string, string][];
  /** BM25 over the entity texts (`name: description`), ids = entity positions (lexical/hybrid entry points). */
  lexical?: Bm25Index;
  /** The entities' names and aliases, for finding them in a query (with `entityLinking`). */
  vocabulary?: EntityVocabulary;
  /** Title entities linked to each sub-chunk (sub-chunk id → entity positions, its own document's first). */
  unitEntities?: Map<string, number[]>;
}

/** The keyword channel's index. */
export interface KetRagKeywordIndex {
  bipartite: KeywordBipartite;
  /** Keyword embeddings, ids = keyword positions. */
  keywordVectors: VectorIndex;
  /** Sub-chunk embeddings, aligned with `subChunks`. */
  subChunkVectors: Float32Array[];
  /** Tokens of each sub-chunk text as retrieved (title line included), aligned with `subChunks`. */
  subChunkTokens: Int32Array;
}

/** A built KET-RAG index. */
export interface KetRagIndex {
  ctx: BuildContext;
  options: KetRagOptions;
  chunks: Chunk[];
  /** Text of each chunk as embedded, extracted and retrieved (title line + chunk text). */
  chunkTexts: string[];
  subChunks: SubChunk[];
  /** Text of each sub-chunk as embedded and retrieved. */
  subChunkTexts: string[];
  /** Ids of the core chunks, best first. */
  core: string[];
  /** KNN chunk graph (when core chunks were chosen by PageRank or the text channel is `'knn'`). */
  knn?: ChunkKnnGraph;
  /** Chunk embeddings for the `'dense'` and `'knn'` channels, ids = chunk positions. */
  chunkVectors?: VectorIndex;
  skeleton?: KetRagSkeleton;
  keyword?: KetRagKeywordIndex;
  /** Entry-point search over the sub-chunks (text channels `'keyword'` with BM25, and `'entry'`). */
  entry?: KetRagEntryIndex;
  stats: KetRagStats;
}

/** Dense and BM25 search over the sub-chunks, ids = sub-chunk positions. */
export interface KetRagEntryIndex {
  vectors?: VectorIndex;
  lexical?: Bm25Index;
}

/** Resolve build options: defaults, then the variant's preset, then `settings`, then `options`. */
export function resolveKetRagOptions(...layers: (Partial<KetRagOptions> | undefined)[]): KetRagOptions {
  let variant: KetRagVariant = KET_RAG_DEFAULTS.variant;
  for (const layer of layers) if (layer?.variant !== undefined) variant = parseKetRagVariant(layer.variant);
  const merged: KetRagOptions = { ...KET_RAG_DEFAULTS, ...KET_RAG_VARIANT_PRESETS[variant] };
  for (const layer of layers) {
    if (!layer) continue;
    for (const [key, value] of Object.entries(layer)) {
      if (value !== undefined) (merged as unknown as Record<string, unknown>)[key] = value;
    }
  }
  merged.variant = variant;
  // From the command line (`--set entityTypes=person,geo`) the list arrives as one string.
  const types = merged.entityTypes as unknown;
  if (typeof types === 'string')
    merged.entityTypes = types
      .split(',')
      .map((t) => t.trim())
      .filter(Boolean);
  validate(merged);
  return merged;
}

function validate(o: KetRagOptions): void {
  const fail = (argument: string, message: string): never => {
    throw new InvalidArgumentError(argument, `ket-rag: ${message}`);
  };
  const fraction = (name: keyof KetRagOptions) => {
    const v = o[name] as number;
    if (!(v >= 0 && v <= 1)) fail(name, `${name} must be in [0, 1], got ${v}.`);
  };
  fraction('beta');
  fraction('lambda');
  fraction('textUnitProp');
  if (!['keyword', 'dense', 'knn', 'entry', 'none'].includes(o.textChannel)) {
    fail(
      'textChannel',
      `textChannel must be 'keyword', 'dense', 'knn', 'entry' or 'none', got ${String(o.textChannel)}.`,
    );
  }
  if (!['query', 'units', 'both'].includes(o.entitySeeds)) {
    fail('entitySeeds', `entitySeeds must be 'query', 'units' or 'both', got ${String(o.entitySeeds)}.`);
  }
  if (!Number.isInteger(o.unitsPerEntity) || o.unitsPerEntity < 0) {
    fail('unitsPerEntity', `unitsPerEntity must be a non-negative integer, got ${o.unitsPerEntity}.`);
  }
  if (!Number.isInteger(o.seedUnits) || o.seedUnits < 1) {
    fail('seedUnits', `seedUnits must be a positive integer, got ${o.seedUnits}.`);
  }
  if (!ENTRY_POINT_MODES.includes(o.entryPoints)) {
    fail(
      'entryPoints',
      `entryPoints must be one of ${ENTRY_POINT_MODES.join(', ')}, got ${String(o.entryPoints)}.`,
    );
  }
  for (const name of ['entityLinking', 'titleUnits'] as const) {
    const value = o[name] as unknown;
    // From the command line (`--set entityLinking=false`) a flag may arrive as a string.
    if (value === 'true' || value === 'false')
      (o as unknown as Record<string, boolean>)[name] = value === 'true';
    else if (typeof value !== 'boolean') fail(name, `${name} must be true or false, got ${String(value)}.`);
  }
  if (o.coreSelection !== 'pagerank' && o.coreSelection !== 'uniform') {
    fail('coreSelection', `coreSelection must be 'pagerank' or 'uniform', got ${String(o.coreSelection)}.`);
  }
  if (o.chunking !== 'fixed' && o.chunking !== 'document') {
    fail('chunking', `chunking must be 'fixed' or 'document', got ${String(o.chunking)}.`);
  }
  for (const name of ['concurrency', 'topKEntities', 'descriptionMaxTokens'] as const) {
    const v = o[name];
    if (name === 'concurrency' && v === undefined) continue;
    if (!Number.isInteger(v) || (v as number) < 1)
      fail(name, `${name} must be a positive integer, got ${v}.`);
  }
}

/** Chunks of the corpus and the text each is shown by (title line + text). */
function chunkCorpus(
  docs: Document[],
  ctx: BuildContext,
  o: KetRagOptions,
): { chunks: Chunk[]; texts: string[] } {
  if (docs.length === 0) {
    throw new InvalidArgumentError('docs', 'ket-rag build: the corpus is empty; pass at least one document.');
  }
  const chunks = chunkCorpusBy(docs, {
    chunking: o.chunking,
    chunkSize: o.chunkSize,
    overlap: o.overlap,
    tokenizer: ctx.tokenizer,
  });
  const titles = new Map(docs.map((d) => [d.id, d.title]));
  return { chunks, texts: chunks.map((c) => withTitle(c.text, titles.get(c.docId), o.includeTitle)) };
}

function emptyStats(): KetRagStats {
  return {
    documents: 0,
    chunks: 0,
    subChunks: 0,
    coreChunks: 0,
    knnEdges: 0,
    extraction: { calls: 0, inputTokens: 0, entities: 0, relations: 0, issues: 0, skipped: 0 },
    summaries: 0,
    entities: 0,
    relationships: 0,
    keywords: 0,
    sentences: 0,
  };
}

function vectorIndexOf(ctx: BuildContext, vectors: readonly ArrayLike<number>[]): VectorIndex {
  return indexVectors(ctx.vectorIndex, vectors, { dimensions: ctx.embedder.dimensions });
}

/** Options of the build runtime's maps: the method's `concurrency` only when the user set it. */
function mapConcurrency(o: KetRagOptions): { concurrency?: number } {
  return o.concurrency !== undefined ? { concurrency: o.concurrency } : {};
}

/** Build the knowledge-graph skeleton from the core chunks (Algorithm 1 on the core chunks). */
async function buildSkeleton(
  rt: BuildRuntime,
  ctx: BuildContext,
  o: KetRagOptions,
  chunks: Chunk[],
  chunkTexts: string[],
  corePositions: number[],
  subIdsOf: Map<string, string[]>,
  subChunks: SubChunk[],
  subChunkTexts: string[],
  stats: KetRagStats,
  titles: Map<string, string | undefined>,
): Promise<KetRagSkeleton> {
  const { tasks, tokenizer } = ctx;
  // Extract in document order (the official code sorts the sampled chunks by id).
  const order = [...corePositions].sort((a, b) => a - b);
  const extractionOptions = {
    ...(o.entityTypes !== undefined ? { entityTypes: o.entityTypes } : {}),
    ...(o.gleanings !== undefined ? { gleanings: o.gleanings } : {}),
    ...(ctx.signal !== undefined ? { abortSignal: ctx.signal } : {}),
  };
  const subjectOf = (position: number) => {
    const title = o.entityLinking ? titles.get(chunks[position]!.docId) : undefined;
    return title ? { subject: title } : {};
  };
  const extractions = await rt.stage('extract', () =>
    rt.map(
      order,
      (position) =>
        tasks.extractGraph(chunkTexts[position]!, { ...extractionOptions, ...subjectOf(position) }),
      {
        label: (position) => `chunk ${chunks[position]!.id}`,
        unit: 'chunks',
        ...mapConcurrency(o),
      },
    ),
  );
  const builder = new KnowledgeGraphBuilder(o.entityLinking ? { entityLinking: { titles } } : {});
  order.forEach((position, i) => {
    const chunk = chunks[position]!;
    const extraction = extractions[i]!;
    stats.extraction.calls += 1;
    stats.extraction.inputTokens += tokenizer.count(chunkTexts[position]!);
    stats.extraction.entities += extraction.entities.length;
    stats.extraction.relations += extraction.relations.length;
    stats.extraction.issues += extraction.issues.length;
    builder.addExtraction(
      extraction,
      o.entityLinking
        ? { chunkId: chunk.id, docId: chunk.docId, text: chunkTexts[position]! }
        : { chunkId: chunk.id, docId: chunk.docId },
    );
  });
  const kg = builder.build();
  stats.extraction.skipped = kg.skipped.length;

  // Descriptions: merge several into one (GraphRAG's summarization), cut to the token cap.
  const cap = (text: string) => {
    const trimmed = text.trim();
    // Most descriptions are short: count (memoized) before paying for a truncation.
    return tokenizer.count(trimmed) <= o.descriptionMaxTokens
      ? trimmed
      : tokenizer.truncate(trimmed, o.descriptionMaxTokens).trim();
  };
  const kgEntities = [...kg.entities.values()];
  const kgRelations = [...kg.relations.values()];
  const records = [
    ...kgEntities.map((e) => ({ label: `entity ${e.name}`, descriptions: e.descriptions })),
    ...kgRelations.map((r) => ({
      label: `relationship ${r.source} -> ${r.target}`,
      descriptions: r.descriptions,
    })),
  ];
  const summarized = (descriptions: readonly string[]) => descriptions.length > 1 && o.summarizeDescriptions;
  const toSummarize = records.filter((r) => summarized(r.descriptions));
  // Only the model's summaries are kept (plain strings, in record order); the rest is recomputed.
  const summaries = await rt.stage('summarize', () =>
    rt.map(
      toSummarize,
      (r) =>
        tasks.summarize(r.descriptions, {
          purpose: 'entity',
          maxTokens: o.descriptionMaxTokens,
          ...(ctx.signal !== undefined ? { abortSignal: ctx.signal } : {}),
        }),
      { label: (r) => r.label, unit: 'descriptions', ...mapConcurrency(o) },
    ),
  );
  stats.summaries = summaries.length;
  let next = 0;
  const descriptions = records.map((r) =>
    cap(summarized(r.descriptions) ? summaries[next++]! : r.descriptions.join(' ')),
  );
  // Rewire chunk links to the chunk's sub-chunks (KET-RAG §5.1).
  const rewire = (chunkIds: readonly string[]) => chunkIds.flatMap((id) => subIdsOf.get(id) ?? []);
  // A title entity's own document first: all its sub-chunks, core or not (titleUnits).
  const homeOf = new Map<string, string[]>();
  if (o.entityLinking && o.titleUnits && kg.linking) {
    const chunksOfDoc = new Map<string, string[]>();
    for (const c of chunks) {
      const list = chunksOfDoc.get(c.docId);
      if (list) list.push(c.id);
      else chunksOfDoc.set(c.docId, [c.id]);
    }
    for (const [docId, name] of kg.linking.titleEntities) {
      const id = normalizeEntityName(name);
      homeOf.set(id, [...(homeOf.get(id) ?? []), ...rewire(chunksOfDoc.get(docId) ?? [])]);
    }
  }
  const unitsOf = (id: string, chunkIds: readonly string[]): string[] => {
    const home = homeOf.get(id);
    const rest = rewire(chunkIds);
    if (!home) return rest;
    const inHome = new Set(home);
    return [...home, ...rest.filter((u) => !inHome.has(u))];
  };
  const entities: LocalSearchEntity[] = kgEntities.map((e, i) => ({
    id: e.id,
    name: e.name,
    description: descriptions[i]!,
    textUnitIds: unitsOf(e.id, e.chunkIds),
  }));
  const relationships: LocalSearchRelationship[] = kgRelations.map((r, i) => ({
    id: r.id,
    source: r.source,
    target: r.target,
    description: descriptions[kgEntities.length + i]!,
    weight: r.weight,
    textUnitIds: rewire(r.chunkIds),
  }));
  stats.entities = entities.length;
  stats.relationships = relationships.length;
  const entityVectorList = await rt.stage('embed-entities', () =>
    rt.embed(entities.map(entityText), { label: (_text, i) => `entity ${entities[i]!.name}` }),
  );
  const entityVectors = await rt.stage('vector-index', () => vectorIndexOf(ctx, entityVectorList), {
    checkpoint: false,
  });
  const aliases: [string, string[]][] = kg.linking
    ? [...kg.linking.aliases].filter(([, list]) => list.length > 0)
    : [];
  const titleEntities: [string, string][] = kg.linking
    ? [...kg.linking.titleEntities].map(([docId, name]) => [docId, normalizeEntityName(name)])
    : [];
  return withSearch(o, {
    titleEntities,
    entities,
    relationships,
    entityVectors,
    graph: prepareSkeleton(entities, relationships, subChunks, subChunkTexts, o.unitsPerEntity),
    aliases,
  });
}

/** The text an entity is embedded and searched by. */
function entityText(e: LocalSearchEntity): string {
  return e.description ? `${e.name}: ${e.description}` : e.name;
}

/** The skeleton's BM25 and vocabulary, as `entryPoints` and `entityLinking` need (rebuilt at load). */
function withSearch(o: KetRagOptions, skeleton: KetRagSkeleton): KetRagSkeleton {
  if (o.entryPoints !== 'dense') skeleton.lexical = new Bm25Index(skeleton.entities.map(entityText));
  if (o.entityLinking) {
    skeleton.vocabulary = EntityVocabulary.fromEntities(skeleton.entities, new Map(skeleton.aliases));
  }
  if (o.entitySeeds !== 'query') {
    // Sub-chunk → title entities it links to; the entity whose home document it is comes first.
    const titles = new Set(skeleton.titleEntities.map(([, id]) => id));
    const map = new Map<string, number[]>();
    skeleton.entities.forEach((e, position) => {
      if (!titles.has(e.id)) return;
      for (const unit of e.textUnitIds) {
        const list = map.get(unit);
        if (list) list.push(position);
        else map.set(unit, [position]);
      }
    });
    skeleton.unitEntities = map;
  }
  return skeleton;
}

function prepareSkeleton(
  entities: LocalSearchEntity[],
  relationships: LocalSearchRelationship[],
  subChunks: SubChunk[],
  subChunkTexts: string[],
  unitsPerEntity: number,
): LocalSearchGraph {
  return prepareLocalSearch({
    entities:
      unitsPerEntity > 0
        ? entities.map((e) => ({ ...e, textUnitIds: e.textUnitIds.slice(0, unitsPerEntity) }))
        : entities,
    relationships,
    textUnits: subChunks.map((s, i) => ({ id: s.id, text: subChunkTexts[i]!, docIds: [s.docId] })),
  });
}

const position = v.int({ min: 0 });
const unitsSchema = v.object({
  chunks: v.array(chunkSchema),
  chunkTexts: v.array(v.string()),
  subChunks: v.array(v.object({ ...chunkFields, chunkId: v.string() })),
  subChunkTexts: v.array(v.string()),
  core: v.array(v.string()),
  stats: v.record(v.unknown()),
  knn: v.nullable(
    v.object({
      ids: v.array(v.string()),
      edges: v.array(
        v.object({
          source: position,
          target: position,
          lexical: v.optional(v.number()),
          cosine: v.optional(v.number()),
        }),
      ),
    }),
  ),
  dimensions: v.int({ min: 1 }),
});
type StoredUnits = Infer<typeof unitsSchema>;

/** Lengths that must agree and positions that must exist across the parts of units.json. */
function checkUnits(units: StoredUnits): void {
  if (units.chunkTexts.length !== units.chunks.length) {
    shapeIssue('chunkTexts', `has ${units.chunkTexts.length} texts for ${units.chunks.length} chunks`);
  }
  if (units.subChunkTexts.length !== units.subChunks.length) {
    shapeIssue(
      'subChunkTexts',
      `has ${units.subChunkTexts.length} texts for ${units.subChunks.length} sub-chunks`,
    );
  }
  const chunkIds = new Set(units.chunks.map((c) => c.id));
  units.core.forEach((id, i) => {
    if (!chunkIds.has(id)) shapeIssue(`core[${i}]`, `names ${JSON.stringify(id)}, not a chunk`);
  });
  if (units.knn) {
    const n = units.chunks.length;
    if (units.knn.ids.length !== n) shapeIssue('knn.ids', `has ${units.knn.ids.length} ids for ${n} chunks`);
    units.knn.edges.forEach((e, i) => {
      if (e.source >= n || e.target >= n)
        shapeIssue(`knn.edges[${i}]`, `joins chunks beyond the ${n} chunks`);
    });
  }
}

const textUnitIds = v.array(v.string());
const skeletonSchema = v.object({
  entities: v.array(v.object({ id: v.string(), name: v.string(), description: v.string(), textUnitIds })),
  relationships: v.array(
    v.object({
      id: v.string(),
      source: v.string(),
      target: v.string(),
      description: v.string(),
      weight: v.optional(v.number()),
      textUnitIds,
    }),
  ),
  aliases: v.optional(v.array(v.tuple(v.string(), v.array(v.string())))),
  titleEntities: v.optional(v.array(v.tuple(v.string(), v.string()))),
});

/** Relationships join known entities and both name text units that exist. */
function checkSkeleton(
  entities: readonly LocalSearchEntity[],
  relationships: readonly LocalSearchRelationship[],
  subChunks: readonly SubChunk[],
): void {
  const units = new Set(subChunks.map((s) => s.id));
  const ids = new Set<string>();
  entities.forEach((e, i) => {
    if (ids.has(e.id)) shapeIssue(`entities[${i}].id`, `repeats ${JSON.stringify(e.id)}`);
    ids.add(e.id);
    e.textUnitIds.forEach((u, j) => {
      if (!units.has(u)) shapeIssue(`entities[${i}].textUnitIds[${j}]`, 'names no sub-chunk of units.json');
    });
  });
  relationships.forEach((r, i) => {
    if (!ids.has(r.source) || !ids.has(r.target))
      shapeIssue(`relationships[${i}]`, 'joins an unknown entity');
    r.textUnitIds.forEach((u, j) => {
      if (!units.has(u))
        shapeIssue(`relationships[${i}].textUnitIds[${j}]`, 'names no sub-chunk of units.json');
    });
  });
}

const keywordsSchema = v.object({
  keywords: v.array(v.string()),
  keywordUnits: v.array(v.array(position)),
  sentences: v.array(v.tuple(position, position, position)),
  keywordSentences: v.array(v.array(position)),
});

/** Every keyword has its unit and sentence lists, and every position exists. */
function checkKeywords(k: Infer<typeof keywordsSchema>, subChunkTexts: readonly string[]): void {
  const n = k.keywords.length;
  if (k.keywordUnits.length !== n)
    shapeIssue('keywordUnits', `has ${k.keywordUnits.length} lists for ${n} keywords`);
  if (k.keywordSentences.length !== n) {
    shapeIssue('keywordSentences', `has ${k.keywordSentences.length} lists for ${n} keywords`);
  }
  k.keywordUnits.forEach((list, i) => {
    list.forEach((u, j) => {
      if (u >= subChunkTexts.length) shapeIssue(`keywordUnits[${i}][${j}]`, `is ${u}, beyond the sub-chunks`);
    });
  });
  k.sentences.forEach(([unit, start, end], i) => {
    const text = subChunkTexts[unit];
    if (text === undefined || start > end || end > text.length) {
      shapeIssue(`sentences[${i}]`, 'is not a span of a sub-chunk');
    }
  });
  k.keywordSentences.forEach((list, i) => {
    list.forEach((s, j) => {
      if (s >= k.sentences.length)
        shapeIssue(`keywordSentences[${i}][${j}]`, `is ${s}, beyond the sentences`);
    });
  });
}

/** Settings of {@link createKetRag}. */
export interface KetRagSettings {
  /** Method name used in manifests and the CLI. @default 'ket-rag' */
  name?: string;
  /** Variant built when the build options do not name one. @default 'ket-rag-p' */
  variant?: KetRagVariant;
  /** Build options applied before the per-call options. */
  defaults?: Partial<KetRagOptions>;
}

const FORMAT_VERSION = 1;

/**
 * KET-RAG (Huang et al. 2025, "KET-RAG: A Cost-Efficient Multi-Granular Indexing Framework for
 * Graph-RAG") and the solutions it is compared with, as one method: pick one with `variant` (see
 * {@link KET_RAG_VARIANTS}); every variant is stored under the same method name and reads its
 * variant back from the manifest.
 *
 * Build (Algorithm 3): chunk; split chunks into sub-chunks; KNN chunk graph; core chunks (top β by
 * PageRank, or uniform); graph extraction on the core chunks only, entity descriptions and
 * embeddings, chunk links rewired to sub-chunks; the text-keyword bipartite graph over all
 * sub-chunks. Retrieve (Algorithm 4): GraphRAG local search on the skeleton with λ·L tokens, then the
 * keyword channel with what is left.
 */
export function createKetRag(
  settings: KetRagSettings = {},
): Method<KetRagIndex, KetRagOptions, KetRagRetrieveOptions> {
  const name = settings.name ?? 'ket-rag';
  const base: Partial<KetRagOptions> = {
    ...(settings.variant !== undefined ? { variant: settings.variant } : {}),
    ...settings.defaults,
  };
  return {
    name,
    description: `KET-RAG: KG skeleton on PageRank core chunks + keyword bipartite graph (--variant ${KET_RAG_VARIANTS.join('|')})`,
    capabilities: { uses: ['embedder', 'tasks', 'vectorIndex'] },
    formatVersion: FORMAT_VERSION,
    optionKeys: { build: BUILD_OPTION_KEYS, retrieve: RETRIEVE_OPTION_KEYS },
    passageRanking: { kinds: ['chunk'], order: 'score' },

    async build(docs, ctx, options = {}) {
      assertKnownOptions(`${name} build`, options, BUILD_OPTION_KEYS);
      const o = resolveKetRagOptions(base, options);
      const { tokenizer, embedder } = ctx;
      const rt = startBuild(ctx);
      const stats = emptyStats();
      const { chunks, texts: chunkTexts } = await rt.stage('chunk', () => chunkCorpus(docs, ctx, o));
      stats.documents = new Set(chunks.map((c) => c.docId)).size;
      stats.chunks = chunks.length;
      if (isFittableEmbedder(embedder)) {
        await rt.stage('fit', () => embedder.fit(chunkTexts), { checkpoint: false });
      }

      const titles = new Map(docs.map((d) => [d.id, d.title]));
      const { subChunks, subChunkTexts } = await rt.stage('split', () => {
        const subs = splitChunks(chunks, {
          size: o.subChunkSize,
          tokenizer,
          ...(o.halvings !== undefined ? { halvings: o.halvings } : {}),
        });
        return {
          subChunks: subs,
          subChunkTexts: subs.map((s) => withTitle(s.text, titles.get(s.docId), o.includeTitle)),
        };
      });
      stats.subChunks = subChunks.length;
      const subIdsOf = new Map<string, string[]>();
      for (const s of subChunks) {
        const list = subIdsOf.get(s.chunkId);
        if (list) list.push(s.id);
        else subIdsOf.set(s.chunkId, [s.id]);
      }

      const partial = o.beta > 0 && o.beta < 1;
      const needKnn = (partial && o.coreSelection === 'pagerank') || o.textChannel === 'knn';
      const needChunkVectors =
        (needKnn && o.semanticK > 0) || o.textChannel === 'dense' || o.textChannel === 'knn';
      let chunkVectorList: Float32Array[] | undefined;
      if (needChunkVectors) {
        chunkVectorList = await rt.stage('embed-chunks', () =>
          rt.embed(chunkTexts, { label: (_text, i) => `chunk ${chunks[i]!.id}` }),
        );
      }
      let knn: ChunkKnnGraph | undefined;
      if (needKnn) {
        knn = await rt.stage('knn', () =>
          buildChunkKnnGraph(
            chunks.map((c, i) => ({
              id: c.id,
              keywords: distinctKeywords(chunkTexts[i]!),
              ...(chunkVectorList ? { vector: chunkVectorList[i]! } : {}),
            })),
            { lexicalK: o.lexicalK, semanticK: o.semanticK, maxDocumentFrequency: o.maxDocumentFrequency },
          ),
        );
        stats.knnEdges = knn.edges.length;
      }
      const corePositions = await rt.stage('core', () => {
        if (o.beta >= 1) return chunks.map((_, i) => i);
        if (o.beta <= 0) return [];
        const graph = knn ?? { ids: chunks.map((c) => c.id), edges: [] };
        return selectCoreChunks(graph, {
          beta: o.beta,
          method: o.coreSelection,
          damping: o.damping,
          seed: o.seed,
        }).positions;
      });
      stats.coreChunks = corePositions.length;

      let skeleton: KetRagSkeleton | undefined;
      if (corePositions.length > 0) {
        skeleton = await buildSkeleton(
          rt,
          ctx,
          o,
          chunks,
          chunkTexts,
          corePositions,
          subIdsOf,
          subChunks,
          subChunkTexts,
          stats,
          titles,
        );
      }

      let subChunkVectorList: Float32Array[] | undefined;
      const embedSubChunks = async (): Promise<Float32Array[]> => {
        subChunkVectorList ??= await rt.stage('embed-subchunks', () =>
          rt.embed(subChunkTexts, { label: (_text, i) => `sub-chunk ${subChunks[i]!.id}` }),
        );
        return subChunkVectorList;
      };
      let keyword: KetRagKeywordIndex | undefined;
      if (o.textChannel === 'keyword') {
        const bipartite = await rt.stage('keywords', () =>
          buildKeywordBipartite(subChunks.map((s, i) => ({ id: s.id, text: subChunkTexts[i]! }))),
        );
        const sentenceVectors = await rt.stage('embed-sentences', () =>
          rt.embed(
            bipartite.sentences.map((s) => s.text),
            { label: (_text, i) => `a sentence of ${subChunks[bipartite.sentences[i]!.unit]!.id}` },
          ),
        );
        const keywordVectorIndex = await rt.stage(
          'vector-index',
          () => vectorIndexOf(ctx, keywordVectors(bipartite, sentenceVectors)),
          { checkpoint: false },
        );
        const subChunkVectors = await embedSubChunks();
        keyword = {
          bipartite,
          keywordVectors: keywordVectorIndex,
          subChunkVectors,
          subChunkTokens: Int32Array.from(subChunkTexts, (t) => tokenizer.count(t)),
        };
        stats.keywords = bipartite.keywords.length;
        stats.sentences = bipartite.sentences.length;
      }

      const index: KetRagIndex = {
        ctx,
        options: o,
        chunks,
        chunkTexts,
        subChunks,
        subChunkTexts,
        core: corePositions.map((i) => chunks[i]!.id),
        stats,
      };
      if (knn) index.knn = knn;
      if (chunkVectorList && (o.textChannel === 'dense' || o.textChannel === 'knn')) {
        const vectors = chunkVectorList;
        index.chunkVectors = await rt.stage('vector-index', () => vectorIndexOf(ctx, vectors), {
          checkpoint: false,
        });
      }
      if (skeleton) index.skeleton = skeleton;
      if (keyword) index.keyword = keyword;
      if (o.textChannel === 'entry' || (!keyword && unitSeeds(o, skeleton !== undefined))) {
        // The entry channel, or seed units for a graph channel without the keyword channel.
        const vectors = await embedSubChunks();
        const entry = entryIndex(o, subChunkTexts, () => vectorIndexOf(ctx, vectors));
        if (entry) index.entry = entry;
      } else if (keyword) {
        const vectors = keyword.subChunkVectors;
        const entry = entryIndex(o, subChunkTexts, () => vectorIndexOf(ctx, vectors));
        if (entry) index.entry = entry;
      }
      return index;
    },

    async retrieve(index, query, options = {}) {
      assertKnownOptions(`${name} retrieve`, options, RETRIEVE_OPTION_KEYS);
      const started = performance.now();
      const { ctx } = index;
      const o = index.options;
      const { tokenizer } = ctx;
      const budget = options.budgetTokens ?? DEFAULT_BUDGET_TOKENS;
      if (!Number.isFinite(budget) || budget < 0) {
        throw new InvalidArgumentError(
          'budgetTokens',
          `ket-rag retrieve: budgetTokens must be a non-negative number, got ${budget}.`,
        );
      }
      const lambda = o.textChannel === 'none' ? 1 : (options.lambda ?? o.lambda);
      if (!(lambda >= 0 && lambda <= 1)) {
        throw new InvalidArgumentError(
          'lambda',
          `ket-rag retrieve: lambda must be in [0, 1], got ${lambda}.`,
        );
      }
      const [queryVector] = await embedAll(ctx.embedder, [query], { abortSignal: options.signal });
      const q = queryVector!;

      // Line 1: local search on the skeleton with λ·L tokens.
      const graphBudget = Math.floor(lambda * budget);
      let graph: LocalSearchResult | undefined;
      let matched: string[] = [];
      if (index.skeleton && graphBudget > 0) {
        const seeds = seedEntities(index, query, q);
        matched = seeds.matched;
        graph = localSearch(index.skeleton.graph, q, index.skeleton.entityVectors, {
          budgetTokens: graphBudget,
          tokenizer,
          topKEntities: o.topKEntities,
          topKRelationships: o.topKRelationships,
          textUnitProp: o.textUnitProp,
          seeds: seeds.ids,
        });
      }
      const graphContext = graph?.context ?? '';
      // Lines 2-4: the text channel gets what the graph channel left.
      const used = graphContext === '' ? 0 : tokenizer.count(`${graphContext}\n\n`);
      const textBudget = Math.max(0, budget - used);
      const seen = new Set((graph?.items ?? []).filter((i) => i.kind === 'chunk').map((i) => i.id));
      const trace: Record<string, unknown> = {
        method: name,
        variant: o.variant,
        lambda,
        budgets: { graph: graphBudget, text: textBudget },
      };
      let ranked: RetrievedItem[] = [];
      if (textBudget > 0 && o.textChannel !== 'none') {
        ranked = textChannelItems(index, query, q, textBudget, trace).filter((item) => !seen.has(item.id));
      }
      const text = packContext(ranked, textBudget, {
        tokenizer,
        render: renderLocalSearchItem,
        truncate: false,
      });
      let context = [graphContext, text.context].filter((c) => c !== '').join('\n\n');
      let tokens = tokenizer.count(context);
      let textItems = text.items;
      if (tokens > budget) {
        // Only for tokenizers whose counts do not add up across the join.
        const fitted = packContext(ranked, Math.max(0, textBudget - (tokens - budget)), {
          tokenizer,
          render: renderLocalSearchItem,
          truncate: false,
        });
        textItems = fitted.items;
        context = [graphContext, fitted.context].filter((c) => c !== '').join('\n\n');
        tokens = tokenizer.count(context);
      }
      // Passage ranking: the two channels are parallel sources of text (the paper concatenates them
      // and ranks neither above the other); each chunk item scores by reciprocal rank within its
      // channel, 1/(60 + rank), so a ranking by score interleaves them, graph first on ties.
      const rrf = (list: readonly RetrievedItem[]) => {
        let rank = 0;
        return list.map((item) => (item.kind === 'chunk' ? { ...item, score: 1 / (RRF_K + ++rank) } : item));
      };
      const items = [...rrf(graph?.items ?? []), ...rrf(textItems)];
      if (graph) {
        trace.seeds = graph.seeds.map((s) => s.id);
        trace.queryEntities = matched;
        trace.graphUnits = graph.items.filter((i) => i.kind === 'chunk').length;
        trace.relationshipSeeds = graph.relationshipSeeds;
        trace.graphTokens = graph.tokens;
      }
      trace.textTokens = text.tokens;
      trace.ms = performance.now() - started;
      const result: Retrieval = { context, items, tokens, trace };
      if (graph && index.skeleton) result.subgraph = subgraphOf(index.skeleton, graph.items);
      return result;
    },

    async save(index, dir) {
      const { ctx } = index;
      await writeIndexDir(
        dir,
        {
          method: name,
          formatVersion: FORMAT_VERSION,
          params: { ...index.options },
          providers: {
            embedder: modelFingerprint(ctx.embedder),
            vectorIndex: ctx.vectorIndex.kind,
            tasks: ctx.tasks.id,
          },
          stats: { ...index.stats, variant: index.options.variant },
        },
        async (tmp) => {
          await writeJson(join(tmp, 'units.json'), {
            chunks: index.chunks,
            chunkTexts: index.chunkTexts,
            subChunks: index.subChunks,
            subChunkTexts: index.subChunkTexts,
            core: index.core,
            stats: index.stats,
            knn: index.knn ?? null,
            dimensions: ctx.embedder.dimensions,
          });
          if (index.chunkVectors) await index.chunkVectors.save(join(tmp, 'chunks.vec'));
          if (index.skeleton) {
            await writeJson(join(tmp, 'skeleton.json'), {
              entities: index.skeleton.entities,
              relationships: index.skeleton.relationships,
              aliases: index.skeleton.aliases,
              titleEntities: index.skeleton.titleEntities,
            });
            await index.skeleton.entityVectors.save(join(tmp, 'entities.vec'));
          }
          if (index.keyword) {
            const { bipartite } = index.keyword;
            await writeJson(join(tmp, 'keywords.json'), {
              keywords: bipartite.keywords,
              keywordUnits: bipartite.keywordUnits.map((list) => Array.from(list)),
              sentences: bipartite.sentences.map((s) => [s.unit, s.start, s.end]),
              keywordSentences: bipartite.keywordSentences.map((list) => Array.from(list)),
            });
            await index.keyword.keywordVectors.save(join(tmp, 'keywords.vec'));
            await writeVectors(join(tmp, 'subchunks.f32'), index.keyword.subChunkVectors);
          }
          if (!index.keyword && index.entry?.vectors) {
            await index.entry.vectors.save(join(tmp, 'subchunks.vec'));
          }
          await saveEmbedderState(ctx.embedder, tmp);
        },
      );
    },

    async load(dir, ctx) {
      const manifest = await readManifest(dir, { method: name, formatVersion: FORMAT_VERSION });
      assertSameProviders(dir, manifest, {
        embedder: modelFingerprint(ctx.embedder),
        vectorIndex: ctx.vectorIndex.kind,
      });
      await restoreEmbedderState(ctx.embedder, dir);
      validateShape(
        v.object({ variant: v.optional(v.string()) }),
        manifest.params,
        `${join(dir, MANIFEST_FILE)} params`,
      );
      const options = resolveKetRagOptions(manifest.params as Partial<KetRagOptions>);
      const unitsPath = join(dir, 'units.json');
      const units = await readJson(unitsPath, unitsSchema);
      checkIndexFile(unitsPath, () => checkUnits(units));
      if (units.dimensions !== ctx.embedder.dimensions) {
        throw indexFileError(
          unitsPath,
          `dimensions is ${units.dimensions}, but the embedder has ${ctx.embedder.dimensions}`,
        );
      }
      const loadVectors = async (file: string, count: number): Promise<VectorIndex> => {
        const path = join(dir, file);
        const vectors = await ctx.vectorIndex.load(path);
        checkVectorRows(vectors, { count, dimensions: ctx.embedder.dimensions }, path);
        return vectors;
      };
      const index: KetRagIndex = {
        ctx,
        options,
        chunks: units.chunks,
        chunkTexts: units.chunkTexts,
        subChunks: units.subChunks,
        subChunkTexts: units.subChunkTexts,
        core: units.core,
        stats: units.stats as unknown as KetRagStats,
      };
      if (units.knn) index.knn = units.knn;
      if (options.textChannel === 'dense' || options.textChannel === 'knn') {
        index.chunkVectors = await loadVectors('chunks.vec', units.chunks.length);
      }
      if (units.core.length > 0) {
        const skeletonPath = join(dir, 'skeleton.json');
        const { entities, relationships, aliases, titleEntities } = await readJson(
          skeletonPath,
          skeletonSchema,
        );
        checkIndexFile(skeletonPath, () => checkSkeleton(entities, relationships, units.subChunks));
        index.skeleton = withSearch(options, {
          entities,
          relationships,
          entityVectors: await loadVectors('entities.vec', entities.length),
          graph: prepareSkeleton(
            entities,
            relationships,
            units.subChunks,
            units.subChunkTexts,
            options.unitsPerEntity,
          ),
          aliases: aliases ?? [],
          titleEntities: titleEntities ?? [],
        });
      }
      if (options.textChannel === 'keyword') {
        const keywordsPath = join(dir, 'keywords.json');
        const k = await readJson(keywordsPath, keywordsSchema);
        checkIndexFile(keywordsPath, () => checkKeywords(k, units.subChunkTexts));
        const bipartite: KeywordBipartite = {
          units: units.subChunks.map((s) => s.id),
          keywords: k.keywords,
          keywordUnits: k.keywordUnits.map((list) => Int32Array.from(list)),
          sentences: k.sentences.map(([unit, start, end]) => ({
            unit,
            start,
            end,
            text: units.subChunkTexts[unit]!.slice(start, end),
          })),
          keywordSentences: k.keywordSentences.map((list) => Int32Array.from(list)),
        };
        index.keyword = {
          bipartite,
          keywordVectors: await loadVectors('keywords.vec', k.keywords.length),
          subChunkVectors: await readVectors(
            join(dir, 'subchunks.f32'),
            units.subChunks.length,
            units.dimensions,
          ),
          subChunkTokens: Int32Array.from(units.subChunkTexts, (t) => ctx.tokenizer.count(t)),
        };
        const vectors = index.keyword.subChunkVectors;
        const entry = entryIndex(options, units.subChunkTexts, () => vectorIndexOf(ctx, vectors));
        if (entry) index.entry = entry;
      }
      if (
        options.textChannel === 'entry' ||
        (options.textChannel !== 'keyword' && unitSeeds(options, index.skeleton !== undefined))
      ) {
        const vectors =
          options.entryPoints !== 'lexical'
            ? await loadVectors('subchunks.vec', units.subChunks.length)
            : undefined;
        const entry = entryIndex(options, units.subChunkTexts, vectors ? () => vectors : undefined);
        if (entry) index.entry = entry;
      }
      return index;
    },
  };
}

/** Whether the graph channel seeds from entry sub-chunks (and so needs the entry search over them). */
function unitSeeds(o: KetRagOptions, hasSkeleton: boolean): boolean {
  return hasSkeleton && o.entityLinking && o.entitySeeds !== 'query';
}

/** BM25 (and, when given, the dense index) over the sub-chunks, as `entryPoints` needs. */
function entryIndex(
  o: KetRagOptions,
  subChunkTexts: readonly string[],
  vectors?: () => VectorIndex,
): KetRagEntryIndex | undefined {
  const entry: KetRagEntryIndex = {};
  if (o.entryPoints !== 'dense') entry.lexical = new Bm25Index(subChunkTexts);
  if (vectors && o.entryPoints !== 'lexical') entry.vectors = vectors();
  return entry.lexical || entry.vectors ? entry : undefined;
}

/**
 * Seed entities of the knowledge-graph channel, best first: with `entityLinking`, the skeleton's
 * entities written in the query (longest match, capitalised), then the `entryPoints` search over the
 * entities (`name: description`: embeddings, BM25, or both fused), `topKEntities` in all.
 */
function seedEntities(
  index: KetRagIndex,
  query: string,
  q: Float32Array,
): { ids: string[]; matched: string[] } {
  const o = index.options;
  const skeleton = index.skeleton!;
  const { graph } = skeleton;
  const matched: string[] = [];
  if (o.entityLinking && skeleton.vocabulary) {
    for (const m of skeleton.vocabulary.match(query, { capitalizedOnly: true })) {
      const id = normalizeEntityName(m.name);
      if (graph.entityIndex.has(id) && !matched.includes(id)) matched.push(id);
    }
  }
  const ids = matched.slice(0, o.topKEntities);
  // From the best entry sub-chunks: each one's own title entity, then the title entities it links to.
  const fromUnits: string[] = [];
  // Seed units need title entities (entity linking); without them the search over entities seeds.
  const byUnits = o.entitySeeds !== 'query' && o.entityLinking && index.entry && skeleton.unitEntities;
  if (byUnits && skeleton.unitEntities) {
    const homeOf = new Map(skeleton.titleEntities);
    const hits = searchSubChunks(index, query, q, o.seedUnits);
    for (const hit of hits) {
      const unit = index.subChunks[hit.id]!;
      const home = homeOf.get(unit.docId);
      const linked = (skeleton.unitEntities.get(unit.id) ?? []).map((p) => graph.entities[p]!.id);
      for (const id of [...(home !== undefined && graph.entityIndex.has(home) ? [home] : []), ...linked]) {
        if (!fromUnits.includes(id)) fromUnits.push(id);
      }
    }
  }
  // By the entry-point search over the entities' `name: description` texts.
  const fromQuery: string[] = [];
  if ((o.entitySeeds !== 'units' || !byUnits) && graph.entities.length > 0) {
    const hits = searchEntryPoints({
      mode: o.entryPoints,
      query,
      queryVector: q,
      vectors: skeleton.entityVectors,
      ...(skeleton.lexical ? { lexical: skeleton.lexical } : {}),
      k: Math.min(graph.entities.length, o.topKEntities + ids.length),
    });
    for (const hit of hits) {
      const id = graph.entities[hit.id]?.id;
      if (id !== undefined) fromQuery.push(id);
    }
  }
  // 'both': the two lists alternate (units first).
  const longest = Math.max(fromUnits.length, fromQuery.length);
  for (let i = 0; i < longest && ids.length < o.topKEntities; i++) {
    for (const id of [fromUnits[i], fromQuery[i]]) {
      if (id !== undefined && ids.length < o.topKEntities && !ids.includes(id)) ids.push(id);
    }
  }
  return { ids, matched };
}

/** Sub-chunk positions by descending score, as a hit list. */
function ranking(scores: ArrayLike<number>, keep: (i: number) => boolean = () => true) {
  const hits: { id: number; score: number }[] = [];
  for (let i = 0; i < scores.length; i++) if (keep(i)) hits.push({ id: i, score: scores[i]! });
  return hits.sort((a, b) => b.score - a.score || a.id - b.id);
}

/** Items of the text channel, best first, before packing. */
function textChannelItems(
  index: KetRagIndex,
  query: string,
  q: Float32Array,
  budget: number,
  trace: Record<string, unknown>,
): RetrievedItem[] {
  const o = index.options;
  if (o.textChannel === 'entry') {
    const n = index.subChunks.length;
    const meanTokens = index.subChunkTexts.reduce((t, text) => t + text.length, 0) / Math.max(1, n) / 4;
    const k = Math.min(n, Math.ceil((budget / Math.max(1, meanTokens)) * 1.5) + 5);
    const hits = searchSubChunks(index, query, q, k);
    return hits.map((h) => subChunkItem(index, h.id, h.score));
  }
  if (o.textChannel === 'keyword') {
    const keyword = index.keyword!;
    const lexical = index.entry?.lexical;
    let seeds: number[] | undefined;
    let unitScore: ((unit: number) => number) | undefined;
    if (o.entryPoints !== 'dense' && lexical) {
      const bm25 = new Float64Array(lexical.size);
      for (const hit of lexical.search(query, lexical.size)) bm25[hit.id] = hit.score;
      const lexicalSeeds = queryKeywordSeeds(keyword.bipartite, query);
      if (o.entryPoints === 'lexical') {
        seeds = lexicalSeeds;
        unitScore = (unit) => bm25[unit]!;
      } else {
        // The query's own keywords (rarest first), then the keywords nearest the query vector.
        const taken = new Set(lexicalSeeds);
        seeds = [
          ...lexicalSeeds,
          ...rankKeywords(q, keyword.keywordVectors, o.maxSeedKeywords)
            .map((k) => k.keyword)
            .filter((k) => !taken.has(k)),
        ];
        const cosine = keyword.subChunkVectors.map((v) => cosineSimilarity(q, v));
        const fused = new Float64Array(cosine.length);
        for (const hit of reciprocalRankFusion([ranking(cosine), ranking(bm25, (i) => bm25[i]! > 0)])) {
          fused[hit.id] = hit.score;
        }
        unitScore = (unit) => fused[unit]!;
      }
    }
    const found = keywordChannel(
      {
        graph: keyword.bipartite,
        keywordVectors: keyword.keywordVectors,
        unitVectors: keyword.subChunkVectors,
        unitTokens: keyword.subChunkTokens,
      },
      q,
      {
        budgetTokens: budget,
        collectFactor: o.collectFactor,
        maxSeedKeywords: o.maxSeedKeywords,
        ...(seeds ? { seeds } : {}),
        ...(unitScore ? { unitScore } : {}),
      },
    );
    trace.keywordSeeds = found.seeds.slice(0, 20).map((k) => keyword.bipartite.keywords[k]);
    trace.keywordSeedCount = found.seeds.length;
    trace.candidates = found.candidates.length;
    return found.candidates.map((c) => subChunkItem(index, c.unit, c.score));
  }
  // 'dense' and 'knn': chunks by similarity to the query.
  const vectors = index.chunkVectors!;
  const meanTokens = index.chunks.reduce((n, c) => n + c.tokens, 0) / Math.max(1, index.chunks.length);
  const depth = Math.min(index.chunks.length, Math.ceil((budget / Math.max(1, meanTokens)) * 1.5) + 5);
  const hits = vectors.search(q, depth);
  if (o.textChannel === 'dense') return hits.map((h) => chunkItem(index, h.id, h.score));
  // 'knn': each seed chunk followed by its KNN-graph neighbours (KNNG-RAG).
  const adjacency = new Map<number, number[]>();
  for (const e of index.knn?.edges ?? []) {
    adjacency.set(e.source, [...(adjacency.get(e.source) ?? []), e.target]);
    adjacency.set(e.target, [...(adjacency.get(e.target) ?? []), e.source]);
  }
  const out: RetrievedItem[] = [];
  const taken = new Set<number>();
  for (const hit of hits) {
    for (const position of [hit.id, ...(adjacency.get(hit.id) ?? [])]) {
      if (taken.has(position)) continue;
      taken.add(position);
      out.push(chunkItem(index, position, position === hit.id ? hit.score : 0));
    }
  }
  trace.seedChunks = hits.length;
  return out;
}

function subChunkItem(index: KetRagIndex, position: number, score: number): RetrievedItem {
  const sub = index.subChunks[position]!;
  return {
    id: sub.id,
    kind: 'chunk',
    text: index.subChunkTexts[position]!,
    score,
    source: { chunkIds: [sub.id], docIds: [sub.docId] },
  };
}

function chunkItem(index: KetRagIndex, position: number, score: number): RetrievedItem {
  const chunk = index.chunks[position]!;
  return {
    id: chunk.id,
    kind: 'chunk',
    text: index.chunkTexts[position]!,
    score,
    source: { chunkIds: [chunk.id], docIds: [chunk.docId] },
  };
}

function subgraphOf(skeleton: KetRagSkeleton, items: RetrievedItem[]): NonNullable<Retrieval['subgraph']> {
  const nodes = new Set<string>();
  const edges: [string, string][] = [];
  const byId = new Map(skeleton.relationships.map((r) => [r.id, r]));
  for (const item of items) {
    if (item.kind === 'entity') nodes.add(item.id);
    if (item.kind === 'relation') {
      const r = byId.get(item.id);
      if (r) {
        nodes.add(r.source);
        nodes.add(r.target);
        edges.push([r.source, r.target]);
      }
    }
  }
  return { nodes: [...nodes], edges };
}

/** KET-RAG-P with default settings (method name `'ket-rag'`; pass `variant` to build another). */
export const ketRag = createKetRag();

/** One method per variant, each building its variant by default (all share the name `'ket-rag'`). */
export const ketRagVariants: Readonly<
  Record<KetRagVariant, Method<KetRagIndex, KetRagOptions, KetRagRetrieveOptions>>
> = Object.fromEntries(KET_RAG_VARIANTS.map((variant) => [variant, createKetRag({ variant })])) as Record<
  KetRagVariant,
  Method<KetRagIndex, KetRagOptions, KetRagRetrieveOptions>
>;

/** The best `k` entry sub-chunks for a query, by the index's `entryPoints` mode. */
function searchSubChunks(index: KetRagIndex, query: string, q: Float32Array, k: number): VectorHit[] {
  return searchEntryPoints({
    mode: index.options.entryPoints,
    query,
    queryVector: q,
    ...(index.entry?.vectors ? { vectors: index.entry.vectors } : {}),
    ...(index.entry?.lexical ? { lexical: index.entry.lexical } : {}),
    k,
  });
}
