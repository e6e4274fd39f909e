/** Options of the offline task suite ({@link createOfflineTasks}), their defaults and their checks. */
import { type Embedder, InvalidArgumentError, type Tokenizer } from '@grag/core';
import type { createOfflineTasks } from './tasks.js';

/** Options of {@link createOfflineTasks}. */
export interface OfflineTasksOptions {
  /**
   * Embedder used to score relevance in `assessCommunity` and `answer`. Without one, relevance is
   * lexical (IDF-weighted lemma overlap) only.
   */
  embedder?: Embedder;
  /** Counts tokens for `summarize`'s budget. @default getTokenizer() from `@grag/core` (cl100k_base) */
  tokenizer?: Pick<Tokenizer, 'count' | 'truncate'>;
  /** Resolve he/she/him to the most recent person. @default true */
  resolvePronouns: boolean;
  /**
   * When `extractGraph` gets no `subject`, take the text's first line as its subject when it looks
   * like a title (what methods prepend: "Title\ntext"; at most 12 words, no sentence punctuation
   * at its end). @default true
   */
  titleLineSubject: boolean;
  /** Most noun-phrase (`concept`) entities per extracted text; 0 for none. @default 3 */
  maxNounPhrases: number;
  /** Longest gap, in words, between two entities whose verb phrase describes their relation. @default 10 */
  maxRelationGap: number;
  /** Sentences kept in an entity's description. @default 3 */
  maxDescriptionSentences: number;
  /** Characters kept in an entity or relation description. @default 600 */
  maxDescriptionChars: number;
  /** Sentences shorter than this many words are merged with a neighbour into one semantic unit. @default 6 */
  minUnitWords: number;
  /** Most words in a title. @default 8 */
  titleWords: number;
  /** Most keywords in a title. @default 4 */
  titleKeywords: number;
  /** Most words in a chunk description. @default 60 */
  descriptionWords: number;
  /** Sentences in a community report. @default 3 */
  reportSentences: number;
  /** Most sentences in an answer (multi-hop questions need the bridging sentences too). @default 3 */
  answerSentences: number;
  /** A further answer sentence must score at least this fraction of the best one. @default 0.6 */
  answerRelativeScore: number;
  /**
   * `'phrase'`: the answer is a short phrase extracted from the context (a name, place, date,
   * number, noun phrase, one of the compared options, or yes/no), chosen by question type.
   * `'sentences'`: the answer is up to `answerSentences` whole context sentences.
   * @default 'phrase'
   */
  answerMode: 'phrase' | 'sentences';
}

/** Defaults of {@link OfflineTasksOptions}. */
export const OFFLINE_TASKS_DEFAULTS = {
  resolvePronouns: true,
  titleLineSubject: true,
  maxNounPhrases: 3,
  maxRelationGap: 10,
  maxDescriptionSentences: 3,
  maxDescriptionChars: 600,
  minUnitWords: 6,
  titleWords: 8,
  titleKeywords: 4,
  descriptionWords: 60,
  reportSentences: 3,
  answerSentences: 3,
  answerRelativeScore: 0.6,
  answerMode: 'phrase',
} as const satisfies Omit<OfflineTasksOptions, 'embedder' | 'tokenizer'>;

function checkOption(name: string, value: number, min: number): void {
  if (!Number.isFinite(value) || value < min) {
    throw new InvalidArgumentError(
      name,
      `createOfflineTasks: option ${name} must be a number >= ${min}, got ${value}.`,
    );
  }
}

/** The options merged over {@link OFFLINE_TASKS_DEFAULTS}, each checked: throws `InvalidArgumentError` on a bad one. */
export function offlineTasksSettings(options: Partial<OfflineTasksOptions>): OfflineTasksOptions {
  const settings = { ...OFFLINE_TASKS_DEFAULTS, ...options };
  for (const [name, min] of [
    ['maxNounPhrases', 0],
    ['maxRelationGap', 1],
    ['maxDescriptionSentences', 1],
    ['maxDescriptionChars', 20],
    ['minUnitWords', 0],
    ['titleWords', 1],
    ['titleKeywords', 1],
    ['descriptionWords', 1],
    ['reportSentences', 1],
    ['answerSentences', 1],
    ['answerRelativeScore', 0],
  ] as const) {
    checkOption(name, settings[name], min);
  }
  if (settings.answerMode !== 'phrase' && settings.answerMode !== 'sentences') {
    throw new InvalidArgumentError(
      'answerMode',
      `createOfflineTasks: option answerMode must be 'phrase' or 'sentences', got ${String(settings.answerMode)}.`,
    );
  }
  return settings;
}
