/**
 * Checking an {@link IndexChange} against the documents an index holds, once for every method
 * that implements `Method.update`.
 */
import { InvalidArgumentError, StateError, throwIfAborted } from './contracts/errors.js';
import type { BuildContext, IndexChange, UpdateOptions, UpdateReport } from './contracts/method.js';
import {
  type Embedder,
  type FittableEmbedder,
  isFittableEmbedder,
  modelFingerprint,
} from './contracts/models.js';
import type { Chunk, Document } from './contracts/types.js';
import type { BuildRuntime } from './runtime.js';

/** An {@link IndexChange} checked against an index's documents by {@link planIndexChange}. */
export interface IndexChangePlan {
  /** The documents to index, in the order given. */
  add: Document[];
  /** Ids whose indexed content goes: the removed ones and the replaced ones. */
  drop: ReadonlySet<string>;
  /** Ids of `add` the index does not hold yet. */
  added: string[];
  /** Ids of `add` the index already holds (their old content is dropped). */
  replaced: string[];
  /** Ids of `remove`, each once. */
  removed: string[];
  /** Ids the index holds after the change, in order: the kept ones as they were, then `add`'s. */
  documents: string[];
}

/**
 * The positions of an index's `chunks` that an update with `plan` keeps and those it drops (a
 * chunk of a document in `plan.drop`), each in chunk order: the kept chunks come first in the
 * updated index, in that order, before the added documents' chunks.
 */
export function keptChunkPositions(
  plan: Pick<IndexChangePlan, 'drop'>,
  chunks: readonly { docId: string }[],
): { kept: number[]; dropped: number[] } {
  const kept: number[] = [];
  const dropped: number[] = [];
  chunks.forEach((chunk, i) => {
    (plan.drop.has(chunk.docId) ? dropped : kept).push(i);
  });
  return { kept, dropped };
}

/** An update's chunks ({@link changedChunks}): the kept ones, then the added documents'. */
export interface ChangedChunks {
  /** Positions of the kept chunks in the index before the change, in order ({@link keptChunkPositions}). */
  kept: number[];
  /** The added documents' chunks, with the text each is searched and shown by. */
  added: { chunks: Chunk[]; texts: string[] };
  /** The chunks after the change: the kept ones, in order, then the added ones. */
  chunks: Chunk[];
  /** The report's `chunks` of an updated index that holds `total` chunks. */
  counts(total: number): UpdateReport['chunks'];
}

/**
 * The chunks of an update with `plan` of an index of `chunks`: the kept ones and the added
 * documents' `unitsOf(plan.add)`, chunked in stage `'chunk'` (no checkpoint); none, and no stage,
 * when the change adds no document (a build's chunker refuses an empty corpus).
 */
export async function changedChunks(
  rt: BuildRuntime,
  plan: Pick<IndexChangePlan, 'add' | 'drop'>,
  chunks: readonly Chunk[],
  unitsOf: (docs: Document[]) => { chunks: Chunk[]; texts: string[] },
): Promise<ChangedChunks> {
  const added =
    plan.add.length > 0
      ? await rt.stage('chunk', () => unitsOf(plan.add), { checkpoint: false })
      : { chunks: [] as Chunk[], texts: [] as string[] };
  const { kept } = keptChunkPositions(plan, chunks);
  return {
    kept,
    added,
    chunks: [...kept.map((i) => chunks[i]!), ...added.chunks],
    counts: (total) => ({ removed: chunks.length - kept.length, added: added.chunks.length, total }),
  };
}

const quoted = (ids: readonly string[]) => ids.map((id) => JSON.stringify(id)).join(', ');

/**
 * Check `change` against `indexed` (the ids of the documents an index holds, in order) and say
 * what it does. `caller` (e.g. `'bm25 update'`) starts every error message.
 *
 * @throws InvalidArgumentError when `change` is not `{ add?: Document[]; remove?: string[] }`, a
 *   document has no string `id` and `text`, `add` repeats an id, an id is both added and removed,
 *   `remove` names ids the index does not hold (all of them are named), or the change would leave
 *   the index without documents.
 */
export function planIndexChange(
  caller: string,
  change: IndexChange,
  indexed: readonly string[],
): IndexChangePlan {
  if (change === null || typeof change !== 'object') {
    throw new InvalidArgumentError(
      'change',
      `${caller}: the change must be an object { add?: Document[]; remove?: string[] }, got ${change === null ? 'null' : typeof change}.`,
    );
  }
  const add = change.add ?? [];
  const remove = change.remove ?? [];
  if (!Array.isArray(add)) {
    throw new InvalidArgumentError('add', `${caller}: add must be an array of documents.`);
  }
  if (!Array.isArray(remove)) {
    throw new InvalidArgumentError('remove', `${caller}: remove must be an array of document ids.`);
  }
  const held = new Set(indexed);
  const adding = new Set<string>();
  add.forEach((doc: Document, i) => {
    if (
      doc === null ||
      typeof doc !== 'object' ||
      typeof doc.id !== 'string' ||
      typeof doc.text !== 'string'
    ) {
      throw new InvalidArgumentError(
        'add',
        `${caller}: add[${i}] must be a document { id: string; text: string; title?: string }.`,
      );
    }
    if (adding.has(doc.id)) {
      throw new InvalidArgumentError(
        'add',
        `${caller}: add has two documents with the id ${JSON.stringify(doc.id)}; give every document a unique id.`,
      );
    }
    adding.add(doc.id);
  });
  const removed = [...new Set(remove)];
  const notString = removed.filter((id) => typeof id !== 'string');
  if (notString.length > 0) {
    throw new InvalidArgumentError(
      'remove',
      `${caller}: remove must list document ids (strings), got ${notString.map(String).join(', ')}.`,
    );
  }
  const unknown = removed.filter((id) => !held.has(id));
  if (unknown.length > 0) {
    throw new InvalidArgumentError(
      'remove',
      `${caller}: the index holds no document with the id ${quoted(unknown)}; nothing was changed. ` +
        'Remove only ids of indexed documents.',
    );
  }
  const both = removed.filter((id) => adding.has(id));
  if (both.length > 0) {
    throw new InvalidArgumentError(
      'change',
      `${caller}: ${quoted(both)} ${both.length === 1 ? 'is' : 'are'} both added and removed; to replace a document, only add it (its id replaces the indexed one).`,
    );
  }
  const added = add.filter((doc) => !held.has(doc.id)).map((doc) => doc.id);
  const replaced = add.filter((doc) => held.has(doc.id)).map((doc) => doc.id);
  const drop = new Set([...removed, ...replaced]);
  const documents = [...indexed.filter((id) => !drop.has(id)), ...add.map((doc) => doc.id)];
  if (documents.length === 0) {
    throw new InvalidArgumentError(
      'remove',
      `${caller}: removing ${quoted(removed)} would leave the index without documents; build a new index instead.`,
    );
  }
  return { add: [...add], drop, added, replaced, removed, documents };
}

/**
 * Refuse to update an index built with `built` through a context whose embedder is another one
 * (different provider, model or dimensions): the kept vectors and the new ones would not compare.
 * `caller` (e.g. `'bm25 update'`) starts the message.
 *
 * @throws InvalidArgumentError naming both embedders.
 */
export function assertSameEmbedder(caller: string, built: Embedder, current: Embedder): void {
  const [was, now] = [modelFingerprint(built), modelFingerprint(current)];
  if (was !== now) {
    throw new InvalidArgumentError(
      'ctx',
      `${caller}: the index was built with the embedder '${was}' but the context has '${now}'; update with the context the index was loaded with.`,
    );
  }
}

/**
 * The start of every `Method.update`: the context its stages run with and the `caller` its errors
 * begin with (`'<name> update'`). The context is `ctx` with the update's `signal` (when one is
 * given) and without checkpoints: checkpoint keys name a build's stages, not their inputs, so an
 * update that runs stages a build also runs must never restore (or leave) a build's results.
 *
 * @throws AbortError when the signal is already aborted.
 */
export function startUpdate(
  name: string,
  ctx: BuildContext,
  options: UpdateOptions = {},
): { ctx: BuildContext; caller: string } {
  let updateCtx = options.signal ? { ...ctx, signal: options.signal } : ctx;
  if (updateCtx.runtime?.checkpoints) {
    const { checkpoints: _, ...runtime } = updateCtx.runtime;
    updateCtx = { ...updateCtx, runtime };
  }
  throwIfAborted(updateCtx.signal);
  return { ctx: updateCtx, caller: `${name} update` };
}

/** What {@link prepareUpdate} needs to know of an index: its kept state and how to refuse an old one. */
export interface UpdatableIndex<Kept> {
  /**
   * What the index keeps for updates, or `undefined` when it was saved before it kept that (the
   * update is then refused with a `StateError`). Called once `caller` is known; it may throw an
   * error of its own (an index that can never be updated, say).
   */
  kept: (caller: string) => Kept | undefined | Promise<Kept | undefined>;
  /**
   * What an index saved before updates existed lacks and what updating it would cost, for the
   * refusal: `this index was saved before grag kept ${lacks}, so it cannot be updated without
   * ${cost}; rebuild it once with grag index (or <name>.build), and later updates are local.`
   */
  refusal: { lacks: string; cost: string };
  /** The ids of the documents the kept state holds, in order (what the change is planned against). */
  documents: (kept: Kept) => readonly string[];
  /**
   * The embedder the index was built with: the context must have the same one
   * ({@link assertSameEmbedder}). Leave it out for an index that holds no vectors.
   */
  embedder?: Embedder;
  /** Further checks of the context's providers, run after the embedder's (they throw to refuse). */
  checkProviders?: (caller: string, ctx: BuildContext) => void;
}

/** An update {@link prepareUpdate} started: checked, planned, and ready to run its stages. */
export interface PreparedUpdate<Kept> {
  /** The context the update's stages run with (see {@link startUpdate}). */
  ctx: BuildContext;
  /** `'<name> update'`, the start of every error message of the update. */
  caller: string;
  /** The index's kept state. */
  kept: Kept;
  /** The change, checked against the kept documents ({@link planIndexChange}). */
  plan: IndexChangePlan;
  /** The update's report: `parts` with the documents the plan added, replaced and removed. */
  report(parts: Omit<UpdateReport, 'documents'>): UpdateReport;
}

/**
 * The template every `Method.update` starts with, in order: {@link startUpdate} (the update's
 * context, its `caller`, an aborted signal refused), the index's kept state (an index saved before
 * it kept one is refused, saying to rebuild it once), {@link assertSameEmbedder} (when the index
 * names its embedder) and the method's own provider checks, then {@link planIndexChange} against
 * the kept documents. The method then runs its stages (`startBuild(prepared.ctx)`) and ends with
 * `prepared.report(...)`.
 *
 * @example
 * ```ts
 * const { ctx, caller, kept, plan, report } = await prepareUpdate(name, change, baseCtx, options, {
 *   kept: () => index.kept,
 *   refusal: { lacks: "each chunk's extraction", cost: 'extracting every chunk again' },
 *   documents: (k) => k.documents,
 *   embedder: index.providers.embedder,
 * });
 * ```
 *
 * @throws AbortError when the signal is already aborted.
 * @throws StateError when the index keeps no state for updates (or whatever `index.kept` throws).
 * @throws InvalidArgumentError for another embedder or a bad change (see {@link planIndexChange}).
 */
export async function prepareUpdate<Kept>(
  name: string,
  change: IndexChange,
  baseCtx: BuildContext,
  options: UpdateOptions,
  index: UpdatableIndex<Kept>,
): Promise<PreparedUpdate<Kept>> {
  const { ctx, caller } = startUpdate(name, baseCtx, options);
  const kept = await index.kept(caller);
  if (kept === undefined) {
    const { lacks, cost } = index.refusal;
    throw new StateError(
      `${caller}: this index was saved before grag kept ${lacks}, so it cannot be updated without ${cost}; rebuild it once with grag index (or ${name}.build), and later updates are local.`,
    );
  }
  if (index.embedder) assertSameEmbedder(caller, index.embedder, ctx.embedder);
  index.checkProviders?.(caller, ctx);
  const plan = planIndexChange(caller, change, index.documents(kept));
  return {
    ctx,
    caller,
    kept,
    plan,
    report: (parts) => ({
      documents: { added: plan.added, replaced: plan.replaced, removed: plan.removed },
      ...parts,
    }),
  };
}

/**
 * The refit of a full update (`UpdateOptions.full`). A fittable embedder (the offline TF-IDF one)
 * is fitted on the corpus it indexes, so a fresh build of the changed corpus embeds everything
 * with a fit on that corpus: with `full`, the context's fittable embedder is fitted again on
 * `texts()` (what the method's build fits it on, in the build's order), in stage `'fit'`, and
 * returned. The update must then embed every vector of the new index again with it (kept
 * embeddings belong to the old fit) and name it in the new index's providers. Returns `undefined`
 * (and fits nothing) without `full` or for an embedder that is not fittable: kept embeddings stay
 * valid.
 *
 * The embedder is refitted in place: an index loaded with the same context embeds its queries with
 * the new fit too (load the old version again to query it).
 */
export async function refitForFullUpdate(
  rt: BuildRuntime,
  ctx: BuildContext,
  options: UpdateOptions,
  texts: () => readonly string[] | Promise<readonly string[]>,
): Promise<FittableEmbedder | undefined> {
  const { embedder } = ctx;
  if (options.full !== true || !isFittableEmbedder(embedder)) return undefined;
  const corpus = [...(await texts())];
  await rt.stage('fit', () => embedder.fit(corpus), { checkpoint: false });
  return embedder;
}

/**
 * The providers an index names after an update: `providers`, with `refit` as the embedder when a
 * full update refitted it ({@link refitForFullUpdate}), since the new vectors belong to the new fit.
 */
export function providersAfterRefit<P extends { embedder: Embedder }>(
  providers: P,
  refit: FittableEmbedder | undefined,
): P {
  return refit ? { ...providers, embedder: refit } : providers;
}

/**
 * The trace note of an update that kept the fit of a fittable embedder (`{ fit }`), else nothing:
 * `what` names what the update embedded with the old fit (e.g. `'new chunks'`).
 */
export function keptFitNote(embedder: Embedder, refitted: boolean, what: string): { fit?: string } {
  if (refitted || !isFittableEmbedder(embedder)) return {};
  return {
    fit: `the ${embedder.modelId} embedder keeps the fit of the original corpus (${what} are embedded with it, not refitted); update with full, or rebuild, to refit on the changed corpus`,
  };
}

/**
 * The report's `'fit'` stage of a full update that refitted the embedder `modelId`
 * ({@link refitForFullUpdate}): `full: the <modelId> embedder is fitted on ${on}, as a build fits
 * it, and ${again} is embedded again with the new fit`.
 *
 * @param on - What the build fits the embedder on, e.g. `"the changed corpus's chunks"`.
 * @param again - What the update then embeds again, e.g. `'every node'`.
 */
export function refitStage(modelId: string, on: string, again: string): UpdateReport['global'][number] {
  return {
    stage: 'fit',
    reason: `full: the ${modelId} embedder is fitted on ${on}, as a build fits it, and ${again} is embedded again with the new fit`,
  };
}

/**
 * The embedder's fit in an update ({@link fullUpdateFit}): the refitted embedder of a full update,
 * and what the update names and reports of it.
 */
export interface UpdateFit {
  /**
   * The embedder fitted again on the changed corpus ({@link refitForFullUpdate}), or `undefined`
   * (no `full`, or an embedder that is not fittable): kept embeddings stay valid.
   */
  readonly refit: FittableEmbedder | undefined;
  /** `providers` with the refitted embedder, if any ({@link providersAfterRefit}). */
  providers<P extends { embedder: Embedder }>(providers: P): P;
  /**
   * The report's `'fit'` stage ({@link refitStage}) when the embedder was refitted, else none: a
   * list to spread into `global`.
   */
  stages(on: string, again: string): UpdateReport['global'];
  /** The trace note of an update that kept the fit of the index's embedder ({@link keptFitNote}). */
  note(what: string): { fit?: string };
}

/**
 * The fit step every update of an embedding index runs: {@link refitForFullUpdate} over `texts()`
 * (with `full` and a fittable embedder), with the providers, report stage and trace note that
 * follow from it. `built` is the embedder the index was built with (its `providers.embedder`).
 */
export async function fullUpdateFit(
  rt: BuildRuntime,
  ctx: BuildContext,
  options: UpdateOptions,
  built: Embedder,
  texts: () => readonly string[] | Promise<readonly string[]>,
): Promise<UpdateFit> {
  const refit = await refitForFullUpdate(rt, ctx, options, texts);
  return {
    refit,
    providers: (providers) => providersAfterRefit(providers, refit),
    stages: (on, again) => (refit ? [refitStage(refit.modelId, on, again)] : []),
    note: (what) => keptFitNote(built, refit !== undefined, what),
  };
}

/**
 * The embeddings of an update's units in their new order, after its fit step ({@link fullUpdateFit}):
 * with a refit, every unit's text (`texts`) embedded again; otherwise the kept units' `kept`
 * embeddings, then the `added` texts embedded. Embedding runs in stage `'embed'` (no checkpoint;
 * no stage when there is nothing to embed); `embedded` is what was sent to the embedder.
 */
export async function updateEmbeddings(
  rt: BuildRuntime,
  fit: Pick<UpdateFit, 'refit'>,
  units: { texts: readonly string[]; added: readonly string[]; kept: readonly Float32Array[] },
): Promise<{ embeddings: Float32Array[]; embedded: readonly string[] }> {
  const embedded = fit.refit ? units.texts : units.added;
  const fresh =
    embedded.length > 0 ? await rt.stage('embed', () => rt.embed(embedded), { checkpoint: false }) : [];
  return { embeddings: fit.refit ? fresh : [...units.kept, ...fresh], embedded };
}
