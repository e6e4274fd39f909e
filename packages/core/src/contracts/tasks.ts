/**
 * The task contracts: what each model-backed task a method may use takes and returns, and
 * {@link TaskSuite}, the suite of them a build context carries. `createPromptTasks` (`@grag/core/tasks`)
 * implements it with prompts, `@grag/offline` with heuristics.
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
 * Every model-backed task grag methods use. `createPromptTasks(chatModel)` implements it with
 * prompts; `@grag/offline` implements it with heuristics.
 */
export interface TaskSuite {
  /** Name of the implementation, recorded in manifests (e.g. `'prompt:openai:gpt-4o-mini'`). */
  readonly id: string;
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
