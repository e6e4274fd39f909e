/**
 * `createOfflineTasks`: every grag task (`TaskSuite`) implemented with wink-nlp heuristics and
 * extractive methods. No network, no model download, deterministic.
 */
import {
  type AnswerWithCitations,
  type CommunityAssessment,
  type ContextItem,
  EVERY_TASK_V1,
  type GraphExtraction,
  type GraphExtractionOptions,
  InvalidArgumentError,
  type QueryEntities,
  type QueryGraph,
  type SemanticUnitDecomposition,
  type SummarizeOptions,
  type TaskSuite,
  type TitleDescription,
  throwIfAborted,
} from '@grag/core';
import { withVocabularyMatches } from '@grag/core/graph';
import { getTokenizer } from '@grag/core/kit';
import { extractGraphOf, semanticUnitsOf } from './graph-extraction.js';
import { buildQueryGraph, queryEntityNames } from './query.js';
import { createReader, NO_ANSWER } from './reader/read.js';
import { createReadings } from './readings.js';
import {
  assessCommunityOf,
  type SummaryCounter,
  summarizeTexts,
  titleAndDescriptionOf,
} from './summaries.js';
import { type OfflineTasksOptions, offlineTasksSettings } from './tasks-options.js';

export { NO_ANSWER };

/** Summary length when `summarize` is called without `maxTokens`. @default 200 (SummarizeOptions) */
const DEFAULT_SUMMARY_TOKENS = 200;

/**
 * Heuristic implementations of every grag task on wink-nlp (`wink-eng-lite-web-model`), for
 * running with no network and no model: entity and relation extraction from proper-noun spans,
 * wink's NER and verb phrases; extractive summaries, titles, reports and answers ranked by
 * TextRank and IDF-weighted overlap (plus embedding cosine when `options.embedder` is given).
 * `entityTypes` in `extractGraph` filters the types only when the caller passes it.
 * Every result has `issues: []`: the heuristics never parse model output. The suite declares
 * `judgement: 'heuristic'`, so methods know its relevance scores are not a model's.
 */
export function createOfflineTasks(options: Partial<OfflineTasksOptions> = {}): TaskSuite {
  const settings = offlineTasksSettings(options);
  const embedder = options.embedder;
  let tokenizer = options.tokenizer;
  const getCounter = (): SummaryCounter => {
    tokenizer ??= getTokenizer();
    return tokenizer;
  };

  const entitiesOf = createReadings(settings);
  const reader = createReader({
    entitiesOf: (text, full, subject) => entitiesOf(text, full, subject),
    embedder,
    answerMode: settings.answerMode,
    answerSentences: settings.answerSentences,
    answerRelativeScore: settings.answerRelativeScore,
  });

  return {
    id: 'offline:wink',
    judgement: 'heuristic',
    // The task contracts these heuristics follow, each at its specification version.
    implements: EVERY_TASK_V1,

    async extractGraph(text: string, extraction: GraphExtractionOptions = {}): Promise<GraphExtraction> {
      throwIfAborted(extraction.abortSignal);
      const ea = await entitiesOf(text, true, extraction.subject);
      return extractGraphOf(ea, extraction.entityTypes, settings);
    },

    async decomposeSemanticUnits(text, options = {}): Promise<SemanticUnitDecomposition> {
      throwIfAborted(options.abortSignal);
      return semanticUnitsOf(await entitiesOf(text, true), settings);
    },

    async summarize(texts: string[], options: SummarizeOptions = {}): Promise<string> {
      throwIfAborted(options.abortSignal);
      const maxTokens = options.maxTokens ?? DEFAULT_SUMMARY_TOKENS;
      if (!Number.isFinite(maxTokens) || maxTokens < 1) {
        throw new InvalidArgumentError(
          'maxTokens',
          `summarize: maxTokens must be a positive number, got ${maxTokens}.`,
        );
      }
      return summarizeTexts(texts, maxTokens, getCounter());
    },

    async titleAndDescription(text, options = {}): Promise<TitleDescription> {
      throwIfAborted(options.abortSignal);
      return titleAndDescriptionOf(await entitiesOf(text, false), settings);
    },

    async extractQueryEntities(query, options = {}): Promise<QueryEntities> {
      throwIfAborted(options.abortSignal);
      const names = queryEntityNames(await entitiesOf(query, false));
      return { entities: withVocabularyMatches(query, names, options.vocabulary), issues: [] };
    },

    async extractQueryGraph(query, options = {}): Promise<QueryGraph> {
      throwIfAborted(options.abortSignal);
      return buildQueryGraph(await entitiesOf(query, false));
    },

    async assessCommunity(query, community, options = {}): Promise<CommunityAssessment> {
      throwIfAborted(options.abortSignal);
      return assessCommunityOf(query, community, embedder, settings, options.abortSignal);
    },

    answer: (query, context: ContextItem[], options = {}): Promise<AnswerWithCitations> =>
      reader(query, context, options),
  };
}
