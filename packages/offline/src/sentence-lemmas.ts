/**
 * The sentences of a text with their content lemmas, as `analyze` and `contentLemmas` (nlp.ts)
 * give them, read with less work: what `assessCommunity` reads of a community text (a few
 * thousand characters, a new one on most calls).
 */
import { bareForms, createWinkReader, isContent, lineSentences, winkTokens } from './nlp.js';

/** A sentence of a text and the lemmas of its content tokens. */
export interface SentenceLemmas {
  /** The sentence text, as `analyze` gives it (`Sentence.text`). */
  text: string;
  /** `contentLemmas` of its tokens, in text order. */
  lemmas: string[];
}

/**
 * wink with sentence boundaries and POS tags only: `analyze` also runs wink's NER, which sets the
 * document's entities and nothing else (wink runs it after the sentence boundaries and never reads
 * its entities in POS tagging), so tokens, sentences and lemmas are the same without it. Shared
 * with the other `['sbd', 'pos']` readers of the process.
 */
const reader = createWinkReader(['sbd', 'pos']);

/**
 * The sentences of `text` and their content lemmas: equal to
 * `analyze(text).sentences.map((s) => ({ text: s.text, lemmas: contentLemmas(analysis, s.start, s.end) }))`,
 * read without wink's NER and without the columns and entities `analyze` copies out for other
 * uses. Every call reads the text anew (nothing is cached).
 */
export async function sentenceLemmas(text: string): Promise<SentenceLemmas[]> {
  const { tokens, spans } = await reader.read(text, (doc, its) => ({
    tokens: winkTokens(doc, its),
    spans: doc.sentences().out(its.span) as unknown as [number, number][],
  }));
  // The bare forms `analyze` reads ("did X found"), so the lemmas are its own.
  bareForms(tokens);
  return lineSentences(tokens, spans).map(({ start, end, text: sentence }) => {
    const lemmas: string[] = [];
    for (let i = start; i <= end; i++) {
      const token = tokens[i]!;
      if (isContent(token)) lemmas.push(token.lemma);
    }
    return { text: sentence, lemmas };
  });
}
