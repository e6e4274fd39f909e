/**
 * The skeleton of a KET-RAG index on disk (format 2 and later): `skeleton.json` (entity and
 * relationship texts, aliases, title entities) and `skeleton.bin` (relationship endpoints and
 * weights, the text units of entities and relationships as CSR), with the entity vector index.
 */
import { type OpenedIndex, packLists, type Schema, type StoredArray, unpackLists } from '@grag/core/kit';
import type { SubChunk } from '@grag/keyword-bipartite';
import type { KetRagOptions } from './options.js';
import { ENTITIES_BM25, loadBm25 } from './persist-bm25.js';
import { ROWS, type RowReader } from './persist-kept.js';
import { loadIndex, required } from './persist-vectors.js';
import { checkSkeleton, type skeletonSchemaV2 } from './schemas.js';
import { assembleSkeleton } from './skeleton.js';
import type { KetRagSkeleton } from './types.js';

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

export async function loadSkeleton(
  opened: OpenedIndex<KetRagOptions, unknown>,
  texts: StoredSkeletonTexts,
  subChunks: SubChunk[],
  subChunkTexts: string[],
  rows: RowReader,
): Promise<KetRagSkeleton> {
  const options = opened.params;
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
  const entityVectors = await loadIndex(opened, 'entities', n, () =>
    required(opened, rows('entities'), ROWS.entities),
  );
  const lexical = await loadBm25(opened, ENTITIES_BM25, n);
  return assembleSkeleton({
    options,
    ...(lexical ? { lexical } : {}),
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
