/**
 * Entity mentions in an analysed text: wink's dates/money/percentages, proper-noun spans typed by
 * cue words and context, he/she pronouns resolved to a recent person, and a few salient noun
 * phrases. Plain heuristics: see the package README for what they get right and wrong.
 */

import { linkKey, stripDisambiguator } from '@grag/core/internal';
import {
  EVENT_WORDS,
  GEO_WORDS,
  LOCATIVE_PREPOSITIONS,
  NAME_CONNECTORS,
  NAME_PARTICLES,
  NOT_ENTITIES,
  ORGANIZATION_WORDS,
  PERSON_PRONOUNS,
  PERSON_TITLES,
  PERSON_VERBS,
  PLACES,
  ROLE_WORDS,
  ROMAN_NUMERAL,
  TRAILING_ROLES,
} from './lexicon.js';
import { type Analysis, isContent, isKnownWord, spanText, type Token } from './nlp.js';

/**
 * Entity type given to each wink NER type; `null` drops it (cardinals, ordinals and durations are
 * too frequent to be useful graph nodes).
 */
export const WINK_ENTITY_TYPES: Readonly<Record<string, string | null>> = {
  DATE: 'date',
  TIME: 'time',
  MONEY: 'money',
  PERCENT: 'percent',
  CARDINAL: null,
  ORDINAL: null,
  DURATION: null,
  EMAIL: 'contact',
  URL: 'url',
  HASHTAG: null,
  MENTION: 'person',
  EMOJI: null,
  EMOTICON: null,
};

/** How a mention was found. */
export type MentionSource = 'ner' | 'name' | 'pronoun' | 'noun';

/** One mention of an entity: tokens `start..end` (inclusive) of sentence `sentence`. */
export interface Mention {
  start: number;
  end: number;
  sentence: number;
  /** Key of the entity mentioned. */
  key: string;
  source: MentionSource;
}

/** An entity of the text with all its mentions. */
export interface EntityInfo {
  /** Lower-cased normalized name, unique in the text. */
  key: string;
  /** Display name: the first (longest, for aliases) way the text writes it. */
  name: string;
  type: string;
  mentions: Mention[];
  /** Indexes of the sentences that mention it, ascending. */
  sentences: number[];
}

/** Entities of a text and their mentions per sentence. */
export interface EntityAnalysis {
  analysis: Analysis;
  /** Entities in order of first mention. */
  entities: EntityInfo[];
  byKey: Map<string, EntityInfo>;
  /** Mentions of each sentence, sorted by start token. */
  bySentence: Mention[][];
}

export interface EntityFindOptions {
  /** Resolve he/she/him to a recent person. */
  resolvePronouns: boolean;
  /** Most noun-phrase ("concept") entities to add; 0 for none. */
  maxNounPhrases: number;
  /**
   * The text's main subject (its document title): reported as an entity even when the text does
   * not write it, and the referent of sentence-initial he/she (a person subject), sentence-initial
   * "it" (another subject) and "the <noun>" for the noun its defining sentence gives ("X is a 1987
   * drama film" → "the film").
   */
  subject?: string;
}

/** What the resolution of pronouns and definite descriptions to the subject reads. */
const COPULAS = new Set(['is', 'was', 'are', 'were']);
const DEFINITION_STOP = new Set(['ADP', 'PUNCT', 'VERB', 'PRON', 'SCONJ', 'CCONJ', 'AUX', 'PART']);

/** Lower-cased key of a name: spaces collapsed, a leading "the" and trailing dots dropped. */
export function entityKey(name: string): string {
  return name
    .toLowerCase()
    .replace(/[\u2019]/g, "'")
    .replace(/\s+/g, ' ')
    .replace(/^the /, '')
    .replace(/\.$/, '')
    .trim();
}

const startsUpper = (value: string): boolean => /^\p{Lu}/u.test(value);
const hasNewline = (token: Token): boolean => /\n/.test(token.space);

interface Candidate {
  start: number;
  end: number;
  sentence: number;
  key: string;
  name: string;
  /** Fixed type (wink NER) or null to decide from the cues. */
  fixedType: string | null;
}

type Scores = Record<string, number>;

function addScore(scores: Map<string, Scores>, key: string, type: string, value: number): void {
  let entry = scores.get(key);
  if (!entry) {
    entry = {};
    scores.set(key, entry);
  }
  entry[type] = (entry[type] ?? 0) + value;
}

/** Whether a token can be part of a proper name. */
function isNameToken(
  token: Token | undefined,
  sentenceStart: number,
  covered: Uint8Array,
  previous: Token | undefined,
): boolean {
  if (!token || covered[token.index] || token.type !== 'word') return false;
  if (!startsUpper(token.value)) return false;
  if (token.pos === 'PROPN') return true;
  // Capitalized words wink did not tag PROPN count after another word, not at the start of a
  // sentence or after punctuation ("(Birth date unknown"); one tagged as a verb only right after a
  // capitalised word of the name ("Merrow Falls", "Palm Springs").
  return (
    token.index !== sentenceStart &&
    previous?.type === 'word' &&
    (token.pos === 'NOUN' ||
      token.pos === 'ADJ' ||
      token.pos === 'X' ||
      (token.pos === 'VERB' &&
        startsUpper(previous.value) &&
        (previous.pos === 'PROPN' || previous.index !== sentenceStart)))
  );
}

const OPENING_QUOTES = new Set(['"', '\u201c']);
const CLOSING_QUOTES = new Set(['"', '\u201d']);

function bestType(scores: Scores | undefined): [string, number] {
  let best = '';
  let value = 0;
  for (const [type, score] of Object.entries(scores ?? {})) {
    if (score > value) {
      best = type;
      value = score;
    }
  }
  return [best, value];
}

/**
 * Find the entities of an analysed text. Proper-noun spans are typed by a vote over every mention:
 * head cue words (`University` → organization, `River` → geo, `War` → event), honorifics,
 * a small list of places, locative prepositions, person verbs, and name shape.
 */
export function findEntities(analysis: Analysis, options: EntityFindOptions): EntityAnalysis {
  const { tokens, sentences } = analysis;
  const covered = new Uint8Array(tokens.length);
  const candidates: Candidate[] = [];
  const scores = new Map<string, Scores>();
  const sentenceOf = new Int32Array(tokens.length).fill(-1);
  for (const sentence of sentences)
    for (let i = sentence.start; i <= sentence.end; i++) sentenceOf[i] = sentence.index;

  // 1. Quoted titles ("The Harbour Suite", "The Third Man").
  for (const sentence of sentences) {
    for (let q = sentence.start; q < sentence.end; q++) {
      if (!OPENING_QUOTES.has(tokens[q]!.value) || tokens[q + 1]?.space) continue;
      let close = -1;
      for (let k = q + 2; k <= Math.min(sentence.end, q + 12); k++) {
        if (CLOSING_QUOTES.has(tokens[k]!.value)) {
          close = k;
          break;
        }
      }
      const inner = tokens.slice(q + 1, close);
      if (close < 0 || !startsUpper(tokens[q + 1]!.value) || inner.some((t) => covered[t.index])) continue;
      const name = spanText(tokens, q + 1, close - 1);
      const key = entityKey(name);
      if (!key || NOT_ENTITIES.has(key)) continue;
      candidates.push({
        start: q + 1,
        end: close - 1,
        sentence: sentence.index,
        key,
        name,
        fixedType: null,
      });
      for (let k = q + 1; k < close; k++) covered[k] = 1;
      addScore(scores, key, 'work', 3);
      q = close;
    }
  }

  // 2. wink's numeric and temporal entities.
  for (const entity of analysis.entities) {
    let overlaps = false;
    for (let i = entity.start; i <= entity.end; i++) {
      if (covered[i]) overlaps = true;
      covered[i] = 1;
    }
    if (overlaps) continue;
    const type = WINK_ENTITY_TYPES[entity.type];
    const sentence = sentenceOf[entity.start] ?? -1;
    if (!type || sentence < 0) continue;
    const name = spanText(tokens, entity.start, entity.end);
    candidates.push({
      start: entity.start,
      end: entity.end,
      sentence,
      key: entityKey(name),
      name,
      fixedType: type,
    });
  }

  // 3. Proper-noun spans; the subject's name, where the text writes it, is one span whatever its
  // words' tags ("Still Waters is …": "Still" opens the sentence).
  const subjectSpans =
    options.subject === undefined
      ? new Map<number, number>()
      : findSubjectSpans(analysis, options.subject, covered);
  for (const sentence of sentences) {
    let i = sentence.start;
    while (i <= sentence.end) {
      const forced = subjectSpans.get(i);
      if (forced === undefined && !isNameToken(tokens[i], sentence.start, covered, tokens[i - 1])) {
        i++;
        continue;
      }
      let start = i;
      let end = forced ?? i;
      let hasConnector = false;
      let headEnd = -1;
      for (; forced === undefined; ) {
        const next = tokens[end + 1];
        if (!next || end + 1 > sentence.end || hasNewline(next)) break;
        if (isNameToken(next, sentence.start, covered, tokens[end])) {
          end++;
          continue;
        }
        // "Doe-Smith", "O'Neil-Jones": a hyphen with no spaces joins two name parts.
        const after = tokens[end + 2];
        if (
          (next.value === '-' || next.value === '–') &&
          !next.space &&
          after &&
          !after.space &&
          isNameToken(after, sentence.start, covered, next)
        ) {
          end += 2;
          continue;
        }
        if (ROMAN_NUMERAL.test(next.value) && next.value.length <= 4) {
          end++;
          continue;
        }
        // "Leonardo da Vinci", "University of Paris", "Bank of the West".
        const lower = next.value === next.normal;
        const last = tokens[end];
        const cue =
          last &&
          (ORGANIZATION_WORDS.has(last.normal) ||
            GEO_WORDS.has(last.normal) ||
            EVENT_WORDS.has(last.normal) ||
            PERSON_TITLES.has(last.normal));
        if (lower && (NAME_PARTICLES.has(next.normal) || (NAME_CONNECTORS.has(next.normal) && cue))) {
          let k = end + 2;
          if (tokens[k]?.normal === 'the' && k <= sentence.end) k++;
          if (k <= sentence.end && isNameToken(tokens[k], sentence.start, covered, tokens[k - 1])) {
            if (NAME_CONNECTORS.has(next.normal)) {
              hasConnector = true;
              if (headEnd < 0) headEnd = end;
            }
            end = k;
            continue;
          }
        }
        break;
      }
      i = end + 1;

      // Strip honorifics and roles at the start; remember them as person cues.
      let titled = false;
      while (
        start < end &&
        tokens[start] &&
        (PERSON_TITLES.has(tokens[start]!.normal) || ROLE_WORDS.has(tokens[start]!.normal))
      ) {
        if (PERSON_TITLES.has(tokens[start]!.normal)) titled = true;
        start++;
      }
      while (
        end > start &&
        tokens[end] &&
        (ROLE_WORDS.has(tokens[end]!.normal) || TRAILING_ROLES.has(tokens[end]!.normal))
      )
        end--;
      if (headEnd >= 0 && headEnd < start) headEnd = -1;
      const before = tokens[start - 1];
      if (before && PERSON_TITLES.has(before.normal) && start - 1 >= sentence.start) titled = true;

      const first = tokens[start]!;
      const count = end - start + 1;
      if (count === 1 && (NOT_ENTITIES.has(first.normal) || ROLE_WORDS.has(first.normal))) continue;
      if (count === 1 && first.value.replace(/\W/g, '').length < 2) continue;
      const name = spanText(tokens, start, end);
      const key = entityKey(name);
      if (!key) continue;
      candidates.push({ start, end, sentence: sentence.index, key, name, fixedType: null });
      for (let k = start; k <= end; k++) covered[k] = 1;

      // Type cues.
      const span = tokens.slice(start, end + 1);
      // The head is the last word, or the word before "of" ("University of Paris") unless the
      // last word is itself a cue word ("Battle of Hastings Museum").
      const lastToken = tokens[end]!;
      const lastIsCue =
        ORGANIZATION_WORDS.has(lastToken.normal) ||
        GEO_WORDS.has(lastToken.normal) ||
        EVENT_WORDS.has(lastToken.normal);
      const head = headEnd >= 0 && !lastIsCue ? tokens[headEnd]! : lastToken;
      const others = span.filter((t) => t !== head);
      const cueWords: [Set<string>, string][] = [
        [ORGANIZATION_WORDS, 'organization'],
        [GEO_WORDS, 'geo'],
        [EVENT_WORDS, 'event'],
      ];
      let keywordHit = false;
      for (const [set, type] of cueWords) {
        if (set.has(head.normal)) {
          addScore(scores, key, type, 3);
          keywordHit = true;
        }
        if (others.some((t) => set.has(t.normal))) {
          addScore(scores, key, type, 1);
          keywordHit = true;
        }
      }
      if (PLACES.has(key)) addScore(scores, key, 'geo', 4);
      if (titled) addScore(scores, key, 'person', 4);
      const prev = tokens[start - 1];
      if (prev && start - 1 >= sentence.start) {
        if (
          LOCATIVE_PREPOSITIONS.has(prev.normal) ||
          (prev.normal === 'the' && LOCATIVE_PREPOSITIONS.has(tokens[start - 2]?.normal ?? ''))
        )
          addScore(scores, key, 'geo', 1.5);
        if (prev.normal === 'at') addScore(scores, key, 'organization', 0.5);
        if (prev.normal === 'by') addScore(scores, key, 'person', 0.5);
      }
      let n = end + 1;
      if (tokens[n]?.normal === ',' && tokens[n + 1]?.normal === 'who') addScore(scores, key, 'person', 2);
      while (tokens[n] && n <= sentence.end && (tokens[n]!.pos === 'AUX' || tokens[n]!.pos === 'ADV')) n++;
      if (tokens[n] && n <= sentence.end && PERSON_VERBS.has(tokens[n]!.normal))
        addScore(scores, key, 'person', 1.5);
      const words = span.filter((t) => t.type === 'word' && /\p{L}/u.test(t.value));
      const nameShaped =
        !keywordHit &&
        !hasConnector &&
        words.length >= 2 &&
        words.length <= 4 &&
        words.every(
          (t) =>
            NAME_PARTICLES.has(t.normal) ||
            // "Smith", and "MacAlder", "McDonald", "O'Neil"
            /^(?:\p{Lu}[\p{Ll}'’.-]+|(?:Mc|Mac|O['’])\p{Lu}\p{Ll}+)$/u.test(t.value) ||
            /^\p{Lu}\.$/u.test(t.value),
        );
      if (nameShaped && !PLACES.has(key)) {
        // Most first names and surnames are not English words; "Silver Eel" is.
        const lastWord = words[words.length - 1]!.normal;
        const plural = /[^s]s$/.test(lastWord) && isKnownWord(lastWord.slice(0, -1));
        if (plural) addScore(scores, key, 'organization', 1.5);
        else if (!isKnownWord(words[0]!.normal)) addScore(scores, key, 'person', 2);
        else if (!isKnownWord(lastWord)) addScore(scores, key, 'person', 1);
      }
      if (count === 1 && /^\p{Lu}{2,6}$/u.test(first.value) && !PLACES.has(key))
        addScore(scores, key, 'organization', 2);
    }
  }

  // 4. Types and aliases ("Varga" → "Elena Varga").
  const firstName = new Map<string, Candidate>();
  for (const c of [...candidates].sort((a, b) => a.start - b.start))
    if (!firstName.has(c.key)) firstName.set(c.key, c);
  const typeOf = new Map<string, string>();
  for (const [key, c] of firstName) {
    if (c.fixedType) {
      typeOf.set(key, c.fixedType);
      continue;
    }
    const [type] = bestType(scores.get(key));
    typeOf.set(key, type || 'other');
  }
  // A bare surname or first name stands for a person named in full ("Varga" → "Elena Varga"), a
  // bare last word for an organization ("Gulls" → "Merrow Gulls").
  const alias = new Map<string, string>();
  const longNames = [...firstName.values()].filter(
    (c) => c.key.includes(' ') && (typeOf.get(c.key) === 'person' || typeOf.get(c.key) === 'organization'),
  );
  for (const [key, c] of firstName) {
    if (c.fixedType || key.includes(' ')) continue;
    const [type, strength] = bestType(scores.get(key));
    const matches = longNames.filter((p) => {
      if (strength >= 3 && typeOf.get(p.key) !== type) return false;
      const parts = p.key.split(/[\s-]+/);
      return parts[parts.length - 1] === key || (typeOf.get(p.key) === 'person' && parts[0] === key);
    });
    if (matches.length === 0) continue;
    // The most mentioned match; ties go to the first seen.
    const counts = matches.map((m) => candidates.filter((x) => x.key === m.key).length);
    let best = 0;
    for (let m = 1; m < matches.length; m++) if (counts[m]! > counts[best]!) best = m;
    alias.set(key, matches[best]!.key);
  }

  const entities: EntityInfo[] = [];
  const byKey = new Map<string, EntityInfo>();
  const bySentence: Mention[][] = sentences.map(() => []);
  const add = (m: Mention, name: string, type: string): void => {
    let info = byKey.get(m.key);
    if (!info) {
      info = { key: m.key, name, type, mentions: [], sentences: [] };
      byKey.set(m.key, info);
      entities.push(info);
    }
    info.mentions.push(m);
    bySentence[m.sentence]?.push(m);
  };
  for (const c of [...candidates].sort((a, b) => a.start - b.start)) {
    const key = alias.get(c.key) ?? c.key;
    const first = firstName.get(key) ?? c;
    add(
      { start: c.start, end: c.end, sentence: c.sentence, key, source: c.fixedType ? 'ner' : 'name' },
      first.name,
      typeOf.get(key) ?? 'other',
    );
  }

  // 4b. The main subject (document title): its entity, created when the text does not name it.
  let mainSubject: EntityInfo | undefined;
  if (options.subject !== undefined) {
    const subjectName = stripDisambiguator(options.subject);
    const target = linkKey(subjectName);
    if (target !== '') {
      const key = entityKey(subjectName);
      mainSubject = byKey.get(key) ?? entities.find((e) => linkKey(e.name) === target);
      if (!mainSubject && key !== '') {
        mainSubject = { key, name: subjectName, type: 'other', mentions: [], sentences: [] };
        byKey.set(key, mainSubject);
        entities.unshift(mainSubject);
      }
    }
  }
  const subjectIsPerson = mainSubject?.type === 'person';
  if (mainSubject && options.resolvePronouns) {
    resolveSubjectReferences(analysis, mainSubject, subjectIsPerson, covered, bySentence);
  }

  // 5. he/she/him → a recent person: the subject (first person) of the previous sentence for a
  // sentence-initial pronoun, else the latest person before it in the sentence. With a person
  // subject (document title), a sentence-initial pronoun is the subject, and so is one with no
  // person before it in its sentence.
  if (options.resolvePronouns) {
    let previousSubject: { key: string; sentence: number } | undefined;
    for (const sentence of sentences) {
      const mentions = bySentence[sentence.index] ?? [];
      const people = mentions.filter((m) => byKey.get(m.key)?.type === 'person');
      const resolved: Mention[] = [];
      for (let i = sentence.start; i <= sentence.end; i++) {
        const token = tokens[i]!;
        if (token.pos !== 'PRON' || !PERSON_PRONOUNS.has(token.normal)) continue;
        const before = [...people, ...resolved].filter((m) => m.end < i).sort((a, b) => b.end - a.end)[0];
        const isInitial =
          i === sentence.start ||
          tokens
            .slice(sentence.start, i)
            .every((t) => !isContent(t) || t.pos === 'ADV' || t.pos === 'ADP' || t.type === 'number');
        let key: string | undefined;
        if (before && !isInitial) key = before.key;
        else if (mainSubject && subjectIsPerson) key = mainSubject.key;
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

  // 6. Salient noun phrases ("concept" entities).
  if (options.maxNounPhrases > 0) {
    addNounPhrases(analysis, covered, sentenceOf, options.maxNounPhrases, byKey, (m, name) =>
      add(m, name, 'concept'),
    );
  }

  for (const info of entities) {
    info.mentions.sort((a, b) => a.start - b.start);
    info.sentences = [...new Set(info.mentions.map((m) => m.sentence))].sort((a, b) => a - b);
  }
  for (const list of bySentence) list.sort((a, b) => a.start - b.start || a.end - b.end);
  return { analysis, entities, byKey, bySentence };
}

/** Token spans (start → end) where the text writes the subject's name, capitalised, within a sentence. */
function findSubjectSpans(analysis: Analysis, subject: string, covered: Uint8Array): Map<number, number> {
  const out = new Map<number, number>();
  const words = linkKey(subject).split(' ').filter(Boolean);
  if (words.length === 0) return out;
  const { tokens, sentences } = analysis;
  const keys: (string | undefined)[] = [];
  const keyOf = (j: number): string => {
    let key = keys[j];
    if (key === undefined) {
      const t = tokens[j]!;
      key =
        t.type === 'word' || t.type === 'number'
          ? /^[A-Za-z0-9]+$/.test(t.value)
            ? t.value.toLowerCase()
            : linkKey(t.value)
          : '';
      keys[j] = key;
    }
    return key;
  };
  const first = words[0]!;
  for (const sentence of sentences) {
    for (let i = sentence.start; i <= sentence.end; i++) {
      const value = tokens[i]!.value;
      // Cheap test first: most tokens do not start the subject's name.
      if (covered[i] || !/^[\p{Lu}\p{Lt}\p{N}]/u.test(value)) continue;
      if (!keyOf(i).startsWith(first)) continue;
      let w = 0;
      let j = i;
      let end = -1;
      while (j <= sentence.end && !covered[j]) {
        if (j > i && hasNewline(tokens[j]!)) break;
        const key = keyOf(j);
        if (key === '') {
          if (tokens[j]!.type === 'word' || j === i) break;
          j++;
          continue;
        }
        const parts = key.split(' ');
        if (!parts.every((p, k) => words[w + k] === p)) break;
        w += parts.length;
        if (w === words.length) {
          end = j;
          break;
        }
        j++;
      }
      if (end >= 0) {
        out.set(i, end);
        i = end;
      }
    }
  }
  return out;
}

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
 * Mentions of the subject written as a pronoun or a definite description: sentence-initial "it"
 * (a subject that is not a person) and "the <class noun>" ("the film"). Person pronouns are
 * handled with the others (step 5 of {@link findEntities}).
 */
function resolveSubjectReferences(
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
        t.normal === 'it' &&
        t.pos === 'PRON' &&
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

/** Nouns too generic to be a concept node on their own. */
const GENERIC_NOUNS = new Set(
  'time year years way people thing things part number kind type lot day days man woman place case fact group area example end member use form point side world life work home hand week month today others one ones something anything everything nothing someone anyone everyone'.split(
    ' ',
  ),
);
const WEAK_ADJECTIVES = new Set(
  'new old other many several various certain same own first last early late former great good best better major main such whole full'.split(
    ' ',
  ),
);

function addNounPhrases(
  analysis: Analysis,
  covered: Uint8Array,
  sentenceOf: Int32Array,
  limit: number,
  byKey: Map<string, EntityInfo>,
  add: (m: Mention, name: string) => void,
): void {
  const { tokens } = analysis;
  const found = new Map<
    string,
    { name: string; count: number; length: number; first: number; spans: [number, number][] }
  >();
  const usable = (t: Token | undefined): t is Token =>
    !!t && !covered[t.index] && isContent(t) && /^\p{L}[\p{L}-]*$/u.test(t.value) && t.value.length > 2;
  let i = 0;
  while (i < tokens.length) {
    const t = tokens[i];
    if (!usable(t) || !(t.pos === 'NOUN' || t.pos === 'ADJ')) {
      i++;
      continue;
    }
    let end = i;
    while (
      end + 1 < tokens.length &&
      sentenceOf[end + 1] === sentenceOf[i] &&
      usable(tokens[end + 1]) &&
      (tokens[end + 1]!.pos === 'NOUN' || tokens[end + 1]!.pos === 'ADJ')
    )
      end++;
    const next = end + 1;
    // Trim to end on a noun, drop weak leading adjectives, keep at most 4 words.
    let e = end;
    while (e >= i && tokens[e]!.pos !== 'NOUN') e--;
    let s = i;
    while (s <= e && tokens[s]!.pos === 'ADJ' && WEAK_ADJECTIVES.has(tokens[s]!.normal)) s++;
    if (e - s >= 4) s = e - 3;
    if (s <= e && !(s === e && GENERIC_NOUNS.has(tokens[e]!.lemma))) {
      const key = tokens
        .slice(s, e + 1)
        // Nouns by lemma, so that "supermarkets" and "supermarket" meet; adjectives as written
        // ("worst", not its lemma "bad").
        .map((x) => (x.pos === 'NOUN' ? x.lemma : x.normal))
        .join(' ');
      if (!byKey.has(key)) {
        const name = tokens
          .slice(s, e + 1)
          .map((x) => x.normal)
          .join(' ');
        const entry = found.get(key) ?? { name, count: 0, length: e - s + 1, first: s, spans: [] };
        entry.count++;
        entry.spans.push([s, e]);
        found.set(key, entry);
      }
    }
    i = next;
  }
  const ranked = [...found.entries()]
    .filter(([, v]) => v.length > 1 || v.count > 1)
    .map(([key, v]) => ({ key, ...v, score: v.count * (1 + 0.5 * (v.length - 1)) }))
    .sort((a, b) => b.score - a.score || a.first - b.first)
    .slice(0, limit);
  for (const phrase of ranked) {
    for (const [s, e] of phrase.spans) {
      const sentence = sentenceOf[s] ?? -1;
      if (sentence < 0) continue;
      for (let k = s; k <= e; k++) covered[k] = 1;
      add({ start: s, end: e, sentence, key: phrase.key, source: 'noun' }, phrase.name);
    }
  }
}
