/**
 * Incremental updates of a DA-RAG index (`Method.update`): the model is asked only about new
 * chunks (extraction, title and description) and the embedder only embeds new chunks, the
 * sentence windows of new documents (semantic chunking) and entities whose embedded text changed;
 * the KG, the layers and the Similarity layer are derived again over the whole index from what it
 * keeps, without model calls, exactly as a build of the changed corpus derives them.
 */
import {
  type BuildContext,
  type Chunk,
  type Embedder,
  type IndexChange,
  type IndexUpdate,
  InvalidArgumentError,
  isFittableEmbedder,
  type KgEntity,
  ModelOutputError,
  type UpdateOptions,
  type UpdateReport,
} from '@grag/core';
import {
  type BuildRuntime,
  type IndexChangePlan,
  keptChunkPositions,
  keptFitNote,
  type PreparedUpdate,
  prepareUpdate,
  startBuild,
} from '@grag/core/kit';
import { keptDocuments } from './documents.js';
import {
  analyseChunks,
  chunkEmbedText,
  chunkStage,
  chunkTexts,
  keepExtraction,
  linkLayers,
  mergeGraph,
  statsOf,
} from './stages.js';
import type { DaRagIndex, DaRagKept } from './types.js';
import { fullRefitUpdate } from './update-full.js';
import { entityText, unit } from './util.js';

/** `embedder` with every text it is sent counted (its own methods and state untouched). */
function countingEmbedder(embedder: Embedder): { embedder: Embedder; count: () => number } {
  let sent = 0;
  const doEmbed: Embedder['doEmbed'] = (options) => {
    sent += options.values.length;
    return embedder.doEmbed(options);
  };
  const proxy = new Proxy(embedder, {
    get(target, key) {
      if (key === 'doEmbed') return doEmbed;
      const value = Reflect.get(target, key, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
  return { embedder: proxy, count: () => sent };
}

/** Refuse a context whose task suite is not the one the index was built with. */
function assertSameTasks(caller: string, index: DaRagIndex, ctx: BuildContext): void {
  if (index.providers.tasks.id !== ctx.tasks.id) {
    throw new InvalidArgumentError(
      'ctx',
      `${caller}: the index was built with the tasks '${index.providers.tasks.id}' but the context has '${ctx.tasks.id}'; update with the context the index was loaded with.`,
    );
  }
}

/** What each global stage recomputes, and why. */
const GLOBAL_REASONS = {
  kg: 'entity linking (document titles, aliases) and the merged descriptions of an entity span documents: the KG is merged again from the kept per-chunk extractions and the new ones (no model calls)',
  layers:
    'a Semantic Chunk layer edge joins chunks of related entities anywhere in the corpus and the hub cap (maxLinkEntityChunks) counts all chunks of an entity: the layers and inter-layer links are derived again from the merged KG',
  similarity:
    "a new or changed entity can enter any entity's k nearest neighbours: the kNN edges are found again over the entity vectors (kept ones reused, none embedded again)",
  'query-caches':
    'k-truss decompositions of the layers and BM25 over entity texts are made again on the first query (node positions change with the KG)',
} as const;

/**
 * Apply `change` to `index` (see `Method.update`) and return the new index and the report.
 * @throws StateError when `index` was saved before updates existed (rebuild it once).
 * @throws InvalidArgumentError for a bad change (see `planIndexChange`) or other providers.
 */
export async function updateDaRagIndex(
  index: DaRagIndex,
  change: IndexChange,
  baseCtx: BuildContext,
  options: UpdateOptions,
  name: string,
): Promise<IndexUpdate<DaRagIndex>> {
  const started = await prepareUpdate(name, change, baseCtx, options, {
    kept: () => index.kept,
    refusal: { lacks: "each chunk's extraction", cost: 'extracting every chunk again' },
    documents: (k) => k.documents.map((d) => d.id),
    embedder: index.providers.embedder,
    checkProviders: (caller, ctx) => assertSameTasks(caller, index, ctx),
  });
  const { caller, plan, kept: old } = started;
  const counter = countingEmbedder(started.ctx.embedder);
  const ctx: BuildContext = { ...started.ctx, embedder: counter.embedder };
  const opts = index.options;
  const rt = startBuild(ctx);
  if (options.full === true && isFittableEmbedder(started.ctx.embedder)) {
    // A fit on the changed corpus changes every vector and the semantic chunks: as a build does.
    return await fullRefitUpdate({
      index,
      kept: old,
      plan,
      report: started.report,
      rt,
      ctx,
      providers: { ...index.providers, embedder: started.ctx.embedder },
      options,
      caller,
      name,
      embedded: counter.count,
      global: [
        { stage: 'kg', reason: GLOBAL_REASONS.kg },
        { stage: 'layers', reason: GLOBAL_REASONS.layers },
        ...(opts.similarityLayer
          ? [{ stage: 'similarity', reason: 'the kNN edges are found again over the new entity vectors' }]
          : []),
        { stage: 'query-caches', reason: GLOBAL_REASONS['query-caches'] },
      ],
    });
  }

  const { kept: keptAt, dropped } = keptChunkPositions(plan, index.chunks);
  const { added, addedTexts, extractions, described, addedTitles, addedDescriptions } = await analyseAdded(
    rt,
    ctx,
    opts,
    plan,
  );
  const pick = <T>(list: readonly T[]) => keptAt.map((i) => list[i]!);
  const chunks = [...pick(index.chunks), ...added];
  if (chunks.length === 0) {
    throw new InvalidArgumentError(
      'change',
      `${caller}: after this change no document has any text to index; build a new index instead.`,
    );
  }
  const texts = [...pick(index.texts), ...addedTexts];
  const titles = [...pick(index.titles), ...addedTitles];
  const descriptions = [...pick(index.descriptions), ...addedDescriptions];
  const keptDocs = old.documents.filter((d) => !plan.drop.has(d.id));
  const kept: DaRagKept = {
    documents: [...keptDocs, ...keptDocuments(plan.add, added)],
    extractions: [
      ...pick(old.extractions),
      ...extractions.map((e, i) => keepExtraction(e, described[i]!.issues.length)),
    ],
  };

  const kg = await rt.stage('kg', () => mergeGraph(chunks, texts, kept, opts), { checkpoint: false });
  const entities = [...kg.entities.values()];
  const relations = [...kg.relations.values()];

  const { addedVectors, entityVectors, reused, embedded } = await embedChanges(rt, caller, index, {
    added,
    addedEmbedTexts: addedTexts.map((text, i) =>
      chunkEmbedText(addedTitles[i]!, addedDescriptions[i]!, text),
    ),
    entities,
  });
  const chunkVectors = [...pick(index.chunkVectors), ...addedVectors];

  const layers = await linkLayers(rt, ctx, opts, { chunks, entities, relations, entityVectors });
  const lexicalChunks = index.cache.lexicalChunks?.update({ remove: dropped, add: addedTexts });
  const report = updateReport(started.report, {
    plan,
    dropped: dropped.length,
    added: added.length,
    total: chunks.length,
    embedded: counter.count(),
    embeddedEntities: embedded,
    bm25: Boolean(lexicalChunks),
    similarity: opts.similarityLayer,
    keptChunks: keptAt.length,
    entities: { total: entities.length, reused },
    embedder: index.providers.embedder,
  });
  return {
    index: {
      ...index,
      chunks,
      texts,
      titles,
      descriptions,
      chunkVectors,
      entities,
      relations,
      entityVectors,
      entityIndex: layers.entityIndex,
      chunkEntities: layers.chunkEntities,
      chunkLayer: layers.chunkLayer,
      kgLayer: layers.kgLayer,
      simLayer: layers.simLayer,
      stats: statsOf({
        documents: kept.documents.length,
        chunks: chunks.length,
        kg,
        layers,
        kept,
        titles,
        descriptions,
      }),
      kept,
      cache: lexicalChunks ? { lexicalChunks } : {},
    },
    report,
  };
}

/** The chunks of the added documents, their texts, extractions, titles and descriptions. */
async function analyseAdded(
  rt: BuildRuntime,
  ctx: BuildContext,
  opts: DaRagIndex['options'],
  plan: IndexChangePlan,
) {
  const added = plan.add.length > 0 ? await chunkStage(rt, plan.add, ctx, opts, false) : [];
  const titleOf = new Map(plan.add.map((d) => [d.id, d.title]));
  const addedTexts = chunkTexts(added, titleOf, opts);
  const { extractions, described } =
    added.length > 0
      ? await analyseChunks(rt, ctx, opts, { chunks: added, texts: addedTexts, titleOf }, false)
      : { extractions: [], described: [] };
  const addedTitles = described.map((d) => d.title.trim());
  const addedDescriptions = described.map((d) => d.description.trim());
  return { added, addedTexts, extractions, described, addedTitles, addedDescriptions };
}

/**
 * The vectors of the added chunks, and of every entity: an entity whose embedded text is unchanged
 * keeps its vector, new and changed ones are embedded.
 */
async function embedChanges(
  rt: BuildRuntime,
  caller: string,
  index: DaRagIndex,
  changed: { added: readonly Chunk[]; addedEmbedTexts: string[]; entities: readonly KgEntity[] },
): Promise<{
  addedVectors: Float32Array[];
  entityVectors: Float32Array[];
  reused: number;
  embedded: number;
}> {
  const { added, addedEmbedTexts, entities } = changed;
  // An entity whose embedded text is unchanged keeps its vector; new and changed ones are embedded.
  const heldVector = new Map(index.entities.map((e, i) => [entityText(e.name, e.descriptions), i]));
  const entityTexts = entities.map((e) => entityText(e.name, e.descriptions));
  const missing = [...new Set(entityTexts.filter((t) => !heldVector.has(t)))];
  const [addedVectors, missingVectors] = await rt.stage(
    'embed',
    async () => {
      const c = await rt.embed(addedEmbedTexts, { label: (_text, i) => `chunk ${added[i]!.id}` });
      const e = await rt.embed(missing, { label: (text) => `entity ${text.slice(0, 40)}` });
      if (c.length !== added.length || e.length !== missing.length) {
        throw new ModelOutputError(
          'embed',
          `${c.length + e.length} embeddings`,
          `${caller}: the embedder returned ${c.length + e.length} vectors for ${added.length + missing.length} texts; ` +
            'check that its doEmbed returns one vector per value.',
        );
      }
      return [c.map(unit), e.map(unit)] as const;
    },
    { checkpoint: false },
  );
  const embeddedEntity = new Map(missing.map((t, i) => [t, missingVectors[i]!]));
  const entityVectors = entityTexts.map(
    (t) => embeddedEntity.get(t) ?? index.entityVectors[heldVector.get(t)!]!,
  );
  return {
    addedVectors,
    entityVectors,
    reused: entityTexts.filter((t) => !embeddedEntity.has(t)).length,
    embedded: missing.length,
  };
}

/** The report of a local update (see `UpdateReport`), made with the prepared update's `report`. */
function updateReport(
  report: PreparedUpdate<DaRagKept>['report'],
  u: {
    plan: IndexChangePlan;
    dropped: number;
    added: number;
    total: number;
    embedded: number;
    embeddedEntities: number;
    bm25: boolean;
    similarity: boolean;
    keptChunks: number;
    entities: { total: number; reused: number };
    embedder: Embedder;
  },
): UpdateReport {
  const { plan } = u;
  return report({
    chunks: { removed: u.dropped, added: u.added, total: u.total },
    embedded: u.embedded,
    // The stages that ran: a removal alone chunks and asks the model nothing.
    local: [
      ...(plan.add.length > 0 ? ['chunk'] : []),
      ...(u.added > 0 ? ['extract', 'describe'] : []),
      ...(u.added + u.embeddedEntities > 0 ? ['embed'] : []),
      ...(u.bm25 ? ['bm25'] : []),
    ],
    global: [
      { stage: 'kg', reason: GLOBAL_REASONS.kg },
      { stage: 'layers', reason: GLOBAL_REASONS.layers },
      ...(u.similarity ? [{ stage: 'similarity', reason: GLOBAL_REASONS.similarity }] : []),
      { stage: 'query-caches', reason: GLOBAL_REASONS['query-caches'] },
    ],
    trace: {
      keptChunks: u.keptChunks,
      entities: { total: u.entities.total, reused: u.entities.reused, embedded: u.embeddedEntities },
      ...keptFitNote(u.embedder, false, 'new chunks and entities'),
    },
  });
}
