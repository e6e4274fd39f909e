/**
 * References to entities not by name: he/she/him resolved to a recent person, and mentions of the
 * text's subject as sentence-initial "it" or "the <class noun>" ("the film").
 */

import type { EntityInfo, Mention } from './entities.js';
import { GENERIC_NOUNS, PERSON_PRONOUNS } from './lexicon.js';
import { type Analysis, isContent, type Token } from './nlp.js';

/** What the resolution of pronouns and definite descriptions to the subject reads. */
const COPULAS = new Set(['is', 'was', 'are', 'were']);
const DEFINITION_STOP = new Set(['ADP', 'PUNCT', 'VERB', 'PRON', 'SCONJ', 'CCONJ', 'AUX', 'PART']);

/** Whether token `i` opens its sentence (only adverbs, prepositions, numbers or punctuation before it). */
function isSentenceInitial(tokens: readonly Token[], sentenceStart: number, i: number): boolean {
  for (let k = sentenceStart; k < i; k++) {
    const t = tokens[k]!;
    if (isContent(t) && t.pos !== 'ADV' && t.pos !== 'ADP' && t.type !== 'number') return false;
  }
  return true;
}

/**
 * The class nouns of the subject: the head noun after "is a"/"was an" in the first sentence that
 * defines it ("Still Waters is a 1987 Veskan drama film directed by …" → film).
 */
function classNouns(analysis: Analysis, subject: EntityInfo): Set<string> {
  const { tokens, sentences } = analysis;
  const out = new Set<string>();
  const named = subject.mentions.filter((m) => m.source === 'name' || m.source === 'ner').slice(0, 2);
  const starts =
    named.length > 0
      ? named.map((m) => ({ sentence: sentences[m.sentence]!, from: m.end + 1 }))
      : sentences.slice(0, 2).map((sentence) => ({ sentence, from: sentence.start }));
  for (const { sentence, from } of starts) {
    let copula = -1;
    for (let i = from; i <= Math.min(sentence.end, from + 15); i++) {
      if (COPULAS.has(tokens[i]!.normal)) {
        copula = i;
        break;
      }
    }
    if (copula < 0) continue;
    let head: Token | undefined;
    for (let i = copula + 1; i <= sentence.end; i++) {
      const t = tokens[i]!;
      if (DEFINITION_STOP.has(t.pos) && !(t.pos === 'PUNCT' && t.value === '-')) break;
      if (t.pos === 'NOUN' && /^\p{Ll}/u.test(t.value)) head = t;
    }
    if (head && !GENERIC_NOUNS.has(head.lemma)) out.add(head.lemma);
    if (out.size > 0) break;
  }
  return out;
}

/**
 * Mentions of the subject written as a pronoun or a definite description: sentence-initial "it" or
 * "its" (a subject that is not a person) and "the <class noun>" ("the film"). Person pronouns are
 * handled with the others ({@link resolvePersonPronouns}).
 */
export function resolveSubjectReferences(
  analysis: Analysis,
  subject: EntityInfo,
  subjectIsPerson: boolean,
  covered: Uint8Array,
  bySentence: Mention[][],
): void {
  const { tokens, sentences } = analysis;
  const nouns = classNouns(analysis, subject);
  for (const sentence of sentences) {
    const found: Mention[] = [];
    for (let i = sentence.start; i <= sentence.end; i++) {
      const t = tokens[i]!;
      if (covered[i]) continue;
      if (
        !subjectIsPerson &&
        (t.normal === 'it' || t.normal === 'its') &&
        (t.pos === 'PRON' || t.pos === 'DET') &&
        isSentenceInitial(tokens, sentence.start, i)
      ) {
        found.push({ start: i, end: i, sentence: sentence.index, key: subject.key, source: 'pronoun' });
        continue;
      }
      const next = tokens[i + 1];
      if (
        t.normal === 'the' &&
        next &&
        i + 1 <= sentence.end &&
        !covered[i + 1] &&
        next.pos === 'NOUN' &&
        nouns.has(next.lemma) &&
        !(tokens[i + 2]?.pos === 'NOUN' || tokens[i + 2]?.pos === 'PROPN')
      ) {
        found.push({ start: i, end: i + 1, sentence: sentence.index, key: subject.key, source: 'pronoun' });
        i++;
      }
    }
    for (const m of found) {
      for (let k = m.start; k <= m.end; k++) covered[k] = 1;
      subject.mentions.push(m);
      bySentence[sentence.index]?.push(m);
    }
    bySentence[sentence.index]?.sort((a, b) => a.start - b.start);
  }
}

/**
 * he/she/him → a recent person: the subject (first person) of the previous sentence for a
 * sentence-initial pronoun, else the latest person before it in the sentence. With a person
 * subject (document title), `personSubject`, a sentence-initial pronoun is the subject, and so is
 * one with no person before it in its sentence.
 */
export function resolvePersonPronouns(
  analysis: Analysis,
  byKey: ReadonlyMap<string, EntityInfo>,
  bySentence: Mention[][],
  personSubject: EntityInfo | undefined,
): void {
  const { tokens, sentences } = analysis;
  let previousSubject: { key: string; sentence: number } | undefined;
  for (const sentence of sentences) {
    const mentions = bySentence[sentence.index] ?? [];
    const people = mentions.filter((m) => byKey.get(m.key)?.type === 'person');
    const resolved: Mention[] = [];
    for (let i = sentence.start; i <= sentence.end; i++) {
      const token = tokens[i]!;
      if (token.pos !== 'PRON' || !PERSON_PRONOUNS.has(token.normal)) continue;
      const before = [...people, ...resolved].filter((m) => m.end < i).sort((a, b) => b.end - a.end)[0];
      const isInitial = isSentenceInitial(tokens, sentence.start, i);
      let key: string | undefined;
      if (before && !isInitial) key = before.key;
      else if (personSubject) key = personSubject.key;
      else if (previousSubject && sentence.index - previousSubject.sentence <= 3) key = previousSubject.key;
      else key = before?.key;
      if (key) resolved.push({ start: i, end: i, sentence: sentence.index, key, source: 'pronoun' });
    }
    for (const m of resolved) byKey.get(m.key)?.mentions.push(m);
    if (resolved.length) {
      mentions.push(...resolved);
      mentions.sort((a, b) => a.start - b.start);
    }
    const subject = mentions.find((m) => byKey.get(m.key)?.type === 'person');
    if (subject) previousSubject = { key: subject.key, sentence: sentence.index };
  }
}
