/**
 * Words of a question's name inside another name: "Bell of Selkan Harbour" in a sentence, for a
 * question about "Bell of Quenton Harbour"; "Mirela Quillwyn" for "Mirela Tallis". The sentence
 * names another thing that shares words with the one asked about, and says nothing of it by them.
 */
import type { EntityAnalysis } from '../entities.js';
import { isKnownWord } from '../nlp.js';
import { foldedWord, SPAN_STOP } from '../words.js';
import { contentConcepts } from './meaning.js';

/** The question's names as their words (lower case, diacritics folded), and every word it says. */
export interface AskedNames {
  names: readonly (readonly string[])[];
  words: ReadonlySet<string>;
}

/** {@link AskedNames} of a question's entity keys (names, dates) and its words. */
export function askedNames(keys: readonly string[], words: Iterable<string>): AskedNames {
  const names = keys
    .map((k) =>
      k
        .split(/\s+/)
        .map(foldedWord)
        .filter((w) => w !== '' && !SPAN_STOP.has(w)),
    )
    .filter((parts) => parts.length > 0);
  return { names, words: new Set(words) };
}

/** Whether an entity key holds every word of one of the asked names ("the lost orchard", not "orchard"). */
export function isAskedName(key: string, asked: AskedNames): boolean {
  const words = new Set(key.split(/\s+/).map(foldedWord));
  return asked.names.some((name) => name.every((w) => words.has(w)));
}

/**
 * Tokens of sentence `sentence` that write words of an asked name inside a mention of another
 * name: one that shares some but not all of that name's words and holds a proper-name word (one
 * outside wink's English lexicon, capitalised) the question does not say. "Lannister Vale Museum"
 * for "Lannister Vale" is the name with a common noun added, and "Paris" for "Paris Hilton" a part
 * of it: neither is another name.
 */
export function otherNameTokens(ea: EntityAnalysis, sentence: number, asked: AskedNames): Set<number> {
  const out = new Set<number>();
  if (asked.names.length === 0) return out;
  const tokens = ea.analysis.tokens;
  for (const m of ea.bySentence[sentence] ?? []) {
    if (m.source === 'pronoun') continue;
    const words: string[] = [];
    let properWord = false;
    for (let k = m.start; k <= m.end; k++) {
      const t = tokens[k]!;
      const w = foldedWord(t.value);
      words.push(w);
      if (
        t.type === 'word' &&
        /^\p{Lu}/u.test(t.value) &&
        !asked.words.has(w) &&
        w.length > 1 &&
        !isKnownWord(w)
      )
        properWord = true;
    }
    if (!properWord) continue;
    for (const name of asked.names) {
      const shared = name.filter((w) => words.includes(w));
      if (shared.length === 0 || shared.length === name.length) continue;
      for (let k = m.start; k <= m.end; k++) if (name.includes(words[k - m.start]!)) out.add(k);
    }
  }
  return out;
}

/**
 * The concepts sentence `sentence` says only inside another name (see {@link otherNameTokens}):
 * those of its tokens there, less those it also says elsewhere.
 */
export function otherNameConcepts(ea: EntityAnalysis, sentence: number, asked: AskedNames): Set<string> {
  const inside = otherNameTokens(ea, sentence, asked);
  const out = new Set<string>();
  if (inside.size === 0) return out;
  const range = ea.analysis.sentences[sentence]!;
  const elsewhere = new Set<string>();
  for (let k = range.start; k <= range.end; k++) {
    for (const c of contentConcepts(ea.analysis, k, k)) (inside.has(k) ? out : elsewhere).add(c);
  }
  for (const c of elsewhere) out.delete(c);
  return out;
}
