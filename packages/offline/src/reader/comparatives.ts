/**
 * The words a question compares with, and the yes/no questions that compare two named things on
 * one attribute: "Was the Kessler Yard founded before the Lindqvist Institute?", "Is Tobias Wren
 * older than Ruben Falk?". Such a question is answered as the choice "Which was founded first, the
 * Kessler Yard or the Lindqvist Institute?" is: yes when the thing it is about wins.
 */
import { spanText, type Token } from '../nlp.js';
import { isKindByWordNet } from '../wordnet.js';
import { wordsOf } from '../words.js';
import { KIND_NOUNS } from './asked.js';
import { DEMONYMS } from './demonyms.js';
import { concept, concepts } from './meaning.js';
import type { QuestionReading } from './question.js';

/** Auxiliaries that open a yes/no question. */
export const AUXILIARIES = new Set(
  'is are was were do does did has have had can could will would should may might am'.split(' '),
);
/** Comparative words for which the smaller (earlier) value wins. */
export const MIN_WORDS = new Set(
  'first earlier earliest older oldest elder eldest before sooner prior fewer less least smaller smallest shorter shortest lower lowest lighter lightest narrower shallower'.split(
    ' ',
  ),
);
/** Comparative words for which the larger (later) value wins. */
export const MAX_WORDS = new Set(
  'last later latest younger youngest after recent recently newer newest more most larger largest bigger biggest higher highest longer longest taller tallest greater greatest heavier heaviest wider widest deeper deepest'.split(
    ' ',
  ),
);

/** A phrase without the quotes, brackets and punctuation around it, its spaces single. */
export const clean = (s: string): string =>
  s
    .replace(/^[\s"'“”‘’(,]+|[\s"'“”‘’),.;:?!]+$/gu, '')
    .replace(/\s+/g, ' ')
    .trim();

const capitalised = (t: Token | undefined): boolean => !!t && t.type === 'word' && /^\p{Lu}/u.test(t.value);
/** Words that may stand inside a name ("Bank of Ostby", "Van der Berg"). */
const NAME_LINKS = new Set(['of', 'the', 'and', 'de', 'van', 'von', 'der', 'la', 'le', '&']);

/** The end of the name that starts at `start` (a capitalised word, links inside it allowed). */
function nameEnd(tokens: readonly Token[], start: number): number {
  let end = start - 1;
  for (let k = start; k < tokens.length; k++) {
    const t = tokens[k]!;
    if (capitalised(t)) end = k;
    else if (!(NAME_LINKS.has(t.normal) && capitalised(tokens[k + 1]))) break;
  }
  return end;
}

/**
 * The two things a polar comparison compares, the one it is about first, or null: an auxiliary,
 * a name, then only lower-case words (the attribute: "founded", "born", "older") up to a
 * comparative ("before", "after", "earlier", "older" …, with or without "than"), then a second
 * name that ends the question.
 */
export function polarComparison(tokens: readonly Token[]): [string, string] | null {
  let i = tokens.findIndex((t) => t.type === 'word');
  if (i < 0 || !AUXILIARIES.has(tokens[i]!.normal)) return null;
  i++;
  if (tokens[i]?.normal === 'the') i++;
  if (!capitalised(tokens[i])) return null;
  const firstEnd = nameEnd(tokens, i);
  const first = clean(spanText(tokens, i, firstEnd));
  let k = firstEnd + 1;
  let comparative = false;
  for (; k < tokens.length; k++) {
    const t = tokens[k]!;
    if (t.type !== 'word' || /^\p{Lu}/u.test(t.value)) break;
    if (MIN_WORDS.has(t.normal) || MAX_WORDS.has(t.normal)) comparative = true;
    else if (comparative && t.normal !== 'than' && t.normal !== 'the') return null;
  }
  if (!comparative || !capitalised(tokens[k])) return null;
  const secondEnd = nameEnd(tokens, k);
  for (let j = secondEnd + 1; j < tokens.length; j++) if (tokens[j]!.type === 'word') return null;
  const second = clean(spanText(tokens, k, secondEnd));
  return first && second && first !== second ? [first, second] : null;
}

/** Endings of adjectives that sort things into kinds ("literary", "musical", "electronic"). */
const CLASSIFYING = /(al|ary|ic)$/;

/**
 * The noun compounds a question calls something by ("Is X a rock band?"): [modifier, head] lemma
 * pairs of two lower-case nouns, the head ending its phrase.
 */
export function nounCompounds(tokens: readonly Token[]): [string, string][] {
  const out: [string, string][] = [];
  const noun = (t: Token | undefined): boolean => !!t && t.pos === 'NOUN' && /^\p{Ll}/u.test(t.value);
  // "a documentary film": a word the tagger reads as an adjective that is itself a kind of the head;
  // "a literary magazine": an adjective that sorts things into kinds (-al, -ary, -ic), not one
  // that praises or sizes them ("a famous pianist").
  const modifier = (m: Token | undefined, head: Token): boolean =>
    noun(m) ||
    (!!m &&
      m.pos === 'ADJ' &&
      /^\p{Ll}/u.test(m.value) &&
      (CLASSIFYING.test(m.normal) || isKindByWordNet(m.lemma, head.lemma)));
  for (let k = 1; k < tokens.length; k++) {
    if (noun(tokens[k]) && modifier(tokens[k - 1], tokens[k]!) && !noun(tokens[k + 1]))
      out.push([tokens[k - 1]!.lemma, tokens[k]!.lemma]);
  }
  return out;
}

/**
 * Whether tokens `start..end` call something another kind of `head` than `modifier` does: the head
 * right after another lower-case noun the question does not use ("a folk band" against "a rock
 * band"), and nowhere after `modifier`. Two nouns before the same head name kinds that exclude
 * each other; an adjective ("a famous band") or no modifier excludes nothing.
 */
export function otherKind(
  tokens: readonly Token[],
  start: number,
  end: number,
  [modifier, head]: readonly [string, string],
  questionLemmas: ReadonlySet<string>,
): boolean {
  let other = false;
  for (let k = start + 1; k <= end; k++) {
    if (tokens[k]!.lemma !== head) continue;
    const m = tokens[k - 1]!;
    if (m.lemma === modifier) return false;
    if (m.pos === 'NOUN' && /^\p{Ll}/u.test(m.value) && !questionLemmas.has(m.lemma)) other = true;
  }
  return other;
}

/**
 * The kind a yes/no question asks its subjects to be: "Is X a *musician*?", "Are X and Y both
 * American film *directors*?" (`modified`: words before the head or an "of" phrase after it narrow
 * it), "Is X a kind of
 * *bird*?". The noun run must follow the last subject word (after "both", an article); null when
 * the question asks something else ("Are X and Y both located in …?").
 */
export function askedKind(
  tokens: readonly Token[],
  subjectWords: ReadonlySet<string>,
): { kind: string; modified: boolean } | null {
  // A kind is asked with "be" ("Are X and Y both …?"); "Did X and Y both play for …?" asks an act
  // (the tagger may read "play" as a noun).
  if (tokens[0]?.lemma !== 'be') return null;
  let k = -1;
  for (let i = 0; i < tokens.length; i++) if (subjectWords.has(tokens[i]!.normal)) k = i;
  if (k < 0) return null;
  k++;
  while (tokens[k] && /^(both|all|each|a|an|the|also|still)$/.test(tokens[k]!.normal)) k++;
  // "Welsh poets": the nationality is asked of its own (the countries said of each), the kind after it.
  while (tokens[k] && DEMONYMS[tokens[k]!.normal] !== undefined && tokens[k + 1]?.pos === 'NOUN') k++;
  // "a kind of bird", "a type of ferry".
  if (KIND_NOUNS.has(tokens[k]?.lemma ?? '') && tokens[k + 1]?.normal === 'of') k += 2;
  const start = k;
  let head = -1;
  for (; tokens[k] && /^(ADJ|NOUN)$/.test(tokens[k]!.pos) && /^\p{Ll}/u.test(tokens[k]!.value); k++)
    if (tokens[k]!.pos === 'NOUN') head = k;
  if (head < 0) return null;
  const after = tokens[head + 1];
  // The run ends the question ("…?") or a clause of its own ("… from Norway?").
  if (after && after.pos !== 'PUNCT' && after.pos !== 'ADP') return null;
  // "Are X and Y both found in Z?": a lone word in the singular before "in" is a participle the
  // tagger took for a noun, not a kind the two are.
  const lone = head === start && tokens[head]!.normal === tokens[head]!.lemma;
  if (lone && after?.pos === 'ADP' && after.normal !== 'of') return null;
  // Words before the head narrow the kind ("literary magazines"), and so does an "of" phrase
  // ("genera of flowering plants", "birds of prey").
  const of =
    after?.normal === 'of' &&
    /^(ADJ|NOUN|VERB)$/.test(tokens[head + 2]?.pos ?? '') &&
    /^\p{Ll}/u.test(tokens[head + 2]!.value);
  return { kind: tokens[head]!.lemma, modified: head > start || of };
}

/** Verbs that compare deaths: A outlived B. */
const OUTLIVE = new Set(['outlive', 'outlived', 'outlast', 'outlasted', 'survive', 'survived']);

/**
 * The comparative words of a choice question: which value wins ("born first" → the earlier date),
 * and whether death dates, life spans or time since a start are compared.
 */
export function choiceDirection(
  tokens: readonly Token[],
  options: readonly string[],
  reading: QuestionReading,
): void {
  const normals = new Set(tokens.map((t) => t.normal));
  // The comparative word decides which value wins ("born first" → the earlier date).
  const optionWords = new Set(options.flatMap(wordsOf));
  // By the concepts of the whole question, so a phrasal verb counts as one ("passed away": die).
  const meant = concepts(tokens.map((t) => t.lemma));
  for (const [k, t] of tokens.entries()) {
    if (optionWords.has(t.normal)) continue;
    // "outlived", "survived": died later; "predeceased": died first.
    if (OUTLIVE.has(t.lemma) || OUTLIVE.has(t.normal)) {
      reading.deathDate = true;
      reading.direction ??= 'max';
      continue;
    }
    if (t.lemma === 'predecease' || t.normal === 'predeceased') {
      reading.deathDate = true;
      reading.direction ??= 'min';
      continue;
    }
    if (MIN_WORDS.has(t.normal)) reading.direction ??= 'min';
    else if (MAX_WORDS.has(t.normal)) reading.direction ??= 'max';
    if (meant[k] === 'die' || concept(t.normal) === 'die') reading.deathDate = true;
    if (
      t.lemma === 'live' ||
      t.normal === 'lived' ||
      t.normal === 'lifespan' ||
      t.normal === 'life' ||
      t.normal === 'lifetime'
    )
      reading.lifespan = true;
  }
  // "lived longer" compares spans; "lived later" / "lived first" compare dates.
  if (reading.lifespan && !normals.has('longer') && !normals.has('shorter') && !normals.has('longest'))
    reading.lifespan = false;
  // "Which has been open longer?", "married longer": longer since the start, an earlier date.
  const been = tokens.findIndex((t) => t.normal === 'been');
  const state = been >= 0 ? tokens[been + 1] : undefined;
  if (!reading.lifespan && (normals.has('longer') || normals.has('longest')) && state?.type === 'word') {
    reading.direction = 'min';
    reading.since = state.lemma;
  }
}

/** The nouns of the dimensions a comparative measures ("deeper" → deep, depth). */
const DIMENSIONS: Readonly<Record<string, string>> = {
  deep: 'depth',
  tall: 'height',
  high: 'height',
  long: 'length',
  wide: 'width',
  heavy: 'weight',
};

/**
 * The words that state the measure a question compares: "deeper" → deep, depth; "taller" → tall,
 * height. Empty when it compares no dimension.
 */
export function measuresAsked(tokens: readonly Token[]): Set<string> {
  const out = new Set<string>();
  for (const t of tokens) {
    const m = /^(.+?)(i)?(er|est)$/.exec(t.normal);
    if (!m) continue;
    let base = m[2] ? `${m[1]}y` : m[1]!;
    if (!(base in DIMENSIONS) && /(.)\1$/.test(base)) base = base.slice(0, -1);
    const noun = DIMENSIONS[base];
    if (noun) out.add(base).add(noun);
  }
  if (out.has('tall')) out.add('high');
  if (out.has('high')) out.add('tall');
  return out;
}

/**
 * Which of the values at token positions `at` stands nearest a word of `measures` in sentence
 * `range` ("… and is 31 metres *deep*"); -1 when the sentence says none of them.
 */
export function nearestToMeasure(
  tokens: readonly Token[],
  range: { start: number; end: number },
  measures: ReadonlySet<string>,
  at: readonly number[],
): number {
  let cue = -1;
  for (let k = range.start; k <= range.end && cue < 0; k++) if (measures.has(tokens[k]!.lemma)) cue = k;
  if (cue < 0 || at.length === 0) return -1;
  const distance = (k: number): number => Math.abs(k - cue);
  return at.reduce((best, k, j) => (distance(k) < distance(at[best]!) ? j : best), 0);
}
