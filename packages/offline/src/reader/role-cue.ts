/**
 * How strongly a sentence says a name stands in a role to a work or thing: "directed by X", "the
 * director, X", "X is the director", "a song by X".
 */
import type { Token } from '../nlp.js';
import { isPlaceRole, kinNoun, type Relation } from './kinship.js';
import { concept } from './meaning.js';
import type { Span } from './spans.js';

/** A cue's weight at `d` words from the span, 0 past `limit`. */
export const near = (d: number, limit: number, weight: number): number =>
  d >= 0 && d <= limit ? weight / (1 + d / 4) : 0;

/**
 * Roles whose verb takes the work as subject and the person as object ("It stars X"; by concept, so
 * "features" and "casts" too).
 */
const OBJECT_ROLES = new Set(['star']);

/**
 * A role relation's cue at token `k` ("directed by X", "director X", "X is the director", "a song by
 * X") of a sentence whose first token is `first`.
 */
export function roleCue(
  relation: Extract<Relation, { kind: 'role' }>,
  tokens: readonly Token[],
  k: number,
  span: Span,
  after: number,
  before: number,
  first: number,
): number {
  const t = tokens[k]!;
  let best = 0;
  const meaning = concept(t.lemma);
  const relationVerb = relation.verbs.some((v) => concept(v) === meaning);
  // "X (1880–1952) was a Veldish general who commanded the Northern Army": the sentence's subject
  // did what its "who" clause says, however far the verb.
  if (relationVerb && before > 3 && span.start <= first + 1 && tokens[k - 1]?.normal === 'who') best = 0.8;
  // "It stars X" (a verb in -s the tagger reads as a plural noun after a pronoun or name).
  const verbAfterSubject =
    t.pos === 'NOUN' && /s$/.test(t.normal) && /^(PRON|PROPN)$/.test(tokens[k - 1]?.pos ?? '');
  if (relationVerb && (t.pos === 'VERB' || /ed$|en$/.test(t.normal) || verbAfterSubject)) {
    // "directed by X" (passive: the agent after "by"); "X directed …" (active: the subject).
    let by = false;
    for (let j = k + 1; j < span.start; j++) if (tokens[j]!.normal === 'by') by = true;
    if (after >= 0 && by) best = Math.max(best, near(after, 8, 1.2));
    if (before >= 0) best = Math.max(best, near(before, 3, 0.7));
    // "The film stars X", "starring X": the work is the subject, its star the object.
    if (after >= 0 && !by && OBJECT_ROLES.has(meaning)) best = Math.max(best, near(after, 3, 1));
    // A place role ("birthplace"): the place right after "born in", "based at".
    if (
      after >= 0 &&
      after <= 7 &&
      isPlaceRole(relation) &&
      /^(in|at)$/.test(tokens[span.start - 1]?.normal ?? '')
    )
      // ("born 12 May 1979 in Pellin": a date may stand between.)
      best = Math.max(best, 1 / (1 + after / 8));
  } else if (
    t.lemma === relation.noun ||
    kinNoun(t.lemma) === relation.noun ||
    // A kinship noun said outright ("my grandfather Walter") is that word: "uncle" is no aunt.
    (relation.verbs.length > 0 && t.pos === 'NOUN' && meaning === concept(relation.noun))
  ) {
    // "director X", "the director, X"; "X is the director".
    if (tokens[k + 1]?.normal !== 'of') best = Math.max(best, near(after, 5, 1));
    best = Math.max(best, near(before, 4, 0.6));
    // "In 2001 he joined the band X as lead vocalist": who joined (or served) as the role.
    let j = k - 1;
    // ("lead", tagged a verb, is a modifier here.)
    while (j > span.end && j >= k - 2 && /^(ADJ|NOUN|VERB)$/.test(tokens[j]!.pos)) j--;
    if (before >= 0 && before <= 15 && tokens[j]?.normal === 'as') best = Math.max(best, 0.8);
  } else if (
    t.normal === 'by' &&
    after === 0 &&
    // "a 1999 film by X": a work noun before "by", not a verb ("founded … by X").
    tokens[k - 1]?.pos === 'NOUN' &&
    // "a song by X", "a novel by X", "a painting by X": works name their maker with "by".
    /^(perform|write|compose|sing|create|paint|design|build|direct|produce|record)/.test(
      concept(relation.verbs[0] ?? ''),
    )
  ) {
    // "a song by X", "a novel by X".
    best = Math.max(best, 0.6);
  } else if (
    t.normal === 'from' &&
    after === 0 &&
    isPlaceRole(relation) &&
    relation.verbs.some((v) => /^(bear|base|live)$/.test(concept(v)))
  ) {
    // "the home town of X" over "X is a folk band from Lowmarsh": where X is from.
    best = Math.max(best, 0.8);
  }
  return best;
}
