/**
 * The answer phrase of a wh-question: every candidate span of the context scored by its sentence's
 * support (with bridges to other items for multi-hop questions), its type's fit, its closeness to
 * the question's words (read by meaning) and its novelty.
 */

import type { EntityAnalysis } from '../entities.js';
import { spanText } from '../nlp.js';
import { isKindByWordNet } from '../wordnet.js';
import { wordsOf } from '../words.js';
import { aboutItems } from './about.js';
import { chooseOption, polarAnswer } from './compare.js';
import { type QuestionCues, questionCues } from './cues.js';
import { roleHeads } from './identity.js';
import { isKindOf } from './meaning.js';
import { clean, type QuestionReading } from './question.js';
import { readSentence, scoreSpan } from './span-score.js';
import { NOT_NAME_TYPES, type Span, sentenceSpans } from './spans.js';
import type { AnswerQuestion, AnswerSentence, PhraseAnswer } from './types.js';

/** Entity types that do not bridge two sentences (too common to mean the same thing). */
const NON_BRIDGE_TYPES = new Set(['concept', 'date', 'time', 'money', 'percent', 'number']);

/** A candidate phrase: its best occurrence, and what its other occurrences add. */
interface Found {
  text: string;
  best: number;
  total: number;
  sentence: number;
  fit: number;
  start: number;
  end: number;
  /** Whether the best occurrence's sentence says more of the question than a modifier. */
  relational: boolean;
}

/**
 * Extract the answer phrase from scored context sentences. Sentences gain from a bridge: a
 * well-matching sentence of another item that shares a named entity with them (multi-hop). Spans of
 * the type the question asks for score by sentence support × type fit × closeness to the question's
 * words × the share of their words the question does not already hold (× 1.5 next to the noun a
 * which/what question asks for); the same phrase in several sentences adds up. Choice questions
 * pick one of the compared phrases, polar ones say yes or no. `null` when no sentence matches.
 */
export function extractPhrase(
  question: AnswerQuestion,
  sentences: readonly AnswerSentence[],
): PhraseAnswer | null {
  const { reading } = question;
  const cues = questionCues(question);
  const support = sentenceSupport(question, sentences, cues);
  if (!support) return null;
  const wordsAt = wordsAtOf(sentences);
  if (reading.kind === 'choice') {
    const chosen = chooseOption(question, sentences, support, wordsAt);
    // "Was A founded before B?" is yes when A is the one chosen.
    if (!reading.polarChoice || !chosen) return chosen;
    return { ...chosen, answer: chosen.answer === reading.options[0] ? 'yes' : 'no' };
  }
  if (reading.kind === 'polar') return polarAnswer(question, sentences, support, wordsAt, cues.qWords);

  const found = new Map<string, Found>();
  for (let i = 0; i < sentences.length; i++) {
    const sup = support[i]!.value;
    if (sup <= 0 || (question.accept && !question.accept(i, support[i]!.from))) continue;
    const s = sentences[i]!;
    const r = readSentence(cues, reading, s);
    for (const span of withAskedTitleDropped(cues, s, sentenceSpans(s.ea, s.index, reading))) {
      const scored = scoreSpan(cues, reading, r, span, sup);
      if (!scored) continue;
      const { score, fit, words } = scored;
      const key = words.join(' ');
      const entry = found.get(key);
      const at = {
        text: span.text,
        sentence: i,
        fit,
        start: span.start,
        end: span.end,
        relational: r.relational,
      };
      const adds = r.relational ? score : 0;
      if (!entry) found.set(key, { ...at, best: score, total: adds });
      else {
        entry.total += adds;
        if (score > entry.best) Object.assign(entry, at, { best: score });
      }
    }
  }
  if (
    reading.descriptor &&
    !reading.kindOf &&
    reading.kind === 'person' &&
    !GENERIC_NOUNS.has(reading.descriptor)
  )
    checkRoles(found, reading.descriptor, sentences);
  else if (reading.descriptor && !reading.kindOf && reading.kind === 'place')
    checkRoles(found, reading.descriptor, sentences, 1.2, 1);
  const best = pickBest(found);
  if (best) {
    const items = [sentences[best.sentence]!.item];
    if (reading.plural) {
      // "Which rivers …": the answer and the names coordinated with it ("A and B", "A, B and C").
      const s = sentences[best.sentence]!;
      best.text = coordinated(s.ea, s.index, best, reading) ?? best.text;
    }
    const from = support[best.sentence]!.from;
    if (from >= 0 && !items.includes(from)) items.push(from);
    return { answer: best.text, items, confident: best.fit >= 0.6, sentence: best.sentence };
  }
  // No span of the type asked for in a supported sentence: no answer.
  return null;
}

/**
 * "Which city was X mayor of?" over "X served as Mayor of Merrow Falls": a name that opens with
 * words the question says, then "of", also stands as what follows the "of" ("Merrow Falls"), the
 * part the question does not already say.
 */
function withAskedTitleDropped(cues: QuestionCues, s: AnswerSentence, spans: Span[]): Span[] {
  const tokens = s.ea.analysis.tokens;
  const more: Span[] = [];
  for (const span of spans) {
    if (NOT_NAME_TYPES.has(span.type)) continue;
    for (let j = span.start + 1; j < span.end; j++) {
      if (tokens[j]!.normal !== 'of') continue;
      const said = tokens
        .slice(span.start, j)
        .every((t) => t.pos === 'DET' || cues.qWords.has(t.normal) || cues.qWords.has(t.lemma));
      if (said) more.push({ ...span, start: j + 1, text: spanText(tokens, j + 1, span.end) });
      break;
    }
  }
  return more.length ? [...spans, ...more] : spans;
}

/** Person nouns that say no more than that the answer is a person. */
const GENERIC_NOUNS = new Set('person man woman people one individual someone'.split(' '));
/** How many of the best candidates have their roles checked. */
const ROLE_CHECKED = 5;

/**
 * "Which actress …": the best candidates the context calls an actress (or a kind of one) gain, those
 * it calls only something else (a composer) lose; those it calls nothing stay as they are. A place
 * is checked with `fitting` 1.2 and `otherwise` 1: "Stavholm is a town" gains for "the largest
 * town of …", but what a text calls a place is often not the word a question uses, so no place
 * loses (penalising them cost 1–3 F1 on the dev slices, as it did for works).
 */
function checkRoles(
  found: Map<string, Found>,
  descriptor: string,
  sentences: readonly AnswerSentence[],
  fitting = 1.5,
  otherwise = 0.6,
): void {
  const ranked = [...found.values()].sort((a, b) => b.best - a.best).slice(0, ROLE_CHECKED);
  for (const f of ranked) {
    const heads = roleHeads(f.text, sentences);
    if (heads.size === 0) continue;
    const fits = [...heads].some((h) => isKindOf(h, descriptor) || isKindByWordNet(h, descriptor));
    const factor = fits ? fitting : otherwise;
    f.best *= factor;
    f.total *= factor;
  }
}

/**
 * How much each sentence supports an answer: its own score, a bridge to a top sentence of another
 * item, its item being about an entity the question was led to; null when no sentence matches.
 */
function sentenceSupport(
  question: AnswerQuestion,
  sentences: readonly AnswerSentence[],
  cues: QuestionCues,
): { value: number; from: number }[] | null {
  const { reading } = question;
  const inQuestion = cues.inQuestion;
  // Bridges: named entities shared with a top sentence of another item (an item also "mentions" the
  // names of its first sentence, its topic).
  const topics = new Map<number, Set<string>>();
  for (const s of sentences) {
    if (s.index !== 0 || topics.has(s.item)) continue;
    topics.set(s.item, new Set([...s.types].filter(([, t]) => !NON_BRIDGE_TYPES.has(t)).map(([k]) => k)));
  }
  const bridgeKeys = sentences.map((s) => {
    const keys = new Set(topics.get(s.item) ?? []);
    for (const [k, t] of s.types) if (!NON_BRIDGE_TYPES.has(t)) keys.add(k);
    for (const k of [...keys]) if (inQuestion(k)) keys.delete(k);
    return keys;
  });
  const top = sentences
    .map((s, i) => ({ s, i }))
    .filter((x) => x.s.score > 0)
    .sort((a, b) => b.s.score - a.s.score || a.i - b.i)
    .slice(0, 5);
  if (top.length === 0) return null;
  // The item about an entity the question was led to (a resolved relation) holds its facts.
  const focusItems = new Set<number>();
  for (const name of question.focus ?? [])
    for (const item of aboutItems(name, sentences)) focusItems.add(item);
  // The item about a name the question asks about holds that name's facts ("Which country is X
  // from?": X's own item, not a film's sentence that names X).
  const ownItems = new Set<number>();
  if (reading.descriptor === 'country' || reading.descriptor === 'nationality')
    for (const name of question.names) for (const item of aboutItems(name, sentences)) ownItems.add(item);
  const asideItems = new Set<number>();
  if (reading.kind === 'date' || reading.kind === 'place' || reading.kind === 'number')
    for (const name of question.aside ?? [])
      for (const item of aboutItems(name, sentences)) asideItems.add(item);
  const support = sentences.map((s, i) => {
    let bridge = 0;
    let from = -1;
    for (const t of top) {
      if (t.s.item === s.item || t.s.score <= bridge) continue;
      for (const k of bridgeKeys[i]!) {
        if (bridgeKeys[t.i]!.has(k)) {
          bridge = t.s.score;
          from = t.s.item;
          break;
        }
      }
    }
    const aside = asideItems.has(s.item) ? 0.2 : 1;
    const own = focusItems.has(s.item) ? top[0]!.s.score : ownItems.has(s.item) ? top[0]!.s.score : 0;
    return { value: aside * (s.score + 0.5 * bridge + own), from };
  });
  return support;
}

/** The word sets of sentences, made when first asked for. */
function wordsAtOf(sentences: readonly AnswerSentence[]): (i: number) => Set<string> {
  const wordSets = new Map<number, Set<string>>();
  const wordsAt = (i: number): Set<string> => {
    let set = wordSets.get(i);
    if (!set) {
      set = new Set(wordsOf(sentences[i]!.text));
      // "Tuesdays" names the option "Tuesday" too.
      for (const w of [...set]) if (w.length > 3 && /[^s]s$/.test(w)) set.add(w.slice(0, -1));
      wordSets.set(i, set);
    }
    return set;
  };
  return wordsAt;
}

/**
 * The best phrase. Repetition counts, but less than the best occurrence, and only in sentences that
 * say more of the question than a noun's modifier ("She kept the harbour log" for "Who is the harbour
 * pilot?").
 */
function pickBest(found: ReadonlyMap<string, Found>): Found | null {
  let best: Found | null = null;
  let bestValue = 0;
  for (const f of found.values()) {
    const value = f.best + 0.3 * Math.min(2 * f.best, Math.max(0, f.total - (f.relational ? f.best : 0)));
    // A tie with a phrase inside this one: the whole phrase ("shop counter", not "shop").
    const wider =
      value === bestValue &&
      best?.sentence === f.sentence &&
      f.start <= best.start &&
      f.end >= best.end &&
      f.end - f.start > best.end - best.start;
    if (value > bestValue || wider) {
      best = f;
      bestValue = value;
    }
  }
  return best;
}

/**
 * The span `at` of sentence `index` with the names of its type coordinated with it ("A and B", "A,
 * B and C"), for a question asking for several ("Which rivers …"); null when none is.
 */
function coordinated(
  ea: EntityAnalysis,
  index: number,
  at: { start: number; end: number },
  reading: QuestionReading,
): string | null {
  const tokens = ea.analysis.tokens;
  const all = sentenceSpans(ea, index, reading);
  const type = all.find((y) => y.start === at.start)?.type;
  const spans = all.filter((x) => x.type === type);
  let start = at.start;
  let end = at.end;
  const joins = (from: number, to: number): boolean => {
    if (to - from > 3) return false;
    for (let k = from; k <= to; k++) if (!/^(and|the|a|an|,|&)$/.test(tokens[k]!.normal)) return false;
    return true;
  };
  for (let grew = true; grew; ) {
    grew = false;
    for (const x of spans) {
      if (x.end < start && joins(x.end + 1, start - 1) && x.end + 1 <= start - 1) {
        start = x.start;
        grew = true;
      } else if (x.start > end && x.start - 1 >= end + 1 && joins(end + 1, x.start - 1)) {
        end = x.end;
        grew = true;
      }
    }
  }
  return start !== at.start || end !== at.end ? clean(spanText(tokens, start, end)) : null;
}
