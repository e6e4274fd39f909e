/**
 * The method contract: what a graph-RAG method is ({@link Method}), what it builds and loads with
 * ({@link BuildContext}), how it is asked ({@link RetrieveOptions}) and how its corpus changes
 * ({@link IndexChange}, {@link UpdateReport}).
 */
import type { UsageMeter } from './meter.js';
import type { ChatModel, Embedder } from './models.js';
import type { BuildRuntimeSettings } from './runtime.js';
import type { IndexStore } from './store.js';
import type { TaskSuite, TaskVersions } from './tasks.js';
import type { TextAnalyzer } from './text.js';
import type { Tokenizer } from './tokenizer.js';
import type { Document, Retrieval } from './types.js';
import type { VectorIndexFactory } from './vector.js';

/** A progress event of a long operation (documents read, chunks extracted, model calls made). */
export interface ProgressEvent {
  /** Stage name, e.g. `'chunk'`, `'extract'`, `'embed'`. */
  stage: string;
  /** Units done so far in this stage. */
  done: number;
  /** Units in the stage, when known. */
  total?: number;
  /** What a unit is: `'docs'`, `'chunks'`, `'calls'`. */
  unit?: string;
  message?: string;
}

/** Receives the {@link ProgressEvent}s of a build. */
export type ProgressReporter = (event: ProgressEvent) => void;

/** What a method needs to build or load an index: providers, tokenizer, meter, progress. */
export interface BuildContext {
  embedder: Embedder;
  tasks: TaskSuite;
  tokenizer: Tokenizer;
  /** Counts model calls, tokens and time per stage (`Meter` in `@grag/core/kit`). */
  meter: UsageMeter;
  /**
   * How vector indexes are made: core's exact `flatIndexFactory` (`createBuildContext`'s default) or
   * `hnswIndexFactory()` from `@grag/hnsw`. A method that needs a graph index's base layer (NodeRAG's
   * semantic edges) reads it from an index of this factory when it is a `GraphVectorIndex`.
   */
  vectorIndex: VectorIndexFactory;
  /**
   * Reads texts without a model (sentences, tokens, POS tags, lemmas), for methods that build from
   * a text's words (E2GraphRAG's entity graph): `createWinkTextAnalyzer()` from `@grag/offline`,
   * which `createOfflineProviders()` includes. A method that needs one and finds none says so.
   */
  textAnalyzer?: TextAnalyzer;
  /** The chat model behind `tasks`, when there is one. */
  chat?: ChatModel;
  onProgress?: ProgressReporter;
  signal?: AbortSignal;
  /** Concurrency, checkpoints and resume hint of builds; see `startBuild` (`@grag/core/kit`). */
  runtime?: BuildRuntimeSettings;
}

/** Options of {@link Method.retrieve} that every method accepts. */
export interface RetrieveOptions {
  /** Token budget of the returned context. @default 12000 (KET-RAG §6.1) */
  budgetTokens?: number;
  /** How many items to rank before packing; each method documents its default. */
  topK?: number;
  signal?: AbortSignal;
}

/**
 * Which items of a {@link Retrieval} rank source passages, and in which order. Summaries,
 * community reports and overviews that span dozens of passages are context, not a ranking of them.
 */
export interface PassageRanking {
  /** Item kinds that rank passages, e.g. `['chunk']`. @default every kind */
  readonly kinds?: readonly string[];
  /** `'context'`: the order of the items in the retrieval; `'score'`: by descending item score. @default 'context' */
  readonly order?: 'context' | 'score';
}

/** What a method's index depends on and what it can build from. */
export interface MethodCapabilities {
  /**
   * The providers the index depends on: each is fingerprinted when the index is written and must
   * match on load (`openMethodIndex`), and an embedder among them is fitted on the corpus when it is
   * fittable (the CLI's offline embedder).
   */
  readonly uses: readonly IndexProviderKind[];
  /** Whether `build` accepts knowledge-graph triples as documents (`grag index <triple-dir>`). @default false */
  readonly triples?: boolean;
  /**
   * The task contracts the method calls on the context's `tasks`, each at the specification
   * version it is written for (see `TASK_CONTRACTS`). grag's methods refuse a suite that does not
   * implement one at that version (`requireTasks` in `@grag/core/kit`): before a build or an update
   * (the `build` tasks, and the `retrieve` ones when the index retrieves with the suite it was built
   * with), and on load (the `retrieve` tasks). The manifest records the `build` tasks; `grag methods`
   * lists them.
   * @default undefined (not declared: nothing is checked)
   */
  readonly tasks?: MethodTasks;
}

/**
 * The task contracts a method calls (see {@link MethodCapabilities.tasks}): every task any of its
 * options or presets may call, so a task that a given configuration skips is still listed.
 * Empty maps for a method that calls no task.
 *
 * @example
 * ```ts
 * tasks: { build: { decomposeSemanticUnits: 1, summarize: 1 }, retrieve: { extractQueryEntities: 1 } }
 * ```
 */
export interface MethodTasks {
  /** Tasks `build` and `update` call (an update runs build stages on the new documents). */
  readonly build: TaskVersions;
  /** Tasks `retrieve` calls, on the task suite the index was built or loaded with. */
  readonly retrieve: TaskVersions;
}

/** Default context budget in tokens. */
export const DEFAULT_BUDGET_TOKENS = 12_000;

/** The option keys of a method (see {@link Method.optionKeys}). */
export interface MethodOptionKeys {
  readonly build: readonly string[];
  readonly retrieve: readonly string[];
  /**
   * Keys of both lists that `build` only keeps as the index's defaults for `retrieve`: they change
   * nothing it builds or saves, so a caller that varies one (an evaluation of several settings)
   * can pass it to `retrieve` alone and keep the index. @default none
   */
  readonly retrieveDefaults?: readonly string[];
}

/**
 * A graph-RAG method: build an index from documents, retrieve context for a query, persist it.
 * Every method returns the same {@link Retrieval} shape.
 */
export interface Method<
  Index,
  Options = Record<string, unknown>,
  Retrieve extends RetrieveOptions = RetrieveOptions,
> {
  readonly name: string;
  /** One line saying what the method is, after its paper (`grag methods` lists it). */
  readonly description: string;
  /** What the index depends on and what it can build from. */
  readonly capabilities: MethodCapabilities;
  /** Version of the on-disk format written by `save`; `load` refuses others. */
  readonly formatVersion: number;
  /**
   * The option keys `build` and `retrieve` accept (each refuses others with an
   * `InvalidArgumentError`), so a caller that holds options for several methods, such as an
   * evaluation over many, can hand each only its own.
   */
  readonly optionKeys?: MethodOptionKeys;
  /**
   * How this method's {@link Retrieval} ranks source passages (for Recall@k and any UI that lists
   * sources): which item kinds are passage evidence and in which order. Without it, every item
   * counts, in context order.
   */
  readonly passageRanking?: PassageRanking;
  build(docs: Document[], ctx: BuildContext, options?: Partial<Options>): Promise<Index>;
  /**
   * The options `build` runs with for `options`: defaults (and a preset's settings) filled in and
   * checked, as the manifest of an index it saves records them (`params`), so a caller can tell
   * whether a saved index was built with the options it would build with now.
   * @throws InvalidArgumentError as `build` does for an unknown key or a bad value.
   */
  resolveBuildOptions?(options?: Partial<Options>): Readonly<Record<string, unknown>>;
  retrieve(index: Index, query: string, options?: Retrieve): Promise<Retrieval>;
  /**
   * Write `index` as a new version of `target`: a directory path (the default store,
   * `directoryStore`) or any `IndexStore` (`memoryStore`, `@grag/postgres`). Atomic: a failed save
   * leaves the previous version in place.
   */
  save(index: Index, target: string | IndexStore): Promise<void>;
  /**
   * Read the index in `target` (a directory path or an `IndexStore`) with the providers of `ctx`;
   * throws `IndexFormatError` saying what to do when it is missing, of another method, format
   * version or providers, or damaged.
   */
  load(target: string | IndexStore, ctx: BuildContext): Promise<Index>;
  /**
   * Change the corpus of `index` and return the new index (`index` itself is left as it was):
   * documents in `change.add` are indexed (one whose id is already indexed replaces it: remove, then
   * add), documents named in `change.remove` are removed with every trace of them. Model calls and
   * embeddings are made only for new chunks; the report says which stages were recomputed for the
   * changed documents alone and which over the whole index. Removing an id the index does not hold
   * is an `InvalidArgumentError` naming the ids, and nothing changes. Methods without it cannot be
   * updated yet: rebuild with `build`.
   */
  update?(
    index: Index,
    change: IndexChange,
    ctx: BuildContext,
    options?: UpdateOptions,
  ): Promise<IndexUpdate<Index>>;
}

/** A change to an index's corpus (see {@link Method.update}). */
export interface IndexChange {
  /** Documents to index; one whose id is already indexed replaces the indexed one. */
  readonly add?: readonly Document[];
  /** Ids of indexed documents to remove. */
  readonly remove?: readonly string[];
}

/** Options of {@link Method.update}. */
export interface UpdateOptions {
  signal?: AbortSignal;
  /**
   * Recompute every stage whose update is an approximation, so the result equals a fresh build on
   * the changed corpus (the CLI's `--full`): e.g. a summary tree regrouped from scratch, or core
   * chunks selected again over the whole corpus. A fittable embedder of the context (fitted on the
   * corpus it indexes, as the offline TF-IDF one) is fitted again on the changed corpus, as a build
   * fits it, and every vector is embedded again with the new fit (see `refitForFullUpdate`; the
   * embedder is refitted in place). Model calls are made for every text the fresh build would send
   * that the index holds no result for (a call cache makes repeated ones free). Methods whose update
   * is already exact ignore it. @default false
   */
  full?: boolean;
}

/** What {@link Method.update} changed and recomputed. */
export interface UpdateReport {
  /** Document ids: new ones indexed, indexed ones replaced by a new text, and removed ones. */
  documents: { added: string[]; replaced: string[]; removed: string[] };
  /** Chunks dropped (of removed and replaced documents), chunks made (of added ones), and the index's chunks after. */
  chunks: { removed: number; added: number; total: number };
  /** Texts sent to the embedder (new chunks only). */
  embedded: number;
  /** Stages recomputed for the changed documents alone, e.g. `['chunk', 'embed', 'bm25']`. */
  local: string[];
  /** Stages recomputed over the whole index, each with why. */
  global: { stage: string; reason: string }[];
  /** Method-specific details (e.g. what was kept and why). */
  trace: Record<string, unknown>;
}

/** The result of {@link Method.update}: the new index and what changed. */
export interface IndexUpdate<Index> {
  index: Index;
  report: UpdateReport;
}

/** The providers an index can depend on, each fingerprinted in its manifest. */
export const INDEX_PROVIDER_KINDS = ['embedder', 'tasks', 'vectorIndex'] as const;
/** One of {@link INDEX_PROVIDER_KINDS}. */
export type IndexProviderKind = (typeof INDEX_PROVIDER_KINDS)[number];
