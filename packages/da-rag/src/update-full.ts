/**
 * A full update of a DA-RAG index whose embedder is fitted on its corpus (the offline TF-IDF
 * embedder): as a build of the changed corpus does, the embedder is fitted again on every document,
 * every document is chunked again (semantic chunk boundaries follow the fit), and every chunk and
 * entity is embedded again; the model is asked only about chunks whose text (and subject) the index
 * holds no extraction, title and description for.
 */
import {
  type BuildContext,
  type IndexUpdate,
  InvalidArgumentError,
  StateError,
  type UpdateOptions,
} from '@grag/core';
import {
  type BuildRuntime,
  type IndexChangePlan,
  type IndexProviders,
  type PreparedUpdate,
  refitForFullUpdate,
} from '@grag/core/kit';
import { assembleDaRagIndex, fitTexts } from './build.js';
import { keptTexts } from './documents.js';
import { analyseChunks, chunkStage, chunkTexts, keepExtraction } from './stages.js';
import type { ChunkExtraction, DaRagIndex, DaRagKept } from './types.js';

/** What {@link fullRefitUpdate} needs from the update that calls it. */
export interface FullRefitInput {
  index: DaRagIndex;
  kept: DaRagKept;
  plan: IndexChangePlan;
  /** The prepared update's report (the plan's documents with the parts given). */
  report: PreparedUpdate<DaRagKept>['report'];
  rt: BuildRuntime;
  /** The update's context (its embedder counts what it embeds). */
  ctx: BuildContext;
  /** The providers the new index records (the refitted embedder, uncounted). */
  providers: IndexProviders;
  options: UpdateOptions;
  caller: string;
  name: string;
  /** How many texts the embedder was sent so far. */
  embedded: () => number;
  /** The global stages of every update, with why. */
  global: { stage: string; reason: string }[];
}

/** The key of a chunk's model results: its text, and the subject its extraction was told. */
const memoKey = (text: string, subject: string | undefined) => `${subject ?? ''}\u0000${text}`;

/**
 * Apply `input.plan` to `input.index` as a build of the changed corpus would (see the file comment).
 * @throws StateError when the index was saved before DA-RAG kept the gaps between its chunks.
 */
export async function fullRefitUpdate(input: FullRefitInput): Promise<IndexUpdate<DaRagIndex>> {
  const { index, kept, plan, rt, ctx, caller, name } = input;
  const opts = index.options;
  const keptDocs = kept.documents.filter((d) => !plan.drop.has(d.id));
  const texts = keptTexts(keptDocs, index.chunks);
  if (texts === undefined) {
    throw new StateError(
      `${caller}: a full update fits the ${ctx.embedder.modelId} embedder again on every document, but this index was saved before DA-RAG kept what puts its documents back together from their chunks; rebuild it once with grag index (or ${name}.build).`,
    );
  }
  const docs = [...texts, ...plan.add];
  await refitForFullUpdate(rt, ctx, input.options, () => fitTexts(docs, opts));
  const chunks = await chunkStage(rt, docs, ctx, opts, false);
  if (chunks.length === 0) {
    throw new InvalidArgumentError(
      'change',
      `${caller}: after this change no document has any text to index; build a new index instead.`,
    );
  }
  const titleOf = new Map(docs.map((d) => [d.id, d.title]));
  const chunkText = chunkTexts(chunks, titleOf, opts);
  const subjectOf = (titles: ReadonlyMap<string, string | undefined>, docId: string) =>
    opts.entityLinking ? titles.get(docId)?.trim() || undefined : undefined;

  // The model's results the index holds, by chunk text and subject (a chunk of a removed document
  // with the same text and subject was answered alike).
  const oldTitles = new Map(kept.documents.map((d) => [d.id, d.title]));
  const held = new Map<string, number>();
  index.texts.forEach((text, i) => {
    const key = memoKey(text, subjectOf(oldTitles, index.chunks[i]!.docId));
    if (!held.has(key)) held.set(key, i);
  });
  const found = chunks.map((c, i) => held.get(memoKey(chunkText[i]!, subjectOf(titleOf, c.docId))));
  const missing = found.flatMap((j, i) => (j === undefined ? [i] : []));
  const asked =
    missing.length > 0
      ? await analyseChunks(
          rt,
          ctx,
          opts,
          { chunks: missing.map((i) => chunks[i]!), texts: missing.map((i) => chunkText[i]!), titleOf },
          false,
        )
      : { extractions: [], described: [] };
  const answerOf = new Map(missing.map((i, k) => [i, k]));
  const extractions: ChunkExtraction[] = [];
  const titles: string[] = [];
  const descriptions: string[] = [];
  chunks.forEach((_, i) => {
    const j = found[i];
    if (j !== undefined) {
      extractions.push(kept.extractions[j]!);
      titles.push(index.titles[j]!);
      descriptions.push(index.descriptions[j]!);
      return;
    }
    const k = answerOf.get(i)!;
    const described = asked.described[k]!;
    extractions.push(keepExtraction(asked.extractions[k]!, described.issues.length));
    titles.push(described.title.trim());
    descriptions.push(described.description.trim());
  });
  const built = await assembleDaRagIndex(rt, ctx, opts, {
    caller,
    docs,
    chunks,
    texts: chunkText,
    extractions,
    titles,
    descriptions,
  });
  const before = new Set(index.chunks.map((c, i) => `${c.id}\u0000${index.texts[i]}`));
  const after = new Set(chunks.map((c, i) => `${c.id}\u0000${chunkText[i]}`));
  const same = [...after].filter((key) => before.has(key)).length;
  return {
    index: { ...built, providers: input.providers },
    report: input.report({
      chunks: { removed: index.chunks.length - same, added: chunks.length - same, total: chunks.length },
      embedded: input.embedded(),
      local: ['chunk', ...(missing.length > 0 ? ['extract', 'describe'] : [])],
      global: [
        {
          stage: 'fit',
          reason: `full: the ${input.providers.embedder.modelId} embedder is fitted on the changed corpus, as a build fits it; every document is chunked again (semantic chunk boundaries follow the fit) and every chunk and entity is embedded again with the new fit`,
        },
        { stage: 'embed', reason: 'every chunk and entity text, with the new fit' },
        ...input.global,
      ],
      trace: {
        keptChunks: same,
        extracted: missing.length,
        reusedExtractions: chunks.length - missing.length,
        entities: { total: built.entities.length, reused: 0, embedded: built.entities.length },
      },
    }),
  };
}
