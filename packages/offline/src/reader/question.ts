/**
 * Extracting an answer phrase from context sentences: the question's type (who / where / when /
 * how many / which X / yes-no / "A or B" comparison), candidate spans of the matching type in the
 * context sentences, and a score from the sentence's support, the span's type, its distance to the
 * question's words in the sentence, and whether the question already names it.
 */
import type { Token } from '../nlp.js';
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
import { agentVerb, concept, eventVerb, secondSenses } from './meaning.js';
import { choiceOptions } from './options.js';

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
/**
 * A reading of no question: what a span finder is asked for when it reads a sentence for names of
 * one `kind` (a person for a relation's bridge, anything for a body's name).
 */
export function readingOf(kind: QuestionKind, expectedType: string | null = null): QuestionReading {
  return {
    kind,
    descriptor: null,
    expectedType,
    ...unmarkedReading(),
    same: false,
    plural: false,
    whStart: -1,
    whEnd: -1,
  };
}

/** Two dates in brackets with a dash between them: a life span. */
export const LIFE_SPAN = /\([^)]*\d{3,4}[^)]*[–—-][^)]*\d{3,4}[^)]*\)/;

export const TIME_WORDS = new Set(
  'first earlier earliest older oldest elder eldest before sooner last later latest younger youngest after recent recently newer newest born died release released founded established formed'.split(
    ' ',
  ),
);
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

/** What opens a verb's direct object right after it ("started *the* yard", "started *Kessler* Yard"). */
const DIRECT_OBJECT = new Set(['DET', 'PROPN', 'NOUN']);

/**
 * "Who started the Kessler Shipyard?": a wh-word that is its verb's subject, the verb's direct
 * object right after it, asks who did it to the object in any sense of the verb (whoever founded the
 * yard started it): the verb's second senses. None otherwise: "Who started at the yard?" asks who
 * began work there, "When did the yard start?" may ask when work there began.
 */
export function askedVerbSenses(
  tokens: readonly Pick<Token, 'pos' | 'lemma'>[],
  wh: { whStart: number; whEnd: number },
): readonly string[] {
  if (wh.whStart < 0) return [];
  const verb = tokens[wh.whEnd + 1];
  if (verb?.pos !== 'VERB' || !DIRECT_OBJECT.has(tokens[wh.whEnd + 2]?.pos ?? '')) return [];
  return secondSenses(verb.lemma);
}
