/**
 * The text-analysis contract: a text's sentences and tokens, each token with its part-of-speech
 * tag, lemma and stop-word flag, as plain data. Methods that read text without a model (E2GraphRAG's
 * entity graph, §3.1) ask the build context for one ({@link BuildContext.textAnalyzer}); `@grag/offline`
 * implements it on wink-nlp (`createWinkTextAnalyzer()`).
 */

/**
 * What kind of token a {@link TextToken} is: a `'word'` (letters, possibly with hyphens or
 * apostrophes), a `'number'`, `'punctuation'`, `'space'` (tabs and line breaks the analyzer keeps
 * as tokens), a `'symbol'`, or `'other'` (an e-mail address, a URL, an emoji, ...).
 */
export type TextTokenType = 'word' | 'number' | 'punctuation' | 'space' | 'symbol' | 'other';

/** One token of a {@link TextAnalysis}. */
export interface TextToken {
  /** The token as written in the text. */
  readonly text: string;
  /** Its lemma (dictionary form), as the analyzer gives it; `text` when it has none. */
  readonly lemma: string;
  /** Universal POS tag (Universal Dependencies: `NOUN`, `PROPN`, `ADJ`, `VERB`, ...); `'X'` when unknown. */
  readonly pos: string;
  readonly type: TextTokenType;
  /** The whitespace between the previous token and this one in the text (`''` when they touch). */
  readonly space: string;
  /** Whether the analyzer's language counts it as a stop word. */
  readonly stop: boolean;
}

/** A text as a {@link TextAnalyzer} reads it. */
export interface TextAnalysis {
  /** The tokens of the text, in order. */
  readonly tokens: readonly TextToken[];
  /** The sentences, in order, each as its first and last token index (inclusive). */
  readonly sentences: readonly (readonly [start: number, end: number])[];
}

/** Options of {@link TextAnalyzer.doAnalyze}. */
export interface AnalyzeCallOptions {
  abortSignal?: AbortSignal;
}

/**
 * Reads a text without a model: sentences, tokens, POS tags, lemmas. What it gives for a text
 * depends on the text only, never on the texts it read before, so a resumed build reads the same.
 */
export interface TextAnalyzer {
  readonly specificationVersion: 'v1';
  /**
   * Names the analyzer, its model and the version of what it gives, e.g. `'wink-eng-lite:v1'`.
   * What is built from its analyses records it (E2GraphRAG's entity extractor id), so an index is
   * not read with another analyzer.
   */
  readonly id: string;
  doAnalyze(text: string, options?: AnalyzeCallOptions): Promise<TextAnalysis>;
}
