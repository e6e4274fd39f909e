/**
 * Extracting an answer phrase from context sentences: the question's type (who / where / when /
 * how many / which X / yes-no / "A or B" comparison), candidate spans of the matching type in the
 * context sentences, and a score from the sentence's support, the span's type, its distance to the
 * question's words in the sentence, and whether the question already names it.
 */
import { spanText, type Token } from '../nlp.js';
import { MEASURE_WORDS, questionTarget } from '../query.js';
import { wordsOf } from '../words.js';
import { descriptorType, nounAfterWh } from './asked.js';
import {
  AUXILIARIES,
  choiceDirection,
  clean,
  MAX_WORDS,
  MIN_WORDS,
  polarComparison,
} from './comparatives.js';
import { agentVerb, concept, eventVerb } from './meaning.js';

/** What kind of phrase a question asks for. */
export type QuestionKind = 'person' | 'place' | 'date' | 'number' | 'polar' | 'choice' | 'thing';

/** A question read for answer extraction. */
export interface QuestionReading {
  kind: QuestionKind;
  /** The noun a which/what question asks for (`'film'`), lemma, or null. */
  descriptor: string | null;
  /** Entity type the answer should have (from the wh-word or descriptor), or null. */
  expectedType: string | null;
  /** "What year" / "which year": the answer is a year, not a full date. */
  yearOnly: boolean;
  /** "How long / far / tall": keep the unit after the number. */
  withUnit: boolean;
  /** The two compared phrases of a choice question ("A or B"), as the question writes them. */
  options: string[];
  /** For a choice: whether the smaller (earlier) or larger (later) value wins, when the question says. */
  direction: 'min' | 'max' | null;
  /** For a choice by dates: read the death year (the later date of a life span) rather than the first. */
  deathDate: boolean;
  /** For a choice: compare life spans ("Who lived longer, A or B?"): death year minus birth year. */
  lifespan: boolean;
  /**
   * For a choice: how long since a start ("Which has been open longer?"): the earlier start wins;
   * the state after "been" names the event ("open" → opened).
   */
  since?: string;
  /** A yes/no question comparing the two options ("Was A founded before B?"): yes when the first wins. */
  polarChoice?: boolean;
  /** Polar question asking whether two things share a property ("the same nationality"). */
  same: boolean;
  /** The noun asked for is plural ("Which rivers …"): the answer may be a list. */
  plural: boolean;
  /**
   * "What kind of artist …", "which type of film …": a kind of the descriptor is asked for (a
   * common noun, "painter"), not a named one.
   */
  kindOf?: boolean;
  /** Token range of the wh-phrase, or -1 when there is none. */
  whStart: number;
  whEnd: number;
}

/**
 * The fields of a {@link QuestionReading} that a question marks by its words, unmarked: no year
 * only, no unit, no compared options, no direction, no death date, no life span. A new object each
 * call (`options` is the reading's own array).
 */
export function unmarkedReading(): Pick<
  QuestionReading,
  'yearOnly' | 'withUnit' | 'options' | 'direction' | 'deathDate' | 'lifespan'
> {
  return {
    yearOnly: false,
    withUnit: false,
    options: [],
    direction: null,
    deathDate: false,
    lifespan: false,
  };
}

/** Comparative words that are about time (dates), not amounts. */
/** Two dates in brackets with a dash between them: a life span. */
export const LIFE_SPAN = /\([^)]*\d{3,4}[^)]*[–—-][^)]*\d{3,4}[^)]*\)/;

export const TIME_WORDS = new Set(
  'first earlier earliest older oldest elder eldest before sooner last later latest younger youngest after recent recently newer newest born died release released founded established formed'.split(
    ' ',
  ),
);
export const WH = new Set('who whom whose what which where when why how'.split(' '));
const OPTION_CONNECTORS = new Set('of the de la le von van der del da di du and & for on in a an'.split(' '));
export const NUMBER_WORDS = new Set(
  'one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen seventeen eighteen nineteen twenty thirty forty fifty sixty seventy eighty ninety hundred thousand million billion dozen'.split(
    ' ',
  ),
);
/** Adverbs that count times ("twice"), for "How many times …?". */
export const TIMES_WORDS: ReadonlySet<string> = new Set(['once', 'twice', 'thrice']);
export const YEAR = /^(1[0-9]{3}|20[0-9]{2})$/;
export const YEAR_IN = /\b(1[0-9]{3}|20[0-9]{2})\b/g;
export const HAS_YEAR = /\b(1[0-9]{3}|20[0-9]{2})\b/;
export const MONTHS = new Set(
  'january february march april may june july august september october november december'.split(' '),
);

export { AUXILIARIES, clean, MAX_WORDS, MIN_WORDS, wordsOf };

/** The compared phrases of "…, A or B?" / "Did A or B …?", or [] when the question compares nothing. */
function choiceOptions(tokens: readonly Token[]): string[] {
  let or = -1;
  for (let i = tokens.length - 1; i > 0; i--) {
    if (tokens[i]!.normal === 'or') {
      or = i;
      break;
    }
  }
  if (or < 0) return coordinatedOptions(tokens);
  let last = tokens.length - 1;
  while (last > or && tokens[last]!.type === 'punctuation') last--;
  const isCap = (t: Token | undefined): boolean =>
    !!t && (/^[\p{Lu}\p{N}"“]/u.test(t.value) || t.pos === 'PROPN' || t.pos === 'NUM');
  // The comma that opens the options: the first one after which only a name runs up to "or" (a
  // name may hold commas: "Which came first, Salt, Iron and Rope or …"); else the last one.
  let comma = -1;
  for (let i = or - 1; i >= 0; i--) {
    if (tokens[i]!.value === ',') {
      comma = i;
      break;
    }
  }
  for (let i = 1; i < comma; i++) {
    if (tokens[i]!.value !== ',' || !isCap(tokens[i + 1])) continue;
    let name = true;
    for (let k = i + 1; k < or && name; k++) {
      const t = tokens[k]!;
      if (t.type === 'word' && !isCap(t) && !OPTION_CONNECTORS.has(t.normal)) name = false;
    }
    if (name) {
      comma = i;
      break;
    }
  }
  let leftStart: number;
  let rightEnd: number;
  if (comma >= 0) {
    leftStart = comma + 1;
    rightEnd = last;
  } else {
    // No comma: the capitalised runs on each side of "or" (connectors inside a name allowed).
    leftStart = or;
    for (let i = or - 1; i >= 0; i--) {
      const t = tokens[i]!;
      if (isCap(t) || (OPTION_CONNECTORS.has(t.normal) && isCap(tokens[i - 1]))) leftStart = i;
      else if (t.type === 'punctuation' && /["”’']/.test(t.value)) leftStart = i;
      else break;
    }
    // The question's opening word is capitalised, not a name ("Is A or B public?").
    while (
      leftStart < or &&
      (AUXILIARIES.has(tokens[leftStart]!.normal) || WH.has(tokens[leftStart]!.normal))
    )
      leftStart++;
    rightEnd = or;
    for (let i = or + 1; i <= last; i++) {
      const t = tokens[i]!;
      if (isCap(t) || (OPTION_CONNECTORS.has(t.normal) && isCap(tokens[i + 1]))) rightEnd = i;
      else if (t.type === 'punctuation' && /["“‘']/.test(t.value)) rightEnd = i;
      else break;
    }
  }
  if (leftStart >= or || rightEnd <= or) return nounOptions(tokens, or);
  // "on Mondays or on Tuesdays": the preposition is the question's, not the option's.
  const bare = (x: string): string => x.replace(/^(on|in|at|to|from|by|for|with)\s+(?=\p{Lu})/u, '');
  const left = bare(clean(spanText(tokens, leftStart, or - 1)));
  const right = bare(clean(spanText(tokens, or + 1, rightEnd)));
  if (!left || !right || wordsOf(left).length > 12 || wordsOf(right).length > 12) return [];
  return [left, right];
}

const NOUNISH = new Set(['NOUN', 'PROPN', 'ADJ', 'NUM']);

/** Common-noun options either side of "or": "on Mondays or on Tuesdays", "the captain or the treasurer". */
function nounOptions(tokens: readonly Token[], or: number): string[] {
  let ls = or - 1;
  if (!NOUNISH.has(tokens[ls]?.pos ?? '')) return [];
  // "is Sunniva Rusk treasurer or captain": a lower-case option does not take in the name before it.
  const lower = /^\p{Ll}/u.test(tokens[ls]!.value);
  while (
    ls - 1 >= 0 &&
    NOUNISH.has(tokens[ls - 1]!.pos) &&
    !WH.has(tokens[ls - 1]!.normal) &&
    !(lower && /^\p{Lu}/u.test(tokens[ls - 1]!.value))
  )
    ls--;
  let re = or + 1;
  while (re < tokens.length && /^(DET|ADP)$/.test(tokens[re]!.pos)) re++;
  const rs = re;
  while (re + 1 < tokens.length && NOUNISH.has(tokens[re + 1]!.pos)) re++;
  if (!NOUNISH.has(tokens[rs]?.pos ?? '')) return [];
  return [clean(spanText(tokens, ls, or - 1)), clean(spanText(tokens, rs, re))];
}

/**
 * The options of a comparison written with "and": "Between A and B, which …", "Of A and B, who …",
 * "A and B: which of them …", "Which of A and B …". [] when the question has no such frame.
 */
function coordinatedOptions(tokens: readonly Token[]): string[] {
  const wh = tokens.findIndex((t) => WH.has(t.normal));
  if (wh < 0) return [];
  const words = tokens.map((t) => t.normal);
  // "Which of A and B was …?": the names between "of" and the verb.
  if (words[wh + 1] === 'of' && words.indexOf('and', wh) > wh) {
    let start = wh + 2;
    while (
      start < tokens.length &&
      /^(DET|NOUN|ADJ|NUM)$/.test(tokens[start]!.pos) &&
      /^\p{Ll}/u.test(tokens[start]!.value)
    )
      start++;
    const and = words.indexOf('and', start);
    let end = and + 1;
    while (
      end + 1 < tokens.length &&
      !/^(VERB|AUX)$/.test(tokens[end + 1]!.pos) &&
      tokens[end + 1]!.type !== 'punctuation'
    )
      end++;
    const left = and > start ? clean(spanText(tokens, start, and - 1)) : '';
    const right = end > and ? clean(spanText(tokens, and + 1, end)) : '';
    if (left && right && wordsOf(left).length <= 8 && wordsOf(right).length <= 8) return [left, right];
  }
  // The frame: an opening "between"/"of" up to a comma or colon before the wh-word, or a run up to
  // a colon before it.
  let start = 0;
  if (words[0] === 'between' || words[0] === 'of' || words[0] === 'among') start = 1;
  let end = wh - 1;
  while (end > start && tokens[end]!.type === 'punctuation') end--;
  if (end <= start || !/^[,:;]$/.test(tokens[end + 1]?.value ?? '')) return [];
  if (start === 0 && tokens[end + 1]!.value !== ':') return [];
  // "Of the films A and B": the type words before the first name are not part of it.
  while (start < end && /^(DET|NOUN|ADJ)$/.test(tokens[start]!.pos) && /^\p{Ll}/u.test(tokens[start]!.value))
    start++;
  const and = words.indexOf('and', start);
  if (and <= start || and >= end) return [];
  const left = clean(spanText(tokens, start, and - 1));
  const right = clean(spanText(tokens, and + 1, end));
  if (!left || !right || wordsOf(left).length > 8 || wordsOf(right).length > 8) return [];
  return [left, right];
}

/**
 * "A and B are both Norwegian?", "A and B — same nationality?": a statement asked as a question,
 * without a wh-word (a noun phrase alone, "The birthplace of X?", asks for it).
 */
function isDeclarative(tokens: readonly Token[], wh: string | null): boolean {
  return (
    wh === null &&
    tokens[tokens.length - 1]?.value === '?' &&
    !tokens.some((t) => t.value === ':') &&
    tokens.some((t) => t.pos === 'AUX' || t.pos === 'VERB' || t.normal === 'same' || t.normal === 'both')
  );
}

/** Read a question: its kind, the noun it asks for, and the compared phrases of a choice. */
export function readQuestion(tokens: readonly Token[]): QuestionReading {
  const target = questionTarget(tokens, { skipRelative: true });
  const firstWord = tokens.find((t) => t.type === 'word');
  const normals = new Set(tokens.map((t) => t.normal));
  const reading: QuestionReading = {
    kind: 'thing',
    descriptor: target.descriptor,
    expectedType: target.expectedType,
    ...unmarkedReading(),
    // "the same country", "share a nationality", "have in common".
    same:
      normals.has('same') ||
      tokens.some((t) => t.lemma === 'share' || t.normal === 'shared') ||
      (normals.has('common') && normals.has('in')),
    whStart: target.start,
    whEnd: target.end,
    plural: false,
  };
  const choices = choiceOptions(tokens);
  // "Is A …?", and after an opening phrase: "At the club, is A the captain or the treasurer?".
  const comma = tokens.findIndex((t) => t.value === ',');
  const opened = comma > 0 && comma < tokens.length - 2 && AUXILIARIES.has(tokens[comma + 1]!.normal);
  const polar =
    (((!!firstWord && AUXILIARIES.has(firstWord.normal)) || opened) &&
      (target.wh === null || target.start > 3)) ||
    isDeclarative(tokens, target.wh);
  // "Bin day: Tuesday or Monday?" asks for one of the options without a wh-word or auxiliary.
  const bare = target.wh === null && tokens.some((t) => t.value === ':');
  // "Was A founded before B?": a choice between A and B, answered yes when A wins.
  const compared = polar && choices.length !== 2 ? polarComparison(tokens) : null;
  const options = compared ?? choices;
  if (options.length === 2 && (polar || target.wh !== null || bare)) {
    reading.kind = 'choice';
    reading.options = options;
    if (compared) reading.polarChoice = true;
    choiceDirection(tokens, options, reading);
    return reading;
  }
  if (polar) {
    reading.kind = 'polar';
    return reading;
  }
  const wh = target.wh;
  let descriptor = target.descriptor;
  if ((wh === 'what' || wh === 'which') && descriptor) {
    // The noun asked for is a common noun: "Which country Lotte Haas is from?" asks for a country.
    const asked = nounAfterWh(tokens, target.start + 1);
    if (asked.noun !== null) reading.plural = asked.plural;
    if (asked.kindEnd !== undefined) reading.whEnd = Math.max(reading.whEnd, asked.kindEnd);
    if (asked.noun !== descriptor) {
      descriptor = asked.noun;
      reading.descriptor = asked.noun;
    }
    // "Which screenwriter …" asks for a person as "who" does.
    reading.expectedType = descriptor ? descriptorType(descriptor) : null;
    // "What kind of artist was X?" asks for "painter", not for a person.
    if (asked.kindEnd !== undefined) {
      reading.kindOf = true;
      reading.expectedType = null;
    }
  }
  if ((wh === 'what' || wh === 'which') && !descriptor) {
    // "What was the date of A's death?", "What was the place of birth of B?": the noun after the
    // copula is what the question asks for.
    // The head is the last noun of the phrase: "What's the planned launch date for X?" asks for a date.
    let k = target.end + 1;
    if (tokens[k]?.pos === 'AUX') {
      k++;
      while (tokens[k] && (tokens[k]!.pos === 'DET' || tokens[k]!.pos === 'ADJ')) k++;
      let head = -1;
      // The tagger reads some nouns before a noun as verbs ("launch/VERB date").
      for (
        ;
        tokens[k] && /^(NOUN|ADJ|VERB)$/.test(tokens[k]!.pos) && /^\p{Ll}/u.test(tokens[k]!.value);
        k++
      ) {
        if (tokens[k]!.pos === 'NOUN') head = k;
        // "the institute's one research boat": the possessor is not the head.
        if (/^['’]s?$/.test(tokens[k + 1]?.value ?? '')) {
          k++;
          while (tokens[k + 1] && /^(DET|ADJ|NUM)$/.test(tokens[k + 1]!.pos)) k++;
        }
      }
      if (head >= 0) {
        descriptor = tokens[head]!.lemma;
        reading.descriptor = descriptor;
        reading.expectedType = descriptorType(descriptor);
      }
    }
  }
  askedAfterCopula(tokens, reading);
  if (wh === 'who' || wh === 'whom' || wh === 'whose') reading.kind = 'person';
  else if (wh === 'where') reading.kind = 'place';
  else if (wh === 'when') reading.kind = 'date';
  else if (wh === 'how' && MEASURE_WORDS.test(tokens[target.start + 1]?.normal ?? '')) {
    reading.kind = 'number';
    // "How wide …?" is answered with its unit ("eighteen kilometres"); "how many", "how old" not.
    reading.withUnit = !/^(many|much|old)$/.test(tokens[target.start + 1]!.normal);
  } else if (reading.expectedType === 'date') {
    reading.kind = 'date';
    reading.yearOnly = descriptor === 'year';
  } else if (reading.expectedType === 'geo') reading.kind = 'place';
  else if (reading.expectedType === 'person') reading.kind = 'person';
  else if (
    reading.expectedType === 'number' ||
    // "What does X cost?", "What is the fare to Y?": an amount.
    (wh === 'what' && tokens.some((t) => concept(t.lemma) === 'cost'))
  ) {
    reading.kind = 'number';
    reading.withUnit = true;
  }
  return reading;
}

/**
 * "What is the nationality of X?" asks as "What nationality is X?": the noun after the copula is
 * what is asked, not a word the answer's sentence must say — when it names no event ("nationality",
 * "genre"; not "birthplace", whose "born" the sentence says). The wh-phrase then runs to it.
 */
function askedAfterCopula(tokens: readonly Token[], reading: QuestionReading): void {
  const descriptor = reading.descriptor;
  if (!descriptor || eventVerb(descriptor) || agentVerb(descriptor) || reading.whStart < 0) return;
  let k = reading.whEnd + 1;
  if (tokens[k]?.pos !== 'AUX') return;
  k++;
  while (tokens[k] && /^(DET|ADJ)$/.test(tokens[k]!.pos)) k++;
  if (tokens[k]?.lemma === descriptor && tokens[k + 1]?.normal === 'of') reading.whEnd = k;
}
