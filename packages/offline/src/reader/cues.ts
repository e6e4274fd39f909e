/**
 * What a question says to the answer extractor: its words and their concepts, how near each word
 * should stand to the answer, its verb, and the cues of its form (a subject or object question, a
 * life event, the end or start of a span of time, a unit, "now").
 */
import type { Token } from '../nlp.js';
import { MEASURE_WORDS } from '../query.js';
import { wordsOf } from '../words.js';
import { askedUnit } from './clauses.js';
import { EVENT_VERBS, lifeEventOf } from './events.js';
import { concept, concepts, SECOND_SENSE_WEIGHT } from './meaning.js';
import { type AskedNames, askedNames } from './other-names.js';
import { askedVerbSenses, YEAR } from './question.js';
import { isStopWord } from './stop-words.js';
import type { AnswerQuestion } from './types.js';

/** "… now?", "… currently?": the sentence that says what holds now, not what held at a meeting. */
export const NOW = /^(now|currently|today|nowadays|current)$/;

export interface QuestionCues {
  /** The question's words and lemmas. */
  qWords: Set<string>;
  /**
   * Words the question says only inside a longer name ("Brask" of "Brask Shipyards"): a span of
   * them can still be new ("Brask Shipyards is headquartered in Brask"). By word, the length of
   * the name it is part of.
   */
  nameParts: Map<string, number>;
  /** …and their concepts: a span that says "co-operative" restates a question's "co-op". */
  qConcepts: Set<string>;
  /** How near each word (lemma, form or concept) says the answer stands: 0.6–1. */
  near: Map<string, number>;
  /** The question's words that are not only a modifier of another noun ("harbour" in "harbour pilot"). */
  headWords: Set<string>;
  /** Lemmas, forms and concepts of the verb the wh-phrase hangs on. */
  verbWords: Set<string>;
  lifeEvent: ReturnType<typeof lifeEventOf>;
  asksOld: boolean;
  asksEnd: boolean;
  asksStart: boolean;
  unitAsked: string | null;
  /** "How wide / deep / long / far …?": the measure word, answered with a unit of measure. */
  measure: string | null;
  asksNow: boolean;
  /** The years the question names ("… in 2019?"). */
  years: Set<string>;
  subjectQuestion: boolean;
  objectQuestion: boolean;
  /** Whether the question names an entity key ("harbour pilot" in its text, or one of its keys). */
  inQuestion(key: string): boolean;
  /** The question's names, to tell their words inside another name (see `otherNameTokens`). */
  asked: AskedNames;
}

/** The cues of `question` for {@link extractPhrase}. */
export function questionCues(question: AnswerQuestion): QuestionCues {
  const { reading } = question;
  const tokens: readonly Token[] = question.tokens;
  const qLower = question.text.toLowerCase();
  const qWords = new Set<string>();
  const qConcepts = new Set<string>();
  // Question words near the wh-phrase weigh more: the answer sits next to what the question says
  // of it ("Who *directs* the institute that owns…"), the further words lead to it.
  const near = new Map<string, number>();
  // The verb the wh-phrase hangs on: the first verb, or the one ending an inverted question
  // ("When did A die?", "Where was the engineer who built B born?").
  const words = tokens.filter((t) => t.type === 'word');
  const verbs = new Set<number>();
  const firstVerb = tokens.find((t) => t.pos === 'VERB' && !isStopWord(t));
  if (firstVerb) verbs.add(firstVerb.index);
  for (const t of words.slice(-2)) if (t.pos === 'VERB') verbs.add(t.index);
  const questionConcepts = concepts(tokens.map((t) => t.lemma));
  const headWords = new Set<string>();
  tokens.forEach((t, k) => {
    if (t.type !== 'word' && t.type !== 'number') return;
    for (const w of wordsOf(t.value)) qWords.add(w);
    qWords.add(t.lemma);
    qConcepts.add(concept(t.lemma));
    if (isStopWord(t)) return;
    const gap =
      reading.whStart < 0 ? 0 : k < reading.whStart ? reading.whStart - k : Math.max(0, k - reading.whEnd);
    // Words of the relation asked about (and the question's verb) weigh whole; the names' words
    // lead to the sentence, and the answer need not stand next to them. By role, not by where the
    // wording puts them ("X was fought by what army?" and "Which army fought X?" alike); the
    // distance to the wh-word only breaks ties.
    // A noun before another noun only modifies it: "harbour pilot" asks for a pilot.
    const next = tokens[k + 1];
    const modifier = t.pos === 'NOUN' && next?.pos === 'NOUN' && /^\p{Ll}/u.test(next.value);
    const relation = !modifier && (!question.predicate || question.predicate.has(questionConcepts[k] ?? ''));
    const w8 = (verbs.has(t.index) || relation ? 0.9 : 0.6) + 0.1 / (1 + gap);
    for (const w of [t.lemma, t.normal, questionConcepts[k]!]) {
      if (!w) continue;
      near.set(w, Math.max(near.get(w) ?? 0, w8));
      if (!modifier && !/^\p{Lu}/u.test(t.value)) headWords.add(w);
    }
    // "the place of death of X": the text says X "died" there; the event noun is the predicate.
    for (const w of EVENT_VERBS[t.normal] ?? []) near.set(w, 1);
  });
  // A capitalised word with a capitalised neighbour is part of a longer name (of how many words);
  // it is only a name part when the question says it nowhere else.
  // ("The Marram Belle": the determiner opening the question is no part of the name.)
  const capital = (t: Token | undefined): boolean =>
    !!t && t.type === 'word' && /^\p{Lu}/u.test(t.value) && t.pos !== 'DET' && t.pos !== 'PRON';
  const nameParts = new Map<string, number>();
  const elsewhere = new Set<string>();
  for (let k = 0; k < tokens.length; k++) {
    const t = tokens[k]!;
    if (t.type !== 'word') continue;
    if (!capital(t) || !(capital(tokens[k + 1]) || (k > 1 && capital(tokens[k - 1])))) {
      elsewhere.add(t.normal);
      continue;
    }
    let end = k;
    while (capital(tokens[end + 1])) end++;
    for (let j = k; j <= end; j++) nameParts.set(tokens[j]!.normal, end - k + 1);
    k = end;
  }
  for (const w of elsewhere) nameParts.delete(w);
  // "How deep …?": the number next to "deep" ("three metres deep", "deeper than three metres").
  let measure: string | null = null;
  tokens.forEach((t, k) => {
    const m = tokens[k + 1];
    if (t.normal === 'how' && m && MEASURE_WORDS.test(m.normal) && !/^(many|much|old)$/.test(m.normal)) {
      near.set(m.lemma, 1);
      measure = m.lemma;
    }
  });
  const inQuestion = (key: string): boolean => {
    if (question.keys.includes(key)) return true;
    const at = qLower.indexOf(key);
    return (
      at >= 0 &&
      !/[\p{L}\p{N}]/u.test(qLower[at - 1] ?? ' ') &&
      !/[\p{L}\p{N}]/u.test(qLower[at + key.length] ?? ' ')
    );
  };
  // "When did X stop …?" asks for the end of a span of time ("from 1950 until 1982"), "When did X
  // start …?" for its beginning.
  const asksEnd = tokens.some((t) =>
    /^(stop|end|cease|quit|retire|finish|until|till|last|leave|resign|close)$/.test(t.lemma),
  );
  const asksStart = tokens.some((t) => /^(start|begin|since|first|join)$/.test(t.lemma));
  // "How many shipwrights …" names what its number counts; "What is the membership of …" does not.
  const countedNoun = tokens.some(
    (t, k) => t.normal === 'how' && /^(many|much)$/.test(tokens[k + 1]?.normal ?? ''),
  );
  // The wh-word is the subject when a verb follows it directly ("Who founded …?").
  // "… was launched by whom?" asks for the agent too.
  const subjectQuestion =
    reading.whStart >= 0 &&
    (tokens[reading.whEnd + 1]?.pos === 'VERB' || tokens[reading.whStart - 1]?.normal === 'by');
  // "What did X build?": the wh-word is the object of the question's verb.
  const objectQuestion =
    reading.kind === 'thing' &&
    !subjectQuestion &&
    tokens.slice(reading.whEnd + 1).some((t) => t.pos === 'AUX' && /^(do|did|does)$/.test(t.normal));
  const verbWords = new Set<string>();
  for (const k of verbs) {
    const t = tokens[k]!;
    if (isStopWord(t) || t.pos !== 'VERB') continue;
    for (const w of [t.lemma, t.normal, questionConcepts[k]]) if (w) verbWords.add(w);
  }
  // "Who started the Kessler Shipyard?": whoever founded it (see askedVerbSenses).
  const verb = tokens[reading.whEnd + 1];
  for (const sense of askedVerbSenses(tokens, reading)) {
    verbWords.add(sense);
    near.set(sense, Math.max(near.get(sense) ?? 0, SECOND_SENSE_WEIGHT * (near.get(verb!.lemma) ?? 0)));
  }
  return {
    qWords,
    nameParts,
    qConcepts,
    near,
    headWords,
    verbWords,
    lifeEvent: lifeEventOf(tokens),
    asksOld: tokens.some((t) => /^(old|previous|former|formerly|before|used)$/.test(t.normal)),
    asksEnd,
    asksStart,
    unitAsked: askedUnit(tokens, reading, countedNoun),
    measure,
    asksNow: tokens.some((t) => NOW.test(t.normal)),
    years: new Set(tokens.filter((t) => YEAR.test(t.normal)).map((t) => t.normal)),
    subjectQuestion,
    objectQuestion,
    inQuestion,
    asked: askedNames(question.keys, qWords),
  };
}
