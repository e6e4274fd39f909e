/**
 * Whether a span is the agent a question asks for ("Who launched X?": the name after "launched …
 * by"; a work "by X" names its maker), or the count a "how many" question asks for; the weight of
 * the span, or null when it is another's agent or counts something else.
 */

import type { Token } from '../nlp.js';
import { MEASURE_WORDS } from '../query.js';
import { isKindByWordNet } from '../wordnet.js';
import { measuredIn, unitKind } from './clauses.js';
import type { QuestionCues } from './cues.js';
import { concept } from './meaning.js';
import type { QuestionReading } from './question.js';
import type { SentenceReading } from './span-score.js';
import type { Span } from './spans.js';

/** Verbs of making a work: "a song by X" says who did them. */
const MAKING =
  /^(write|compose|paint|create|design|build|direct|produce|record|perform|sing|make|draw|author)$/;

/** Whether a verb (or its concept) is one of making a work ({@link MAKING}). */
export function isMaking(word: string): boolean {
  return MAKING.test(word) || MAKING.test(concept(word));
}

/** Whether a sentence names a work's maker: a noun, then "by" ("an album by X", "a 1998 novel by Y"). */
export function namesMaker(tokens: readonly Token[], range: { start: number; end: number }): boolean {
  for (let k = range.start + 1; k < range.end; k++)
    if (tokens[k]!.normal === 'by' && tokens[k - 1]!.pos === 'NOUN') return true;
  return false;
}

/**
 * How near the question's verb of making a work ({@link MAKING}, by concept) stands to its answer;
 * null when it asks no such verb.
 */
function makingWeight(cues: QuestionCues): number | null {
  let weight: number | null = null;
  for (const w of cues.verbWords) if (isMaking(w)) weight = Math.max(weight ?? 0, cues.near.get(w) ?? 0);
  return weight;
}

/** A work: a kind of creation, or of written, spoken or drawn communication, in WordNet ("atlas", "symphony"). */
function isWork(noun: Token | undefined): boolean {
  return (
    noun?.pos === 'NOUN' &&
    (isKindByWordNet(noun.lemma, 'creation') || isKindByWordNet(noun.lemma, 'communication'))
  );
}

/** The weight of the agent of another verb than the question's. */
const OTHER_AGENT = 0.6;

/**
 * "Who launched X?" asks for the agent: in "X was launched … by Y" the agent follows "by"; "How many
 * shipwrights …?", "…, in percent?": the number that counts shipwrights or is in percent. The weight
 * (and the closeness "by" gives), or null for a span that is not the agent or counts something else.
 */
export function agentWeight(
  cues: QuestionCues,
  reading: QuestionReading,
  r: SentenceReading,
  span: Span,
): { weight: number; closeness: number } | null {
  const { tokens, range } = r;
  let weight = 1;
  let closeness = 0;
  // "Which company published X?" asks for an agent as "Who published X?" does.
  if ((reading.kind === 'person' || reading.expectedType === 'organization') && cues.subjectQuestion) {
    // "… launched by my grandmother, Hester Pellow", "an album by the Ostby folk band Arctic Tern":
    // "by" a few words before, no verb between.
    for (let k = span.start - 1; k >= Math.max(range.start, span.start - 6); k--) {
      if (tokens[k]!.pos === 'VERB' || tokens[k]!.pos === 'AUX') break;
      // "by the Ostby folk band Arctic Tern": a name before a common noun modifies it; the name
      // that ends the phrase is the agent.
      const next = tokens[span.end + 1];
      if (tokens[k]!.normal === 'by' && next?.pos === 'NOUN' && !/^\p{Lu}/u.test(next.value)) break;
      if (tokens[k]!.normal === 'by') {
        // "a song by X" names its maker: the agent of "wrote" or "made", not of "released".
        const making = makingWeight(cues);
        weight = tokens[k - 1]?.pos === 'NOUN' && making === null ? 1 : 1.3;
        // "X is an atlas by Y" says who wrote X as "wrote" would, in a sentence that names X ("the
        // symphony by Y" in a list of Y's other works says nothing of the one asked).
        if (making !== null && r.namesAsked && isWork(tokens[k - 1])) closeness = making;
        // The agent stands as close to its verb as "by" does: "launched on 21 May 1994 by Y";
        // "worked by the Kittiwake" names who worked, not who built: another verb's agent
        // ("developed by A and published by B" for "Who published X?") loses.
        for (let j = k - 1; j >= Math.max(range.start, k - 8); j--) {
          if (tokens[j]!.pos !== 'VERB') continue;
          const w = r.nearWeight(j);
          closeness = Math.max(closeness, w / (1 + (k - j) / 5));
          if (w === 0) weight = OTHER_AGENT;
          break;
        }
        break;
      }
    }
  }
  if (r.agentless && weight <= 1) return null;
  const unitAsked = cues.unitAsked;
  // "How wide is X?" asks for a measure: "two ferry lines" counts, it does not measure; "forty metres
  // wide" is no length.
  if (reading.kind === 'number' && cues.measure && !unitAsked && !measures(r, span, cues.measure))
    return null;
  if (reading.kind === 'number' && unitAsked && /^(number|year|date|percent)$/.test(span.type)) {
    // A year or a time of day ("the 9:40 boat") counts no passengers.
    const clock = /^\d{1,2}:\d{2}$/.test(span.text);
    if ((clock || !/^(number|percent)$/.test(span.type)) && !/^(year|date|day|time)$/.test(unitAsked))
      return null;
    const counted = tokens[span.end + 1]?.type === 'word' ? tokens[span.end + 1] : tokens[span.end + 2];
    const unit = span.text.split(/\s+/).length > 1 ? tokens[span.end] : counted;
    if (unit && (unit.lemma === unitAsked || concept(unit.lemma) === concept(unitAsked))) weight = 2;
    // "900 inhabitants" for "How many people …", "four ferries" for "How many vessels …": a kind of
    // what is counted.
    else if (
      unit?.pos === 'NOUN' &&
      isKindByWordNet(unit.lemma, unitAsked === 'people' ? 'person' : unitAsked)
    )
      weight = 1.5;
    // A number that counts something else ("two weeks" for "how many passengers") is not it.
    else if (unit?.pos === 'NOUN') return null;
  }
  return { weight, closeness };
}

/**
 * Whether `span` can answer "how `measure`": no year; no other measure said next to it ("forty metres
 * *wide*" for "how long"); its measure said next to it, or a unit of what it measures ("forty
 * kilometres" for "how far").
 */
function measures(r: SentenceReading, span: Span, measure: string): boolean {
  if (span.type === 'year' || span.type === 'date') return false;
  const { tokens, range } = r;
  const wanted = concept(measure);
  // The measure said nearest the number is what it gives.
  let nearest: { distance: number; same: boolean } | null = null;
  for (let k = Math.max(range.start, span.start - 4); k <= Math.min(range.end, span.end + 4); k++) {
    if (k >= span.start && k <= span.end) continue;
    const t = tokens[k]!;
    const same = concept(t.lemma) === wanted;
    if (!same && !(MEASURE_WORDS.test(t.lemma) && t.pos === 'ADJ')) continue;
    const distance = k < span.start ? span.start - k : k - span.end;
    if (!nearest || distance < nearest.distance) nearest = { distance, same };
  }
  if (nearest) return nearest.same;
  const unit = span.text.split(/\s+/).length > 1 ? tokens[span.end] : tokens[span.end + 1];
  const kind = unit ? unitKind(unit) : null;
  return !!kind && measuredIn(measure, kind);
}
