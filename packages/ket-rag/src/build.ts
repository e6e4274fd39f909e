/**
 * KET-RAG indexing (Algorithm 3): chunk; split chunks into sub-chunks; KNN chunk graph; core chunks
 * (top β by PageRank, or uniform); the skeleton from the core chunks; the text-keyword bipartite
 * graph over all sub-chunks; the entry-point search over the sub-chunks. Only what the variant's
 * channels need is built.
 */
import {
  type BuildContext,
  type BuildRuntime,
  type Chunk,
  chunkCorpus as chunkCorpusBy,
  type Document,
  type IndexProviders,
  InvalidArgumentError,
  indexProviders,
  isFittableEmbedder,
  startBuild,
  withTitle,
} from '@grag/core';
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
import { entryIndex, unitSeeds, vectorIndexOf } from './entry.js';
import type { KetRagOptions } from './options.js';
import { neighbourLists } from './ranking.js';
import { subChunksByChunk } from './rewire.js';
import { extractSkeleton } from './skeleton.js';
import { emptyStats, type KetRagIndex, type KetRagKeywordIndex, type KetRagSkeleton } from './types.js';

/** Chunks of the corpus and the text each is shown by (title line + text). */
function chunkCorpus(
  docs: readonly Document[],
  providers: IndexProviders,
  o: KetRagOptions,
): { chunks: Chunk[]; texts: string[] } {
  if (docs.length === 0) {
    throw new InvalidArgumentError('docs', 'ket-rag build: the corpus is empty; pass at least one document.');
  }
  const chunks = chunkCorpusBy([...docs], {
    chunking: o.chunking,
    chunkSize: o.chunkSize,
    overlap: o.overlap,
    tokenizer: providers.tokenizer,
  });
  const titles = new Map(docs.map((d) => [d.id, d.title]));
  return { chunks, texts: chunks.map((c) => withTitle(c.text, titles.get(c.docId), o.includeTitle)) };
}

/** What retrieval reads of an index but need not be stored: neighbour lists and mean sizes. */
export function derivedParts(input: {
  options: KetRagOptions;
  chunks: readonly Chunk[];
  subChunkTexts: readonly string[];
  knn: ChunkKnnGraph | undefined;
}): Pick<KetRagIndex, 'knnNeighbours' | 'meanTokens'> {
  const { options: o, chunks, subChunkTexts } = input;
  const n = subChunkTexts.length;
  const meanTokens = {
    chunk: chunks.reduce((sum, c) => sum + c.tokens, 0) / Math.max(1, chunks.length),
    subChunk: subChunkTexts.reduce((t, text) => t + text.length, 0) / Math.max(1, n) / 4,
  };
  if (o.textChannel !== 'knn') return { meanTokens };
  return { meanTokens, knnNeighbours: neighbourLists(chunks.length, input.knn?.edges ?? []) };
}

/** The keyword channel's index: the bipartite graph, keyword vectors (sentence means), sub-chunk vectors. */
async function keywordIndex(input: {
  rt: BuildRuntime;
  providers: IndexProviders;
  subChunks: readonly SubChunk[];
  subChunkTexts: readonly string[];
  subChunkVectors: () => Promise<Float32Array[]>;
}): Promise<KetRagKeywordIndex> {
  const { rt, providers, subChunks, subChunkTexts } = input;
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
    () => vectorIndexOf(providers, keywordVectors(bipartite, sentenceVectors)),
    { checkpoint: false },
  );
  return {
    bipartite,
    keywordVectors: keywordVectorIndex,
    subChunkVectors: await input.subChunkVectors(),
    subChunkTokens: Int32Array.from(subChunkTexts, (t) => providers.tokenizer.count(t)),
  };
}

/** Build a KET-RAG index with resolved options `o`. */
export async function buildKetRag(
  docs: readonly Document[],
  ctx: BuildContext,
  o: KetRagOptions,
): Promise<KetRagIndex> {
  const providers = indexProviders(ctx);
  const { tokenizer, embedder } = providers;
  const rt = startBuild(ctx);
  const stats = emptyStats();
  const { chunks, texts: chunkTexts } = await rt.stage('chunk', () => chunkCorpus(docs, providers, o));
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
    });
    skeleton = extracted.skeleton;
    Object.assign(stats, extracted.stats);
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
    keyword = await keywordIndex({
      rt,
      providers,
      subChunks,
      subChunkTexts,
      subChunkVectors: embedSubChunks,
    });
    stats.keywords = keyword.bipartite.keywords.length;
    stats.sentences = keyword.bipartite.sentences.length;
  }

  const index: KetRagIndex = {
    providers,
    options: o,
    chunks,
    chunkTexts,
    subChunks,
    subChunkTexts,
    core: corePositions.map((i) => chunks[i]!.id),
    stats,
    ...derivedParts({ options: o, chunks, subChunkTexts, knn }),
  };
  if (knn) index.knn = knn;
  if (chunkVectorList && (o.textChannel === 'dense' || o.textChannel === 'knn')) {
    const vectors = chunkVectorList;
    index.chunkVectors = await rt.stage('vector-index', () => vectorIndexOf(providers, vectors), {
      checkpoint: false,
    });
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
  return index;
}
