/**
 * Keywords: word tokens minus stop words (KET-RAG §5.1: "it tokenizes chunks into words while
 * excluding stop words").
 */

/**
 * English stop words: articles, pronouns, auxiliaries, prepositions, conjunctions, and frequent
 * function adverbs, lower case, written for grag (contractions appear as the pieces the keyword
 * tokenizer produces: `don`, `isn`, `ll`, `ve`, ...).
 */
export const ENGLISH_STOP_WORDS: ReadonlySet<string> = new Set(
  `
  a an the this that these those such
  i me my mine myself we us our ours ourselves you your yours yourself yourselves
  he him his himself she her hers herself it its itself they them their theirs themselves
  one ones oneself
  who whom whose which what whatever whoever whichever where when why how
  am is are was were be been being
  have has had having do does did doing done
  will would shall should can could may might must ought
  not no nor neither either
  and or but if then else so than too very also just only even
  as at by for from in into of off on onto out over under up down to toward towards upon
  with within without about above across after against along among around before behind below
  beneath beside besides between beyond during except inside near outside per since through
  throughout till until via
  again further once here there now ever never always often still already yet
  all any both each every few more most other others some many much own same several
  because while although though whether unless whereas
  let lets
  s t d ll m o re ve y don doesn didn isn aren wasn weren hasn haven hadn won wouldn shan
  shouldn couldn mustn mightn needn ain
  `
    .split(/\s+/u)
    .filter((word) => word !== ''),
);

/** Options of {@link keywordTokens}. */
export interface KeywordOptions {
  /** Words that are never keywords (compared lower-cased). @default ENGLISH_STOP_WORDS */
  stopWords: ReadonlySet<string>;
  /** Shortest keyword, in characters. @default 2 */
  minLength: number;
}

/** Defaults of {@link keywordTokens}. */
export const KEYWORD_DEFAULTS: KeywordOptions = { stopWords: ENGLISH_STOP_WORDS, minLength: 2 };

const WORD = /[\p{L}\p{M}\p{N}]+/gu;

/**
 * The keyword tokens of `text`, in order, with repeats: maximal runs of letters and digits,
 * NFKC-normalized and lower-cased, without stop words and without tokens shorter than `minLength`.
 * Numbers are kept (years and quantities often carry the answer).
 * @example keywordTokens("Ada Lovelace's notes of 1843") // ['ada', 'lovelace', 'notes', '1843']
 */
export function keywordTokens(text: string, options: Partial<KeywordOptions> = {}): string[] {
  const { stopWords, minLength } = { ...KEYWORD_DEFAULTS, ...options };
  const out: string[] = [];
  for (const match of text.normalize('NFKC').toLowerCase().matchAll(WORD)) {
    const word = match[0];
    if (word.length >= minLength && !stopWords.has(word)) out.push(word);
  }
  return out;
}

/** The distinct keywords of `text`, in order of first appearance. */
export function distinctKeywords(text: string, options: Partial<KeywordOptions> = {}): string[] {
  return [...new Set(keywordTokens(text, options))];
}
