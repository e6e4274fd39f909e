/**
 * The knowledge-graph skeleton: Algorithm 1 on the core chunks (extraction, merged and summarized
 * descriptions, entity embeddings, text units rewired to sub-chunks), and the search structures
 * built over it at build and at load.
 */
import type { Chunk, KgEntity, KgRelation, SearchableVectors } from '@grag/core';
import {
  EntityVocabulary,
  KnowledgeGraphBuilder,
  type LocalSearchEntity,
  type LocalSearchRelationship,
  normalizeEntityName,
  prepareLocalSearch,
} from '@grag/core/graph';
import { Bm25Index, type BuildRuntime, type IndexProviders } from '@grag/core/kit';
import type { SubChunk } from '@grag/keyword-bipartite';
import { vectorIndexOf } from './entry.js';
import type { KetRagOptions } from './options.js';
import { embedMissing, type KetRagReuse, stageOptions, summaryKey } from './reuse.js';
import { entityUnits, homeUnits, rewire, unitTitleEntities } from './rewire.js';
import type { KetRagSkeleton, KetRagStats, StoredExtraction } from './types.js';

/** The text an entity is embedded and searched by. */
export function entityText(e: LocalSearchEntity): string {
  return e.description ? `${e.name}: ${e.description}` : e.name;
}

/** What a skeleton is made of and saved as; the rest is built from it ({@link assembleSkeleton}). */
export interface SkeletonParts {
  entities: LocalSearchEntity[];
  relationships: LocalSearchRelationship[];
  entityVectors: SearchableVectors;
  aliases: [string, string[]][];
  titleEntities: [string, string][];
}

/**
 * The skeleton of `parts` with its search structures: the local-search graph over the sub-chunks
 * (at most `unitsPerEntity` text units per entity), BM25 over the entity texts (`entryPoints` not
 * `'dense'`), the vocabulary of names and aliases (`entityLinking`), the title entities of each
 * sub-chunk (`entitySeeds` not `'query'`), and the lookups retrieval reads.
 */
export function assembleSkeleton(input: {
  options: KetRagOptions;
  parts: SkeletonParts;
  subChunks: readonly SubChunk[];
  subChunkTexts: readonly string[];
  /** The BM25 index over the entities, when it was stored (else built). */
  lexical?: Bm25Index;
  /** The vocabulary, when it was stored (else built). */
  vocabulary?: EntityVocabulary;
}): KetRagSkeleton {
  const { options: o, parts, subChunks, subChunkTexts } = input;
  const { entities, relationships } = parts;
  const graph = prepareLocalSearch({
    entities:
      o.unitsPerEntity > 0
        ? entities.map((e) => ({ ...e, textUnitIds: e.textUnitIds.slice(0, o.unitsPerEntity) }))
        : entities,
    relationships,
    textUnits: subChunks.map((s, i) => ({
      id: s.id,
      text: subChunkTexts[i]!,
      docIds: [s.docId],
      ...(s.location ? { locations: [s.location] } : {}),
    })),
  });
  const skeleton: KetRagSkeleton = {
    ...parts,
    graph,
    titleEntityOf: new Map(parts.titleEntities),
    relationshipById: new Map(relationships.map((r) => [r.id, r])),
  };
  if (o.entryPoints !== 'dense') skeleton.lexical = input.lexical ?? new Bm25Index(entities.map(entityText));
  if (o.entityLinking)
    skeleton.vocabulary = input.vocabulary ?? EntityVocabulary.fromEntities(entities, new Map(parts.aliases));
  if (o.entitySeeds !== 'query') {
    // Sub-chunk → title entities it links to; the entity whose home document it is comes first.
    skeleton.unitEntities = unitTitleEntities(entities, new Set(parts.titleEntities.map(([, id]) => id)));
  }
  return skeleton;
}

/** What {@link extractSkeleton} counts. */
export type SkeletonStats = Pick<KetRagStats, 'extraction' | 'summaries' | 'entities' | 'relationships'>;

/** Options of the build runtime's maps: the method's `concurrency` only when the user set it. */
function mapConcurrency(o: KetRagOptions): { concurrency?: number } {
  return o.concurrency !== undefined ? { concurrency: o.concurrency } : {};
}

/** What an update keeps of a skeleton's making: extractions, summaries and entity vectors. */
export interface SkeletonKept {
  /** Core chunk id → its extraction. */
  extractions: Map<string, StoredExtraction>;
  /** `JSON.stringify(descriptions)` → the model's summary. */
  summaries: Map<string, string>;
  /** Entity embeddings, aligned with the skeleton's entities. */
  entityVectors: Float32Array[];
}

/**
 * Build the knowledge-graph skeleton from the core chunks (Algorithm 1 on the core chunks): extract
 * in document order, merge by name (with entity linking: titles as entities, aliases folded),
 * summarize multi-description records and cap every description, rewire chunk links to sub-chunks
 * (title entities: their own document's first), embed the entities. With `reuse` (an update), kept
 * core chunks are not extracted again, description lists summarized before are not summarized
 * again, and entity texts embedded before are not embedded again.
 */
export async function extractSkeleton(
  input: SkeletonInput,
): Promise<{ skeleton: KetRagSkeleton; stats: SkeletonStats; kept: SkeletonKept }> {
  const { rt, providers, options: o, chunks, subIdsOf, reuse } = input;
  const cp = stageOptions(reuse);
  const { kg, extractions, extraction } = await extractCore(input);
  const kgEntities = [...kg.entities.values()];
  const kgRelations = [...kg.relations.values()];
  const { descriptions, summaries, summarizedRecords } = await describeRecords(
    input,
    kgEntities,
    kgRelations,
  );
  // Rewire chunk links to the chunk's sub-chunks (KET-RAG §5.1); a title entity's own document
  // first: all its sub-chunks, core or not (titleUnits).
  const home =
    o.entityLinking && o.titleUnits && kg.linking
      ? homeUnits({
          chunks,
          titleEntities: [...kg.linking.titleEntities].map(([docId, name]) => [
            docId,
            normalizeEntityName(name),
          ]),
          subIdsOf,
        })
      : new Map<string, string[]>();
  const entities: LocalSearchEntity[] = kgEntities.map((e, i) => ({
    id: e.id,
    name: e.name,
    description: descriptions[i]!,
    textUnitIds: entityUnits(home.get(e.id), rewire(e.chunkIds, subIdsOf)),
  }));
  const relationships: LocalSearchRelationship[] = kgRelations.map((r, i) => ({
    id: r.id,
    source: r.source,
    target: r.target,
    description: descriptions[kgEntities.length + i]!,
    weight: r.weight,
    textUnitIds: rewire(r.chunkIds, subIdsOf),
  }));
  const entityTexts = entities.map(entityText);
  const entityVectorList = await rt.stage(
    'embed-entities',
    () =>
      embedMissing(
        entityTexts,
        (i) => reuse?.entityVectors.get(entityTexts[i]!),
        (texts, at) => rt.embed(texts, { label: (_text, i) => `entity ${entities[at[i]!]!.name}` }),
        reuse?.tally,
      ),
    cp,
  );
  const entityVectors = await rt.stage('vector-index', () => vectorIndexOf(providers, entityVectorList), {
    checkpoint: false,
  });
  const aliases: [string, string[]][] = kg.linking
    ? [...kg.linking.aliases].filter(([, list]) => list.length > 0)
    : [];
  const titleEntities: [string, string][] = kg.linking
    ? [...kg.linking.titleEntities].map(([docId, name]) => [docId, normalizeEntityName(name)])
    : [];
  const skeleton = assembleSkeleton({
    options: o,
    parts: { entities, relationships, entityVectors, aliases, titleEntities },
    subChunks: input.subChunks,
    subChunkTexts: input.subChunkTexts,
  });
  return {
    skeleton,
    kept: { extractions, summaries, entityVectors: entityVectorList },
    stats: {
      extraction,
      summaries: summarizedRecords,
      entities: entities.length,
      relationships: relationships.length,
    },
  };
}

/** What {@link extractSkeleton} reads. */
export interface SkeletonInput {
  rt: BuildRuntime;
  providers: IndexProviders;
  signal?: AbortSignal | undefined;
  options: KetRagOptions;
  chunks: readonly Chunk[];
  chunkTexts: readonly string[];
  /** Positions of the core chunks. */
  corePositions: readonly number[];
  subChunks: readonly SubChunk[];
  subChunkTexts: readonly string[];
  /** Chunk id → its sub-chunk ids. */
  subIdsOf: ReadonlyMap<string, readonly string[]>;
  /** Document id → title. */
  titles: ReadonlyMap<string, string | undefined>;
  reuse?: KetRagReuse | undefined;
}

/**
 * Extraction of the core chunks in document order (the official code sorts the sampled chunks by
 * id), merged by name into the knowledge graph (entity linking: titles as entities, aliases folded).
 * With `reuse`, a kept core chunk's extraction is taken instead of asking the model again.
 */
async function extractCore(input: SkeletonInput) {
  const { rt, providers, signal, options: o, chunks, chunkTexts, titles, reuse } = input;
  const cp = stageOptions(reuse);
  const { tasks, tokenizer } = providers;
  const order = [...input.corePositions].sort((a, b) => a - b);
  const extractionOptions = {
    ...(o.entityTypes !== undefined ? { entityTypes: o.entityTypes } : {}),
    ...(o.gleanings !== undefined ? { gleanings: o.gleanings } : {}),
    ...(signal !== undefined ? { abortSignal: signal } : {}),
  };
  const subjectOf = (position: number) => {
    const title = o.entityLinking ? titles.get(chunks[position]!.docId) : undefined;
    return title ? { subject: title } : {};
  };
  const toExtract = order.filter((position) => !reuse?.extractions.has(chunks[position]!.id));
  const fresh = await rt.stage(
    'extract',
    () =>
      rt.map(
        toExtract,
        (position) =>
          tasks.extractGraph(chunkTexts[position]!, { ...extractionOptions, ...subjectOf(position) }),
        { label: (position) => `chunk ${chunks[position]!.id}`, unit: 'chunks', ...mapConcurrency(o) },
      ),
    cp,
  );
  if (reuse) reuse.tally.extracted += toExtract.length;
  const extractions = new Map<string, StoredExtraction>();
  toExtract.forEach((position, i) => {
    const { entities, relations, issues } = fresh[i]!;
    extractions.set(chunks[position]!.id, { entities, relations, issues: issues.length });
  });
  const extraction = { calls: 0, inputTokens: 0, entities: 0, relations: 0, issues: 0, skipped: 0 };
  const builder = new KnowledgeGraphBuilder(o.entityLinking ? { entityLinking: { titles } } : {});
  order.forEach((position) => {
    const chunk = chunks[position]!;
    const extracted = extractions.get(chunk.id) ?? reuse!.extractions.get(chunk.id)!;
    extractions.set(chunk.id, extracted);
    extraction.calls += 1;
    extraction.inputTokens += tokenizer.count(chunkTexts[position]!);
    extraction.entities += extracted.entities.length;
    extraction.relations += extracted.relations.length;
    extraction.issues += extracted.issues;
    builder.addExtraction(
      extracted,
      o.entityLinking
        ? { chunkId: chunk.id, docId: chunk.docId, text: chunkTexts[position]! }
        : { chunkId: chunk.id, docId: chunk.docId },
    );
  });
  const kg = builder.build();
  extraction.skipped = kg.skipped.length;
  return { kg, extractions, extraction };
}

/**
 * The description of every entity and relationship (entities first): several merged into one by
 * the model (GraphRAG's summarization, `summarizeDescriptions`), then cut to the token cap. With
 * `reuse`, descriptions summarized before are not summarized again.
 */
async function describeRecords(
  input: SkeletonInput,
  kgEntities: readonly KgEntity[],
  kgRelations: readonly KgRelation[],
): Promise<{ descriptions: string[]; summaries: Map<string, string>; summarizedRecords: number }> {
  const { rt, providers, signal, options: o, reuse } = input;
  const cp = stageOptions(reuse);
  const { tasks, tokenizer } = providers;
  // Descriptions: merge several into one (GraphRAG's summarization), cut to the token cap.
  const cap = (text: string) => {
    const trimmed = text.trim();
    // Most descriptions are short: count (memoized) before paying for a truncation.
    return tokenizer.count(trimmed) <= o.descriptionMaxTokens
      ? trimmed
      : tokenizer.truncate(trimmed, o.descriptionMaxTokens).trim();
  };
  const records = [
    ...kgEntities.map((e) => ({ label: `entity ${e.name}`, descriptions: e.descriptions })),
    ...kgRelations.map((r) => ({
      label: `relationship ${r.source} -> ${r.target}`,
      descriptions: r.descriptions,
    })),
  ];
  const summarized = (descriptions: readonly string[]) => descriptions.length > 1 && o.summarizeDescriptions;
  const toSummarize = records.filter((r) => summarized(r.descriptions));
  const toCall = toSummarize.filter((r) => !reuse?.summaries.has(summaryKey(r.descriptions)));
  // Only the model's summaries are kept (plain strings, in record order); the rest is recomputed.
  const called = await rt.stage(
    'summarize',
    () =>
      rt.map(
        toCall,
        (r) =>
          tasks.summarize(r.descriptions, {
            purpose: 'entity',
            maxTokens: o.descriptionMaxTokens,
            ...(signal !== undefined ? { abortSignal: signal } : {}),
          }),
        { label: (r) => r.label, unit: 'descriptions', ...mapConcurrency(o) },
      ),
    cp,
  );
  // Each record its own summary (a model may answer the same descriptions differently); kept by key.
  if (reuse) reuse.tally.summarized += toCall.length;
  const summaryOf = new Map(toCall.map((r, i) => [r, called[i]!]));
  const summaries = new Map<string, string>();
  for (const r of toSummarize) {
    const key = summaryKey(r.descriptions);
    const summary = summaryOf.get(r) ?? reuse!.summaries.get(key)!;
    summaryOf.set(r, summary);
    summaries.set(key, summary);
  }
  const descriptions = records.map((r) => cap(summaryOf.get(r) ?? r.descriptions.join(' ')));
  return { descriptions, summaries, summarizedRecords: toSummarize.length };
}
