/**
 * The answer phrase of a wh-question: every candidate span of the context scored by its sentence's
 * support (with bridges to other items for multi-hop questions), its type's fit, its closeness to
 * the question's words (read by meaning) and its novelty.
 */
import { contentWords, wordsOf } from '../words.js';
import { aboutItems } from './about.js';
import { askedUnit, datesOtherVerb, namesNoAgent } from './clauses.js';
import { chooseOption, polarAnswer } from './compare.js';
import { EVENT_VERBS, LIFE_VERBS, lifeEventOf, lifeSpanSide, rangeSide } from './events.js';
import { concept, concepts, isKindOf, secondSenses, tokenConcepts } from './meaning.js';
import { coordinated, kindWord, NOT_NAME_TYPES, sentenceSpans, typeFit } from './spans.js';
import type { AnswerQuestion, AnswerSentence, PhraseAnswer } from './types.js';

/** Entity types that do not bridge two sentences (too common to mean the same thing). */
const NON_BRIDGE_TYPES = new Set(['concept', 'date', 'time', 'money', 'percent', 'number']);

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
  const qLower = question.text.toLowerCase();
  const qWords = new Set<string>();
  // …and their concepts: a span that says "co-operative" restates a question's "co-op".
  const qConcepts = new Set<string>();
  // Question words near the wh-phrase weigh more: the answer sits next to what the question says
  // of it ("Who *directs* the institute that owns…"), the further words lead to it.
  const near = new Map<string, number>();
  // The verb the wh-phrase hangs on: the first verb, or the one ending an inverted question
  // ("When did A die?", "Where was the engineer who built B born?").
  const words = question.tokens.filter((t) => t.type === 'word');
  const verbs = new Set<number>();
  const firstVerb = question.tokens.find((t) => t.pos === 'VERB' && !t.stop);
  if (firstVerb) verbs.add(firstVerb.index);
  for (const t of words.slice(-2)) if (t.pos === 'VERB') verbs.add(t.index);
  const questionConcepts = concepts(question.tokens.map((t) => t.lemma));
  // The question's words that are not only a modifier of another noun ("harbour" in "harbour pilot").
  const headWords = new Set<string>();
  question.tokens.forEach((t, k) => {
    if (t.type !== 'word' && t.type !== 'number') return;
    for (const w of wordsOf(t.value)) qWords.add(w);
    qWords.add(t.lemma);
    qConcepts.add(concept(t.lemma));
    if (t.stop) return;
    const gap =
      reading.whStart < 0 ? 0 : k < reading.whStart ? reading.whStart - k : Math.max(0, k - reading.whEnd);
    // Words of the relation asked about (and the question's verb) weigh whole; the names' words
    // lead to the sentence, and the answer need not stand next to them. By role, not by where the
    // wording puts them ("X was fought by what army?" and "Which army fought X?" alike); the
    // distance to the wh-word only breaks ties.
    // A noun before another noun only modifies it: "harbour pilot" asks for a pilot.
    const next = question.tokens[k + 1];
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
  const inQuestion = (key: string): boolean => {
    if (question.keys.includes(key)) return true;
    const at = qLower.indexOf(key);
    return (
      at >= 0 &&
      !/[\p{L}\p{N}]/u.test(qLower[at - 1] ?? ' ') &&
      !/[\p{L}\p{N}]/u.test(qLower[at + key.length] ?? ' ')
    );
  };

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

  const lifeEvent = lifeEventOf(question.tokens);
  const asksOld = question.tokens.some((t) => /^(old|previous|former|formerly|before|used)$/.test(t.normal));
  // "When did X stop …?" asks for the end of a span of time ("from 1950 until 1982"), "When did X
  // start …?" for its beginning.
  const asksEnd = question.tokens.some((t) =>
    /^(stop|end|cease|quit|retire|finish|until|till|last|leave|resign|close)$/.test(t.lemma),
  );
  const asksStart = question.tokens.some((t) => /^(start|begin|since|first|join)$/.test(t.lemma));
  // "How many shipwrights …" names what its number counts; "What is the membership of …" does not.
  const countedNoun = question.tokens.some(
    (t, k) => t.normal === 'how' && /^(many|much)$/.test(question.tokens[k + 1]?.normal ?? ''),
  );
  const unitAsked = askedUnit(question.tokens, reading, countedNoun);
  // "… now?", "… currently?": the sentence that says what holds now, not what held at a meeting.
  const NOW = /^(now|currently|today|nowadays|current)$/;
  const asksNow = question.tokens.some((t) => NOW.test(t.normal));
  // The wh-word is the subject when a verb follows it directly ("Who founded …?").
  // "… was launched by whom?" asks for the agent too.
  const subjectQuestion =
    reading.whStart >= 0 &&
    (question.tokens[reading.whEnd + 1]?.pos === 'VERB' ||
      question.tokens[reading.whStart - 1]?.normal === 'by');
  // "What did X build?": the wh-word is the object of the question's verb.
  const objectQuestion =
    reading.kind === 'thing' &&
    !subjectQuestion &&
    question.tokens.slice(reading.whEnd + 1).some((t) => t.pos === 'AUX' && /^(do|did|does)$/.test(t.normal));
  const verbWords = new Set<string>();
  for (const k of verbs) {
    const t = question.tokens[k]!;
    if (t.stop || t.pos !== 'VERB') continue;
    for (const w of [t.lemma, t.normal, questionConcepts[k]]) if (w) verbWords.add(w);
  }
  if (reading.kind === 'choice') return chooseOption(question, sentences, support, wordsAt);
  if (reading.kind === 'polar') return polarAnswer(question, sentences, support, wordsAt, qWords);

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
  const found = new Map<string, Found>();
  for (let i = 0; i < sentences.length; i++) {
    const sup = support[i]!.value;
    if (sup <= 0 || (question.accept && !question.accept(i, support[i]!.from))) continue;
    const s = sentences[i]!;
    const tokens = s.ea.analysis.tokens;
    const range = s.ea.analysis.sentences[s.index]!;
    const matched: { k: number; weight: number }[] = [];
    let relational = false;
    const sentenceConcepts = tokenConcepts(s.ea.analysis);
    /** How much token `k` says of the question: its word, its concept or a second sense of it. */
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
    for (let k = range.start; k <= range.end; k++) {
      const t = tokens[k]!;
      if ((t.type === 'word' || t.type === 'number') && !t.stop) {
        const weight = nearWeight(k);
        if (weight > 0) matched.push({ k, weight });
        if (weight > 0 && !relational)
          relational = [t.lemma, t.normal, sentenceConcepts[k]].some((w) => !!w && headWords.has(w));
      }
    }
    const passive = tokens.slice(range.start, range.end + 1).some((t) => t.normal === 'by');
    // An object question's verb is its relation: a sentence that does not say it names no object of it.
    let saysVerb = !objectQuestion || verbWords.size === 0;
    for (let k = range.start; k <= range.end && !saysVerb; k++) {
      const t = tokens[k]!;
      saysVerb = [t.lemma, t.normal, sentenceConcepts[k]].some((w) => !!w && verbWords.has(w));
      for (const sense of secondSenses(t.lemma)) if (verbWords.has(sense)) saysVerb = true;
    }
    // "… which was built in 1889, and where Walter kept the light": no agent of the verb is named.
    const agentless =
      reading.kind === 'person' &&
      subjectQuestion &&
      verbWords.size > 0 &&
      namesNoAgent(tokens, range, (k) => {
        const t = tokens[k]!;
        return (
          [t.lemma, t.normal, sentenceConcepts[k]].some((w) => !!w && verbWords.has(w)) ||
          secondSenses(t.lemma).some((w) => verbWords.has(w))
        );
      });
    for (const span of sentenceSpans(s.ea, s.index, reading)) {
      const fit = typeFit(reading, span, tokens);
      if (fit <= 0) continue;
      if (reading.kind === 'date' && verbWords.size > 0 && datesOtherVerb(tokens, span, range, nearWeight))
        continue;
      const words = contentWords(span.text);
      if (words.length === 0 || words.length > 10) continue;
      // The noun a which-question asks for may head the answer's name ("Quillon Shipyard", "River
      // Ode"): it is not a word the question already says of the answer.
      const kindAt = kindWord(tokens, span, words.length, reading.descriptor);
      const headed = kindAt >= 0;
      const own = kindAt === span.end ? words.slice(0, -1) : kindAt === span.start ? words.slice(1) : words;
      const novelty =
        own.length === 0
          ? 1
          : 1 - own.filter((w) => qWords.has(w) || qConcepts.has(concept(w))).length / own.length;
      if (novelty <= 0) continue;
      let closeness = 0.15;
      for (const { k, weight } of matched) {
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
            : objectQuestion && k > span.end && tokens[k]!.pos === 'VERB' && !passive
              ? 0.8
              : 1;
        closeness = Math.max(closeness, (follows * weight) / (1 + distance / 5));
      }
      // The kind asked heading the span ("St Ewenna's Chapel" for "which chapel") counts more than the
      // kind named next to it.
      let descriptor = headed ? 1.5 : 1;
      if (reading.descriptor) {
        for (let k = Math.max(range.start, span.start - 4); k <= Math.min(range.end, span.end + 4); k++) {
          if ((k < span.start || k > span.end) && isKindOf(tokens[k]!.lemma, reading.descriptor))
            descriptor = Math.max(descriptor, 1.3);
        }
      }
      // A life span "(4 May 1901 – 2 June 1980)": the date before the dash is the birth, after it
      // the death.
      // The bracket states the event as "born"/"died" would, and a name there is a place.
      let side = 1;
      let eventFit = fit;
      if (lifeEvent && (reading.kind === 'date' || reading.kind === 'place')) {
        const at = lifeSpanSide(tokens, span, range);
        if (at) side = (at === 'end') === (lifeEvent === 'death') ? 1.5 : 0.5;
        if (side > 1) {
          closeness = Math.max(closeness, 0.8);
          if (reading.kind === 'place' && !NOT_NAME_TYPES.has(span.type)) eventFit = Math.max(fit, 0.7);
        }
      }
      // "Who launched X?" asks for the agent: in "X was launched … by Y" the agent follows "by".
      let agent = 1;
      if (reading.kind === 'person' && subjectQuestion) {
        // "… launched by my grandmother, Hester Pellow": "by" a few words before, no verb between.
        for (let k = span.start - 1; k >= Math.max(range.start, span.start - 4); k--) {
          if (tokens[k]!.pos === 'VERB' || tokens[k]!.pos === 'AUX') break;
          if (tokens[k]!.normal === 'by') {
            agent = 1.3;
            // The agent stands as close to its verb as "by" does: "launched on 21 May 1994 by Y";
            // "worked by the Kittiwake" names who worked, not who built.
            for (let j = k - 1; j >= Math.max(range.start, k - 8); j--) {
              if (tokens[j]!.pos !== 'VERB') continue;
              const w = nearWeight(j);
              closeness = Math.max(closeness, w / (1 + (k - j) / 5));
              if (w === 0) agent = 1;
              break;
            }
            break;
          }
        }
      }
      if (agentless && agent === 1) continue;
      // "How many shipwrights …?", "…, in percent?": the number that counts shipwrights or is in
      // percent, not weeks or metres.
      if (reading.kind === 'number' && unitAsked && /^(number|year|date|percent)$/.test(span.type)) {
        // A year counts no passengers.
        if (!/^(number|percent)$/.test(span.type) && !/^(year|date|day|time)$/.test(unitAsked)) continue;
        const counted = tokens[span.end + 1]?.type === 'word' ? tokens[span.end + 1] : tokens[span.end + 2];
        const unit = span.text.split(/\s+/).length > 1 ? tokens[span.end] : counted;
        if (unit && (unit.lemma === unitAsked || concept(unit.lemma) === concept(unitAsked))) agent = 2;
        // A number that counts something else ("two weeks" for "how many passengers") is not it.
        else if (unit?.pos === 'NOUN') continue;
      }
      // "goes up from £12 to £15": the value after "to" is the new one, the one after "from" the old.
      let change = 1;
      if (
        tokens[span.start - 1]?.normal === 'from' &&
        tokens.slice(span.end + 1, Math.min(range.end, span.end + 2) + 1).some((t) => t.normal === 'to')
      )
        change = asksOld ? 1.2 : 0.5;
      if (reading.kind === 'date' && asksEnd !== asksStart) {
        const side = rangeSide(tokens, span, range.start);
        if (side) change = (side === 'end') === asksEnd ? 1.5 : 0.5;
      }
      const now =
        asksNow && tokens.slice(range.start, range.end + 1).some((t) => NOW.test(t.normal)) ? 1.2 : 1;
      const score =
        sup *
        eventFit *
        closeness *
        novelty *
        descriptor *
        side *
        agent *
        change *
        now *
        (saysVerb ? 1 : 0.5);
      const key = words.join(' ');
      const entry = found.get(key);
      const at = { text: span.text, sentence: i, fit, start: span.start, end: span.end, relational };
      const adds = relational ? score : 0;
      if (!entry) found.set(key, { ...at, best: score, total: adds });
      else {
        entry.total += adds;
        if (score > entry.best) Object.assign(entry, at, { best: score });
      }
    }
  }
  // Repetition counts, but less than the best occurrence, and only in sentences that say more of the
  // question than a noun's modifier ("She kept the harbour log" for "Who is the harbour pilot?").
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
