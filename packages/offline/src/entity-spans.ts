/**
 * Where a text names an entity: quoted titles, wink's dates, money and percentages, and proper-noun
 * spans (joined across particles, connectors and hyphens, honorifics and roles stripped), each
 * found once as a {@link Candidate} and its type cues scored.
 */

import {
  EVENT_WORDS,
  GEO_WORDS,
  NAME_CONNECTORS,
  NAME_PARTICLES,
  NOT_ENTITIES,
  ORGANIZATION_WORDS,
  PERSON_TITLES,
  ROLE_WORDS,
  ROMAN_NUMERAL,
  TRAILING_ROLES,
} from './lexicon.js';
import { type Analysis, type Sentence, spanText, type Token } from './nlp.js';
import { addScore, type Candidate, type Scores, scoreTypeCues } from './type-votes.js';

/**
 * Entity type given to each wink NER type; `null` drops it (cardinals, ordinals and durations are
 * too frequent to be useful graph nodes).
 */
export const WINK_ENTITY_TYPES: Readonly<Record<string, string | null>> = {
  DATE: 'date',
  TIME: 'time',
  MONEY: 'money',
  PERCENT: 'percent',
  CARDINAL: null,
  ORDINAL: null,
  DURATION: null,
  EMAIL: 'contact',
  URL: 'url',
  HASHTAG: null,
  MENTION: 'person',
  EMOJI: null,
  EMOTICON: null,
};

/** Lower-cased key of a name: spaces collapsed, a leading "the" and trailing dots dropped. */
export function entityKey(name: string): string {
  return name
    .toLowerCase()
    .replace(/[\u2019]/g, "'")
    .replace(/\s+/g, ' ')
    .replace(/^the /, '')
    .replace(/\.$/, '')
    .trim();
}

const startsUpper = (value: string): boolean => /^\p{Lu}/u.test(value);
export const hasNewline = (token: Token): boolean => /\n/.test(token.space);

/** Whether a token can be part of a proper name. */
function isNameToken(
  token: Token | undefined,
  sentenceStart: number,
  covered: Uint8Array,
  previous: Token | undefined,
): boolean {
  if (!token || covered[token.index] || token.type !== 'word') return false;
  if (!startsUpper(token.value)) return false;
  if (token.pos === 'PROPN') return true;
  // Capitalized words wink did not tag PROPN count after another word, not at the start of a
  // sentence or after punctuation ("(Birth date unknown"); one tagged as a verb only right after a
  // capitalised word of the name ("Merrow Falls", "Palm Springs").
  return (
    token.index !== sentenceStart &&
    previous?.type === 'word' &&
    (token.pos === 'NOUN' ||
      token.pos === 'ADJ' ||
      token.pos === 'X' ||
      (token.pos === 'VERB' &&
        startsUpper(previous.value) &&
        (previous.pos === 'PROPN' || previous.index !== sentenceStart)))
  );
}

const OPENING_QUOTES = new Set(['"', '\u201c']);
const CLOSING_QUOTES = new Set(['"', '\u201d']);

/** Quoted titles ("The Harbour Suite", "The Third Man"): candidates with a cue for a work. */
export function findQuotedTitles(
  analysis: Analysis,
  covered: Uint8Array,
  candidates: Candidate[],
  scores: Map<string, Scores>,
): void {
  const { tokens, sentences } = analysis;
  for (const sentence of sentences) {
    for (let q = sentence.start; q < sentence.end; q++) {
      if (!OPENING_QUOTES.has(tokens[q]!.value) || tokens[q + 1]?.space) continue;
      let close = -1;
      for (let k = q + 2; k <= Math.min(sentence.end, q + 12); k++) {
        if (CLOSING_QUOTES.has(tokens[k]!.value)) {
          close = k;
          break;
        }
      }
      const inner = tokens.slice(q + 1, close);
      if (close < 0 || !startsUpper(tokens[q + 1]!.value) || inner.some((t) => covered[t.index])) continue;
      const name = spanText(tokens, q + 1, close - 1);
      const key = entityKey(name);
      if (!key || NOT_ENTITIES.has(key)) continue;
      candidates.push({
        start: q + 1,
        end: close - 1,
        sentence: sentence.index,
        key,
        name,
        fixedType: null,
      });
      for (let k = q + 1; k < close; k++) covered[k] = 1;
      addScore(scores, key, 'work', 3);
      q = close;
    }
  }
}

/** wink's numeric and temporal entities that no earlier candidate overlaps, typed by {@link WINK_ENTITY_TYPES}. */
export function findNerEntities(
  analysis: Analysis,
  covered: Uint8Array,
  sentenceOf: Int32Array,
  candidates: Candidate[],
): void {
  const { tokens } = analysis;
  for (const entity of analysis.entities) {
    let overlaps = false;
    for (let i = entity.start; i <= entity.end; i++) {
      if (covered[i]) overlaps = true;
      covered[i] = 1;
    }
    if (overlaps) continue;
    const type = WINK_ENTITY_TYPES[entity.type];
    const sentence = sentenceOf[entity.start] ?? -1;
    if (!type || sentence < 0) continue;
    const name = spanText(tokens, entity.start, entity.end);
    candidates.push({
      start: entity.start,
      end: entity.end,
      sentence,
      key: entityKey(name),
      name,
      fixedType: type,
    });
  }
}

/**
 * Proper-noun spans, each with its type cues scored. `subjectSpans` are where the text writes its
 * subject's name: one span whatever its words' tags.
 */
export function findProperNames(
  analysis: Analysis,
  covered: Uint8Array,
  subjectSpans: ReadonlyMap<number, number>,
  candidates: Candidate[],
  scores: Map<string, Scores>,
): void {
  const { tokens, sentences } = analysis;
  for (const sentence of sentences) {
    let i = sentence.start;
    while (i <= sentence.end) {
      const forced = subjectSpans.get(i);
      if (forced === undefined && !isNameToken(tokens[i], sentence.start, covered, tokens[i - 1])) {
        i++;
        continue;
      }
      const extent =
        forced === undefined
          ? extendName(tokens, sentence, covered, i)
          : { end: forced, hasConnector: false, headEnd: -1 };
      let start = i;
      let end = extent.end;
      const hasConnector = extent.hasConnector;
      let headEnd = extent.headEnd;
      i = end + 1;

      // Strip honorifics and roles at the start; remember them as person cues.
      let titled = false;
      while (
        start < end &&
        tokens[start] &&
        (PERSON_TITLES.has(tokens[start]!.normal) || ROLE_WORDS.has(tokens[start]!.normal))
      ) {
        if (PERSON_TITLES.has(tokens[start]!.normal)) titled = true;
        start++;
      }
      while (
        end > start &&
        tokens[end] &&
        (ROLE_WORDS.has(tokens[end]!.normal) || TRAILING_ROLES.has(tokens[end]!.normal))
      )
        end--;
      if (headEnd >= 0 && headEnd < start) headEnd = -1;
      const before = tokens[start - 1];
      if (before && PERSON_TITLES.has(before.normal) && start - 1 >= sentence.start) titled = true;

      const first = tokens[start]!;
      const count = end - start + 1;
      if (count === 1 && (NOT_ENTITIES.has(first.normal) || ROLE_WORDS.has(first.normal))) continue;
      if (count === 1 && first.value.replace(/\W/g, '').length < 2) continue;
      const name = spanText(tokens, start, end);
      const key = entityKey(name);
      if (!key) continue;
      candidates.push({ start, end, sentence: sentence.index, key, name, fixedType: null });
      for (let k = start; k <= end; k++) covered[k] = 1;

      scoreTypeCues(tokens, sentence, { start, end, key, headEnd, hasConnector, titled }, scores);
    }
  }
}

/**
 * Where the proper name that starts at token `start` ends: over further name words, hyphenated
 * parts ("Doe-Smith"), Roman numerals, particles ("Leonardo da Vinci") and, after a cue word,
 * connectors ("University of Paris"). `headEnd` is the last word before the first connector.
 */
function extendName(
  tokens: readonly Token[],
  sentence: Sentence,
  covered: Uint8Array,
  start: number,
): { end: number; hasConnector: boolean; headEnd: number } {
  let end = start;
  let hasConnector = false;
  let headEnd = -1;
  for (;;) {
    const next = tokens[end + 1];
    if (!next || end + 1 > sentence.end || hasNewline(next)) break;
    if (isNameToken(next, sentence.start, covered, tokens[end])) {
      end++;
      continue;
    }
    // "Doe-Smith", "O'Neil-Jones": a hyphen with no spaces joins two name parts.
    const after = tokens[end + 2];
    if (
      (next.value === '-' || next.value === '–') &&
      !next.space &&
      after &&
      !after.space &&
      isNameToken(after, sentence.start, covered, next)
    ) {
      end += 2;
      continue;
    }
    if (ROMAN_NUMERAL.test(next.value) && next.value.length <= 4) {
      end++;
      continue;
    }
    // "Leonardo da Vinci", "University of Paris", "Bank of the West".
    const lower = next.value === next.normal;
    const last = tokens[end];
    const cue =
      last &&
      (ORGANIZATION_WORDS.has(last.normal) ||
        GEO_WORDS.has(last.normal) ||
        EVENT_WORDS.has(last.normal) ||
        PERSON_TITLES.has(last.normal));
    if (lower && (NAME_PARTICLES.has(next.normal) || (NAME_CONNECTORS.has(next.normal) && cue))) {
      let k = end + 2;
      if (tokens[k]?.normal === 'the' && k <= sentence.end) k++;
      if (k <= sentence.end && isNameToken(tokens[k], sentence.start, covered, tokens[k - 1])) {
        if (NAME_CONNECTORS.has(next.normal)) {
          hasConnector = true;
          if (headEnd < 0) headEnd = end;
        }
        end = k;
        continue;
      }
    }
    break;
  }
  return { end, hasConnector, headEnd };
}
