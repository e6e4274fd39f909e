/**
 * How well one candidate span of one context sentence answers the question: its type's fit, its
 * closeness to the question's words, its novelty, the kind it is headed by, which side of a life span
 * or a range it stands on, whether it is the agent, unit or value asked for.
 */
import type { Token } from '../nlp.js';
import { isKindByWordNet } from '../wordnet.js';
import { contentWords } from '../words.js';
import { addressPart } from './addresses.js';
import { agentWeight } from './agent.js';
import { datesOtherVerb, namesNoAgent } from './clauses.js';
import { NOW, type QuestionCues } from './cues.js';
import { LIFE_VERBS, lifeSpanSide, rangeSide } from './events.js';
import { opensKind } from './identity.js';
import { kindWord } from './kinds.js';
import { concept, isKindOf, SECOND_SENSE_WEIGHT, secondSenses, tokenConcepts } from './meaning.js';
import { isAskedName, otherNameTokens } from './other-names.js';
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
  /** Whether it names one of the question's names, whole (see `isAskedName`). */
  namesAsked: boolean;
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
    // A second sense says the relation less surely than a word's own: "begun in 1820 and opened
    // in 1826" opened in 1826.
    for (const sense of secondSenses(t.lemma))
      weight = Math.max(weight, SECOND_SENSE_WEIGHT * (near.get(sense) ?? 0));
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
  // An asked name's words inside another name ("Bell of Selkan Harbour") are not the question's.
  const other = otherNameTokens(s.ea, s.index, cues.asked);
  for (let k = range.start; k <= range.end; k++) {
    const t = tokens[k]!;
    if ((t.type === 'word' || t.type === 'number') && !isStopWord(t) && !other.has(k)) {
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
    namesAsked: [...s.types].some(([k, type]) => type !== 'concept' && isAskedName(k, cues.asked)),
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
  // A part of a question's name (fewer words than the name) counts half, unless the text writes it
  // inside a longer name too ("the University of Lannister Vale" for "University of Lannister Vale").
  const part = nameLinked(tokens, span, range.start) ? 1 : 0.5;
  const said = (w: string): number =>
    (cues.nameParts.get(w) ?? 0) > words.length
      ? part
      : cues.qWords.has(w) || cues.qConcepts.has(concept(w))
        ? 1
        : 0;
  const novelty = own.length === 0 ? 1 : 1 - own.reduce((n, w) => n + said(w), 0) / own.length;
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
    // "born in Kessa and studied at …": a span before "and" and the verb asked is the other
    // clause's.
    const follows =
      k > span.end &&
      ((LIFE_VERBS.has(tokens[k]!.normal) && span.type !== 'person') ||
        (tokens[k]!.pos === 'VERB' && k - 1 > span.end && /^(and|but)$/.test(tokens[k - 1]!.normal)))
        ? 0.5
        : cues.objectQuestion && k > span.end && tokens[k]!.pos === 'VERB' && !r.passive
          ? 0.8
          : 1;
    closeness = Math.max(closeness, (follows * weight) / (1 + distance / 5));
  }
  // The kind asked heading the span ("St Ewenna's Chapel" for "which chapel") counts more than the
  // kind named next to it.
  let descriptor = kindAt >= 0 ? 1.5 : 1;
  // "an album by the Ostby folk band": a "by" between the kind and the span names its maker, not
  // one of the kind (any preposition there cost HotpotQA 0.7 F1).
  const across = (k: number): boolean =>
    tokens.slice(Math.min(k, span.end) + 1, Math.max(k, span.start)).some((t) => t.normal === 'by');
  if (reading.descriptor) {
    for (let k = Math.max(range.start, span.start - 4); k <= Math.min(range.end, span.end + 4); k++) {
      if ((k < span.start || k > span.end) && isKindOf(tokens[k]!.lemma, reading.descriptor) && !across(k))
        descriptor = Math.max(descriptor, 1.3);
    }
    // "The Grey Heron is a ferry that …", "X, a ferry …", "the novel X": the sentence calls the span
    // the kind asked.
    let b = span.start - 1;
    if (tokens[b]?.value === 'The') b--; // "the novel The Lantern Keepers"
    const before = tokens[b];
    const kindBefore =
      before?.pos === 'NOUN' &&
      /^(the|a|an|his|her|its|their)$/.test(tokens[b - 1]?.normal ?? '') &&
      isKindOrMember(before.lemma, reading.descriptor);
    if (
      kindBefore ||
      calledKind(tokens, span.end, range.end, reading.descriptor) ||
      kindIs(tokens, span.start, range.start, reading.descriptor)
    )
      descriptor = Math.max(descriptor, 1.6);
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
  // "In which city was X shot?" over "shot at Pellow Studios in Cardiff": when the kind of place is
  // asked, the place the sentence puts something "in" more than a name it gives otherwise ("Where
  // was it recorded?" takes the studio).
  if (reading.kind === 'place' && reading.descriptor && tokens[span.start - 1]?.normal === 'in') side *= 1.2;
  side *= directObject(cues, reading, r, span);
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

/**
 * "What did Ilse Dorrow study?" over "She studied history at the University of Lindholm": the
 * question asks for the verb's object, so a span right after the question's verb (nothing but
 * articles and modifiers between) counts half as much again as one behind a preposition.
 */
function directObject(cues: QuestionCues, reading: QuestionReading, r: SentenceReading, span: Span): number {
  if (!cues.objectQuestion || reading.descriptor) return 1;
  const { tokens } = r;
  let verb = -1;
  for (const { k } of r.matched) if (k < span.start && tokens[k]!.pos === 'VERB' && k > verb) verb = k;
  if (verb < 0 || span.start - verb > 4) return 1;
  for (let k = verb + 1; k < span.start; k++) if (!/^(DET|ADJ|NUM)$/.test(tokens[k]!.pos)) return 1;
  return 1.5;
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

/** Whether "is a/an …" or ", a/an …" after token `end` calls it a `kind` ("is a small ferry", "is the second album"). */
function calledKind(tokens: readonly Token[], end: number, last: number, kind: string): boolean {
  let k = end + 1;
  if (!/^(is|was|,)$/.test(tokens[k]?.normal ?? '')) return false;
  k++;
  // "X is a ferry", "X is the second album by …"; "X, the capital of Y" (the one of Y).
  const opens = opensKind(tokens, k);
  if (!opens && tokens[k]?.normal !== 'the') return false;
  for (let n = 0, j = k + 1; n < 4 && j <= last && /^(ADJ|NOUN|NUM)$/.test(tokens[j]!.pos); n++, j++)
    if (tokens[j]!.pos === 'NOUN' && isKindOrMember(tokens[j]!.lemma, kind))
      return opens || tokens[j + 1]?.normal === 'of';
  return false;
}

/** Whether the span runs on into a longer name: a capitalised word, or one and "of", next to it. */
function nameLinked(tokens: readonly Token[], span: Span, first: number): boolean {
  const cap = (k: number): boolean => tokens[k]?.type === 'word' && /^\p{Lu}/u.test(tokens[k]!.value);
  return (
    cap(span.end + 1) ||
    (span.start - 1 > first && cap(span.start - 1)) ||
    (tokens[span.start - 1]?.normal === 'of' && span.start - 2 >= first && cap(span.start - 2))
  );
}

/** "… and its fight song is “March of …”", "Her debut album was X": the kind asked, then a copula, then the span. */
function kindIs(tokens: readonly Token[], start: number, first: number, kind: string): boolean {
  let k = start - 1;
  if (/^["“'‘]$/.test(tokens[k]?.value ?? '')) k--;
  if (k - 1 < first || !/^(is|was)$/.test(tokens[k]!.normal)) return false;
  const noun = tokens[k - 1]!;
  return noun.pos === 'NOUN' && isKindOrMember(noun.lemma, kind);
}

/**
 * Whether the phrase starting at `start` is what a name is called: "Glass Orchard is a 2010 thriller
 * film", "Tin Harbor, a comedy film" (the name before the copula or comma).
 */
function predicateOfName(tokens: readonly Token[], start: number, first: number): boolean {
  let k = start - 1;
  while (k > first && (/^(ADJ|NUM)$/.test(tokens[k]!.pos) || /^(a|an|the)$/.test(tokens[k]!.normal))) k--;
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
