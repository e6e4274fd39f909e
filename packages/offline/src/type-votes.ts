/**
 * The vote that types the proper names of a text: each mention adds cue scores to its name's key
 * (head words, honorifics, places, the words around it, its shape), and the best-scored type wins;
 * bare surnames and last words then become aliases of the full names they shorten.
 */

import {
  EVENT_WORDS,
  GEO_WORDS,
  LOCATIVE_PREPOSITIONS,
  NAME_PARTICLES,
  ORGANIZATION_WORDS,
  PERSON_VERBS,
  PLACES,
} from './lexicon.js';
import { isKnownWord, type Token } from './nlp.js';

/** A span of the text that names an entity, before the vote on its type. */
export interface Candidate {
  start: number;
  end: number;
  sentence: number;
  key: string;
  name: string;
  /** Fixed type (wink NER) or null to decide from the cues. */
  fixedType: string | null;
}

/** Cue scores of one name, by type. */
export type Scores = Record<string, number>;

export function addScore(scores: Map<string, Scores>, key: string, type: string, value: number): void {
  let entry = scores.get(key);
  if (!entry) {
    entry = {};
    scores.set(key, entry);
  }
  entry[type] = (entry[type] ?? 0) + value;
}

function bestType(scores: Scores | undefined): [string, number] {
  let best = '';
  let value = 0;
  for (const [type, score] of Object.entries(scores ?? {})) {
    if (score > value) {
      best = type;
      value = score;
    }
  }
  return [best, value];
}

/** A proper-noun span of a sentence, as {@link scoreTypeCues} reads it. */
export interface NameSpan {
  start: number;
  end: number;
  /** Key of the name. */
  key: string;
  /** The last word before the first connector ("University" in "University of Paris"), or -1. */
  headEnd: number;
  /** Whether a connector word ("of", "for") joins the name's parts. */
  hasConnector: boolean;
  /** Whether an honorific stands before the name or opened it. */
  titled: boolean;
}

/** Add the type cues of one proper-noun mention to the scores of its key. */
export function scoreTypeCues(
  tokens: readonly Token[],
  sentence: { start: number; end: number },
  name: NameSpan,
  scores: Map<string, Scores>,
): void {
  const { start, end, headEnd, hasConnector, titled, key } = name;
  const first = tokens[start]!;
  const count = end - start + 1;
  const span = tokens.slice(start, end + 1);
  // The head is the last word, or the word before "of" ("University of Paris") unless the
  // last word is itself a cue word ("Battle of Hastings Museum").
  const lastToken = tokens[end]!;
  const lastIsCue =
    ORGANIZATION_WORDS.has(lastToken.normal) ||
    GEO_WORDS.has(lastToken.normal) ||
    EVENT_WORDS.has(lastToken.normal);
  const head = headEnd >= 0 && !lastIsCue ? tokens[headEnd]! : lastToken;
  const others = span.filter((t) => t !== head);
  const cueWords: [Set<string>, string][] = [
    [ORGANIZATION_WORDS, 'organization'],
    [GEO_WORDS, 'geo'],
    [EVENT_WORDS, 'event'],
  ];
  let keywordHit = false;
  for (const [set, type] of cueWords) {
    if (set.has(head.normal)) {
      addScore(scores, key, type, 3);
      keywordHit = true;
    }
    if (others.some((t) => set.has(t.normal))) {
      addScore(scores, key, type, 1);
      keywordHit = true;
    }
  }
  if (PLACES.has(key)) addScore(scores, key, 'geo', 4);
  if (titled) addScore(scores, key, 'person', 4);
  const prev = tokens[start - 1];
  if (prev && start - 1 >= sentence.start) {
    if (
      LOCATIVE_PREPOSITIONS.has(prev.normal) ||
      (prev.normal === 'the' && LOCATIVE_PREPOSITIONS.has(tokens[start - 2]?.normal ?? ''))
    )
      addScore(scores, key, 'geo', 1.5);
    if (prev.normal === 'at') addScore(scores, key, 'organization', 0.5);
    if (prev.normal === 'by') addScore(scores, key, 'person', 0.5);
  }
  let n = end + 1;
  if (tokens[n]?.normal === ',' && tokens[n + 1]?.normal === 'who') addScore(scores, key, 'person', 2);
  while (tokens[n] && n <= sentence.end && (tokens[n]!.pos === 'AUX' || tokens[n]!.pos === 'ADV')) n++;
  if (tokens[n] && n <= sentence.end && PERSON_VERBS.has(tokens[n]!.normal))
    addScore(scores, key, 'person', 1.5);
  const words = span.filter((t) => t.type === 'word' && /\p{L}/u.test(t.value));
  const nameShaped =
    !keywordHit &&
    !hasConnector &&
    words.length >= 2 &&
    words.length <= 4 &&
    words.every(
      (t) =>
        NAME_PARTICLES.has(t.normal) ||
        // "Smith", and "MacAlder", "McDonald", "O'Neil"
        /^(?:\p{Lu}[\p{Ll}'’.-]+|(?:Mc|Mac|O['’])\p{Lu}\p{Ll}+)$/u.test(t.value) ||
        /^\p{Lu}\.$/u.test(t.value),
    );
  if (nameShaped && !PLACES.has(key)) {
    // Most first names and surnames are not English words; "Silver Eel" is.
    const lastWord = words[words.length - 1]!.normal;
    const plural = /[^s]s$/.test(lastWord) && isKnownWord(lastWord.slice(0, -1));
    if (plural) addScore(scores, key, 'organization', 1.5);
    else if (!isKnownWord(words[0]!.normal)) addScore(scores, key, 'person', 2);
    else if (!isKnownWord(lastWord)) addScore(scores, key, 'person', 1);
  }
  if (count === 1 && /^\p{Lu}{2,6}$/u.test(first.value) && !PLACES.has(key))
    addScore(scores, key, 'organization', 2);
}

/**
 * The type of every name, decided by its scores (fixed for wink's entities), with the first
 * mention of each key, and the aliases of names that shorten a longer one ("Varga" → "Elena Varga").
 */
export function typesAndAliases(
  candidates: readonly Candidate[],
  scores: ReadonlyMap<string, Scores>,
): { firstName: Map<string, Candidate>; typeOf: Map<string, string>; alias: Map<string, string> } {
  const firstName = new Map<string, Candidate>();
  for (const c of [...candidates].sort((a, b) => a.start - b.start))
    if (!firstName.has(c.key)) firstName.set(c.key, c);
  const typeOf = new Map<string, string>();
  for (const [key, c] of firstName) {
    if (c.fixedType) {
      typeOf.set(key, c.fixedType);
      continue;
    }
    const [type] = bestType(scores.get(key));
    typeOf.set(key, type || 'other');
  }
  // A bare surname or first name stands for a person named in full ("Varga" → "Elena Varga"), a
  // bare last word for an organization ("Gulls" → "Merrow Gulls").
  const alias = new Map<string, string>();
  const longNames = [...firstName.values()].filter(
    (c) => c.key.includes(' ') && (typeOf.get(c.key) === 'person' || typeOf.get(c.key) === 'organization'),
  );
  for (const [key, c] of firstName) {
    if (c.fixedType || key.includes(' ')) continue;
    const [type, strength] = bestType(scores.get(key));
    const matches = longNames.filter((p) => {
      if (strength >= 3 && typeOf.get(p.key) !== type) return false;
      const parts = p.key.split(/[\s-]+/);
      return parts[parts.length - 1] === key || (typeOf.get(p.key) === 'person' && parts[0] === key);
    });
    if (matches.length === 0) continue;
    // The most mentioned match; ties go to the first seen.
    const counts = matches.map((m) => candidates.filter((x) => x.key === m.key).length);
    let best = 0;
    for (let m = 1; m < matches.length; m++) if (counts[m]! > counts[best]!) best = m;
    alias.set(key, matches[best]!.key);
  }
  return { firstName, typeOf, alias };
}
