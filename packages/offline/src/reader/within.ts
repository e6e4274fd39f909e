/**
 * Whether the context calls a name a kind of thing (a description's kind: "the country where X was
 * born"), the place a found thing is in ("In which country was X born?" answered with a town, "in
 * what suburb" with a stadium), and a body named by its kind and a name ("the club of X").
 */
import { DESCRIPTOR_TYPES } from '../lexicon.js';
import { analyze, spanText, type Token } from '../nlp.js';
import { isKindByWordNet } from '../wordnet.js';
import { containsWords, contentWords } from '../words.js';
import { wordSet } from './about.js';
import { isCapital } from './clause-end.js';
import { roleHeads } from './identity.js';
import { readingOf, readQuestion } from './question.js';
import { NOT_NAME_TYPES, sentenceSpans } from './spans.js';
import type { AnswerSentence, PhraseAnswer } from './types.js';

/** Places that hold others: "the country where X was born" over a town is the country holding the town. */
export const CONTAINING_PLACES = new Set(['country', 'state', 'county', 'province', 'region']);

/**
 * Whether the context calls `name` a `kind`: what a sentence calls it ("X was a Norwegian marine
 * biologist"), or a kind of it by WordNet (the name itself, "Norway" is a country, or what the
 * context calls it, "a tern"); else a word of the kind next to it ("the research vessel Aurora
 * Tern"). What the context calls it decides when it calls it anything: "a film director" is no film.
 */
export function callsKind(
  name: string,
  kind: string,
  plain: readonly AnswerSentence[],
  describedAs: (name: string, head: string) => boolean,
): boolean {
  const heads = roleHeads(name, plain);
  // "the Border War" is a war when the context calls it a conflict, a kind above war ("The Salt
  // Orchard", a novel, is no orchard).
  const namedKind =
    name.toLowerCase().split(/\s+/).pop() === kind && [...heads].some((h) => isKindByWordNet(kind, h));
  return (
    heads.has(kind) ||
    namedKind ||
    isKindByWordNet(name, kind) ||
    [...heads].some((h) => isKindByWordNet(h, kind)) ||
    (heads.size === 0 && describedAs(name, kind))
  );
}

/**
 * "In which country was X born?" answered with a place the context calls something else ("Tressick
 * is a fishing village"): the country that place is in, when the context says it. Likewise "in what
 * suburb" answered with what the context calls a stadium or a company, no place: the suburb it is
 * in. null otherwise.
 */
export async function containingPlace(
  q: string,
  answer: string,
  plain: readonly AnswerSentence[],
  single: (q: string) => Promise<PhraseAnswer | null>,
  describedAs: (name: string, head: string) => boolean,
): Promise<PhraseAnswer | null> {
  const reading = readQuestion((await analyze(q)).tokens);
  const kind = reading.kind === 'place' ? reading.descriptor : null;
  if (!kind) return null;
  // "Orrin County" is a county by its name, whatever else the context calls it.
  if (answer.toLowerCase().split(/\s+/).includes(kind)) return null;
  const heads = roleHeads(answer, plain);
  if (heads.size === 0 || callsKind(answer, kind, plain, describedAs)) return null;
  // A town asked for as a "city" is no other place; a stadium or a company answering "in what
  // suburb" is a thing in one: the place it is in.
  const holds =
    CONTAINING_PLACES.has(kind) ||
    (isKindByWordNet(kind, 'location') && [...heads].every((h) => !isKindByWordNet(h, 'location')));
  return holds ? placeWithin(kind, answer, plain, single, describedAs) : null;
}

/** The `kind` (a county, a country) the context says `place` is in, when it calls that one a `kind`; else null. */
export async function placeWithin(
  kind: string,
  place: string,
  plain: readonly AnswerSentence[],
  single: (q: string) => Promise<PhraseAnswer | null>,
  describedAs: (name: string, head: string) => boolean,
): Promise<PhraseAnswer | null> {
  const outer = await single(`Which ${kind} is ${place} in?`);
  if (!outer?.answer || !outer.confident || outer.answer === place) return null;
  return callsKind(outer.answer, kind, plain, describedAs) ? outer : null;
}

/**
 * "the club of Rolf Amsel": a body named by its kind and a name the context ties to it ("… plays
 * for Brask United", "Brask United is a football club"), found in the sentences that name the
 * subject: the first name there, other than the subject, that the context calls a `kind`. The
 * question's token range of the phrase and the name found, or null.
 */
export function kindOfName(
  tokens: readonly Token[],
  plain: readonly AnswerSentence[],
  describedAs: (name: string, head: string) => boolean,
): { start: number; end: number; name: string; sentence: number } | null {
  for (let k = 1; k + 2 < tokens.length; k++) {
    const noun = tokens[k]!;
    if (tokens[k - 1]!.normal !== 'the' || noun.pos !== 'NOUN' || tokens[k + 1]!.normal !== 'of') continue;
    if (DESCRIPTOR_TYPES[noun.lemma] !== 'organization' || !isCapital(tokens[k + 2])) continue;
    let end = k + 2;
    while (isCapital(tokens[end + 1])) end++;
    const subject = spanText(tokens, k + 2, end);
    const words = contentWords(subject);
    const subjectWords = new Set(words);
    for (let i = 0; i < plain.length; i++) {
      const s = plain[i]!;
      if (containsWords(wordSet(s), words) < 1) continue;
      for (const span of sentenceSpans(s.ea, s.index, NAME_READING)) {
        if (NOT_NAME_TYPES.has(span.type) || containsWords(subjectWords, contentWords(span.text)) > 0)
          continue;
        // ("a Veldish footballer": a name before a common noun only qualifies it.)
        const next = s.ea.analysis.tokens[span.end + 1];
        if (/^(NOUN|ADJ)$/.test(next?.pos ?? '') && /^\p{Ll}/u.test(next!.value)) continue;
        if (callsKind(span.text, noun.lemma, plain, describedAs))
          return { start: k - 1, end, name: span.text, sentence: i };
      }
    }
  }
  return null;
}

const NAME_READING = readingOf('thing');
