/**
 * Entity mentions in an analysed text: wink's dates/money/percentages, proper-noun spans typed by
 * cue words and context, he/she pronouns resolved to a recent person, and a few salient noun
 * phrases. Plain heuristics: see the package README for what they get right and wrong.
 */

import { linkKey, stripDisambiguator } from '@grag/core/graph';
import { entityKey, findNerEntities, findProperNames, findQuotedTitles, hasNewline } from './entity-spans.js';
import type { Analysis } from './nlp.js';
import { addNounPhrases } from './noun-phrases.js';
import { resolvePersonPronouns, resolveSubjectReferences } from './references.js';
import { type Candidate, type Scores, typesAndAliases } from './type-votes.js';

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
  findQuotedTitles(analysis, covered, candidates, scores);

  // 2. wink's numeric and temporal entities.
  findNerEntities(analysis, covered, sentenceOf, candidates);

  // 3. Proper-noun spans; the subject's name, where the text writes it, is one span whatever its
  // words' tags ("Still Waters is …": "Still" opens the sentence).
  const subjectSpans =
    options.subject === undefined
      ? new Map<number, number>()
      : findSubjectSpans(analysis, options.subject, covered);
  findProperNames(analysis, covered, subjectSpans, candidates, scores);

  // 4. Types and aliases ("Varga" → "Elena Varga").
  const { firstName, typeOf, alias } = typesAndAliases(candidates, scores);

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

  // 5. he/she/him → a recent person (the document's subject when it is one).
  if (options.resolvePronouns) {
    resolvePersonPronouns(analysis, byKey, bySentence, subjectIsPerson ? mainSubject : undefined);
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
