/**
 * The task contracts: one per model-backed task a method may use ({@link TASK_CONTRACTS}: its name
 * and specification version; what it takes and returns are the types below, and
 * {@link TaskArguments} / {@link TaskResult} by name), and {@link TaskSuite}, the suite of them a
 * build context carries, which says which contract versions it implements
 * ({@link TaskSuite.implements}). A method declares the tasks it calls, at the versions it was
 * written for (`MethodCapabilities.tasks`), and a build refuses a suite that lacks one.
 * `createPromptTasks` (`@grag/core/tasks`) implements them with prompts, `@grag/offline` with
 * heuristics.
 */
import type { ExtractedEntity, ExtractedRelation } from './types.js';

/**
 * Something a parser could not turn into a record. Never dropped silently: every task result
 * carries its issues so callers can count and report them.
 */
export interface ParseIssue {
  /** What went wrong: a record was skipped, a field was missing and defaulted, output was cut off, ... */
  kind: 'skipped-record' | 'missing-field' | 'truncated' | 'no-records' | 'invalid-value';
  /** Human-readable reason. */
  reason: string;
  /** The raw text of the offending record (or the whole output when no record could be found). */
  raw: string;
  /**
   * `true` when a record (or the whole answer) was lost because its text could not be read: a
   * skipped record, an unreadable relevance score, or output with no records that is not a
   * well-formed empty answer. Showing the model `raw` and restating the format may recover it,
   * which `PromptTasks` does once (its `repair` setting). Absent when nothing was lost (a default
   * filled in, a value rescaled) or the output was cut off. @default undefined
   */
  repairable?: boolean;
}

/** Options of {@link TaskSuite.extractGraph}. */
export interface GraphExtractionOptions {
  /** Entity types to look for. @default DEFAULT_ENTITY_TYPES */
  entityTypes?: string[];
  /** Extra extraction passes that ask the model for entities it missed. @default 1 (GraphRAG gleaning) */
  gleanings?: number;
  /**
   * Name of the text's main subject, e.g. the title of its document. An extractor may report it
   * as an entity and read pronouns and definite descriptions ("he", "the film") as it, so that
   * relations reach the entity that other passages link to. Optional hint; `@grag/offline` uses it,
   * the prompt tasks ignore it. @default undefined
   */
  subject?: string;
  abortSignal?: AbortSignal;
}

/** Options of {@link TaskSuite.extractQueryEntities}. */
export interface QueryEntitiesOptions {
  abortSignal?: AbortSignal;
  /**
   * The entities the index knows (built once per index, e.g. `EntityVocabulary.fromEntities(kg.entities.values())`
   * from `@grag/core/graph`).
   * When given, the question's spans that match a vocabulary name (longest match over folded
   * words) come first in the result, written as the vocabulary's canonical name.
   * @default undefined
   */
  vocabulary?: QueryVocabulary;
}

/** What {@link TaskSuite.extractGraph} returns: the entities and relations of a text, and parse issues. */
export interface GraphExtraction {
  entities: ExtractedEntity[];
  relations: ExtractedRelation[];
  issues: ParseIssue[];
}

/** A relationship inside a semantic unit (NodeRAG): `source --relation--> target`. */
export interface UnitRelationship {
  source: string;
  relation: string;
  target: string;
}

/** NodeRAG's semantic unit: an independent event or fact with the entities and relationships in it. */
export interface SemanticUnitRecord {
  text: string;
  entities: string[];
  relationships: UnitRelationship[];
}

/** What {@link TaskSuite.decomposeSemanticUnits} returns: a text's semantic units, and parse issues. */
export interface SemanticUnitDecomposition {
  units: SemanticUnitRecord[];
  issues: ParseIssue[];
}

/** Options of {@link TaskSuite.summarize}. */
export interface SummarizeOptions {
  /** Target length of the summary in tokens. @default 200 */
  maxTokens?: number;
  /** What the summary is for, e.g. `'entity'` descriptions or a `'passage'` group. */
  purpose?: string;
  abortSignal?: AbortSignal;
}

/** What {@link TaskSuite.titleAndDescription} returns: a short title and a description of a text. */
export interface TitleDescription {
  title: string;
  description: string;
  issues: ParseIssue[];
}

/** Entities named in a query, in order of mention, without duplicates. */
export interface QueryEntities {
  entities: string[];
  issues: ParseIssue[];
}

/** A node of a query graph. `label === null` marks an unknown node (the target when `isTarget`). */
export interface QueryGraphNode {
  id: string;
  label: string | null;
  isTarget: boolean;
}

/** An edge of a query graph: `source --relation--> target`. */
export interface QueryGraphEdge {
  source: string;
  target: string;
  relation: string;
}

/** What {@link TaskSuite.extractQueryGraph} returns: the question as a small graph, and parse issues. */
export interface QueryGraph {
  nodes: QueryGraphNode[];
  edges: QueryGraphEdge[];
  issues: ParseIssue[];
}

/** What {@link TaskSuite.assessCommunity} returns: how relevant a community is to a question, and why. */
export interface CommunityAssessment {
  /** Relevance of the community to the query, from 0 (irrelevant) to 10 (fully relevant). */
  score: number;
  /** A short report of what the community says about the query. */
  report: string;
  issues: ParseIssue[];
}

/** An item of context given to the answer task; `id` is what the answer cites. */
export interface ContextItem {
  id: string;
  text: string;
}

/** What {@link TaskSuite.answer} returns: the answer, the context items it cites, and parse issues. */
export interface AnswerWithCitations {
  answer: string;
  /** Ids of the context items the answer relies on, in the order cited. */
  citations: string[];
  issues: ParseIssue[];
}

/** Where a task suite's judgements come from; see {@link TaskSuite.judgement}. */
export type TaskJudgement = 'heuristic' | 'model';

/**
 * The name of a task: one of the {@link TaskSuite} methods, each a contract of its own in
 * {@link TASK_CONTRACTS}.
 */
export type TaskName =
  | 'extractGraph'
  | 'decomposeSemanticUnits'
  | 'summarize'
  | 'titleAndDescription'
  | 'extractQueryEntities'
  | 'extractQueryGraph'
  | 'assessCommunity'
  | 'answer';

/**
 * One task's contract: its name and the version of its specification (what it takes, what it
 * returns and what the result means). The version goes up when a change would break a method
 * written for the previous one; a method names the version it calls and a suite the version it
 * implements. The types of a contract are {@link TaskArguments} and {@link TaskResult} of its name.
 */
export interface TaskContract<K extends TaskName = TaskName> {
  readonly name: K;
  /** Version of the task's specification, a positive integer; every contract started at 1. */
  readonly specificationVersion: number;
  /** What the task does, in one line. */
  readonly description: string;
}

/**
 * Task names with a contract version each: what a suite implements ({@link TaskSuite.implements})
 * or what a method calls (`MethodCapabilities.tasks`). A task left out is not implemented or not
 * called.
 */
export type TaskVersions = { readonly [K in TaskName]?: number };

/** The arguments of task `K` (e.g. `[text, options?]` of `extractGraph`). */
export type TaskArguments<K extends TaskName> = Parameters<TaskSuite[K]>;

/** What task `K` resolves to (e.g. {@link GraphExtraction} for `extractGraph`). */
export type TaskResult<K extends TaskName> = Awaited<ReturnType<TaskSuite[K]>>;

const contract = <K extends TaskName>(
  name: K,
  specificationVersion: number,
  description: string,
): TaskContract<K> => Object.freeze({ name, specificationVersion, description });

/**
 * Every task contract, by name, at its current specification version (frozen). A suite that
 * declares no {@link TaskSuite.implements} is taken to implement every task at version 1.
 */
export const TASK_CONTRACTS: { readonly [K in TaskName]: TaskContract<K> } = Object.freeze({
  extractGraph: contract('extractGraph', 1, 'entities and relations of a text, each with a description'),
  decomposeSemanticUnits: contract(
    'decomposeSemanticUnits',
    1,
    "a text's semantic units: independent events or facts with their entities and relationships",
  ),
  summarize: contract('summarize', 1, 'one summary of several texts, within a token target'),
  titleAndDescription: contract('titleAndDescription', 1, 'a short title and a description of a text'),
  extractQueryEntities: contract('extractQueryEntities', 1, 'the entities a question names, in order'),
  extractQueryGraph: contract(
    'extractQueryGraph',
    1,
    'a question as a small graph of known and unknown nodes and relations',
  ),
  assessCommunity: contract(
    'assessCommunity',
    1,
    'how relevant a community is to a question (0-10), and a short report',
  ),
  answer: contract('answer', 1, 'an answer to a question from context items, citing their ids'),
});

/**
 * Every task at contract version 1 (frozen): what a suite that declares no
 * {@link TaskSuite.implements} is taken to implement, and what grag's prompt suite
 * (`createPromptTasks`) and `@grag/offline`'s suite declare.
 */
export const EVERY_TASK_V1: { readonly [K in TaskName]: 1 } = Object.freeze({
  extractGraph: 1,
  decomposeSemanticUnits: 1,
  summarize: 1,
  titleAndDescription: 1,
  extractQueryEntities: 1,
  extractQueryGraph: 1,
  assessCommunity: 1,
  answer: 1,
});

/**
 * The version of `task`'s contract that `suite` implements: its {@link TaskSuite.implements}
 * entry, or 1 when the suite declares no versions; `undefined` when its declaration leaves the
 * task out (the suite does not implement it).
 */
export function taskVersion(suite: Pick<TaskSuite, 'id' | 'implements'>, task: TaskName): number | undefined {
  return suite.implements === undefined ? 1 : suite.implements[task];
}

/**
 * Every model-backed task grag methods use, each a contract of {@link TASK_CONTRACTS}.
 * `createPromptTasks(chatModel)` implements it with prompts; `@grag/offline` implements it with
 * heuristics.
 */
export interface TaskSuite {
  /** Name of the implementation, recorded in manifests (e.g. `'prompt:openai:gpt-4o-mini'`). */
  readonly id: string;
  /**
   * The task contracts the suite implements, each at the specification version it follows
   * ({@link TASK_CONTRACTS}); a task left out is not implemented (its method may be missing or
   * throw). A build refuses a suite that lacks a task its method calls at the version the method
   * names. Read it with {@link taskVersion}.
   * @default every task at version 1
   */
  readonly implements?: TaskVersions;
  /**
   * What the suite's judgements are: `'model'`, a language model's (its relevance scores and
   * community assessments can be trusted as scores), or `'heuristic'`, rules without a model (e.g.
   * `@grag/offline`, whose `assessCommunity` score is an embedding cosine or word-overlap estimate
   * and whose report is extractive). Methods read this capability, never {@link TaskSuite.id}, to choose behaviour that
   * depends on it (DA-RAG's `scoring: 'auto'` scores by its own evidence when it is `'heuristic'`).
   * @default 'model'
   */
  readonly judgement?: TaskJudgement;
  extractGraph(text: string, options?: GraphExtractionOptions): Promise<GraphExtraction>;
  decomposeSemanticUnits(
    text: string,
    options?: { abortSignal?: AbortSignal },
  ): Promise<SemanticUnitDecomposition>;
  summarize(texts: string[], options?: SummarizeOptions): Promise<string>;
  titleAndDescription(text: string, options?: { abortSignal?: AbortSignal }): Promise<TitleDescription>;
  extractQueryEntities(query: string, options?: QueryEntitiesOptions): Promise<QueryEntities>;
  extractQueryGraph(query: string, options?: { abortSignal?: AbortSignal }): Promise<QueryGraph>;
  assessCommunity(
    query: string,
    community: string,
    options?: { abortSignal?: AbortSignal },
  ): Promise<CommunityAssessment>;
  answer(
    query: string,
    context: ContextItem[],
    options?: { abortSignal?: AbortSignal },
  ): Promise<AnswerWithCitations>;
}

/** Entity types GraphRAG's default extraction prompt asks for. */
export const DEFAULT_ENTITY_TYPES = ['organization', 'person', 'geo', 'event'] as const;

/** One occurrence of a vocabulary entity in a text (see {@link QueryVocabulary.match}). */
export interface VocabularyMatch {
  /** The canonical name of the entity. */
  name: string;
  /** The text as written: `text.slice(start, end)`. */
  text: string;
  start: number;
  end: number;
}

/** Options of {@link QueryVocabulary.match}. */
export interface VocabularyMatchOptions {
  /**
   * Only matches whose first word is capitalised (or a digit). Without it, names of two or more
   * words match in any case, and one-word names only when capitalised in the text or written in
   * lower case in the vocabulary. @default false
   */
  capitalizedOnly?: boolean;
}

/**
 * The entity names an index knows, as the query-entities task reads them
 * ({@link QueryEntitiesOptions.vocabulary}): longest-match lookup of names in a text.
 * `EntityVocabulary` in `@grag/core/graph` implements it.
 */
export interface QueryVocabulary {
  /** Names (aliases included) in the vocabulary. */
  readonly size: number;
  /** The canonical name `name` stands for (compared by link key), or undefined. */
  get(name: string): string | undefined;
  /** The vocabulary's names written in `text`: longest matches, left to right, without overlaps. */
  match(text: string, options?: VocabularyMatchOptions): VocabularyMatch[];
}
