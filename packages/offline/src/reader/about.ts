/**
 * What the context says about a named thing: the items about it (their title line names it), its
 * gender from pronouns, and the full form of a related person's name.
 */
import { NAME_PARTICLES, PERSON_TITLES, ROMAN_NUMERAL } from '../lexicon.js';
import { spanText, type Token } from '../nlp.js';
import { containsWords, contentWords, wordsOf } from '../words.js';
import { clean } from './question.js';
import type { Span } from './spans.js';
import type { AnswerSentence } from './types.js';

const wordSetCache = new WeakMap<AnswerSentence, Set<string>>();
export function wordSet(s: AnswerSentence): Set<string> {
  let set = wordSetCache.get(s);
  if (!set) {
    set = new Set(wordsOf(s.text));
    wordSetCache.set(s, set);
  }
  return set;
}

/**
 * Items about a phrase: their first sentence (the title line the methods prepend) names it and
 * little else. An item about "Harbour Lights" is where the film's director is said.
 */
export function aboutItems(phrase: string, sentences: readonly AnswerSentence[]): Set<number> {
  const words = withoutTitles(contentWords(phrase));
  const out = new Set<number>();
  if (words.length === 0) return out;
  for (const s of sentences) {
    if (s.index !== 0 || out.has(s.item)) continue;
    // Every word of the phrase in the title, spelling variants allowed ("Kessler" / "Keßler" aside, "Marren(s)").
    const title = withoutTitles(contentWords(s.text));
    if (title.length > 14 || fuzzyContains(title, words) < 1) continue;
    // …and most of the title in the phrase; the title may add a disambiguator: "Edmund II, Lord
    // of Skarn", "Tides (1999 film)".
    const core = withoutTitles(contentWords(s.text.split(/\s*[,(]/)[0]!));
    // A short form is the title's first words before an "of …" or a comma: "Lindqvist Institute" for
    // "Lindqvist Institute of Marine Science" (not "Merrow Falls" for "Merrow Falls Concert Hall").
    const short =
      words.length >= 2 &&
      words.every((w, k) => title[k] !== undefined && sameWord(title[k]!, w)) &&
      /^(of|for|at|in|on|,|\()$/.test(wordAfter(s, words[words.length - 1]!));
    if (short || fuzzyContains(words, title) >= 0.6 || (core.length > 0 && fuzzyContains(words, core) >= 0.6))
      out.add(s.item);
  }
  return out;
}

/**
 * Items a note opens about a phrase without a title line: their first sentence starts with it as
 * its subject ("Nell Ardry was born in Kaltern. She is married to …"), so "she" there is the phrase.
 */
export function openedItems(phrase: string, sentences: readonly AnswerSentence[]): Set<number> {
  const words = contentWords(phrase);
  const out = new Set<number>();
  if (words.length === 0) return out;
  for (const s of sentences) {
    if (s.index !== 0 || out.has(s.item)) continue;
    const tokens = s.ea.analysis.tokens;
    const range = s.ea.analysis.sentences[s.index]!;
    let k = range.start;
    if (tokens[k]?.normal === 'the') k++;
    // ('"Tidewater Lane" is a series …': a quoted name, its quotes aside.)
    const quoted = /^["“'‘]$/.test(tokens[k]?.value ?? '');
    if (quoted) k++;
    const opening = contentWords(spanText(tokens, k, Math.min(range.end, k + words.length - 1)));
    let verb = tokens[k + words.length];
    if (quoted && /^["”'’]$/.test(verb?.value ?? '')) verb = tokens[k + words.length + 1];
    if (
      opening.length === words.length &&
      words.every((w, j) => sameWord(opening[j]!, w)) &&
      (verb?.pos === 'VERB' ||
        verb?.pos === 'AUX' ||
        // "Tomas Quill coaches rowing": a verb in -s the tagger read as a plural noun.
        (verb?.pos === 'NOUN' && /^\p{Ll}.*[^s]s$/u.test(verb.value)))
    )
      out.add(s.item);
  }
  return out;
}

/** Honorifics and ranks before a name ("King Aldric", "Abbess Hild"). */
const TITLES = new Set([
  ...PERSON_TITLES,
  ...'caliph sultan shah tsar czar pharaoh emir maharaja raja consort chief'.split(' '),
]);

/** Name words without leading honorifics (the words themselves when nothing else is left). */
function withoutTitles(words: readonly string[]): string[] {
  let i = 0;
  while (i < words.length - 1 && TITLES.has(words[i]!)) i++;
  return words.slice(i);
}

/** Two spellings of one name word: equal, or one the other with a letter more ("Marren(s)"). */
function sameWord(a: string, b: string): boolean {
  if (a === b) return true;
  if (Math.abs(a.length - b.length) > 1 || Math.min(a.length, b.length) < 5) return false;
  const [short, long] = a.length <= b.length ? [a, b] : [b, a];
  return long.startsWith(short.slice(0, -1)) && (long.startsWith(short) || long.length === short.length);
}

/** Share of `words` that `haystack` holds, spelling variants allowed. */
function fuzzyContains(haystack: readonly string[], words: readonly string[]): number {
  if (words.length === 0) return 0;
  let hits = 0;
  for (const w of words) if (haystack.some((h) => sameWord(h, w))) hits++;
  return hits / words.length;
}

/** The gender the item about a person says (he/his vs she/her), or null. */
export function genderOf(name: string, sentences: readonly AnswerSentence[]): 'male' | 'female' | null {
  const about = aboutItems(name, sentences);
  let male = 0;
  let female = 0;
  // A gendered noun just before the name: "their only daughter, Agnes", "my brother Teodor",
  // "her husband, Walter Pellow".
  const first = name.split(/\s+/)[0]?.toLowerCase();
  for (const s of sentences) {
    const range = s.ea.analysis.sentences[s.index]!;
    const tokens = s.ea.analysis.tokens;
    for (let k = range.start + 1; k <= range.end; k++) {
      if (tokens[k]!.normal !== first || !/^\p{Lu}/u.test(tokens[k]!.value)) continue;
      const before = tokens[k - 1]!.value === ',' ? tokens[k - 2] : tokens[k - 1];
      const g = before ? GENDERED.get(before.normal) : undefined;
      if (g === 'male') male += 2;
      else if (g === 'female') female += 2;
    }
  }
  const seen = new Set<string>();
  for (const s of sentences) {
    if (!about.has(s.item)) continue;
    const key = `${s.item}:${s.index}`;
    if (seen.has(key)) continue;
    seen.add(key);
    const range = s.ea.analysis.sentences[s.index]!;
    for (let k = range.start; k <= range.end; k++) {
      const w = s.ea.analysis.tokens[k]!.normal;
      if (w === 'he' || w === 'his' || w === 'him' || w === 'himself') male++;
      else if (w === 'she' || w === 'her' || w === 'hers' || w === 'herself') female++;
    }
  }
  if (male > 2 * female && male > 0) return 'male';
  if (female > 2 * male && female > 0) return 'female';
  return null;
}

/** Nouns that say a person's sex when they stand right before the name. */
const GENDERED: ReadonlyMap<string, 'male' | 'female'> = new Map([
  ...'son brother father dad husband grandfather grandpa grandson uncle nephew widower boy man mr sir king prince lord'
    .split(' ')
    .map((w) => [w, 'male'] as const),
  ...'daughter sister mother mum mom wife grandmother granny gran grandma granddaughter aunt niece widow girl woman mrs ms miss lady queen princess'
    .split(' ')
    .map((w) => [w, 'female'] as const),
]);

/**
 * The name of a related person as a span writes it, completed: lower-case particles and what
 * follows them ("Abbess Hild of Orsa", "Aed mac Torin"), a regnal "of" ("Edmund II of
 * Skarn", or any "X of Y" that titles an item of the context); without leading honorifics.
 */
export function personName(
  tokens: readonly Token[],
  span: Span,
  limit: number,
  sentences: readonly AnswerSentence[],
): string {
  let end = span.end;
  const capital = (k: number): boolean => k <= limit && /^\p{Lu}/u.test(tokens[k]?.value ?? '');
  for (;;) {
    const t = tokens[end + 1];
    if (!t || end + 1 > limit) break;
    if (
      (NAME_PARTICLES.has(t.normal) || t.normal === 'mac' || t.normal === 'ibn') &&
      /^\p{Ll}/u.test(t.value)
    ) {
      let k = end + 2;
      if (tokens[k]?.value === '-') k++;
      if (!capital(k)) break;
      end = k;
      while (capital(end + 1)) end++;
    } else if (t.value === '-' && capital(end + 2) && tokens[end + 1]!.space === '') {
      end += 2;
    } else if (ROMAN_NUMERAL.test(t.value) && t.value.length <= 4) end++;
    else break;
  }
  let text = spanText(tokens, span.start, end);
  if (tokens[end + 1]?.normal === 'of' && capital(end + 2)) {
    let k = end + 2;
    while (capital(k + 1)) k++;
    const longer = spanText(tokens, span.start, k);
    if (ROMAN_NUMERAL.test(tokens[end]!.value) || aboutItems(longer, sentences).size > 0) text = longer;
  }
  text = clean(text);
  // "King Aldric" → "Aldric": the name, not the rank.
  const words = text.split(/\s+/);
  let i = 0;
  while (i < words.length - 1 && TITLES.has(words[i]!.toLowerCase()) && /^\p{Lu}/u.test(words[i + 1]!)) i++;
  return words.slice(i).join(' ');
}

/** Whether two names name the same: the shorter one's content words all in the longer one. */
export function sameName(a: string, b: string): boolean {
  const x = contentWords(a);
  const y = contentWords(b);
  const [short, long] = x.length <= y.length ? [x, y] : [y, x];
  return short.length > 0 && short.every((w) => long.includes(w));
}

/** The token after the first `word` of sentence `s`, lower case ('' when none). */
function wordAfter(s: AnswerSentence, word: string): string {
  const tokens = s.ea.analysis.tokens;
  const range = s.ea.analysis.sentences[s.index]!;
  for (let k = range.start; k < range.end; k++) if (tokens[k]!.normal === word) return tokens[k + 1]!.normal;
  return '';
}

/** How well each context sentence supports the question (see support.ts). */
export type Support = readonly { value: number; from: number }[];

/** Sentences that name `phrase` (most of its words), best supported first. */
export function sentencesNaming(
  phrase: string,
  sentences: readonly AnswerSentence[],
  support: Support,
  wordsAt: (i: number) => Set<string>,
  predicate: readonly string[],
): { i: number; score: number }[] {
  const words = contentWords(phrase);
  const out: { i: number; score: number }[] = [];
  const itemNames = (item: number, rest: readonly string[]): boolean =>
    sentences.some((s, j) => s.item === item && rest.every((w) => wordsAt(j).has(w)));
  // An item whose title is the phrase is where its dates and facts are said: its sentences first.
  const titled = aboutItems(phrase, sentences);
  // An item whose first sentence names the phrase is about it: its other sentences count too.
  const about = new Set<number>();
  for (let i = 0; i < sentences.length; i++) {
    if (sentences[i]!.index === 0 && containsWords(wordsAt(i), words) >= 0.6) about.add(sentences[i]!.item);
  }
  for (let i = 0; i < sentences.length; i++) {
    const set = wordsAt(i);
    let match = containsWords(set, words);
    if (match < 0.6 && about.has(sentences[i]!.item)) match = 0.6;
    // A first name alone ("Callum (born 1981)") in an item that names the whole name's other words.
    const given =
      match < 0.6 && words.length > 1 && set.has(words[0]!) && itemNames(sentences[i]!.item, words.slice(1));
    if (match < 0.6 && !given) continue;
    const s = sentences[i]!;
    const lemmas = new Set(s.lemmas);
    // "… where I learned to read" in Ines's own note names Ines.
    if (s.narrator && /\b(I|me|my)\b/.test(s.text)) for (const w of contentWords(s.narrator)) lemmas.add(w);
    let hits = 0;
    for (const l of predicate) if (lemmas.has(l) || set.has(l)) hits++;
    const pred = predicate.length ? hits / predicate.length : 0;
    const bonus = (s.index === 0 ? 0.2 : 0) + (titled.has(s.item) ? 1.5 : 0);
    out.push({ i, score: match + pred + 0.01 * support[i]!.value + bonus });
  }
  return out.sort((a, b) => b.score - a.score || a.i - b.i);
}
