/**
 * Saving and loading a KET-RAG index through core's persistence envelope, format version 5 (4
 * without `vocabulary.bin`, the vocabulary then built at load; 4 was 3 with each HNSW vector index
 * stored as its graph alone, `*.hnsw`, over the vectors stored once as rows; 3 was 2 plus
 * `counts.bin`: the token counts of the sub-chunks, entities and relationships as retrieval writes
 * them, see counts.ts; versions 2 to 4 still load). Texts
 * are gzipped JSON: `units.json` (chunks, sub-chunks, their texts, core chunks, stats),
 * `skeleton.json` (entity and relationship texts, aliases, title entities), `keywords.json` (the
 * keywords), `update.json` (see persist-kept.ts); the entity vocabulary's keys and names are one
 * text in `vocabulary.bin` (persist-skeleton.ts). Graphs are typed arrays: `knn.bin` (KNN edges),
 * `skeleton.bin` (relationship endpoints and weights, the text units of entities and relationships
 * as CSR) and `keywords.bin` (keyword → sub-chunks and keyword → sentences as CSR, sentence spans).
 * Every vector collection is stored once (`*.rows`, persist-kept.ts): a vector index whose graph
 * can be exported without its vectors (HNSW) is stored as that graph (`*.hnsw`, persist-vectors.ts)
 * and restored over the rows; any other is saved (`*.vec`) only when the factory cannot rebuild it
 * from those vectors as fast as it loads it. Keyword vectors are sentence-vector means: stored
 * (`keywords.rows`) beside a keyword graph when computing them would take many additions per stored
 * component (see storesKeywordVectors), else computed again at load from `sentences.rows` (read as
 * sparse rows). BM25 (stored as arrays from format 4) and the vocabulary (format 5) are read; the
 * local-search graph and the other lookups are rebuilt at load. Indexes
 * of version 1 still load (persist-v1.ts).
 */
import {
  type BuildContext,
  type IndexStore,
  isStoredVectors,
  type SearchableVectors,
  type VectorIndex,
} from '@grag/core';
import {
  bm25FileArrays,
  exportsVectorGraph,
  loadBm25File,
  type MethodIndexFormat,
  type OpenedIndex,
  openMethodIndex,
  packLists,
  unpackLists,
  writeMethodIndex,
} from '@grag/core/kit';
import type { ChunkKnnGraph, KeywordBipartite, SubChunk } from '@grag/keyword-bipartite';
import { keywordVectors, keywordVectorsOfSparse } from '@grag/keyword-bipartite';
import { assembleIndex } from './build.js';
import { countGraph, countSubChunks, type SubChunkCounts } from './counts.js';
import { entryIndex, keywordIndexOf, unitSeeds } from './entry.js';
import { type KetRagOptions, resolveKetRagOptionsFor } from './options.js';
import { ENTITIES_BM25, SUBCHUNKS_BM25 } from './persist-bm25.js';
import {
  keptDigests,
  keptFiles,
  keptRowFiles,
  loadKept,
  ROWS,
  rowReader,
  saveKept,
  vectorRowsOf,
} from './persist-kept.js';
import {
  loadSkeleton,
  loadSkeletonTexts,
  optionalAt,
  optionalNumbers,
  saveSkeletonTexts,
  saveVocabulary,
  skeletonArrays,
} from './persist-skeleton.js';
import { packUnitTexts, unpackUnitTexts } from './persist-units.js';
import { loadKetRagV1 } from './persist-v1.js';
import {
  KEYWORD_ROWS,
  loadCollections,
  loadIndex,
  required,
  saveCollections,
  saveIndex,
} from './persist-vectors.js';
import { checkKeywords, checkUnits, keywordsSchemaV2, unitsSchemaV2, unitsSchemaV4 } from './schemas.js';
import type { KetRagIndex } from './types.js';

/** Format versions before the current one that still load. */
const READS = [1, 2, 3, 4] as const;
/** The sub-chunks' token counts as retrieved (format 3; see counts.ts). */
const COUNTS_FILE = 'counts.bin';

/** Write `index` to `target`, a directory or any store (atomically). */
export async function saveKetRag(
  format: MethodIndexFormat,
  index: KetRagIndex,
  target: string | IndexStore,
): Promise<void> {
  const header = {
    method: format.method,
    formatVersion: format.formatVersion,
    uses: format.uses,
    ...(format.tasks ? { tasks: format.tasks } : {}),
    providers: index.providers,
    params: index.options,
    stats: { ...index.stats, variant: index.options.variant },
  };
  await writeMethodIndex(target, header, async (out) => {
    const { knn, skeleton, keyword } = index;
    const rows = vectorRowsOf(index);
    // A store that keeps collections keeps the vectors searched by k-NN once, as the collections.
    const collected = await saveCollections(out, format.method, index, rows);
    const kept = keptFiles(index, collected);
    await out.json(
      'units.json',
      {
        ...packUnitTexts(index),
        core: index.core,
        stats: index.stats,
        knn: knn ? { ids: knn.ids } : null,
        dimensions: index.providers.embedder.dimensions,
        kept: keptDigests(kept),
        keptRows: keptRowFiles(index, collected),
      },
      { compress: true },
    );
    if (knn) {
      await out.arrays('knn.bin', {
        source: Int32Array.from(knn.edges, (e) => e.source),
        target: Int32Array.from(knn.edges, (e) => e.target),
        lexical: optionalNumbers(knn.edges.map((e) => e.lexical)),
        cosine: optionalNumbers(knn.edges.map((e) => e.cosine)),
      });
    }
    const factory = index.providers.vectorIndex;
    if (index.chunkVectors && !collected.has('chunks'))
      await saveIndex(out, factory, 'chunks', inProcess(index.chunkVectors), rows.chunks);
    if (skeleton) {
      const texts = {
        entities: skeleton.entities.map(({ id, name, description }) => ({ id, name, description })),
        relationships: skeleton.relationships.map(({ id, description }) => ({ id, description })),
        aliases: skeleton.aliases,
        titleEntities: skeleton.titleEntities,
      };
      await saveSkeletonTexts(out, texts);
      await out.arrays('skeleton.bin', skeletonArrays(skeleton, index.subChunks));
      if (skeleton.vocabulary) await saveVocabulary(out, skeleton.vocabulary);
      if (skeleton.lexical) await out.arrays(ENTITIES_BM25, bm25FileArrays(skeleton.lexical));
      if (!collected.has('entities'))
        await saveIndex(out, factory, 'entities', inProcess(skeleton.entityVectors), rows.entities);
    }
    if (keyword) {
      const { bipartite } = keyword;
      await out.json('keywords.json', { keywords: bipartite.keywords }, { compress: true });
      const units = packLists(bipartite.keywordUnits);
      const sentences = packLists(bipartite.keywordSentences);
      await out.arrays('keywords.bin', {
        unitOffsets: units.offsets,
        units: units.targets,
        sentenceOffsets: sentences.offsets,
        sentences: sentences.targets,
        spans: Int32Array.from(bipartite.sentences.flatMap((s) => [s.unit, s.start, s.end])),
      });
      await saveIndex(out, factory, 'keywords', keyword.keywordVectors, rows.sentences);
      // A keyword graph is restored over the keyword vectors: stored when computing them again at
      // load from the sentence vectors would take many additions per stored component (63 M at 1M
      // tokens of the scale corpus), else computed (40 % of a dev-slice index's bytes spared).
      if (
        rows.sentences &&
        exportsVectorGraph(keyword.keywordVectors, factory) &&
        storesKeywordVectors(bipartite, rows.sentences, index.providers.embedder.dimensions)
      ) {
        await out.vectorRows(KEYWORD_ROWS, keywordVectors(bipartite, rows.sentences));
      }
    }
    // The entry search over the sub-chunks (with the keyword channel too: an approximate index is
    // loaded rather than built again).
    if (index.entry?.lexical) await out.arrays(SUBCHUNKS_BM25, bm25FileArrays(index.entry.lexical));
    if (index.entry?.vectors && !collected.has('subChunks')) {
      await saveIndex(out, factory, 'subchunks', inProcess(index.entry.vectors), rows.subChunks);
    }
    // An index loaded from an older version has no counts yet: counted now.
    const { tokenizer } = index.providers;
    const counts = index.counts ?? countSubChunks(tokenizer, index.subChunks, index.subChunkTexts);
    const graph = counts.graph ?? (skeleton ? countGraph(tokenizer, skeleton.graph) : undefined);
    const { text, item, itemWithBlankLine } = counts;
    await out.arrays(COUNTS_FILE, { text, item, itemWithBlankLine, ...(graph ?? {}) });
    await saveKept(out, index, kept, collected);
  });
}

/**
 * Additions per component of the keyword vectors above which they are stored beside a keyword graph
 * (see {@link storesKeywordVectors}).
 */
const KEYWORD_ADDITIONS_PER_COMPONENT = 4;

/**
 * Whether the keyword vectors are stored (`keywords.rows`) rather than computed again at load as
 * sentence-vector means: when that would add more than {@link KEYWORD_ADDITIONS_PER_COMPONENT}
 * non-zero sentence components per component of the keyword vectors (keywords × dimensions), as in a
 * corpus that repeats its keywords across many sentences; a corpus of varied text has many keywords
 * of few sentences, whose vectors cost more bytes to store than additions to compute.
 */
function storesKeywordVectors(
  bipartite: KeywordBipartite,
  sentences: readonly Float32Array[],
  dimensions: number,
): boolean {
  const nonZero = sentences.map((v) => {
    let n = 0;
    for (let c = 0; c < v.length; c++) if (v[c] !== 0) n++;
    return n;
  });
  let additions = 0;
  for (const list of bipartite.keywordSentences) for (const s of list) additions += nonZero[s] ?? 0;
  return additions > KEYWORD_ADDITIONS_PER_COMPONENT * bipartite.keywords.length * dimensions;
}

/** `vectors` in the process (those stored elsewhere are saved as collections or refused before). */
function inProcess(vectors: SearchableVectors): VectorIndex {
  if (isStoredVectors(vectors)) throw new TypeError('ket-rag save: stored vectors are saved as collections.');
  return vectors;
}

/** Read an index written by {@link saveKetRag} (or of a version it still reads); every file and the saved options are checked. */
export async function loadKetRag(
  format: MethodIndexFormat,
  target: string | IndexStore,
  ctx: BuildContext,
): Promise<KetRagIndex> {
  const opened = await openMethodIndex(target, ctx, {
    method: format.method,
    formatVersion: format.formatVersion,
    reads: READS,
    uses: format.uses,
    // An index saved before the paper preset became the default names no preset, or 'offline': the
    // options it does not hold are the offline defaults of its day (and one saved before
    // `semanticKnn` found its KNN graph's semantic neighbours by brute force).
    params: (saved) =>
      resolveKetRagOptionsFor(`${format.method} load`, [{ preset: 'offline', semanticKnn: 'exact' }, saved]),
  });
  return opened.manifest.formatVersion === 1 ? loadKetRagV1(opened) : loadKetRagV2(opened);
}

/** The KNN graph of version 2: ids in units.json, edges in knn.bin. */
async function loadKnn(opened: OpenedIndex<KetRagOptions, unknown>, ids: string[]): Promise<ChunkKnnGraph> {
  const a = await opened.arrays('knn.bin');
  const [source, target, lexical, cosine] = ['source', 'target', 'lexical', 'cosine'].map((n) => a.get(n));
  const n = source?.length ?? -1;
  if (!(source instanceof Int32Array) || !(target instanceof Int32Array) || target.length !== n) {
    throw opened.error('knn.bin', 'lacks equal int32 arrays source and target');
  }
  if (
    !(lexical instanceof Float64Array) ||
    !(cosine instanceof Float64Array) ||
    lexical.length !== n ||
    cosine.length !== n
  ) {
    throw opened.error('knn.bin', 'lacks float64 arrays lexical and cosine of one weight per edge');
  }
  const edges = Array.from(source, (s, i) => {
    const edge: ChunkKnnGraph['edges'][number] = { source: s, target: target[i]! };
    const [l, c] = [optionalAt(lexical, i), optionalAt(cosine, i)];
    if (l !== undefined) edge.lexical = l;
    if (c !== undefined) edge.cosine = c;
    return edge;
  });
  return { ids, edges };
}

/** The keyword bipartite graph of version 2: keywords.json and keywords.bin. */
async function loadBipartite(
  opened: OpenedIndex<KetRagOptions, unknown>,
  subChunks: SubChunk[],
  subChunkTexts: string[],
): Promise<KeywordBipartite> {
  const { keywords } = await opened.json('keywords.json', keywordsSchemaV2);
  const a = await opened.arrays('keywords.bin');
  const file = opened.locate('keywords.bin');
  const spans = a.get('spans');
  if (!(spans instanceof Int32Array) || spans.length % 3 !== 0)
    throw opened.error('keywords.bin', 'lacks sentence spans');
  const count = spans.length / 3;
  const sentenceSpans = Array.from(
    { length: count },
    (_, i) => [spans[3 * i]!, spans[3 * i + 1]!, spans[3 * i + 2]!] as [number, number, number],
  );
  const keywordUnits = unpackLists(
    { offsets: a.get('unitOffsets'), targets: a.get('units') },
    { lists: keywords.length, bound: subChunks.length },
    file,
    'units',
  );
  const keywordSentences = unpackLists(
    { offsets: a.get('sentenceOffsets'), targets: a.get('sentences') },
    { lists: keywords.length, bound: count },
    file,
    'sentences',
  );
  opened.check('keywords.bin', () =>
    checkKeywords({ keywords, keywordUnits, sentences: sentenceSpans, keywordSentences }, subChunkTexts),
  );
  return {
    units: subChunks.map((s) => s.id),
    keywords,
    keywordUnits,
    sentences: sentenceSpans.map(([unit, start, end]) => ({
      unit,
      start,
      end,
      text: subChunkTexts[unit]!.slice(start, end),
    })),
    keywordSentences,
  };
}

/** The token counts of version 3 (`counts.bin`): of the sub-chunks, and of the skeleton's entities and relationships when it has one. */
async function loadCounts(
  opened: OpenedIndex<KetRagOptions, unknown>,
  subChunks: number,
  graph: { entities: number; relations: number },
): Promise<SubChunkCounts> {
  const a = await opened.arrays(COUNTS_FILE);
  const list = (name: string, length: number): Int32Array => {
    const found = a.get(name);
    if (!(found instanceof Int32Array) || found.length !== length || found.some((c) => c < 0)) {
      throw opened.error(COUNTS_FILE, `lacks ${name}, an int32 array of ${length} token counts`);
    }
    return found;
  };
  const counts: SubChunkCounts = {
    text: list('text', subChunks),
    item: list('item', subChunks),
    itemWithBlankLine: list('itemWithBlankLine', subChunks),
  };
  if (a.has('entity')) {
    counts.graph = {
      entity: list('entity', graph.entities),
      entityWithBlankLine: list('entityWithBlankLine', graph.entities),
      relation: list('relation', graph.relations),
      relationWithBlankLine: list('relationWithBlankLine', graph.relations),
    };
  }
  return counts;
}

/** units.json of version 2 or later, its texts whole (version 4 stores each once). */
async function loadUnits(opened: OpenedIndex<KetRagOptions, unknown>) {
  if (opened.manifest.formatVersion < 4) {
    const units = await opened.json('units.json', unitsSchemaV2);
    return { ...units, kept: undefined, keptRows: undefined };
  }
  const stored = await opened.json('units.json', unitsSchemaV4);
  const texts = opened.check('units.json', () => unpackUnitTexts(stored));
  return { ...stored, ...texts };
}

/**
 * Versions 2 to 5 (3 adds `counts.bin`, 4 HNSW graphs and each text once, 5 `vocabulary.bin`). The
 * vector indexes are restored while the skeleton is read.
 */
async function loadKetRagV2(opened: OpenedIndex<KetRagOptions, unknown>): Promise<KetRagIndex> {
  const { providers, params: options } = opened;
  const units = await loadUnits(opened);
  if (units.dimensions !== providers.embedder.dimensions) {
    throw opened.error(
      'units.json',
      `dimensions is ${units.dimensions}, but the embedder has ${providers.embedder.dimensions}`,
    );
  }
  const { chunks, subChunks, subChunkTexts } = units;
  const knn = units.knn ? await loadKnn(opened, units.knn.ids) : undefined;
  opened.check('units.json', () => checkUnits({ ...units, knn: knn ?? null }));
  const bipartite =
    options.textChannel === 'keyword' ? await loadBipartite(opened, subChunks, subChunkTexts) : undefined;
  const skeletonJson = units.core.length > 0 ? await loadSkeletonTexts(opened) : undefined;
  const counts =
    opened.manifest.formatVersion >= 3
      ? await loadCounts(opened, subChunks.length, {
          entities: skeletonJson?.entities.length ?? 0,
          relations: skeletonJson?.relationships.length ?? 0,
        })
      : undefined;
  const counts4 = {
    chunks: chunks.length,
    subChunks: subChunks.length,
    entities: skeletonJson?.entities.length ?? 0,
    sentences: bipartite?.sentences.length ?? 0,
  };
  const rows = await rowReader(opened, counts4);
  const stored = await loadCollections(opened, counts4);
  // The vector indexes are restored while the skeleton is read (hnswlib reads each from a scratch
  // file off the main thread); each is awaited where it was read before, its error thrown there.
  const early = <T>(start: () => Promise<T>): Promise<T> => {
    const promise = start();
    promise.catch(() => {});
    return promise;
  };
  const chunkRestore =
    options.textChannel === 'dense' || options.textChannel === 'knn'
      ? early(
          async () =>
            stored.chunks ??
            loadIndex(opened, 'chunks', chunks.length, () => required(opened, rows('chunks'), ROWS.chunks)),
        )
      : undefined;
  const keywordRestore = bipartite
    ? early(async () => {
        const n = bipartite.keywords.length;
        const means = opened.names.includes(KEYWORD_ROWS)
          ? await opened.vectorRows(KEYWORD_ROWS, n)
          : undefined;
        return loadIndex(
          opened,
          'keywords',
          n,
          () =>
            means ??
            keywordVectorsOfSparse(bipartite, required(opened, rows.sparse('sentences'), ROWS.sentences)),
        );
      })
    : undefined;
  const withEntry =
    bipartite !== undefined ||
    options.textChannel === 'entry' ||
    unitSeeds(options, skeletonJson !== undefined);
  const entryRestore =
    withEntry && options.entryPoints !== 'lexical'
      ? early(
          async () =>
            stored.subChunks ??
            loadIndex(opened, 'subchunks', subChunks.length, () =>
              required(opened, rows('subChunks'), ROWS.subChunks),
            ),
        )
      : undefined;
  const skeleton = skeletonJson
    ? await loadSkeleton(opened, skeletonJson, subChunks, subChunkTexts, rows, stored.entities)
    : undefined;
  const index = assembleIndex(
    {
      providers,
      options,
      chunks,
      chunkTexts: units.chunkTexts,
      subChunks,
      subChunkTexts,
      core: units.core,
      stats: units.stats,
    },
    { knn, counts, graph: skeleton?.graph },
  );
  if (chunkRestore) index.chunkVectors = await chunkRestore;
  if (skeleton) index.skeleton = skeleton;
  if (bipartite && keywordRestore) {
    const subChunkVectors = required(opened, rows('subChunks'), ROWS.subChunks);
    index.keyword = keywordIndexOf(
      options,
      {
        bipartite,
        keywordVectors: await keywordRestore,
        subChunkVectors,
        subChunkTokens: counts?.text ?? Int32Array.from(subChunkTexts, (t) => providers.tokenizer.count(t)),
      },
      providers.embedder.dimensions,
    );
  }
  if (withEntry) {
    const vectors = entryRestore ? await entryRestore : undefined;
    const lexical = await loadBm25File(opened, SUBCHUNKS_BM25, subChunks.length);
    const entry = entryIndex(options, subChunkTexts, vectors ? () => vectors : undefined, lexical);
    if (entry) index.entry = entry;
  }
  // Every vector file is read and checked at load, also those only an update reads (a damaged index
  // is refused when it loads, not when it is first updated); these are decoded when first read.
  rows.checkRest();
  // The update state is parsed when first read: the vector files it names must be here now.
  for (const file of units.keptRows ?? []) {
    if (!opened.names.includes(file)) throw opened.error(file, 'is missing (the update state names it)');
  }
  await loadKept(opened, index, rows, units.kept);
  return index;
}
