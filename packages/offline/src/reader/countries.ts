/** Countries and their nationality adjectives: general knowledge, one entry per state. */
import type { Token } from '../nlp.js';
import { containsWords, contentWords } from '../words.js';
import { aboutItems, wordSet } from './about.js';
import { DEMONYMS } from './demonyms.js';
import type { AnswerQuestion, AnswerSentence } from './types.js';

export { DEMONYMS };

/** Country names that stand for the same country as another name ("usa" → "united states"). */
export const COUNTRY_ALIASES: Readonly<Record<string, string>> = {
  usa: 'united states',
  us: 'united states',
  'u.s.': 'united states',
  'u.s.a.': 'united states',
  america: 'united states',
  'united states of america': 'united states',
  uk: 'united kingdom',
  'u.k.': 'united kingdom',
  britain: 'united kingdom',
  'great britain': 'united kingdom',
  england: 'united kingdom',
  scotland: 'united kingdom',
  wales: 'united kingdom',
  holland: 'netherlands',
  burma: 'myanmar',
  siam: 'thailand',
  persia: 'iran',
  czechia: 'czech republic',
  ussr: 'soviet union',
  'soviet russia': 'soviet union',
  'russian federation': 'russia',
  'west germany': 'germany',
  'east germany': 'germany',
  'republic of ireland': 'ireland',
  "côte d'ivoire": 'ivory coast',
  'timor-leste': 'east timor',
  swaziland: 'eswatini',
  'north macedonia': 'macedonia',
  'democratic republic of the congo': 'congo',
  zaire: 'congo',
  "people's republic of china": 'china',
  prc: 'china',
  'cabo verde': 'cape verde',
  türkiye: 'turkey',
  ceylon: 'sri lanka',
  rhodesia: 'zimbabwe',
  kampuchea: 'cambodia',
  'the gambia': 'gambia',
  'the netherlands': 'netherlands',
  'the bahamas': 'bahamas',
};

/** Every country name the tables know, canonical. */
export const COUNTRIES: ReadonlySet<string> = new Set([
  ...Object.values(DEMONYMS),
  ...Object.values(COUNTRY_ALIASES),
]);

/** Whether `text` is a country the tables know, by a name or an alias ("the Netherlands", "Burma"). */
export function isCountryName(text: string): boolean {
  const lower = text.toLowerCase().replace(/^the /, '');
  return COUNTRIES.has(lower) || Object.hasOwn(COUNTRY_ALIASES, lower);
}

/**
 * The countries tokens `start..end` name, canonical: nationality adjectives ("Danish") and country
 * names of up to three words ("United States"), each capitalised; `skip` leaves tokens out.
 */
export function countriesIn(
  tokens: readonly Token[],
  start: number,
  end: number,
  skip: (k: number) => boolean = () => false,
): Set<string> {
  const out = new Set<string>();
  for (let k = start; k <= end; k++) {
    const t = tokens[k]!;
    if (t.type !== 'word' || !/^\p{Lu}/u.test(t.value) || skip(k)) continue;
    const demonym = DEMONYMS[t.normal];
    if (demonym) {
      out.add(demonym);
      continue;
    }
    for (let n = 3; n >= 1; n--) {
      if (k + n - 1 > end) continue;
      const name = tokens
        .slice(k, k + n)
        .map((x) => x.normal)
        .join(' ');
      const country = COUNTRY_ALIASES[name] ?? (COUNTRIES.has(name) ? name : undefined);
      if (country) {
        out.add(country);
        k += n - 1;
        break;
      }
    }
  }
  return out;
}

/** Countries a phrase's item says (nationality adjectives and country names), canonical names. */
export function countriesOf(
  phrase: string,
  sentences: readonly AnswerSentence[],
  ownItemOnly = false,
): Set<string> {
  const about = aboutItems(phrase, sentences);
  const words = contentWords(phrase);
  const out = new Set<string>();
  const read = (s: AnswerSentence): void => {
    const range = s.ea.analysis.sentences[s.index]!;
    for (const country of countriesIn(s.ea.analysis.tokens, range.start, range.end)) out.add(country);
  };
  // The first sentence of the item about it that says a country (its title line last: a note
  // without one opens with a sentence); else the sentences naming it.
  for (const s of sentences) {
    if (!about.has(s.item) || s.index === 0) continue;
    read(s);
    if (out.size > 0) return out;
  }
  for (const s of sentences) {
    if (!about.has(s.item) || s.index !== 0) continue;
    read(s);
    if (out.size > 0) return out;
  }
  if (about.size === 0 && !ownItemOnly) {
    for (const s of sentences) {
      if (containsWords(wordSet(s), words) < 0.8) continue;
      read(s);
      if (out.size > 0) return out;
    }
  }
  return out;
}

/**
 * "Which of A and B is from Ireland?": the option (0 or 1) whose items say the country the question
 * names ("an Irish poet"), or null when the question names none or both or neither option fits.
 */
export function optionFrom(
  question: AnswerQuestion,
  optionWords: ReadonlySet<string>,
  sentences: readonly AnswerSentence[],
): 0 | 1 | null {
  const q = question.tokens;
  const asked = countriesIn(q, 0, q.length - 1, (k) => optionWords.has(q[k]!.normal));
  if (asked.size === 0) return null;
  const from = question.reading.options.map((option) => {
    const own = countriesOf(option, sentences);
    return own.size > 0 && [...asked].every((c) => own.has(c));
  });
  return from[0] === from[1] ? null : from[0] ? 0 : 1;
}
