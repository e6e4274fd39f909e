/** The shapes of KET-RAG's index files and the checks across their parts. */

import type { LocalSearchEntity, LocalSearchRelationship } from '@grag/core/graph';
import { chunkFields, chunkSchema, type Infer, shapeIssue, v } from '@grag/core/kit';
import type { SubChunk } from '@grag/keyword-bipartite';
import { storedUnitTextFields } from './persist-units.js';

const count = v.int({ min: 0 });
/** The shape of {@link KetRagStats} in units.json. */
const statsSchema = v.object({
  documents: count,
  chunks: count,
  subChunks: count,
  coreChunks: count,
  knnEdges: count,
  extraction: v.object({
    calls: count,
    inputTokens: count,
    entities: count,
    relations: count,
    issues: count,
    skipped: count,
  }),
  summaries: count,
  entities: count,
  relationships: count,
  keywords: count,
  sentences: count,
});

const position = v.int({ min: 0 });
const unitFields = {
  chunks: v.array(chunkSchema),
  chunkTexts: v.array(v.string()),
  subChunks: v.array(v.object({ ...chunkFields, chunkId: v.string() })),
  subChunkTexts: v.array(v.string()),
  core: v.array(v.string()),
  stats: statsSchema,
  dimensions: v.int({ min: 1 }),
};
/** units.json of format version 4: each text once (see persist-units.ts), the rest as version 2. */
export const unitsSchemaV4 = v.object({
  ...storedUnitTextFields,
  core: unitFields.core,
  stats: unitFields.stats,
  dimensions: unitFields.dimensions,
  knn: v.nullable(v.object({ ids: v.array(v.string()) })),
  kept: v.optional(v.record(v.string())),
  /** The vector files the update state names (checked to exist at load, before it is parsed). */
  keptRows: v.optional(v.array(v.string())),
});
/** units.json of format version 2: the KNN graph's edges are typed arrays in knn.bin. */
export const unitsSchemaV2 = v.object({
  ...unitFields,
  knn: v.nullable(v.object({ ids: v.array(v.string()) })),
});
export const unitsSchema = v.object({
  ...unitFields,
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
});
export type StoredUnits = Infer<typeof unitsSchema>;

/** Lengths that must agree and positions that must exist across the parts of units.json. */
export function checkUnits(
  units: Pick<StoredUnits, 'chunks' | 'chunkTexts' | 'subChunks' | 'subChunkTexts' | 'core' | 'knn'>,
): void {
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
export const skeletonSchema = v.object({
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
export function checkSkeleton(
  entities: readonly LocalSearchEntity[],
  relationships: readonly LocalSearchRelationship[],
  subChunks: readonly SubChunk[],
): void {
  const units = new Set(subChunks.map((s) => s.id));
  const ids = checkEntityIds(entities);
  entities.forEach((e, i) => {
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

/** That no two entities share an id (inside `opened.check`); their ids. */
export function checkEntityIds(entities: readonly { id: string }[]): Set<string> {
  const ids = new Set<string>();
  entities.forEach((e, i) => {
    if (ids.has(e.id)) shapeIssue(`entities[${i}].id`, `repeats ${JSON.stringify(e.id)}`);
    ids.add(e.id);
  });
  return ids;
}

/** skeleton.json of format version 2: texts only; endpoints, weights and text units are in skeleton.bin. */
export const skeletonSchemaV2 = v.object({
  entities: v.array(v.object({ id: v.string(), name: v.string(), description: v.string() })),
  relationships: v.array(v.object({ id: v.string(), description: v.string() })),
  aliases: v.array(v.tuple(v.string(), v.array(v.string()))),
  titleEntities: v.array(v.tuple(v.string(), v.string())),
});

/** skeleton.json of format version 4 when its texts are in skeleton-text.bin: their counts. */
export const skeletonSchemaV4 = v.object({
  entities: v.int({ min: 0 }),
  relationships: v.int({ min: 0 }),
  aliases: v.array(v.tuple(v.string(), v.array(v.string()))),
  titleEntities: v.array(v.tuple(v.string(), v.string())),
});

export const keywordsSchema = v.object({
  keywords: v.array(v.string()),
  keywordUnits: v.array(v.array(position)),
  sentences: v.array(v.tuple(position, position, position)),
  keywordSentences: v.array(v.array(position)),
});

/** keywords.json of format version 2: the keywords; their lists and the sentence spans are in keywords.bin. */
export const keywordsSchemaV2 = v.object({ keywords: v.array(v.string()) });

/** Every keyword has its unit and sentence lists, and every position exists. */
export function checkKeywords(
  k: {
    keywords: readonly string[];
    keywordUnits: readonly ArrayLike<number>[];
    sentences: readonly (readonly [number, number, number])[];
    keywordSentences: readonly ArrayLike<number>[];
  },
  subChunkTexts: readonly string[],
): void {
  const n = k.keywords.length;
  if (k.keywordUnits.length !== n)
    shapeIssue('keywordUnits', `has ${k.keywordUnits.length} lists for ${n} keywords`);
  if (k.keywordSentences.length !== n) {
    shapeIssue('keywordSentences', `has ${k.keywordSentences.length} lists for ${n} keywords`);
  }
  k.keywordUnits.forEach((list, i) => {
    for (let j = 0; j < list.length; j++) {
      const u = list[j]!;
      if (u >= subChunkTexts.length) shapeIssue(`keywordUnits[${i}][${j}]`, `is ${u}, beyond the sub-chunks`);
    }
  });
  k.sentences.forEach(([unit, start, end], i) => {
    const text = subChunkTexts[unit];
    if (text === undefined || start > end || end > text.length) {
      shapeIssue(`sentences[${i}]`, 'is not a span of a sub-chunk');
    }
  });
  k.keywordSentences.forEach((list, i) => {
    for (let j = 0; j < list.length; j++) {
      if (list[j]! >= k.sentences.length) {
        shapeIssue(`keywordSentences[${i}][${j}]`, `is ${list[j]}, beyond the sentences`);
      }
    }
  });
}
