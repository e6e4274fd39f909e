/**
 * Reading a question: its wh-phrase and expected answer type, an SG-RAG style query graph (an
 * unknown target node linked to the named entities of the question), and the entities it names.
 */
import type { QueryGraph, QueryGraphEdge, QueryGraphNode } from '@grag/core';
import type { EntityAnalysis, Mention } from './entities.js';
import { DESCRIPTOR_TYPES, GENERIC_KEYWORDS, WH_WORDS } from './lexicon.js';
import { isContent, spanText, type Token } from './nlp.js';
import { isVerbish } from './relations.js';

/** The words of "how …" that ask for a number: "How many", "how old", "how wide", "how deep". */
export const MEASURE_WORDS =
  /^(many|much|old|long|far|big|large|tall|high|deep|wide|heavy|thick|fast|small|short)$/;
/** The wh-phrase of a question. */
export interface QuestionTarget {
  /** Token range of the wh-phrase ("Which city"), or null when the question has no wh-word. */
  start: number;
  end: number;
  /** The wh-word, lower-cased (`'which'`), or null. */
  wh: string | null;
  /** The noun the wh-word asks for (`'city'`), or null. */
  descriptor: string | null;
  /** The entity type an answer should have (`'geo'`, `'person'`, `'date'`, ...), or null. */
  expectedType: string | null;
}

/** Nouns that are plural without an -s. */
const PLURAL_NOUNS = new Set([
  'people',
  'staff',
  'police',
  'crew',
  'folk',
  'cattle',
  'children',
  'men',
  'women',
]);

/**
 * Find the wh-phrase of a question and the entity type its answer should have: the first wh-word,
 * or with `skipRelative` the first that is no relative pronoun after a noun ("The composer *who*
 * wrote X was born on *what* date?"), when there is one.
 */
export function questionTarget(
  tokens: readonly Token[],
  options: { skipRelative?: boolean } = {},
): QuestionTarget {
  let whIndex = tokens.findIndex((t) => WH_WORDS.has(t.normal));
  if (options.skipRelative && whIndex > 0) {
    const asked = tokens.findIndex(
      (t, k) => k >= whIndex && WH_WORDS.has(t.normal) && !/^(NOUN|PROPN)$/.test(tokens[k - 1]?.pos ?? ''),
    );
    if (asked >= 0) whIndex = asked;
  }
  if (whIndex < 0) return { start: -1, end: -1, wh: null, descriptor: null, expectedType: null };
  const wh = tokens[whIndex]!.normal;
  let end = whIndex;
  let descriptor: string | null = null;
  if (wh === 'which' || wh === 'what' || wh === 'whose' || wh === 'how') {
    let k = whIndex + 1;
    if (wh === 'how' && tokens[k] && MEASURE_WORDS.test(tokens[k]!.normal)) {
      descriptor = tokens[k]!.normal;
      end = k;
      k++;
    }
    while (
      tokens[k] &&
      (tokens[k]!.pos === 'ADJ' || tokens[k]!.pos === 'NOUN' || tokens[k]!.pos === 'PROPN') &&
      !isVerbLike(tokens, k)
    ) {
      if (tokens[k]!.pos !== 'ADJ') descriptor = tokens[k]!.lemma;
      end = k;
      k++;
      // "How many people work at X": after a plural noun, a "noun" before a preposition is the verb.
      const t = tokens[k - 1]!;
      if (
        t.pos === 'NOUN' &&
        (t.normal !== t.lemma || PLURAL_NOUNS.has(t.normal)) &&
        tokens[k]?.pos === 'NOUN' &&
        /^(ADP|DET|ADV|PART)$/.test(tokens[k + 1]?.pos ?? '')
      )
        break;
    }
  }
  let expectedType: string | null = null;
  if (wh === 'who' || wh === 'whom') expectedType = 'person';
  else if (wh === 'where') expectedType = 'geo';
  else if (wh === 'when') expectedType = 'date';
  else if (wh === 'how' && descriptor && MEASURE_WORDS.test(descriptor)) expectedType = 'number';
  else if (descriptor) expectedType = DESCRIPTOR_TYPES[descriptor] ?? null;
  return { start: whIndex, end, wh, descriptor, expectedType };
}

/**
 * Whether the noun at `k` is really the verb of a question ("Which city hosts the ...", "What river
 * flows through ..."): a noun in -s after another noun and before a determiner or proper noun, or
 * before a preposition after a singular noun.
 */
export function isVerbLike(tokens: readonly Token[], k: number): boolean {
  const t = tokens[k]!;
  const next = tokens[k + 1];
  const prev = tokens[k - 1];
  return (
    !!prev &&
    prev.pos === 'NOUN' &&
    t.pos === 'NOUN' &&
    /s$/.test(t.normal) &&
    !!next &&
    (next.pos === 'DET' ||
      next.pos === 'PROPN' ||
      // "What river flows through X": after a singular noun, a preposition follows the verb.
      (next.pos === 'ADP' && prev.normal === prev.lemma && !/s$/.test(prev.normal)))
  );
}

/** Words that carry a relation: verbs, nouns, adjectives, adverbs and prepositions. */
function relationWords(tokens: readonly Token[], start: number, end: number): string {
  const kept: string[] = [];
  for (let i = start; i <= end; i++) {
    const t = tokens[i];
    if (t?.type !== 'word') continue;
    if (
      t.pos === 'DET' ||
      t.pos === 'CCONJ' ||
      t.pos === 'PRON' ||
      t.pos === 'SCONJ' ||
      WH_WORDS.has(t.normal)
    )
      continue;
    if (t.pos === 'AUX' && !/^(born|known)$/.test(t.normal)) continue;
    kept.push(t.value);
  }
  while (kept.length && /^(of|in|at|to|by|for|with|on|from)$/i.test(kept[0]!)) kept.shift();
  return kept.join(' ');
}

/** The verb run starting at `k` (after adverbs), plus a directly following preposition ("born in"). */
function verbRunAt(tokens: readonly Token[], k: number, limit: number): { text: string; end: number } | null {
  let i = k;
  while (i <= limit && tokens[i]?.pos === 'ADV') i++;
  if (i > limit || !isVerbish(tokens[i])) return null;
  let end = i;
  while (end + 1 <= limit && (isVerbish(tokens[end + 1]) || tokens[end + 1]!.pos === 'PART')) end++;
  if (end + 1 <= limit && tokens[end + 1]!.pos === 'ADP') end++;
  return { text: spanText(tokens, i, end), end };
}

/** Lower-case words that stay inside a capitalised name ("United States of America"). */
const NAME_PARTICLES = new Set([
  'of',
  'for',
  'the',
  'de',
  'du',
  'des',
  'la',
  'le',
  'del',
  'da',
  'di',
  'van',
  'von',
  'der',
]);

/** A capitalised word (or an ordinal such as "39th") that may continue a name. */
function nameWord(t: Token | undefined): boolean {
  if (!t) return false;
  if (/^\d+(st|nd|rd|th)$/i.test(t.value)) return true;
  return (t.type === 'word' || t.type === 'number') && /^[A-Z]/.test(t.value);
}

/**
 * Named mentions widened to whole capitalised names: a mention takes the capitalised words right
 * after it ("Tide" + "Can Wait") and the capitalised words or ordinals right before it
 * ("The" + "Kessler Brothers", "39th" + "Annual Merrow Awards"), outside the wh-phrase; two mentions
 * separated only by capitalised words and name particles ("of", "for", "the", "de", ...) are one
 * name ("United States" + "of" + "America"). Commas, "and" and other lower-case words keep
 * mentions apart. A widened mention gets the key `span:<start>-<end>` (no known entity).
 */
export function joinNameSpans(
  tokens: readonly Token[],
  mentions: readonly Mention[],
  wh: QuestionTarget,
): Mention[] {
  const outsideWh = (i: number) => i < wh.start || i > wh.end;
  const out: Mention[] = [];
  for (const m of mentions) {
    let start = m.start;
    let end = m.end;
    while (
      start > 0 &&
      outsideWh(start - 1) &&
      nameWord(tokens[start - 1]) &&
      !WH_WORDS.has(tokens[start - 1]!.normal)
    )
      start--;
    while (nameWord(tokens[end + 1]) && outsideWh(end + 1)) end++;
    const prev = out.at(-1);
    if (prev && prev.end >= start - 1 && prev.end < end) {
      // Overlapping or touching after widening: one name.
      out[out.length - 1] = { ...prev, end, key: `span:${prev.start}-${end}` };
      continue;
    }
    if (prev && prev.end >= end) continue;
    const gap = prev ? tokens.slice(prev.end + 1, start) : [];
    if (
      prev &&
      gap.length > 0 &&
      gap.some((t) => NAME_PARTICLES.has(t.value)) &&
      gap.every((t) => NAME_PARTICLES.has(t.value) || nameWord(t))
    ) {
      out[out.length - 1] = { ...prev, end, key: `span:${prev.start}-${end}` };
      continue;
    }
    const widened = start !== m.start || end !== m.end;
    out.push(widened ? { ...m, start, end, key: `span:${start}-${end}` } : m);
  }
  return out;
}

/**
 * SG-RAG style query graph: one unknown target node (`label: null`, `isTarget: true`) and one node
 * per named entity of the question, each linked to the target. The relation of an entity is the
 * verb right after it ("A worked" → `worked`), else the words between the previous anchor (the
 * wh-phrase or the previous entity group) and it ("borders"), else the question's main verb.
 * Coordinated entities ("A, B and C") share one relation. Edges point from the subject: the
 * entity when it is followed by its own verb or comes after "did/was", the target otherwise.
 */
export function buildQueryGraph(ea: EntityAnalysis): QueryGraph {
  const tokens = ea.analysis.tokens;
  const target = questionTarget(tokens);
  const nodes: QueryGraphNode[] = [{ id: 'target', label: null, isTarget: true }];
  const edges: QueryGraphEdge[] = [];
  const mentions = joinNameSpans(
    tokens,
    ea.bySentence
      .flat()
      .filter((m) => m.source === 'ner' || m.source === 'name')
      .sort((a, b) => a.start - b.start),
    target,
  );
  // First mention of each entity, outside the wh-phrase.
  const seen = new Set<string>();
  const firsts: Mention[] = [];
  for (const m of mentions) {
    if (seen.has(m.key) || (m.start >= target.start && m.end <= target.end)) continue;
    seen.add(m.key);
    firsts.push(m);
  }
  if (firsts.length === 0) return { nodes, edges, issues: [] };

  const last = tokens.length - 1;
  let mainVerb = '';
  for (let i = Math.max(0, target.end + 1); i <= last; i++) {
    const t = tokens[i]!;
    if (isVerbish(t) && t.pos !== 'AUX') {
      mainVerb = t.value;
      break;
    }
  }
  if (!mainVerb) mainVerb = tokens.find((t) => t.pos === 'AUX')?.value ?? '';

  // Groups of coordinated entities: only commas, "and", "or", "as well as" between them.
  const groups: Mention[][] = [];
  for (const m of firsts) {
    const group = groups[groups.length - 1];
    const prev = group?.[group.length - 1];
    if (group && prev && prev.end < m.start) {
      const gap = tokens.slice(prev.end + 1, m.start);
      if (
        gap.length > 0 &&
        gap.every(
          (t) =>
            t.normal === ',' ||
            t.normal === 'and' ||
            t.normal === 'or' ||
            t.normal === 'as' ||
            t.normal === 'well',
        )
      ) {
        group.push(m);
        continue;
      }
    }
    groups.push([m]);
  }

  const whSubject =
    target.start >= 0 && tokens[target.end + 1] !== undefined && tokens[target.end + 1]!.pos !== 'AUX';
  let anchor = target.start >= 0 && target.start < (firsts[0]?.start ?? 0) ? target.end : -1;
  let index = 0;
  for (const group of groups) {
    const first = group[0]!;
    const lastOfGroup = group[group.length - 1]!;
    const nextStart = groups[groups.indexOf(group) + 1]?.[0]?.start ?? last + 1;
    const after = verbRunAt(tokens, lastOfGroup.end + 1, Math.min(last, nextStart - 1));
    let relation: string;
    let entityIsSubject: boolean;
    if (after) {
      relation = after.text;
      entityIsSubject = true;
    } else {
      const between = relationWords(tokens, anchor + 1, first.start - 1);
      relation = between || mainVerb || 'related to';
      const beforeFirst = tokens[first.start - 1];
      entityIsSubject = !whSubject && !!beforeFirst && beforeFirst.pos === 'AUX';
    }
    for (const m of group) {
      index++;
      const id = `e${index}`;
      const info = ea.byKey.get(m.key);
      nodes.push({ id, label: info?.name ?? spanText(tokens, m.start, m.end), isTarget: false });
      edges.push(
        entityIsSubject
          ? { source: id, target: 'target', relation }
          : { source: 'target', target: id, relation },
      );
    }
    anchor = after ? after.end : lastOfGroup.end;
  }
  return { nodes, edges, issues: [] };
}

/**
 * The entities a query names: its named entities, then the lemmas of its nouns outside them (not
 * generic, not used as a verb), each once whatever its case.
 */
export function queryEntityNames(ea: EntityAnalysis): string[] {
  const out: string[] = [];
  const seen = new Set<string>();
  const push = (value: string): void => {
    const key = value.toLowerCase();
    if (!key || seen.has(key)) return;
    seen.add(key);
    out.push(value);
  };
  const inEntity = new Uint8Array(ea.analysis.tokens.length);
  for (const e of ea.entities) {
    push(e.name);
    for (const m of e.mentions) for (let i = m.start; i <= m.end; i++) inEntity[i] = 1;
  }
  const queryTokens = ea.analysis.tokens;
  for (const t of queryTokens) {
    if (inEntity[t.index] || t.pos !== 'NOUN' || !isContent(t) || GENERIC_KEYWORDS.has(t.lemma)) continue;
    if (isVerbLike(queryTokens, t.index)) continue;
    if (!/^\p{L}[\p{L}-]*$/u.test(t.lemma) || t.lemma.length < 3) continue;
    push(t.lemma);
  }
  return out;
}
