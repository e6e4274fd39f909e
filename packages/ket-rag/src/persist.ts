/**
 * Saving and loading a KET-RAG index through core's persistence envelope, format version 3 (2 plus
 * `counts.bin`: the token counts of the sub-chunks, entities and relationships as retrieval writes
 * them, see counts.ts; version 2 still loads). Texts
 * are gzipped JSON: `units.json` (chunks, sub-chunks, their texts, core chunks, stats),
 * `skeleton.json` (entity and relationship texts, aliases, title entities), `keywords.json` (the
 * keywords), `update.json` (see persist-kept.ts). Graphs are typed arrays: `knn.bin` (KNN edges),
 * `skeleton.bin` (relationship endpoints and weights, the text units of entities and relationships
 * as CSR) and `keywords.bin` (keyword → sub-chunks and keyword → sentences as CSR, sentence spans).
 * Every vector collection is stored once (`*.rows`, persist-kept.ts); a vector index (`*.vec`) is
 * saved only when the factory cannot rebuild it from those vectors as fast as it loads it, and
 * keyword vectors are sentence-vector means, rebuilt from `sentences.rows`. BM25, the vocabulary and
 * the other search structures are rebuilt at load. Indexes of version 1 still load (persist-v1.ts).
 */
import type { BuildContext, IndexStore, VectorIndex } from '@grag/core';
import {
  type IndexWriter,
  type MethodIndexFormat,
  type OpenedIndex,
  openMethodIndex,
  packLists,
  type StoredArray,
  unpackLists,
  writeMethodIndex,
} from '@grag/core/kit';
import type { ChunkKnnGraph, KeywordBipartite, SubChunk } from '@grag/keyword-bipartite';
import { keywordVectors } from '@grag/keyword-bipartite';
import { derivedParts } from './build.js';
import { countGraph, countSubChunks, type SubChunkCounts } from './counts.js';
import { entryIndex, keywordIndexOf, unitSeeds } from './entry.js';
import { type KetRagOptions, resolveKetRagOptionsFor } from './options.js';
import { loadKept, ROWS, type RowReader, rowReader, saveKept, vectorRowsOf } from './persist-kept.js';
import { loadKetRagV1 } from './persist-v1.js';
import {
  checkKeywords,
  checkSkeleton,
  checkUnits,
  keywordsSchemaV2,
  skeletonSchemaV2,
  unitsSchemaV2,
} from './schemas.js';
import { assembleSkeleton } from './skeleton.js';
import type { KetRagIndex, KetRagSkeleton } from './types.js';

/** Format versions before the current one that still load. */
const READS = [1, 2] as const;
/** The sub-chunks' token counts as retrieved (format 3; see counts.ts). */
const COUNTS_FILE = 'counts.bin';

/** Save `index` as vector-index `file` (of `rows` kept as vector rows, or not kept: then always saved). */
async function saveIndex(out: IndexWriter, file: string, index: VectorIndex, rows: unknown): Promise<void> {
  if (rows) await out.vectorIndex(file, index);
  else await out.vectors(file, index);
}

/** Float64 of optional numbers, NaN for absent ones. */
const optionalNumbers = (values: readonly (number | undefined)[]) =>
  Float64Array.from(values, (x) => (x === undefined ? Number.NaN : x));
const optionalAt = (values: Float64Array, i: number) => (Number.isNaN(values[i]!) ? undefined : values[i]!);

function skeletonArrays(
  skeleton: KetRagSkeleton,
  subChunks: readonly SubChunk[],
): Record<string, StoredArray> {
  const entityAt = new Map(skeleton.entities.map((e, i) => [e.id, i]));
  const unitAt = new Map(subChunks.map((s, i) => [s.id, i]));
  const units = (ids: readonly string[]) => ids.map((id) => unitAt.get(id)!);
  const entityUnits = packLists(skeleton.entities.map((e) => units(e.textUnitIds)));
  const relationUnits = packLists(skeleton.relationships.map((r) => units(r.textUnitIds)));
  return {
    relationSource: Int32Array.from(skeleton.relationships, (r) => entityAt.get(r.source)!),
    relationTarget: Int32Array.from(skeleton.relationships, (r) => entityAt.get(r.target)!),
    relationWeight: optionalNumbers(skeleton.relationships.map((r) => r.weight)),
    entityUnitOffsets: entityUnits.offsets,
    entityUnits: entityUnits.targets,
    relationUnitOffsets: relationUnits.offsets,
    relationUnits: relationUnits.targets,
  };
}

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
    await out.json(
      'units.json',
      {
        chunks: index.chunks,
        chunkTexts: index.chunkTexts,
        subChunks: index.subChunks,
        subChunkTexts: index.subChunkTexts,
        core: index.core,
        stats: index.stats,
        knn: knn ? { ids: knn.ids } : null,
        dimensions: index.providers.embedder.dimensions,
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
    if (index.chunkVectors) await saveIndex(out, 'chunks.vec', index.chunkVectors, rows.chunks);
    if (skeleton) {
      const texts = {
        entities: skeleton.entities.map(({ id, name, description }) => ({ id, name, description })),
        relationships: skeleton.relationships.map(({ id, description }) => ({ id, description })),
        aliases: skeleton.aliases,
        titleEntities: skeleton.titleEntities,
      };
      await out.json('skeleton.json', texts, { compress: true });
      await out.arrays('skeleton.bin', skeletonArrays(skeleton, index.subChunks));
      await saveIndex(out, 'entities.vec', skeleton.entityVectors, rows.entities);
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
      await saveIndex(out, 'keywords.vec', keyword.keywordVectors, rows.sentences);
    }
    // The entry search over the sub-chunks (with the keyword channel too: an approximate index is
    // loaded rather than built again).
    if (index.entry?.vectors) await saveIndex(out, 'subchunks.vec', index.entry.vectors, rows.subChunks);
    // An index loaded from an older version has no counts yet: counted now.
    const { tokenizer } = index.providers;
    const counts = index.counts ?? countSubChunks(tokenizer, index.subChunks, index.subChunkTexts);
    const graph = counts.graph ?? (skeleton ? countGraph(tokenizer, skeleton.graph) : undefined);
    const { text, item, itemWithBlankLine } = counts;
    await out.arrays(COUNTS_FILE, { text, item, itemWithBlankLine, ...(graph ?? {}) });
    await saveKept(out, index);
  });
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
    // options it does not hold are the offline defaults of its day.
    params: (saved) => resolveKetRagOptionsFor(`${format.method} load`, [{ preset: 'offline' }, saved]),
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

async function loadSkeleton(
  opened: OpenedIndex<KetRagOptions, unknown>,
  subChunks: SubChunk[],
  subChunkTexts: string[],
  rows: RowReader,
): Promise<KetRagSkeleton> {
  const options = opened.params;
  const texts = await opened.json('skeleton.json', skeletonSchemaV2);
  const a = await opened.arrays('skeleton.bin');
  const [n, m] = [texts.entities.length, texts.relationships.length];
  const file = opened.locate('skeleton.bin');
  const unitIds = (lists: Int32Array[], i: number) => Array.from(lists[i]!, (u) => subChunks[u]!.id);
  const bound = { lists: n, bound: subChunks.length };
  const entityUnits = unpackLists(
    { offsets: a.get('entityUnitOffsets'), targets: a.get('entityUnits') },
    bound,
    file,
    'entityUnits',
  );
  const relationUnits = unpackLists(
    { offsets: a.get('relationUnitOffsets'), targets: a.get('relationUnits') },
    { lists: m, bound: subChunks.length },
    file,
    'relationUnits',
  );
  const [source, target, weight] = ['relationSource', 'relationTarget', 'relationWeight'].map((k) =>
    a.get(k),
  );
  if (
    !(source instanceof Int32Array) ||
    !(target instanceof Int32Array) ||
    !(weight instanceof Float64Array)
  ) {
    throw opened.error('skeleton.bin', 'lacks the relationship endpoints and weights');
  }
  if (
    source.length !== m ||
    target.length !== m ||
    weight.length !== m ||
    [...source, ...target].some((e) => e < 0 || e >= n)
  ) {
    throw opened.error(
      'skeleton.bin',
      `has relationship endpoints that are not ${m} pairs of the ${n} entities`,
    );
  }
  const entities = texts.entities.map((e, i) => ({ ...e, textUnitIds: unitIds(entityUnits, i) }));
  const relationships = texts.relationships.map((r, i) => {
    const w = optionalAt(weight, i);
    const relationship = {
      id: r.id,
      source: entities[source[i]!]!.id,
      target: entities[target[i]!]!.id,
      description: r.description,
      ...(w !== undefined ? { weight: w } : {}),
      textUnitIds: unitIds(relationUnits, i),
    };
    return relationship;
  });
  opened.check('skeleton.json', () => checkSkeleton(entities, relationships, subChunks));
  const entityVectors = await opened.vectorIndex('entities.vec', n, () =>
    required(opened, rows('entities'), ROWS.entities),
  );
  return assembleSkeleton({
    options,
    parts: {
      entities,
      relationships,
      entityVectors,
      aliases: texts.aliases,
      titleEntities: texts.titleEntities,
    },
    subChunks,
    subChunkTexts,
  });
}

/** `rows`, or the error that the vector file an index needs is missing. */
function required<T>(opened: OpenedIndex<KetRagOptions, unknown>, rows: T | undefined, file: string): T {
  if (rows === undefined) throw opened.error(file, 'is missing (the vectors its index is built from)');
  return rows;
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

/** Versions 2 and 3 (3 adds `counts.bin`). */
async function loadKetRagV2(opened: OpenedIndex<KetRagOptions, unknown>): Promise<KetRagIndex> {
  const { providers, params: options } = opened;
  const units = await opened.json('units.json', unitsSchemaV2);
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
  const skeletonJson =
    units.core.length > 0 ? await opened.json('skeleton.json', skeletonSchemaV2) : undefined;
  const counts =
    opened.manifest.formatVersion >= 3
      ? await loadCounts(opened, subChunks.length, {
          entities: skeletonJson?.entities.length ?? 0,
          relations: skeletonJson?.relationships.length ?? 0,
        })
      : undefined;
  const rows = await rowReader(opened, {
    chunks: chunks.length,
    subChunks: subChunks.length,
    entities: skeletonJson?.entities.length ?? 0,
    sentences: bipartite?.sentences.length ?? 0,
  });
  const skeleton = skeletonJson ? await loadSkeleton(opened, subChunks, subChunkTexts, rows) : undefined;
  const index: KetRagIndex = {
    providers,
    options,
    chunks,
    chunkTexts: units.chunkTexts,
    subChunks,
    subChunkTexts,
    core: units.core,
    stats: units.stats,
    ...derivedParts({
      options,
      chunks,
      subChunks,
      subChunkTexts,
      knn,
      tokenizer: providers.tokenizer,
      counts,
      graph: skeleton?.graph,
    }),
  };
  if (knn) index.knn = knn;
  if (options.textChannel === 'dense' || options.textChannel === 'knn') {
    index.chunkVectors = await opened.vectorIndex('chunks.vec', chunks.length, () =>
      required(opened, rows('chunks'), ROWS.chunks),
    );
  }
  if (skeleton) index.skeleton = skeleton;
  if (bipartite) {
    const subChunkVectors = required(opened, rows('subChunks'), ROWS.subChunks);
    const keywordIndex = await opened.vectorIndex('keywords.vec', bipartite.keywords.length, () =>
      keywordVectors(bipartite, required(opened, rows('sentences'), ROWS.sentences)),
    );
    index.keyword = keywordIndexOf(
      options,
      {
        bipartite,
        keywordVectors: keywordIndex,
        subChunkVectors,
        subChunkTokens: counts?.text ?? Int32Array.from(subChunkTexts, (t) => providers.tokenizer.count(t)),
      },
      providers.embedder.dimensions,
    );
  }
  if (bipartite || options.textChannel === 'entry' || unitSeeds(options, index.skeleton !== undefined)) {
    const vectors =
      options.entryPoints !== 'lexical'
        ? await opened.vectorIndex('subchunks.vec', subChunks.length, () =>
            required(opened, rows('subChunks'), ROWS.subChunks),
          )
        : undefined;
    const entry = entryIndex(options, subChunkTexts, vectors ? () => vectors : undefined);
    if (entry) index.entry = entry;
  }
  // Every vector file is read and checked at load, also those only an update reads (a damaged index
  // is refused when it loads, not when it is first updated).
  for (const key of Object.keys(ROWS) as (keyof typeof ROWS)[]) rows(key);
  const kept = await loadKept(opened, index, rows);
  if (kept) index.kept = kept;
  return index;
}
