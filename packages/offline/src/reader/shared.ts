/**
 * What two named things have in common: "What line of work do X and Y share?", "What kind of vessel
 * are X and Y both?", "What do X and Y have in common?". The answer is the part of what the context
 * calls each of them that is the same: "X is an English composer and organist", "Y was a Danish
 * composer" → "composer".
 */
import type { Token } from '../nlp.js';
import { titleCase } from '../words.js';
import { aboutItems } from './about.js';
import { countriesOf } from './countries.js';
import { coordinatedRoles, roleSpans } from './identity.js';
import { pairedNames } from './paired.js';
import type { AnswerSentence } from './types.js';

/** Words that ask for what two things share. */
const SHARED_CUES = new Set(['share', 'both', 'common', 'alike']);
/** Nouns that ask for a nationality: the shared part is the capitalised modifier ("Danish"). */
const NATIONALITY = /^(nationality|citizenship|country|origin)$/;

/** A shared attribute question: its two names and what it asks for, or null. */
export function sharedQuestion(tokens: readonly Token[]): SharedQuestion | null {
  if (tokens[0]?.pos === 'AUX') return null; // "Are X and Y both …?" is a yes/no question
  const wh = tokens.findIndex((t) => /^(what|which)$/.test(t.normal));
  if (wh < 0) return null;
  const names = pairedNames(tokens);
  if (!names) return null;
  // "What kind of business are X and Y?": the two names are the plural subject of the question.
  const are = tokens.findIndex((t, i) => i > wh && /^(are|were)$/.test(t.normal));
  const subject = tokens[are + 1]?.normal === 'the' ? tokens[are + 2] : tokens[are + 1];
  const plural =
    are > wh && !!subject && /^\p{Lu}/u.test(subject.value) && names[0].startsWith(subject.value);
  if (!plural && !tokens.some((t) => SHARED_CUES.has(t.lemma) || SHARED_CUES.has(t.normal))) return null;
  // The noun asked for: "what kind of animal", "which line of work", "what nationality".
  const asked = tokens.slice(wh + 1, wh + 5).find((t) => t.pos === 'NOUN');
  return {
    names,
    nationality: !!asked && NATIONALITY.test(asked.lemma),
    country: !!asked && COUNTRY.test(asked.lemma),
  };
}

/** Nouns of what a person does, asked as shared by "Do X and Y share a profession?". */
const OCCUPATION = /^(profession|occupation|job|career|trade|vocation|work|line)$/;

/**
 * "Do X and Y share a profession?", "Do X and Y have an occupation in common?": the yes/no form of a
 * shared occupation, or null. (A shared nationality or country is read by the yes/no questions,
 * which take "from Austria" for "Austrian".)
 */
export function sharedPolarQuestion(tokens: readonly Token[]): SharedQuestion | null {
  if (tokens[0]?.lemma !== 'do') return null;
  const cue = tokens.findIndex((t) => t.lemma === 'share' || t.normal === 'common');
  const names = cue > 0 ? pairedNames(tokens) : null;
  if (!names) return null;
  // The noun after the cue ("share a *profession*"), or before it ("have an *occupation* in common").
  const asked =
    tokens.slice(cue + 1).find((t) => t.pos === 'NOUN') ??
    tokens.slice(0, cue).findLast((t) => t.pos === 'NOUN' && !/^\p{Lu}/u.test(t.value));
  return asked && OCCUPATION.test(asked.lemma) ? { names, nationality: false, country: false } : null;
}

/** A question for what two names share: the names, and whether it asks a nationality or a country. */
export interface SharedQuestion {
  names: [string, string];
  nationality: boolean;
  country: boolean;
}

/** Nouns that ask for a country both are in ("In which country are both X and Y?"). */
const COUNTRY = /^(country|nation)$/;

/** One noun phrase a name is called by, as lower-case words with the tokens they come from. */
interface Role {
  words: string[];
  tokens: Token[];
  sentence: number;
  score: number;
}

/**
 * Every role the context gives `name`, each conjunct of a coordination on its own ("an English
 * composer and organist" → "English composer", "organist").
 */
function rolesOf(name: string, sentences: readonly AnswerSentence[]): Role[] {
  const out: Role[] = [];
  for (const span of roleSpans(name, sentences)) {
    const tokens = sentences[span.sentence]!.ea.analysis.tokens;
    for (const [from, to] of coordinatedRoles(tokens, span.start, span.end)) {
      const run = tokens.slice(from, to + 1);
      out.push({ words: run.map((t) => t.lemma), tokens: run, sentence: span.sentence, score: span.score });
    }
  }
  return out;
}

/** The words two roles end in alike (lemmas), as tokens of the first: "film director" of two. */
function commonEnd(a: Role, b: Role): Token[] {
  let n = 0;
  while (
    n < a.words.length &&
    n < b.words.length &&
    a.words[a.words.length - 1 - n] === b.words[b.words.length - 1 - n]
  )
    n++;
  return a.tokens.slice(a.tokens.length - n);
}

/**
 * What the context calls both names alike, with the two sentences that say so; `answer: null` when
 * it calls each something but nothing alike, null when it calls one of them nothing. For an
 * occupation or kind, names of peoples are left out ("English composer" and "Danish composer"
 * share "composer"); for a nationality, they are the answer.
 */
export function sharedAttribute(
  question: SharedQuestion,
  sentences: readonly AnswerSentence[],
): { answer: string; sentences: [number, number] } | { answer: null } | null {
  // "In which country are both X and Y?": the country both their items say.
  if (question.country) {
    const [a, b] = question.names.map((name) => countriesOf(name, sentences)) as [Set<string>, Set<string>];
    const common = [...a].find((c) => b.has(c));
    const at = (name: string): number => {
      const items = aboutItems(name, sentences);
      return Math.max(
        0,
        sentences.findIndex((s) => items.has(s.item)),
      );
    };
    if (common)
      return { answer: titleCase(common), sentences: [at(question.names[0]), at(question.names[1])] };
    if (a.size > 0 && b.size > 0) return { answer: null };
  }
  const [first, second] = question.names.map((name) => rolesOf(name, sentences)) as [Role[], Role[]];
  if (first.length === 0 || second.length === 0) return null;
  let best: { answer: string; sentences: [number, number]; score: number } | null = null;
  for (const a of first) {
    for (const b of second) {
      if (a.sentence === b.sentence && a.tokens[0] === b.tokens[0]) continue; // one phrase for both
      const common = question.nationality
        ? a.tokens.filter((t) => /^\p{Lu}/u.test(t.value) && b.words.includes(t.lemma))
        : commonEnd(a, b).filter((t, i, all) => i === all.length - 1 || !/^\p{Lu}/u.test(t.value));
      if (common.length === 0 || (!question.nationality && common.at(-1)!.pos !== 'NOUN')) continue;
      const score = common.length + a.score + b.score;
      if (!best || score > best.score)
        best = {
          answer: common.map((t) => t.value).join(' '),
          sentences: [a.sentence, b.sentence],
          score,
        };
    }
  }
  return best ? { answer: best.answer, sentences: best.sentences } : { answer: null };
}

/**
 * "Do X and Y play the same sport?", "… have the same job?": whether the context calls both alike in
 * what `asked` names. An occupation is the head of what each is called ("English composer", "Danish
 * composer"); anything else (a sport, a genre) is a noun before the head ("ice hockey team", "ice
 * hockey club"). null when the context calls one of them nothing.
 */
export function calledAlike(
  names: readonly string[],
  asked: string,
  sentences: readonly AnswerSentence[],
): boolean | null {
  const [first, second] = names.map((name) => rolesOf(name, sentences));
  if (!first?.length || !second?.length) return null;
  const byHead = OCCUPATION.test(asked);
  const modifiers = (r: Role): Set<string> =>
    new Set(
      r.tokens
        .slice(0, -1)
        .filter((t) => t.pos === 'NOUN' && !/^\p{Lu}/u.test(t.value))
        .map((t) => t.lemma),
    );
  for (const a of first)
    for (const b of second) {
      if (byHead && commonEnd(a, b).at(-1)?.pos === 'NOUN') return true;
      const shared = modifiers(b);
      if (!byHead && [...modifiers(a)].some((w) => shared.has(w))) return true;
    }
  return false;
}
