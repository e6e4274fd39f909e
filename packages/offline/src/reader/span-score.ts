/**
 * How well one candidate span of one context sentence answers the question: its type's fit, its
 * closeness to the question's words, its novelty, the kind it is headed by, which side of a life span
 * or a range it stands on, whether it is the agent, unit or value asked for.
 */
import type { Token } from '../nlp.js';
import { MEASURE_WORDS } from '../query.js';
import { isKindByWordNet } from '../wordnet.js';
import { contentWords } from '../words.js';
import { addressPart } from './addresses.js';
import { datesOtherVerb, measuredIn, namesNoAgent, unitKind } from './clauses.js';
import { NOW, type QuestionCues } from './cues.js';
import { LIFE_VERBS, lifeSpanSide, rangeSide } from './events.js';
import { kindWord } from './kinds.js';
import { concept, isKindOf, secondSenses, tokenConcepts } from './meaning.js';
import { type QuestionReading, YEAR } from './question.js';
import { NOT_NAME_TYPES, type Span, typeFit } from './spans.js';
import { isStopWord } from './stop-words.js';
import type { AnswerSentence } from './types.js';

/** What a sentence says of the question, for scoring its spans. */
export interface SentenceReading {
  tokens: readonly Token[];
  range: { start: number; end: number };
  /** Its tokens that say a question word, with how near to the answer that word should stand. */
  matched: { k: number; weight: number }[];
  /** How much token `k` says of the question: its word, its concept or a second sense of it. */
  nearWeight(k: number): number;
  /** Whether it says more of the question than a noun's modifier. */
  relational: boolean;
  passive: boolean;
  /** An object question's verb is its relation: a sentence that does not say it names no object of it. */
  saysVerb: boolean;
  /** "… which was built in 1889, and where Walter kept the light": no agent of the verb is named. */
  agentless: boolean;
  now: boolean;
  /**
   * "The Wren carries 140 passengers, twenty more than the Marram Belle": the question's names
   * stand here only as what something else is compared with, so its values are the other's.
   */
  standardOnly: boolean;
  /**
   * "Who won the medal in 2019?": the sentence gives years, none of them the question's, so it tells
   * of another time ("In 2022 she received the medal").
   */
  otherYears: boolean;
}

/** Read sentence `s` for the question whose cues are `cues`. */
export function readSentence(
  cues: QuestionCues,
  reading: QuestionReading,
  s: AnswerSentence,
): SentenceReading {
  const tokens = s.ea.analysis.tokens;
  const range = s.ea.analysis.sentences[s.index]!;
  const { near, headWords, verbWords } = cues;
  const sentenceConcepts = tokenConcepts(s.ea.analysis);
  const nearWeight = (k: number): number => {
    const t = tokens[k]!;
    let weight = Math.max(
      near.get(t.lemma) ?? 0,
      near.get(t.normal) ?? 0,
      near.get(sentenceConcepts[k] || t.lemma) ?? 0,
    );
    for (const sense of secondSenses(t.lemma)) weight = Math.max(weight, near.get(sense) ?? 0);
    return weight;
  };
  const saysQuestionVerb = (k: number): boolean => {
    const t = tokens[k]!;
    return (
      [t.lemma, t.normal, sentenceConcepts[k]].some((w) => !!w && verbWords.has(w)) ||
      secondSenses(t.lemma).some((w) => verbWords.has(w))
    );
  };
  const matched: { k: number; weight: number }[] = [];
  let relational = false;
  for (let k = range.start; k <= range.end; k++) {
    const t = tokens[k]!;
    if ((t.type === 'word' || t.type === 'number') && !isStopWord(t)) {
      const weight = nearWeight(k);
      if (weight > 0) matched.push({ k, weight });
      if (weight > 0 && !relational)
        relational = [t.lemma, t.normal, sentenceConcepts[k]].some((w) => !!w && headWords.has(w));
    }
  }
  const own = tokens.slice(range.start, range.end + 1);
  let saysVerb = !cues.objectQuestion || verbWords.size === 0;
  for (let k = range.start; k <= range.end && !saysVerb; k++) saysVerb = saysQuestionVerb(k);
  return {
    tokens,
    range,
    matched,
    nearWeight,
    relational,
    passive: own.some((t) => t.normal === 'by'),
    saysVerb,
    agentless:
      reading.kind === 'person' &&
      cues.subjectQuestion &&
      verbWords.size > 0 &&
      namesNoAgent(tokens, range, saysQuestionVerb),
    now: cues.asksNow && own.some((t) => NOW.test(t.normal)),
    standardOnly: comparedOnly(cues, s, tokens),
    otherYears: otherYears(cues, own),
  };
}

/**
 * The score of `span` in sentence `r` (support `sup`) as the answer, with its type fit and content
 * words; null when it cannot be the answer (wrong type, nothing new, another verb's date or agent, a
 * number of something else).
 */
export function scoreSpan(
  cues: QuestionCues,
  reading: QuestionReading,
  r: SentenceReading,
  span: Span,
  sup: number,
): { score: number; fit: number; words: string[] } | null {
  const { tokens, range, nearWeight } = r;
  const fit = typeFit(reading, span, tokens);
  if (fit <= 0) return null;
  if (reading.kind === 'date' && cues.verbWords.size > 0 && datesOtherVerb(tokens, span, range, nearWeight))
    return null;
  const words = contentWords(span.text);
  if (words.length === 0 || words.length > 10) return null;
  // The noun a which-question asks for may head the answer's name ("Quillon Shipyard", "River
  // Ode"): it is not a word the question already says of the answer.
  const kindAt = kindWord(tokens, span, words.length, reading.descriptor);
  // "the music magazine “Static Bloom”", "the Port Calder Gulls ice hockey team": a common noun
  // phrase of the kind asked next to a name is what the name is, not the answer; the name is.
  if (
    kindAt === span.end &&
    !/^\p{Lu}/u.test(span.text) &&
    (namedAfter(tokens, span.end + 1) ||
      (span.start > range.start && namedAfter(tokens, span.start - 1)) ||
      predicateOfName(tokens, span.start, range.start))
  )
    return null;
  const own = kindAt === span.end ? words.slice(0, -1) : kindAt === span.start ? words.slice(1) : words;
  const novelty =
    own.length === 0
      ? 1
      : 1 - own.filter((w) => cues.qWords.has(w) || cues.qConcepts.has(concept(w))).length / own.length;
  if (novelty <= 0) return null;
  let closeness = 0.15;
  for (const { k, weight } of r.matched) {
    // The kind asked heading the span says the question's word right there.
    if (k === kindAt) closeness = Math.max(closeness, weight);
    if (k >= span.start && k <= span.end) continue;
    const distance = k < span.start ? span.start - k : k - span.end;
    // "born … in P", "died … on D": the place or date of a life event follows its verb; a span
    // before the verb belongs to the clause before.
    // "What did X build?": the thing built is the verb's object, after it in an active sentence.
    const follows =
      k > span.end && LIFE_VERBS.has(tokens[k]!.normal) && span.type !== 'person'
        ? 0.5
        : cues.objectQuestion && k > span.end && tokens[k]!.pos === 'VERB' && !r.passive
          ? 0.8
          : 1;
    closeness = Math.max(closeness, (follows * weight) / (1 + distance / 5));
  }
  // The kind asked heading the span ("St Ewenna's Chapel" for "which chapel") counts more than the
  // kind named next to it.
  let descriptor = kindAt >= 0 ? 1.5 : 1;
  if (reading.descriptor) {
    for (let k = Math.max(range.start, span.start - 4); k <= Math.min(range.end, span.end + 4); k++) {
      if ((k < span.start || k > span.end) && isKindOf(tokens[k]!.lemma, reading.descriptor))
        descriptor = Math.max(descriptor, 1.3);
    }
    // "The Grey Heron is a ferry that …", "X, a ferry …": the sentence calls the span the kind asked.
    if (calledKind(tokens, span.end, range.end, reading.descriptor)) descriptor = Math.max(descriptor, 1.6);
  }
  // A life span "(4 May 1901 – 2 June 1980)": the date before the dash is the birth, after it
  // the death. The bracket states the event as "born"/"died" would, and a name there is a place.
  let side = 1;
  let eventFit = fit;
  if (cues.lifeEvent && (reading.kind === 'date' || reading.kind === 'place')) {
    const at = lifeSpanSide(tokens, span, range);
    if (at) side = (at === 'end') === (cues.lifeEvent === 'death') ? 1.5 : 0.5;
    if (side > 1) {
      closeness = Math.max(closeness, 0.8);
      if (reading.kind === 'place' && !NOT_NAME_TYPES.has(span.type)) eventFit = Math.max(fit, 0.7);
    }
  }
  side *= addressPart(reading, tokens, span);
  const agent = agentWeight(cues, reading, r, span);
  if (agent === null) return null;
  closeness = Math.max(closeness, agent.closeness);
  const change = valueSide(cues, reading, tokens, span, range);
  const score =
    sup *
    eventFit *
    closeness *
    novelty *
    descriptor *
    side *
    agent.weight *
    change *
    (r.now ? 1.2 : 1) *
    (r.standardOnly && (reading.kind === 'number' || reading.kind === 'date') ? 0.4 : 1) *
    (r.otherYears ? 0.2 : 1) *
    (r.saysVerb ? 1 : 0.5);
  return { score, fit, words };
}

/** Whether the question names years and `own` (a sentence's tokens) gives years, none of them those. */
function otherYears(cues: QuestionCues, own: readonly Token[]): boolean {
  if (cues.years.size === 0) return false;
  let other = false;
  for (const t of own) {
    if (!YEAR.test(t.normal)) continue;
    if (cues.years.has(t.normal)) return false;
    other = true;
  }
  return other;
}

/**
 * Whether sentence `s` names the question's entities, and names each only right after "than"
 * ("more than the Marram Belle"): it compares another thing with them.
 */
function comparedOnly(cues: QuestionCues, s: AnswerSentence, tokens: readonly Token[]): boolean {
  const mentions = (s.ea.bySentence[s.index] ?? []).filter((m) => cues.inQuestion(m.key));
  return (
    mentions.length > 0 &&
    mentions.every((m) => {
      let k = m.start - 1;
      if (tokens[k]?.normal === 'the') k--;
      return tokens[k]?.normal === 'than';
    })
  );
}

/** The weight of the agent of another verb than the question's. */
const OTHER_AGENT = 0.6;

/**
 * "Who launched X?" asks for the agent: in "X was launched … by Y" the agent follows "by"; "How many
 * shipwrights …?", "…, in percent?": the number that counts shipwrights or is in percent. The weight
 * (and the closeness "by" gives), or null for a span that is not the agent or counts something else.
 */
function agentWeight(
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
    // "… launched by my grandmother, Hester Pellow": "by" a few words before, no verb between.
    for (let k = span.start - 1; k >= Math.max(range.start, span.start - 4); k--) {
      if (tokens[k]!.pos === 'VERB' || tokens[k]!.pos === 'AUX') break;
      if (tokens[k]!.normal === 'by') {
        weight = 1.3;
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
 * "goes up from £12 to £15": the value after "to" is the new one, the one after "from" the old;
 * "from 1950 until 1982": the end of a span of time for "stop", its start for "start". 1 for a span
 * in no such pair.
 */
function valueSide(
  cues: QuestionCues,
  reading: QuestionReading,
  tokens: readonly Token[],
  span: Span,
  range: { start: number; end: number },
): number {
  let change = 1;
  if (
    tokens[span.start - 1]?.normal === 'from' &&
    tokens.slice(span.end + 1, Math.min(range.end, span.end + 2) + 1).some((t) => t.normal === 'to')
  )
    change = cues.asksOld ? 1.2 : 0.5;
  if (reading.kind === 'date' && cues.asksEnd !== cues.asksStart) {
    const side = rangeSide(tokens, span, range.start);
    if (side) change = (side === 'end') === cues.asksEnd ? 1.5 : 0.5;
  }
  return change;
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

/** Whether "is a/an …" or ", a/an …" after token `end` calls it a `kind` ("is a small ferry"). */
function calledKind(tokens: readonly Token[], end: number, last: number, kind: string): boolean {
  let k = end + 1;
  if (!/^(is|was|,)$/.test(tokens[k]?.normal ?? '')) return false;
  k++;
  if (!/^(a|an)$/.test(tokens[k]?.normal ?? '')) return false;
  for (let n = 0, j = k + 1; n < 4 && j <= last && /^(ADJ|NOUN|NUM)$/.test(tokens[j]!.pos); n++, j++)
    if (tokens[j]!.pos === 'NOUN' && isKindOrMember(tokens[j]!.lemma, kind)) return true;
  return false;
}

/**
 * Whether the phrase starting at `start` is what a name is called: "Glass Orchard is a 2010 thriller
 * film", "Tin Harbor, a comedy film" (the name before the copula or comma).
 */
function predicateOfName(tokens: readonly Token[], start: number, first: number): boolean {
  let k = start - 1;
  while (k > first && (/^(ADJ|NUM)$/.test(tokens[k]!.pos) || /^(a|an)$/.test(tokens[k]!.normal))) k--;
  if (k <= first || !/^(is|was|,)$/.test(tokens[k]!.normal) || k === start - 1) return false;
  const before = tokens[k - 1]!;
  return /^["”'’]$/.test(before.value) || (/^\p{Lu}/u.test(before.value) && before.pos !== 'PRON');
}

/** Whether a name (capitalised, or quoted and capitalised) starts at token `k`. */
function namedAfter(tokens: readonly Token[], k: number): boolean {
  const at = /^["“'‘]$/.test(tokens[k]?.value ?? '') ? k + 1 : k;
  return /^\p{Lu}/u.test(tokens[at]?.value ?? '') && tokens[at]!.pos !== 'PRON';
}

/** Whether a noun names `kind` ("ferry" for ferry, "Shipyard" for yard) or a kind of it ("documentary" for film). */
function isKindOrMember(lemma: string, kind: string): boolean {
  return isKindOf(lemma, kind) || isKindByWordNet(lemma, kind);
}
