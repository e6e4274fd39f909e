/**
 * The `TextAnalyzer` contract of `@grag/core` on wink-nlp (`wink-eng-lite-web-model`): sentences,
 * tokens, POS tags, lemmas and stop-word flags, read through {@link createWinkReader} so that what a
 * text gives depends on the text only.
 */
import type { TextAnalysis, TextAnalyzer, TextToken, TextTokenType } from '@grag/core';
import { createWinkReader, winkTokenColumns } from './nlp.js';

/**
 * The id of {@link createWinkTextAnalyzer}'s analyzer (wink's English lite model, sentence
 * boundaries and POS tags; version 1 of what it gives). E2GraphRAG's entity extractor ids start with it.
 */
export const WINK_TEXT_ANALYZER_ID = 'wink-eng-lite:v1';

/** wink-nlp with sentence boundaries and POS tags (one instance per process, shared by readers with these pipes). */
const reader = createWinkReader(['sbd', 'pos']);

/** wink's token types as the contract's: `tabCRLF` (tabs and line breaks) is a space token. */
function tokenType(winkType: string | undefined): TextTokenType {
  switch (winkType) {
    case undefined:
    case 'word':
      return 'word';
    case 'number':
    case 'punctuation':
    case 'symbol':
      return winkType;
    case 'tabCRLF':
      return 'space';
    default:
      return 'other';
  }
}

/**
 * A `TextAnalyzer` on wink-nlp with `wink-eng-lite-web-model`: no download, no model call. Tokens
 * are wink's (its tokenizer, Universal POS tags, lemmas, stop-word flags); sentences are wink's
 * sentence spans. wink and its model load once per process, on the first text.
 *
 * @example
 * ```ts
 * // a model's tasks and embeddings, and wink for what a method reads without a model
 * const ctx = createBuildContext({ embedder, tasks: createPromptTasks(chat), chat, textAnalyzer: createWinkTextAnalyzer() });
 * ```
 */
export function createWinkTextAnalyzer(): TextAnalyzer {
  return {
    specificationVersion: 'v1',
    id: WINK_TEXT_ANALYZER_ID,
    doAnalyze(text: string): Promise<TextAnalysis> {
      return reader.read(text, (doc, its) => {
        const { values, lemmas, tags, types, spaces, stops } = winkTokenColumns(doc, its);
        const tokens: TextToken[] = values.map((value, k) => ({
          text: value,
          lemma: lemmas[k] ?? value,
          pos: tags[k] ?? 'X',
          type: tokenType(types[k]),
          space: spaces[k] ?? '',
          stop: stops[k] === true,
        }));
        const sentences = (doc.sentences().out(its.span) as unknown as [number, number][]).map(
          ([start, end]) => [start, end] as const,
        );
        return { tokens, sentences };
      });
    },
  };
}
