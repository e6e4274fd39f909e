/**
 * The skeleton of a KET-RAG index on disk (format 2 and later): `skeleton.json` (entity and
 * relationship texts, aliases, title entities) and `skeleton.bin` (relationship endpoints and
 * weights, the text units of entities and relationships as CSR), with the entity vector index;
 * format 5 adds the entity vocabulary (`vocabulary.bin`).
 */
import type { StoredVectors } from '@grag/core';
import { EntityVocabulary } from '@grag/core/graph';
import {
  compress,
  decodeArrays,
  decompressed,
  encodeArrays,
  type IndexWriter,
  loadBm25File,
  type OpenedIndex,
  packLists,
  type Schema,
  type StoredArray,
  shapeIssue,
  unpackLists,
  v,
} from '@grag/core/kit';
import type { SubChunk } from '@grag/keyword-bipartite';
import type { KetRagOptions } from './options.js';
import { ENTITIES_BM25 } from './persist-bm25.js';
import { ROWS, type RowReader } from './persist-kept.js';
import { loadIndex, required } from './persist-vectors.js';
import { checkEntityIds, skeletonSchemaV2, skeletonSchemaV4 } from './schemas.js';
import { assembleSkeleton } from './skeleton.js';
import type { KetRagSkeleton } from './types.js';

/** Whether every value of `values` is a position in `[0, n)`. */
function within(values: Int32Array, n: number): boolean {
  for (let i = 0; i < values.length; i++) if (!(values[i]! >= 0 && values[i]! < n)) return false;
  return true;
}

/** Float64 of optional numbers, NaN for absent ones. */
export const optionalNumbers = (values: readonly (number | undefined)[]) =>
  Float64Array.from(values, (x) => (x === undefined ? Number.NaN : x));
export const optionalAt = (values: Float64Array, i: number) =>
  Number.isNaN(values[i]!) ? undefined : values[i]!;

export function skeletonArrays(
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

/** What `skeleton.json` holds (format 2 and later). */
export type StoredSkeletonTexts = typeof skeletonSchemaV2 extends Schema<infer T> ? T : never;

/**
 * `strings` as one UTF-8 text end to end and where each string ends (in UTF-16 units of the decoded
 * text); null when they would not read back the same (a lone surrogate).
 */
function packStrings(strings: readonly string[]): { text: Uint8Array; ends: Uint32Array } | null {
  const joined = strings.join('');
  const text = new TextEncoder().encode(joined);
  if (new TextDecoder().decode(text) !== joined) return null;
  const ends = new Uint32Array(strings.length);
  let at = 0;
  strings.forEach((s, i) => {
    at += s.length;
    ends[i] = at;
  });
  return { text, ends };
}

/**
 * The `count` strings {@link packStrings} packed into `utf8` and `ends` of `file`; an index error
 * saying the file does not hold `what` when the ends do not fit the text.
 */
function unpackStrings(
  opened: OpenedIndex<KetRagOptions, unknown>,
  file: string,
  utf8: Uint8Array,
  ends: Uint32Array,
  count: number,
  what: string,
): string[] {
  const text = new TextDecoder().decode(utf8);
  if (ends.length !== count || (count > 0 && ends[count - 1] !== text.length)) {
    throw opened.error(file, `does not hold ${what}`);
  }
  let from = 0;
  return Array.from(ends, (to, i) => {
    if (to < from) throw opened.error(file, `has string ${i} ending before it starts`);
    const s = text.slice(from, to);
    from = to;
    return s;
  });
}

/** Format 4: the entities' ids, names and descriptions and the relationships' ids and descriptions, as one text. */
export const SKELETON_TEXT_FILE = 'skeleton-text.bin';

/**
 * Write the skeleton's texts: format 4 puts the entities' and relationships' strings in
 * `skeleton-text.bin` (gzipped: their UTF-8 text end to end and where each ends, read back by slicing
 * one decoded string instead of parsing 150,000 JSON strings) and the rest in `skeleton.json`; when a
 * string would not read back the same (a lone surrogate), all of them stay in `skeleton.json`.
 */
export async function saveSkeletonTexts(out: IndexWriter, texts: StoredSkeletonTexts): Promise<void> {
  const packed = packStrings([
    ...texts.entities.flatMap((e) => [e.id, e.name, e.description]),
    ...texts.relationships.flatMap((r) => [r.id, r.description]),
  ]);
  if (!packed) {
    await out.json('skeleton.json', texts, { compress: true });
    return;
  }
  const { aliases, titleEntities } = texts;
  await out.json(
    'skeleton.json',
    { entities: texts.entities.length, relationships: texts.relationships.length, aliases, titleEntities },
    { compress: true },
  );
  await out.bytes(SKELETON_TEXT_FILE, compress(encodeArrays(packed)));
}

/** Format 5: the entity vocabulary (see {@link saveVocabulary}). */
export const VOCABULARY_FILE = 'vocabulary.bin';

/**
 * Write the entity vocabulary's entries (format 5): their keys and names as one UTF-8 text with
 * where each string ends, and whether each matches alone in lower case, gzipped; read back by
 * {@link loadVocabulary} instead of folding every entity name and alias again at load. Not written
 * when a string would not read back the same (a lone surrogate): then the vocabulary is built at load.
 */
export async function saveVocabulary(out: IndexWriter, vocabulary: EntityVocabulary): Promise<void> {
  const entries = vocabulary.entries();
  const packed = packStrings(entries.flatMap((e) => [e.key, e.name]));
  if (!packed) return;
  const lower = Uint8Array.from(entries, (e) => (e.lower ? 1 : 0));
  await out.bytes(VOCABULARY_FILE, compress(encodeArrays({ ...packed, lower })));
}

/** The vocabulary {@link saveVocabulary} wrote, or undefined when the index has none (built then). */
export async function loadVocabulary(
  opened: OpenedIndex<KetRagOptions, unknown>,
): Promise<EntityVocabulary | undefined> {
  if (!opened.names.includes(VOCABULARY_FILE)) return undefined;
  const where = opened.locate(VOCABULARY_FILE);
  const a = decodeArrays(decompressed(await opened.bytes(VOCABULARY_FILE), where), where);
  const [utf8, ends, lower] = [a.get('text'), a.get('ends'), a.get('lower')];
  if (!(utf8 instanceof Uint8Array) || !(ends instanceof Uint32Array) || !(lower instanceof Uint8Array)) {
    throw opened.error(
      VOCABULARY_FILE,
      'lacks its text (uint8), the ends of its strings (uint32) and lower (uint8)',
    );
  }
  const n = lower.length;
  const strings = unpackStrings(
    opened,
    VOCABULARY_FILE,
    utf8,
    ends,
    2 * n,
    `the keys and names of ${n} entries`,
  );
  const entries = Array.from({ length: n }, (_, i) => ({
    key: strings[2 * i]!,
    name: strings[2 * i + 1]!,
    lower: lower[i] === 1,
  }));
  return opened.check(VOCABULARY_FILE, () => {
    try {
      return EntityVocabulary.fromEntries(entries);
    } catch (error) {
      return shapeIssue('entries', (error as Error).message);
    }
  });
}

/** The skeleton's texts {@link saveSkeletonTexts} wrote (or format 2's `skeleton.json`). */
export async function loadSkeletonTexts(
  opened: OpenedIndex<KetRagOptions, unknown>,
): Promise<StoredSkeletonTexts> {
  if (!opened.names.includes(SKELETON_TEXT_FILE)) {
    // skeleton.json holds the texts themselves, or only their counts when skeleton-text.bin has them.
    const raw = await opened.json('skeleton.json', v.unknown());
    if (typeof (raw as { entities?: unknown } | null)?.entities === 'number') {
      throw opened.error(SKELETON_TEXT_FILE, 'is missing');
    }
    return opened.check('skeleton.json', () => skeletonSchemaV2.parse(raw, ''));
  }
  const counts = await opened.json('skeleton.json', skeletonSchemaV4);
  const where = opened.locate(SKELETON_TEXT_FILE);
  const a = decodeArrays(decompressed(await opened.bytes(SKELETON_TEXT_FILE), where), where);
  const [utf8, ends] = [a.get('text'), a.get('ends')];
  if (!(utf8 instanceof Uint8Array) || !(ends instanceof Uint32Array)) {
    throw opened.error(SKELETON_TEXT_FILE, 'lacks its text (uint8) and the ends of its strings (uint32)');
  }
  const { entities: n, relationships: m } = counts;
  const strings = unpackStrings(
    opened,
    SKELETON_TEXT_FILE,
    utf8,
    ends,
    3 * n + 2 * m,
    `the ${3 * n + 2 * m} strings of ${n} entities and ${m} relationships`,
  );
  let i = 0;
  const next = (): string => strings[i++]!;
  const entities = Array.from({ length: n }, () => ({
    id: next(),
    name: next(),
    description: next(),
  }));
  const relationships = Array.from({ length: m }, () => ({ id: next(), description: next() }));
  return { entities, relationships, aliases: counts.aliases, titleEntities: counts.titleEntities };
}

export async function loadSkeleton(
  opened: OpenedIndex<KetRagOptions, unknown>,
  texts: StoredSkeletonTexts,
  subChunks: SubChunk[],
  subChunkTexts: string[],
  rows: RowReader,
  /** The entity vectors as the store's collection, when it keeps them so. */
  stored?: StoredVectors,
): Promise<KetRagSkeleton> {
  const options = opened.params;
  const [n, m] = [texts.entities.length, texts.relationships.length];
  // The entity vector index is restored while the skeleton's objects are made (hnswlib reads it
  // from a scratch file off the main thread); awaited below, its error caught there.
  const restoring =
    stored !== undefined
      ? Promise.resolve(stored)
      : loadIndex(opened, 'entities', n, () => required(opened, rows('entities'), ROWS.entities));
  restoring.catch(() => {});
  const a = await opened.arrays('skeleton.bin');
  const file = opened.locate('skeleton.bin');
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
    !within(source, n) ||
    !within(target, n)
  ) {
    throw opened.error(
      'skeleton.bin',
      `has relationship endpoints that are not ${m} pairs of the ${n} entities`,
    );
  }
  // Text units are positions checked against the sub-chunks (unpackLists), endpoints positions of
  // the entities: only the entity ids are left to check (checkSkeleton's other checks hold).
  const unitIds = (list: Int32Array): string[] => {
    const ids = new Array<string>(list.length);
    for (let j = 0; j < list.length; j++) ids[j] = subChunks[list[j]!]!.id;
    return ids;
  };
  const entities = texts.entities.map((e, i) => ({
    id: e.id,
    name: e.name,
    description: e.description,
    textUnitIds: unitIds(entityUnits[i]!),
  }));
  // The keys in the order the build writes them (weight before the text units).
  const relationships = texts.relationships.map((r, i): KetRagSkeleton['relationships'][number] => {
    const w = optionalAt(weight, i);
    const [id, description] = [r.id, r.description];
    const [from, to] = [entities[source[i]!]!.id, entities[target[i]!]!.id];
    const textUnitIds = unitIds(relationUnits[i]!);
    return w !== undefined
      ? { id, source: from, target: to, description, weight: w, textUnitIds }
      : { id, source: from, target: to, description, textUnitIds };
  });
  opened.check('skeleton.json', () => checkEntityIds(entities));
  const entityVectors = await restoring;
  const lexical = await loadBm25File(opened, ENTITIES_BM25, n);
  const vocabulary = options.entityLinking ? await loadVocabulary(opened) : undefined;
  return assembleSkeleton({
    options,
    ...(lexical ? { lexical } : {}),
    ...(vocabulary ? { vocabulary } : {}),
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
