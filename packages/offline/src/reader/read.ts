/**
 * The offline reader: `answer(question, context)` of the offline task suite. It reads the question
 * (what it asks for, the relation, the named constraints, a comparison or a yes/no), scores every
 * context sentence by what it shares with the question by meaning (concepts, not words), follows
 * relation chains through the context ("the founder of X" → Y, then the question about Y), and
 * extracts the answer phrase with the sentence that says it; "unknown" ({@link NO_ANSWER}) when
 * nothing in the context supports one.
 */
import { type AnswerWithCitations, type ContextItem, type Embedder, throwIfAborted } from '@grag/core';
import type { EntityAnalysis } from '../entities.js';
import { analyze } from '../nlp.js';
import { isKindByWordNet } from '../wordnet.js';
import { abbreviationAsked, expansionOf } from './abbreviations.js';
import { ageAsked, ageAt, ageAtDeath, ageAtDeathAsked } from './age.js';
import { findRelationPhrase } from './chain.js';
import { type ReaderContext, readContext } from './context.js';
import { findDescription, GENERIC_PLACES, replaceSpan } from './decompose.js';
import { durationAsked, durationOf, readsAsLength } from './duration.js';
import { findEventPlace } from './events.js';
import { extractPhrase } from './extract.js';
import { identityName, identityOf } from './identity.js';
import { createItemReadings } from './items.js';
import { contextPassages } from './passages.js';
import { kindFromRole } from './played.js';
import { polarByRelation } from './polar.js';
import { readQuestion } from './question.js';
import { recaseQuestion } from './recase.js';
import { askedRelative } from './relative.js';
import { resolveChain } from './resolve.js';
import { reorderQuestion } from './setups.js';
import { sharedAttribute, sharedPolarQuestion, sharedQuestion } from './shared.js';
import { substitute } from './substitute.js';
import { createSupport, type ScoredSentence } from './support.js';
import type { AnswerSentence, PhraseAnswer } from './types.js';
import { CONTAINING_PLACES, callsKind, containingPlace, kindOfName, placeWithin } from './within.js';
import { normalizeWording } from './wording.js';

/** What `answer` says when nothing in the context supports an answer. */
export const NO_ANSWER = 'The context does not contain an answer to the question.';

/** Most relation phrases resolved in one question ("the sister of the founder of the X"). */
const MAX_HOPS = 3;

/** What the reader needs from the task suite. */
export interface ReaderDeps {
  /**
   * The text's entities: `full` for a context item (pronouns, noun phrases, and "it" or "he" at a
   * sentence's start read as `subject`, else as the title line's), not for a question.
   */
  entitiesOf(text: string, full: boolean, subject?: string): Promise<EntityAnalysis>;
  embedder?: Embedder | undefined;
  answerMode: 'phrase' | 'sentences';
  answerSentences: number;
  answerRelativeScore: number;
}

const UNKNOWN: AnswerWithCitations = { answer: NO_ANSWER, citations: [], issues: [] };

/** The reader: answer `query` from `context`, citing the items the answer comes from. */
export function createReader(
  deps: ReaderDeps,
): (
  query: string,
  context: ContextItem[],
  options?: { abortSignal?: AbortSignal },
) => Promise<AnswerWithCitations> {
  // The items read for earlier questions, kept for the next (the same passages come back).
  const items = createItemReadings();
  return async (typed, context, options = {}) => {
    throwIfAborted(options.abortSignal);
    // "who founded the brinemark institute": the context's names in their capitals.
    const query = recaseQuestion(
      typed,
      context.map((c) => c.text),
    );
    // A community of many passages is read as its passages (see passages.ts); each cites its item.
    const passages = contextPassages(context);
    const ctx = await readContext(passages, { ...deps, items }, options.abortSignal);
    const answered =
      deps.answerMode === 'phrase'
        ? await answerPhrase(query, passages, ctx, deps.entitiesOf)
        : await answerWithSentences(query, passages, ctx, deps);
    return { ...answered, citations: [...new Set(answered.citations)] };
  };
}

/** What a chain of relations and descriptions has led to so far. */
interface ChainState {
  /** Entities the question was led to: their items hold their facts. */
  focus: string[];
  /** Names whose relation the context did not resolve. */
  unresolved: string[];
  /**
   * "Who is X's husband?" left unresolved: a relative must be tied to X itself, not reached
   * through a third name the two items share.
   */
  direct: boolean;
  /** Items the chain went through, cited after the answer's. */
  bridgeItems: number[];
}

/** One step of a chain: the answer when the question asked only for it, else the next question. */
type ChainStep = { answer: string } | { next: string } | null;

/** The answer phrase: relation chains and descriptions first, then the question about what they led to. */
async function answerPhrase(
  query: string,
  context: readonly ContextItem[],
  ctx: ReaderContext,
  entitiesOf: ReaderDeps['entitiesOf'],
): Promise<AnswerWithCitations> {
  const { candidates } = ctx;
  if (candidates.length === 0) return UNKNOWN;
  const state: ChainState = { focus: [], unresolved: [], direct: false, bridgeItems: [] };
  // Every wh-answer passes the support test, also after a resolved relation chain (the question
  // then names the bridge entity, which the answer's sentence must name).
  const support = createSupport(candidates, query);
  /** One question answered from the context as it stands (no further decomposition). */
  const single = async (q: string): Promise<PhraseAnswer | null> => {
    const { qea, qTokens, queryLemmas, queryKeys, scores, predicate } = await ctx.read(q);
    if (queryLemmas.size === 0) return null;
    const reading = readQuestion(qTokens);
    const accept = support.acceptor(qea.analysis, reading, { bridges: !state.direct });
    const names = qea.entities.filter((e) => e.type !== 'concept').map((e) => e.name);
    return extractPhrase(
      {
        text: q,
        tokens: qTokens,
        lemmas: queryLemmas,
        keys: queryKeys,
        names,
        reading,
        focus: state.focus,
        aside: state.unresolved,
        predicate,
        ...(accept ? { accept } : {}),
      },
      ctx.asAnswerSentences(scores),
    );
  };
  const cite = (answer: string, items: readonly number[]): AnswerWithCitations => ({
    answer,
    citations: items.map((i) => context[i]!.id),
    issues: [],
  });
  const normalized = normalizeWording(query);
  let q = reorderQuestion((await analyze(normalized)).tokens) ?? normalized;
  const plain = ctx.asAnswerSentences(candidates.map(() => 0));
  const asked = (await analyze(q)).tokens;
  // "What line of work do X and Y share?": what the context calls both alike.
  const shared = sharedQuestion(asked);
  const common = shared && sharedAttribute(shared, plain);
  if (common && common.answer === null) return UNKNOWN;
  if (common) return cite(common.answer, [...new Set(common.sentences.map((i) => plain[i]!.item))]);
  // "Do X and Y share a profession?": yes when the context calls both alike, no when it calls
  // each something else.
  const sharedPolar = !shared && sharedPolarQuestion(asked);
  const alike = sharedPolar && sharedAttribute(sharedPolar, plain);
  if (alike)
    return alike.answer === null
      ? cite('no', [])
      : cite('yes', [...new Set(alike.sentences.map((i) => plain[i]!.item))]);
  // "What does NMRA stand for?": the words the context writes out for it, or unknown.
  const abbreviation = abbreviationAsked(asked);
  if (abbreviation) {
    const found = expansionOf(abbreviation, plain);
    return found ? cite(found.answer, [plain[found.sentence]!.item]) : UNKNOWN;
  }
  // Relation chains first: "Where was the founder of X born?" → the context's founder of X, Y
  // → "Where was Y born?". The bridge's items are cited after the answer's.
  for (let hop = 0; hop < MAX_HOPS; hop++) {
    const step = await chainStep(q, plain, state, single, support.describedAs);
    if (!step) break;
    if ('answer' in step) return cite(step.answer, [...state.bridgeItems].reverse());
    q = step.next;
  }
  const qTokens = (await analyze(q)).tokens;
  // "How old was X when she died?": the years of the life span the context gives X.
  const ageOf = ageAtDeathAsked(qTokens);
  const age = ageOf && ageAtDeath(ageOf, plain);
  // An answer computed from one sentence: its item, then the items of the chain's bridges.
  const computed = (answer: string, sentence: number) =>
    cite(answer, [plain[sentence]!.item, ...[...state.bridgeItems].reverse()]);
  if (age) return computed(String(age.years), age.sentence);
  // "How old was X in 1940?": from X's birth to the year asked.
  const aging = ageAsked(qTokens);
  const inYear = aging?.year != null && ageAt(aging, undefined, plain);
  if (inYear) return computed(String(inYear.years), inYear.sentence);
  // "How long did X direct Y?": the years of the range the context gives X for it.
  const lasting = durationAsked(qTokens);
  const span = lasting && durationOf(lasting, plain);
  if (span) return computed(span.answer, span.sentence);
  // "Who was X?", "What does X do?": what the context calls X, or unknown.
  const identity = identityName(qTokens);
  if (identity) {
    const found = identityOf(identity, plain);
    return found ? cite(found.answer, [plain[found.sentence]!.item]) : UNKNOWN;
  }
  const textOf = (item: number): string => context[item]?.text ?? '';
  const phrase = (await polarByRelation(q, entitiesOf, single, textOf)) ?? (await single(q));
  // "What instrument does X play?" over "the fiddler X": the fiddle, unless the answer found is one.
  const reading = readQuestion(qTokens);
  if (reading.descriptor && !isKindByWordNet(phrase?.answer?.toLowerCase() ?? '', reading.descriptor)) {
    const derived = kindFromRole(qTokens, reading, plain);
    if (derived) return cite(derived.answer, [plain[derived.sentence]!.item]);
  }
  // A length of time asked and no range found: a phrase that reads as no length is no answer.
  if (!phrase?.answer || (lasting && !readsAsLength(phrase.answer))) return UNKNOWN;
  // "How old was X when he founded Y?": from X's birth to the date found (a date is no age).
  if (aging && !/^\d{1,3}$/.test(phrase.answer)) {
    const old = ageAt(aging, phrase.answer, plain);
    return old ? cite(String(old.years), [...phrase.items, plain[old.sentence]!.item]) : UNKNOWN;
  }
  const items = [...phrase.items];
  const outer = await containingPlace(q, phrase.answer, plain, single, support.describedAs);
  if (outer) return cite(outer.answer, [...new Set([...outer.items, ...items, ...state.bridgeItems])]);
  for (const i of [...state.bridgeItems].reverse()) if (!items.includes(i)) items.push(i);
  return cite(phrase.answer, items);
}

/**
 * One step of a chain: "the director of X", "X's mother" resolved from the items about X; else "the
 * shipyard that built X", "the man leading Y" answered as a question of its own. null when the
 * question has neither (or it cannot be resolved).
 */
async function chainStep(
  q: string,
  plain: readonly AnswerSentence[],
  state: ChainState,
  single: (q: string) => Promise<PhraseAnswer | null>,
  describedAs: (name: string, head: string) => boolean,
): Promise<ChainStep> {
  const qTokens = (await analyze(q)).tokens;
  const addItem = (item: number) => {
    if (!state.bridgeItems.includes(item)) state.bridgeItems.push(item);
  };
  const phrase = findRelationPhrase(qTokens);
  const bridge = phrase && resolveChain(phrase.relations, phrase.subject, plain, [], phrase.noun);
  if (phrase && bridge) {
    addItem(plain[bridge.sentence]!.item);
    const next = substitute(qTokens, phrase, bridge.name);
    state.focus.push(bridge.name);
    return next.whole ? { answer: bridge.name } : { next: next.text };
  }
  // "the club of X": the body of that kind the sentences naming X name.
  const body = !phrase && kindOfName(qTokens, plain, describedAs);
  if (body) {
    addItem(plain[body.sentence]!.item);
    state.focus.push(body.name);
    return { next: replaceSpan(qTokens, body.start, body.end, body.name) };
  }
  // Also when it is the subject of an unresolved relation: "the sister of whoever leads Y".
  // "What river flows through the birthplace of X?": the place found first. (Asked alone, "What is
  // the birthplace of X?" is a question of its own.)
  const description = findDescription(qTokens) ?? innerEventPlace(qTokens);
  if (!description) {
    // "X married a composer who conducted which orchestra?": the composer first, then the clause.
    const asked = !phrase && askedRelative(qTokens);
    if (asked) {
      const sub = await single(asked.first);
      if (sub?.answer && sub.confident) {
        for (const i of sub.items) addItem(i);
        state.focus.push(sub.answer);
        return { next: asked.ask(sub.answer) };
      }
    }
    if (phrase) {
      state.unresolved.push(phrase.subject);
      state.direct =
        phrase.relations.every((r) => r.kind === 'kin') && substitute(qTokens, phrase, phrase.subject).whole;
    }
    return null;
  }
  // "Is Merrow Falls the town where X was born?" compares the name with the description (polar.ts).
  if (
    qTokens[0]?.pos === 'AUX' &&
    description.start > 1 &&
    /^\p{Lu}/u.test(qTokens[description.start - 1]!.value)
  )
    return null;
  // A relation inside the description is resolved first ("the institute where Pip's mother
  // works": Pip's mother, then the institute where she works).
  let subQuestion = description.question;
  for (let inner = 0; inner < 2; inner++) {
    const subTokens = (await analyze(subQuestion)).tokens;
    const innerPhrase = findRelationPhrase(subTokens);
    const innerBridge =
      innerPhrase && resolveChain(innerPhrase.relations, innerPhrase.subject, plain, [], innerPhrase.noun);
    if (!innerPhrase || !innerBridge) break;
    const next = substitute(subTokens, innerPhrase, innerBridge.name);
    if (next.whole) break;
    addItem(plain[innerBridge.sentence]!.item);
    subQuestion = next.text;
  }
  let sub = await single(subQuestion);
  if (!sub?.answer || !sub.confident) return null;
  // The entity found must be what the description calls it: "the research vessel Aurora Tern", "the
  // Lindqvist Institute", somewhere in the context.
  const kinds =
    ('kinds' in description ? description.kinds : undefined) ?? (description.head ? [description.head] : []);
  if (kinds.length > 0 && !kinds.some((kind) => GENERIC_PLACES.has(kind))) {
    if (!kinds.some((kind) => callsKind(sub!.answer, kind, plain, describedAs))) {
      // "the country where X was born" over "X was born in Pellin": the country Pellin is in.
      const within = kinds.find((kind) => CONTAINING_PLACES.has(kind));
      const outer = within ? await placeWithin(within, sub.answer, plain, single, describedAs) : null;
      if (!outer) return null;
      for (const i of sub.items) addItem(i);
      sub = outer;
    }
  }
  for (const i of sub.items) addItem(i);
  // "Who is the woman who started X?": the description is all that is asked.
  // "Which city is the birthplace of X?": the kind asked is what the description was checked for.
  const copula = description.start - 1;
  const whole =
    copula >= 1 &&
    copula <= 3 &&
    /^(who|what|which)$/.test(qTokens[0]!.normal) &&
    qTokens[copula]!.lemma === 'be' &&
    qTokens.slice(1, copula).every((t) => t.pos === 'NOUN' || t.pos === 'ADJ') &&
    (copula === 1 || sameKind(qTokens[copula - 1]!.lemma, description.head)) &&
    description.end >= qTokens.length - 2;
  // "What is the name of the album X released in 2004?": the description's name is asked.
  const named =
    description.start === 5 &&
    description.end >= qTokens.length - 2 &&
    /^what the (name|title) of$/.test(
      qTokens
        .slice(0, 5)
        .map((t, k) => (k === 1 && t.lemma === 'be' ? '' : t.normal))
        .filter(Boolean)
        .join(' '),
    );
  if (whole || named) return { answer: sub.answer };
  state.focus.push(sub.answer);
  return { next: replaceSpan(qTokens, description.start, description.end, sub.answer) };
}

/**
 * Whether the kind a question asks ("Which city is …") is what the description it equates names:
 * the same noun, or both any place ("the town where …", "the birthplace of …"); "Which county is
 * the city where …" asks something else.
 */
function sameKind(asked: string, head: string | null | undefined): boolean {
  if (head === asked) return true;
  return GENERIC_PLACES.has(asked) && (!head || GENERIC_PLACES.has(head));
}

/** The place of a life event inside a longer question; null when it is the whole question or absent. */
function innerEventPlace(qTokens: Parameters<typeof findEventPlace>[0]): ReturnType<typeof findEventPlace> {
  const place = findEventPlace(qTokens);
  return place && !(place.start <= 2 && place.end >= qTokens.length - 2) ? place : null;
}

/** The answer as the best-matching sentences of the context (`answerMode: 'sentences'`). */
async function answerWithSentences(
  query: string,
  context: readonly ContextItem[],
  ctx: ReaderContext,
  deps: ReaderDeps,
): Promise<AnswerWithCitations> {
  const { candidates } = ctx;
  const { queryLemmas, scores } = await ctx.read(query);
  if (candidates.length === 0 || queryLemmas.size === 0)
    return { answer: NO_ANSWER, citations: [], issues: [] };
  const ranked = scores
    .map((score, i) => ({ score, i }))
    .filter((x) => x.score > 0)
    .sort((a, b) => b.score - a.score || a.i - b.i);
  const best = ranked[0];
  if (!best) return { answer: NO_ANSWER, citations: [], issues: [] };
  // The same sentence often reaches the context several times (a passage, an entity description,
  // a relation); an answer states it once.
  const picked: ScoredSentence[] = [];
  const seen: string[] = [];
  for (const x of ranked) {
    if (picked.length >= deps.answerSentences || x.score < deps.answerRelativeScore * best.score) break;
    const c = candidates[x.i]!;
    const norm = c.text.toLowerCase().replace(/\s+/g, ' ').trim();
    if (seen.some((t) => t.includes(norm) || norm.includes(t))) continue;
    seen.push(norm);
    picked.push(c);
  }
  const citations: string[] = [];
  for (const c of picked) {
    const id = context[c.item]!.id;
    if (!citations.includes(id)) citations.push(id);
  }
  return { answer: picked.map((c) => c.text).join(' '), citations, issues: [] };
}
