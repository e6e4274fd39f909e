/**
 * wink-nlp, loaded once per process on first use, and a plain-data analysis of a text (tokens with
 * POS tags, lemmas and flags; sentences; wink's numeric/date entities) that the heuristics work on.
 */
import type { ItsFunction, WinkMethods } from 'wink-nlp';

/** One token of an analysed text. */
export interface Token {
  /** Position in the analysed text, from 0. */
  index: number;
  /** The token as written. */
  value: string;
  /** Lower-cased, normalized form (wink's `normal`). */
  normal: string;
  /** Lower-cased lemma. */
  lemma: string;
  /** Universal POS tag from wink (`PROPN`, `NOUN`, `VERB`, ...). */
  pos: string;
  /** wink token type: `word`, `number`, `punctuation`, `tabCRLF`, ... */
  type: string;
  /** wink's stop-word flag. */
  stop: boolean;
  /** Whitespace before the token in the source text. */
  space: string;
}

/** A numeric or temporal entity found by wink's NER (`DATE`, `TIME`, `MONEY`, ...). */
export interface WinkEntity {
  /** First and last token index (inclusive). */
  start: number;
  end: number;
  /** wink's entity type, e.g. `DATE`. */
  type: string;
  value: string;
}

/** A sentence: a run of tokens `start..end` (inclusive). */
export interface Sentence {
  /** Position among the sentences of the text, from 0. */
  index: number;
  start: number;
  end: number;
  /** The sentence text, trimmed. */
  text: string;
}

/** A text analysed by wink, as plain data. */
export interface Analysis {
  text: string;
  tokens: Token[];
  sentences: Sentence[];
  entities: WinkEntity[];
}

let nlpPromise: Promise<WinkMethods> | undefined;
let lexicon: { isLexeme(word: string): number[] | null } | undefined;
/** Size of wink's own lexicon: words read later are appended to it by wink's cache. */
let lexiconSize = 0;
const known = new Map<string, boolean>();
const PROBE = 'qzxwvkjqgragprobe';

/**
 * The process-wide wink-nlp instance on `wink-eng-lite-web-model`, created on the first call
 * (sentence boundaries, POS tags and wink's NER; lemmas come from the model's add-ons on demand).
 */
export function getNlp(): Promise<WinkMethods> {
  nlpPromise ??= (async () => {
    const [{ default: winkNLP }, { default: model }] = await Promise.all([
      import('wink-nlp'),
      import('wink-eng-lite-web-model'),
    ]);
    const nlp = winkNLP(model, ['sbd', 'pos', 'ner']);
    const doc = nlp.readDoc(PROBE) as unknown as { isLexeme(word: string): number[] | null };
    lexiconSize = doc.isLexeme(PROBE)?.[0] ?? 0;
    lexicon = doc;
    return nlp;
  })();
  return nlpPromise;
}

/**
 * Whether a lower-cased word is in wink's English lexicon (common words are; most personal names
 * are not). False before wink has loaded (any `analyze` call loads it).
 */
export function isKnownWord(word: string): boolean {
  let hit = known.get(word);
  if (hit === undefined) {
    const index = lexicon?.isLexeme(word)?.[0];
    hit = index !== undefined && index < lexiconSize;
    if (lexicon) {
      if (known.size > 50_000) known.clear();
      known.set(word, hit);
    }
  }
  return hit;
}

const cache = new Map<string, Analysis>();
/** Analyses kept for reuse (the same chunk is often given to several tasks in a row). */
const CACHE_SIZE = 64;

/** Rebuild the text of tokens `start..end` with their original spacing (newlines become spaces). */
export function spanText(tokens: readonly Token[], start: number, end: number): string {
  let out = '';
  for (let i = start; i <= end; i++) {
    const token = tokens[i];
    if (!token || token.type === 'tabCRLF') {
      if (out && !out.endsWith(' ')) out += ' ';
      continue;
    }
    if (i > start && token.space) out += /\n/.test(token.space) ? ' ' : token.space.replace(/\s+/g, ' ');
    out += token.value;
  }
  return out.trim();
}

/**
 * Analyse `text` with wink: tokens, sentences and wink's entities. Sentences are wink's, further
 * split at line breaks (wink keeps a heading line and the next sentence together otherwise).
 * The last 64 analyses are cached (the same chunk often goes to several tasks in a row).
 */
export async function analyze(text: string): Promise<Analysis> {
  const hit = cache.get(text);
  if (hit) {
    cache.delete(text);
    cache.set(text, hit);
    return hit;
  }
  const nlp = await getNlp();
  const its = nlp.its;
  const doc = nlp.readDoc(text);
  const all = doc.tokens();
  const values = all.out(its.value) as string[];
  const normals = all.out(its.normal) as string[];
  // wink's typings declare `lemma` with an extra add-ons parameter; it is a token its-function.
  const lemmas = all.out(its.lemma as unknown as ItsFunction<string>) as string[];
  const tags = all.out(its.pos) as string[];
  const types = all.out(its.type) as string[];
  const stops = all.out(its.stopWordFlag) as unknown as boolean[];
  const spaces = all.out(its.precedingSpaces) as string[];
  const tokens: Token[] = values.map((value, index) => ({
    index,
    value,
    normal: (normals[index] ?? value).toLowerCase(),
    lemma: (lemmas[index] ?? value).toLowerCase(),
    pos: tags[index] ?? 'X',
    type: types[index] ?? 'word',
    stop: stops[index] === true,
    space: spaces[index] ?? '',
  }));

  const sentences: Sentence[] = [];
  const pushSentence = (start: number, end: number): void => {
    // Trim line-break tokens at both ends.
    while (start <= end && tokens[start]?.type === 'tabCRLF') start++;
    while (end >= start && tokens[end]?.type === 'tabCRLF') end--;
    if (start > end) return;
    const sentenceText = spanText(tokens, start, end);
    if (sentenceText) sentences.push({ index: sentences.length, start, end, text: sentenceText });
  };
  for (const span of doc.sentences().out(its.span) as unknown as [number, number][]) {
    let start = span[0];
    for (let i = span[0]; i <= span[1]; i++) {
      const token = tokens[i];
      if (token?.type === 'tabCRLF' && /\n/.test(token.value)) {
        pushSentence(start, i - 1);
        start = i + 1;
      }
    }
    pushSentence(start, span[1]);
  }

  const entitySpans = doc.entities().out(its.span) as unknown as [number, number][];
  const details = doc.entities().out(its.detail) as unknown as { value: string; type: string }[];
  const entities: WinkEntity[] = entitySpans.map((span, i) => ({
    start: span[0],
    end: span[1],
    type: details[i]?.type ?? 'OTHER',
    value: details[i]?.value ?? spanText(tokens, span[0], span[1]),
  }));

  const analysis: Analysis = { text, tokens, sentences, entities };
  cache.set(text, analysis);
  if (cache.size > CACHE_SIZE) {
    const oldest = cache.keys().next().value;
    if (oldest !== undefined) cache.delete(oldest);
  }
  return analysis;
}

/** Whether a token carries content (a word or number that is not a stop word). */
export function isContent(token: Token): boolean {
  return (
    (token.type === 'word' || token.type === 'number') && !token.stop && /[\p{L}\p{N}]/u.test(token.value)
  );
}

/** Lower-cased lemmas of the content tokens `start..end`. */
export function contentLemmas(analysis: Analysis, start: number, end: number): string[] {
  const out: string[] = [];
  for (let i = start; i <= end; i++) {
    const token = analysis.tokens[i];
    if (token && isContent(token)) out.push(token.lemma);
  }
  return out;
}
