/**
 * KET-RAG indexing (Algorithm 3): chunk; split chunks into sub-chunks; KNN chunk graph; core chunks
 * (top β by PageRank, or uniform); the skeleton from the core chunks; the text-keyword bipartite
 * graph over all sub-chunks; the entry-point search over the sub-chunks. Only what the variant's
 * channels need is built.
 */
import {
  type BuildContext,
  type Chunk,
  type Document,
  isFittableEmbedder,
  type Tokenizer,
  type VectorIndex,
} from '@grag/core';
import type { LocalSearchGraph } from '@grag/core/graph';
import {
  type BuildRuntime,
  type IndexProviders,
  indexProviders,
  requireDocuments,
  startBuild,
  titledChunksBySettings,
  withTitle,
} from '@grag/core/kit';
import {
  buildChunkKnnGraph,
  buildKeywordBipartite,
  type ChunkKnnGraph,
  distinctKeywords,
  keywordVectors,
  type SubChunk,
  selectCoreChunks,
  splitChunks,
} from '@grag/keyword-bipartite';
import {
  countGraph,
  countSubChunks,
  retrievalTokenizer as retrievalTokenizerOf,
  type SubChunkCounts,
} from './counts.js';
import { entryIndex, keywordIndexOf, unitSeeds, vectorIndexOf } from './entry.js';
import type { KetRagOptions } from './options.js';
import { neighbourLists } from './ranking.js';
import { embedMissing, type KetRagReuse, stageOptions } from './reuse.js';
import { subChunksByChunk } from './rewire.js';
import { extractSkeleton, type SkeletonKept } from './skeleton.js';
import {
  emptyStats,
  type KetRagIndex,
  type KetRagKeywordIndex,
  type KetRagSkeleton,
  type KetRagStats,
  type KetRagUpdateState,
} from './types.js';

/** Chunks of the corpus and the text each is shown by (title line + text). */
export function chunkCorpus(
  docs: readonly Document[],
  providers: IndexProviders,
  o: KetRagOptions,
): { chunks: Chunk[]; texts: string[] } {
  requireDocuments('ket-rag', docs);
  return titledChunksBySettings(docs, o, providers.tokenizer);
}

/** What retrieval reads of an index but need not be stored: neighbour lists and mean sizes. */
function derivedParts(input: {
  options: KetRagOptions;
  chunks: readonly Chunk[];
  subChunks: readonly SubChunk[];
  subChunkTexts: readonly string[];
  knn: ChunkKnnGraph | undefined;
  tokenizer: Tokenizer;
  counts: SubChunkCounts | undefined;
  /** The skeleton's local-search graph, whose entities and relationships `counts` may count. */
  graph?: LocalSearchGraph | undefined;
}): Pick<KetRagIndex, 'knnNeighbours' | 'meanTokens' | 'retrievalTokenizer' | 'counts'> {
  const { options: o, chunks, subChunkTexts, counts } = input;
  const retrievalTokenizer = retrievalTokenizerOf(
    input.tokenizer,
    input.subChunks,
    subChunkTexts,
    counts,
    input.graph,
  );
  const n = subChunkTexts.length;
  const meanTokens = {
    chunk: chunks.reduce((sum, c) => sum + c.tokens, 0) / Math.max(1, chunks.length),
    subChunk: subChunkTexts.reduce((t, text) => t + text.length, 0) / Math.max(1, n) / 4,
  };
  const parts = { meanTokens, retrievalTokenizer, ...(counts ? { counts } : {}) };
  if (o.textChannel !== 'knn') return parts;
  return { ...parts, knnNeighbours: neighbourLists(chunks.length, input.knn?.edges ?? []) };
}

/** The parts of an index that are kept as they are (built, or read back from its files). */
export type StoredParts = Pick<
  KetRagIndex,
  'providers' | 'options' | 'chunks' | 'chunkTexts' | 'subChunks' | 'subChunkTexts' | 'core' | 'stats'
>;

/**
 * An index of its `stored` parts, with what retrieval derives from them ({@link derivedParts}: from
 * the KNN graph `knn`, the sub-chunk `counts` and the skeleton's `graph`) and `knn` when it has one.
 */
export function assembleIndex(
  stored: StoredParts,
  input: {
    knn: ChunkKnnGraph | undefined;
    counts: SubChunkCounts | undefined;
    graph: LocalSearchGraph | undefined;
  },
): KetRagIndex {
  const index: KetRagIndex = {
    ...stored,
    ...derivedParts({
      options: stored.options,
      chunks: stored.chunks,
      subChunks: stored.subChunks,
      subChunkTexts: stored.subChunkTexts,
      knn: input.knn,
      tokenizer: stored.providers.tokenizer,
      counts: input.counts,
      graph: input.graph,
    }),
  };
  if (input.knn) index.knn = input.knn;
  return index;
}

/** The keyword channel's index: the bipartite graph, keyword vectors (sentence means), sub-chunk vectors. */
async function keywordIndex(input: {
  rt: BuildRuntime;
  providers: IndexProviders;
  options: KetRagOptions;
  subChunks: readonly SubChunk[];
  subChunkTexts: readonly string[];
  subChunkVectors: () => Promise<Float32Array[]>;
  subChunkTokens: Int32Array;
  reuse: KetRagReuse | undefined;
}): Promise<{ keyword: KetRagKeywordIndex; sentenceVectors: Float32Array[] }> {
  const { rt, providers, subChunks, subChunkTexts, reuse } = input;
  const cp = stageOptions(reuse);
  const bipartite = await rt.stage(
    'keywords',
    () => buildKeywordBipartite(subChunks.map((s, i) => ({ id: s.id, text: subChunkTexts[i]! }))),
    cp,
  );
  // A kept sub-chunk splits into the same sentences: its k-th sentence keeps its k-th vector.
  const ordinal: number[] = [];
  bipartite.sentences.forEach((s, i) => {
    const previous = bipartite.sentences[i - 1];
    ordinal.push(previous?.unit === s.unit ? ordinal[i - 1]! + 1 : 0);
  });
  const sentenceVectors = await rt.stage(
    'embed-sentences',
    () =>
      embedMissing(
        bipartite.sentences.map((s) => s.text),
        (i) => reuse?.sentenceVectors.get(subChunks[bipartite.sentences[i]!.unit]!.id)?.[ordinal[i]!],
        (texts, at) =>
          rt.embed(texts, {
            label: (_text, i) => `a sentence of ${subChunks[bipartite.sentences[at[i]!]!.unit]!.id}`,
          }),
        reuse?.tally,
      ),
    cp,
  );
  const keywordVectorIndex = await rt.stage(
    'vector-index',
    () => vectorIndexOf(providers, keywordVectors(bipartite, sentenceVectors)),
    { checkpoint: false },
  );
  const keyword = keywordIndexOf(
    input.options,
    {
      bipartite,
      keywordVectors: keywordVectorIndex,
      subChunkVectors: await input.subChunkVectors(),
      subChunkTokens: input.subChunkTokens,
    },
    providers.embedder.dimensions,
  );
  return { keyword, sentenceVectors };
}

/** Build a KET-RAG index with resolved options `o`. */
export async function buildKetRag(
  docs: readonly Document[],
  ctx: BuildContext,
  o: KetRagOptions,
): Promise<KetRagIndex> {
  const providers = indexProviders(ctx);
  const { embedder } = providers;
  const rt = startBuild(ctx);
  const { chunks, texts: chunkTexts } = await rt.stage('chunk', () => chunkCorpus(docs, providers, o));
  if (isFittableEmbedder(embedder)) {
    await rt.stage('fit', () => embedder.fit(chunkTexts), { checkpoint: false });
  }
  const titles: [string, string][] = docs.flatMap((d) =>
    d.title ? [[d.id, d.title] as [string, string]] : [],
  );
  return indexChunks({
    rt,
    ctx,
    providers,
    options: o,
    chunks,
    chunkTexts,
    documents: docs.map((d) => d.id),
    titles,
  });
}

/**
 * The core chunks of an update: the kept core chunks stay core (extracting other kept chunks would
 * call the model for unchanged text) and new chunks fill the budget ⌊n·β⌋, best PageRank on the
 * updated graph first (`'pagerank'`) or in the seeded sample order (`'uniform'`). Positions, best
 * first by the updated ranking.
 */
function updatedCore(
  o: KetRagOptions,
  chunks: readonly Chunk[],
  knn: ChunkKnnGraph | undefined,
  reuse: KetRagReuse,
): number[] {
  const graph = knn ?? { ids: chunks.map((c) => c.id), edges: [] };
  const ranked = selectCoreChunks(graph, {
    beta: 1,
    method: o.coreSelection,
    damping: o.damping,
    seed: o.seed,
  }).positions;
  const budget = Math.floor(chunks.length * o.beta + 1e-9);
  const kept = ranked.filter((i) => reuse.keptCore.has(chunks[i]!.id));
  const candidates = ranked.filter((i) => !reuse.keptChunks.has(chunks[i]!.id));
  const chosen = new Set([...kept, ...candidates.slice(0, Math.max(0, budget - kept.length))]);
  return ranked.filter((i) => chosen.has(i));
}

/**
 * Index chunked documents: split, KNN graph, core chunks, skeleton, keyword graph and entry search
 * (Algorithm 3 after chunking). With `reuse` (an update), what the earlier index holds for kept
 * units is taken instead of embedded or extracted again, and kept core chunks stay core (with
 * `reuse.full`, the core set is selected again as a build does).
 */
export async function indexChunks(input: IndexChunksInput): Promise<KetRagIndex> {
  const { rt, ctx, providers, options: o, chunks, chunkTexts, reuse } = input;
  const { tokenizer } = providers;
  const cp = stageOptions(reuse);
  const stats = emptyStats();
  stats.documents = new Set(chunks.map((c) => c.docId)).size;
  stats.chunks = chunks.length;

  const titles = new Map<string, string | undefined>(input.titles);
  const { subChunks, subChunkTexts } = await rt.stage(
    'split',
    () => {
      const subs = splitChunks(chunks, {
        size: o.subChunkSize,
        tokenizer,
        ...(o.halvings !== undefined ? { halvings: o.halvings } : {}),
      });
      return {
        subChunks: subs,
        subChunkTexts: subs.map((s) => withTitle(s.text, titles.get(s.docId), o.includeTitle)),
      };
    },
    cp,
  );
  stats.subChunks = subChunks.length;
  const counts = countSubChunks(tokenizer, subChunks, subChunkTexts);

  const { chunkVectorList, knn, chunkIndex, corePositions } = await chunkGraphAndCore(input, stats);
  stats.coreChunks = corePositions.length;

  let skeleton: KetRagSkeleton | undefined;
  let skeletonKept: SkeletonKept | undefined;
  if (corePositions.length > 0) {
    const extracted = await extractSkeleton({
      rt,
      providers,
      signal: ctx.signal,
      options: o,
      chunks,
      chunkTexts,
      corePositions,
      subChunks,
      subChunkTexts,
      subIdsOf: subChunksByChunk(subChunks),
      titles,
      reuse,
    });
    skeleton = extracted.skeleton;
    skeletonKept = extracted.kept;
    Object.assign(stats, extracted.stats);
  }

  let subChunkVectorList: Float32Array[] | undefined;
  const embedSubChunks = async (): Promise<Float32Array[]> => {
    subChunkVectorList ??= await rt.stage(
      'embed-subchunks',
      () =>
        embedMissing(
          subChunkTexts,
          (i) => reuse?.subChunkVectors.get(subChunks[i]!.id),
          (texts, at) => rt.embed(texts, { label: (_text, i) => `sub-chunk ${subChunks[at[i]!]!.id}` }),
          reuse?.tally,
        ),
      cp,
    );
    return subChunkVectorList;
  };
  let keyword: KetRagKeywordIndex | undefined;
  let sentenceVectors: Float32Array[] | undefined;
  if (o.textChannel === 'keyword') {
    ({ keyword, sentenceVectors } = await keywordIndex({
      rt,
      providers,
      options: o,
      subChunks,
      subChunkTexts,
      subChunkVectors: embedSubChunks,
      subChunkTokens: counts.text,
      reuse,
    }));
    stats.keywords = keyword.bipartite.keywords.length;
    stats.sentences = keyword.bipartite.sentences.length;
  }

  if (skeleton) counts.graph = countGraph(tokenizer, skeleton.graph);
  const index = assembleIndex(
    {
      providers,
      options: o,
      chunks,
      chunkTexts,
      subChunks,
      subChunkTexts,
      core: corePositions.map((i) => chunks[i]!.id),
      stats,
    },
    { knn, counts, graph: skeleton?.graph },
  );
  if (chunkVectorList && (o.textChannel === 'dense' || o.textChannel === 'knn')) {
    const vectors = chunkVectorList;
    index.chunkVectors =
      chunkIndex ??
      (await rt.stage('vector-index', () => vectorIndexOf(providers, vectors), { checkpoint: false }));
  }
  if (skeleton) index.skeleton = skeleton;
  if (keyword) index.keyword = keyword;
  // The entry channel, or seed units for a graph channel without the keyword channel; with the
  // keyword channel, the entry search reuses its sub-chunk vectors.
  const entryVectors =
    o.textChannel === 'entry' || (!keyword && unitSeeds(o, skeleton !== undefined))
      ? await embedSubChunks()
      : keyword?.subChunkVectors;
  if (entryVectors) {
    const entry = entryIndex(o, subChunkTexts, () => vectorIndexOf(providers, entryVectors));
    if (entry) index.entry = entry;
  }
  const kept: KetRagUpdateState = {
    documents: input.documents,
    titles: input.titles,
    extractions: skeletonKept?.extractions ?? new Map(),
    summaries: skeletonKept?.summaries ?? new Map(),
  };
  if (chunkVectorList) kept.chunkVectors = chunkVectorList;
  if (subChunkVectorList) kept.subChunkVectors = subChunkVectorList;
  if (skeletonKept) kept.entityVectors = skeletonKept.entityVectors;
  if (sentenceVectors) kept.sentenceVectors = sentenceVectors;
  index.kept = kept;
  return index;
}

/** What {@link indexChunks} reads. */
export interface IndexChunksInput {
  rt: BuildRuntime;
  ctx: BuildContext;
  providers: IndexProviders;
  options: KetRagOptions;
  chunks: Chunk[];
  chunkTexts: string[];
  documents: string[];
  titles: [string, string][];
  reuse?: KetRagReuse;
}

/**
 * The chunk vectors (when the KNN graph or the text channel needs them), the chunk KNN graph (for
 * PageRank core selection or the `knn` channel) and the core chunks: all chunks (β ≥ 1), none
 * (β ≤ 0), an update's kept core topped up ({@link updatedCore}), or ⌊n·β⌋ by PageRank or a seeded
 * sample. Positions of the core chunks, best first.
 */
async function chunkGraphAndCore(
  input: IndexChunksInput,
  stats: KetRagStats,
): Promise<{
  chunkVectorList: Float32Array[] | undefined;
  knn: ChunkKnnGraph | undefined;
  /** The vector index of the chunk vectors, when the KNN stage made one. */
  chunkIndex: VectorIndex | undefined;
  corePositions: number[];
}> {
  const { rt, options: o, chunks, chunkTexts, reuse } = input;
  const cp = stageOptions(reuse);
  const partial = o.beta > 0 && o.beta < 1;
  const needKnn = (partial && o.coreSelection === 'pagerank') || o.textChannel === 'knn';
  const needChunkVectors =
    (needKnn && o.semanticK > 0) || o.textChannel === 'dense' || o.textChannel === 'knn';
  let chunkVectorList: Float32Array[] | undefined;
  if (needChunkVectors) {
    chunkVectorList = await rt.stage(
      'embed-chunks',
      () =>
        embedMissing(
          chunkTexts,
          (i) => reuse?.chunkVectors.get(chunks[i]!.id),
          (texts, at) => rt.embed(texts, { label: (_text, i) => `chunk ${chunks[at[i]!]!.id}` }),
          reuse?.tally,
        ),
      cp,
    );
  }
  let knn: ChunkKnnGraph | undefined;
  let chunkIndex: VectorIndex | undefined;
  if (needKnn) {
    knn = await rt.stage(
      'knn',
      () => {
        // Semantic neighbours from the context's vector index (`semanticKnn: 'index'`), kept for a
        // text channel that searches the chunks; else by brute force.
        if (chunkVectorList && o.semanticK > 0 && o.semanticKnn === 'index') {
          chunkIndex = vectorIndexOf(input.providers, chunkVectorList);
        }
        return buildChunkKnnGraph(
          chunks.map((c, i) => ({
            id: c.id,
            keywords: distinctKeywords(chunkTexts[i]!),
            ...(chunkVectorList ? { vector: chunkVectorList[i]! } : {}),
          })),
          {
            lexicalK: o.lexicalK,
            semanticK: o.semanticK,
            maxDocumentFrequency: o.maxDocumentFrequency,
            ...(chunkIndex ? { vectorIndex: chunkIndex } : {}),
          },
        );
      },
      cp,
    );
    stats.knnEdges = knn.edges.length;
  }
  const corePositions = await rt.stage(
    'core',
    () => {
      if (o.beta >= 1) return chunks.map((_, i) => i);
      if (o.beta <= 0) return [];
      if (reuse && !reuse.full) return updatedCore(o, chunks, knn, reuse);
      const graph = knn ?? { ids: chunks.map((c) => c.id), edges: [] };
      return selectCoreChunks(graph, {
        beta: o.beta,
        method: o.coreSelection,
        damping: o.damping,
        seed: o.seed,
      }).positions;
    },
    cp,
  );
  return { chunkVectorList, knn, chunkIndex, corePositions };
}
