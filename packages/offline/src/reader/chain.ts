/**
 * Relation chains in questions: "the founder of X", "X's father", "the paternal grandfather
 * of X", "X's mother-in-law". A chain names an entity the question does not name (the bridge); the
 * answer task resolves it from the context and asks the rest of the question about it.
 */
import { DESCRIPTOR_TYPES } from '../lexicon.js';
import { spanText, type Token } from '../nlp.js';
import { isKindByWordNet } from '../wordnet.js';
import { KIND_NOUNS } from './asked.js';
import { isCapital } from './clause-end.js';
import { bodyRelation, inLaw, kin, kinNoun, type Relation, relationOf } from './kinship.js';

export type { Relation } from './kinship.js';

/** A relation phrase of a question, resolved innermost first. */
export interface RelationPhrase {
  /** Token range of the whole phrase ("the founder of the X", "X's father"). */
  start: number;
  end: number;
  /** Relations from the subject outwards ("paternal grandfather" → parent, parent). */
  relations: Relation[];
  /** The named entity the chain starts from, as the question writes it. */
  subject: string;
  /**
   * The kinship noun of a chain of two or more relations, when a text may say it outright ("my
   * grandfather Walter", "his aunt, Marit"): tried before the chain step by step.
   */
  noun?: string;
}

/** Lower-case words allowed inside a name when a capitalised word follows ("Battle of X"). */
export const NAME_JOINERS = new Set(
  'of the de la le les von van der den del della di du des da do dos das y e and & for on in at a an to'.split(
    ' ',
  ),
);
export const POSSESSIVE = /^['’][sS]$/;

/** Most common nouns typing the subject ("the director of *film* X", "of the *song* Y"). */
const MAX_TYPE_WORDS = 3;

const isQuote = (t: Token | undefined): boolean => !!t && /^["“”'‘’]$/.test(t.value);

/** End of a name starting at `k` (capitalised words, joiners between them, symbols inside). */
export function nameEnd(tokens: readonly Token[], k: number): number {
  let end = -1;
  for (let i = k; i < tokens.length; i++) {
    const t = tokens[i]!;
    if (isCapital(t) || (isQuote(t) && i === k)) end = i;
    else if (POSSESSIVE.test(t.value) && isCapital(tokens[i + 1])) continue;
    // A lower-case "and" coordinates two names ("founder of yards A and B"); title-cased names
    // write theirs with a capital.
    else if (t.type === 'word' && t.value !== 'and' && NAME_JOINERS.has(t.normal) && isCapital(tokens[i + 1]))
      continue;
    else if (t.type === 'punctuation' || t.type === 'symbol' || t.pos === 'SYM' || t.pos === 'PUNCT') {
      if (/^[?!]$/.test(t.value)) break;
      // A comma or stop ends the name unless a capitalised word goes on ("Edmund of Skarn, Lord of …").
      if (!isCapital(tokens[i + 1]) && !/^[()'’"“”]$/.test(t.value)) break;
      // A closing bracket belongs to the name ("Salt Wind (Film)").
      if (t.value === ')' && end >= 0) end = i;
    } else break;
  }
  return end;
}

/** Start of a name ending at `k`, read leftwards. */
function nameStart(tokens: readonly Token[], k: number): number {
  let start = -1;
  for (let i = k; i >= 0; i--) {
    const t = tokens[i]!;
    if (isCapital(t)) start = i;
    else if (t.type === 'word' && NAME_JOINERS.has(t.normal) && isCapital(tokens[i - 1])) continue;
    else if (t.type !== 'word' && t.type !== 'number' && isCapital(tokens[i - 1]) && !/^[?!.]$/.test(t.value))
      continue;
    else break;
  }
  // A question word or auxiliary is not part of the name ("Who is X's father", "Is X's …").
  while (
    start >= 0 &&
    start <= k &&
    /^(who|whom|whose|what|which|where|when|how|is|was|are|were|did|does|do)$/.test(tokens[start]!.normal)
  )
    start++;
  return start <= k ? start : -1;
}

const MOTHER_WORDS = /^(mother|mum|mom|mama|maternal)$/;
const FATHER_WORDS = /^(father|dad|papa|paternal)$/;

/**
 * A family side after a relation noun ending at `end`: "on her mother's side", "on the paternal
 * side", "through his dad", "on the father's side": the parent's gender and the side's last token.
 */
function sideAfter(tokens: readonly Token[], end: number): { gender: 'male' | 'female'; end: number } | null {
  // Raw words: wink normalises "through" to "thru".
  const first = tokens[end + 1]?.value.toLowerCase();
  if (first !== 'on' && first !== 'through' && first !== 'via') return null;
  for (let j = end + 2; j <= Math.min(tokens.length - 1, end + 5); j++) {
    const w = tokens[j]!.value.toLowerCase();
    const gender = MOTHER_WORDS.test(w) ? 'female' : FATHER_WORDS.test(w) ? 'male' : null;
    if (!gender) {
      if (/^(her|his|their|the|my|your|'s|’s)$/.test(w) || /^['’]s?$/.test(tokens[j]!.value)) continue;
      return null;
    }
    let last = j;
    if (/^['’]s?$/.test(tokens[last + 1]?.value ?? '')) last++;
    if (tokens[last + 1]?.value.toLowerCase() === 'side') last++;
    else if (first === 'on') return null;
    return { gender, end: last };
  }
  return null;
}

/** The relation noun at `k` with its -in-law suffix and side adjective: relations and last token. */
function relationAt(
  tokens: readonly Token[],
  k: number,
): { relations: Relation[]; end: number; start: number; noun?: string } | null {
  const t = tokens[k]!;
  if (t.type !== 'word' || (t.pos !== 'NOUN' && t.pos !== 'PROPN' && t.pos !== 'ADJ' && t.pos !== 'VERB'))
    return null;
  // Relation words are common nouns: a capitalised one belongs to a name ("Son of Saul").
  if (isCapital(t)) return null;
  let relations: Relation[] | null = null;
  let end = k;
  const lemma = t.lemma;
  let sided = false;
  if (
    tokens[k + 1]?.value === '-' &&
    tokens[k + 2]?.normal === 'in' &&
    tokens[k + 3]?.value === '-' &&
    /^laws?$/.test(tokens[k + 4]?.normal ?? '')
  ) {
    relations = inLaw(lemma);
    end = k + 4;
  } else if (/-in-laws?$/.test(t.normal)) {
    relations = inLaw(t.normal.replace(/-in-laws?$/, ''));
  } else relations = relationOf(lemma) ?? relationOf(t.normal.replace(/s$/, ''));
  let bodyStart = k;
  if (!relations && tokens[k - 1]?.pos === 'NOUN' && !isCapital(tokens[k - 1])) {
    // "the production company of X": the company that produced X.
    relations = bodyRelation(tokens[k - 1]!.lemma, lemma);
    bodyStart = k - 1;
  }
  // "the home city of X", "X's home town": where X is based, born or lives.
  if (!relations && tokens[k - 1]?.lemma === 'home' && DESCRIPTOR_TYPES[lemma] === 'geo') {
    relations = [{ kind: 'role', noun: lemma, verbs: ['base', 'bear', 'live'] }];
    bodyStart = k - 1;
  }
  if (!relations) return null;
  // "… on her mother's side", "… through his dad", "… on the paternal side": the first parent.
  const after = sideAfter(tokens, end);
  if (after && relations.length >= 2 && relations[0]!.kind === 'kin' && relations[0]!.base === 'parent') {
    relations = [kin('parent', after.gender), ...relations.slice(1)];
    end = after.end;
    sided = true;
  }
  let start = bodyStart;
  const side = tokens[k - 1]?.normal;
  if (
    (side === 'paternal' || side === 'maternal') &&
    relations.length >= 2 &&
    relations[0]!.kind === 'kin' &&
    relations[0]!.base === 'parent'
  ) {
    relations = [kin('parent', side === 'paternal' ? 'male' : 'female'), ...relations.slice(1)];
    start = k - 1;
    sided = true;
  }
  // A kinship noun of several steps, said as one word (a side named restricts it: not one word).
  const whole =
    !sided && end === k && relations.length > 1 && relations.every((r) => r.kind === 'kin')
      ? kinNoun(lemma)
      : null;
  return { relations, end, start, ...(whole ? { noun: whole } : {}) };
}

/**
 * The innermost relation phrase of a question: "the R of [type nouns] Name" or "Name's R", whose
 * subject is a name (not another relation). null when the question has none.
 */
export function findRelationPhrase(tokens: readonly Token[]): RelationPhrase | null {
  for (let k = tokens.length - 1; k >= 0; k--) {
    const rel = relationAt(tokens, k);
    // A plural ("the directors of films A and B") relates several subjects: not a chain.
    if (!rel || (rel.end === k && tokens[k]!.normal !== tokens[k]!.lemma && /s$/.test(tokens[k]!.normal)))
      continue;
    // "the R of … Name"
    if (tokens[rel.end + 1]?.normal === 'of') {
      let i = rel.end + 2;
      if (tokens[i]?.pos === 'DET' && !isCapital(tokens[i])) i++;
      let typeWords = 0;
      // "the director of the 2004 film X": a year before the type noun types it too.
      if (tokens[i]?.type === 'number' && tokens[i + 1]?.type === 'word' && !isCapital(tokens[i + 1])) i++;
      while (
        typeWords < MAX_TYPE_WORDS &&
        tokens[i]?.type === 'word' &&
        !isCapital(tokens[i]) &&
        (tokens[i]!.pos === 'NOUN' || tokens[i]!.pos === 'ADJ') &&
        // "the mother of X" inside is a relation of its own; "the thriller X" only types X.
        !(relationAt(tokens, i) && !isCapital(tokens[i + 1]))
      ) {
        i++;
        typeWords++;
      }
      // "the producer of the debut album of X", "… of X's debut album": the thing the subject's noun
      // names is found first.
      const owned = ownedPhrase(tokens, rel.end + 2, i, typeWords);
      if (owned) return owned;
      const end = isCapital(tokens[i]) || isQuote(tokens[i]) ? nameEnd(tokens, i) : -1;
      if (end >= i) {
        let start = rel.start;
        // "the record label of X", "the film director of X", "the administrative centre of X": a
        // noun or an adjective before the relation noun belongs to the phrase.
        for (
          let n = 0;
          n < 2 && /^(NOUN|ADJ)$/.test(tokens[start - 1]?.pos ?? '') && !isCapital(tokens[start - 1]);
          n++
        )
          start--;
        if (tokens[start - 1]?.pos === 'DET' && (!isCapital(tokens[start - 1]) || start === 1)) start--;
        let last = end;
        // After "did", the word ending the question is its bare main verb ("Where did the composer
        // of X study?"), whatever the tagger says.
        const did = tokens.slice(0, start).some((t) => t.pos === 'AUX' && t.lemma === 'do');
        // "the organist of the Merrow Falls concert hall": the name modifies the nouns after it,
        // which are the subject's head.
        while (
          last - end < 3 &&
          tokens[last + 1]?.pos === 'NOUN' &&
          tokens[last + 1]!.type === 'word' &&
          !isCapital(tokens[last + 1]) &&
          !(did && (tokens[last + 2] === undefined || tokens[last + 2]!.type === 'punctuation'))
        )
          last++;
        let subject = cleanName(spanText(tokens, i, last));
        // "the mother of Marit and Teodor Vance": the relation of both, asked of the first with
        // the surname they share ("Marit Vance").
        if (last === end && tokens[end + 1]?.normal === 'and' && isCapital(tokens[end + 2])) {
          const other = nameEnd(tokens, end + 2);
          const second = cleanName(spanText(tokens, end + 2, other)).split(' ');
          if (other > end + 1 && second.length > 1 && !subject.includes(' ')) {
            subject = `${subject} ${second[second.length - 1]}`;
            last = other;
          }
        }
        return {
          start,
          end: last,
          relations: rel.relations,
          subject,
          ...(rel.noun ? { noun: rel.noun } : {}),
        };
      }
    }
    // "Name's R", "Name's yard R": lower-case nouns between the possessive and the relation
    // ("the Quillon Shipyard's yard manager").
    let p = rel.start - 1;
    for (let n = 0; n < 2 && p > 1 && tokens[p]!.pos === 'NOUN' && !isCapital(tokens[p]); n++) p--;
    if (p >= 1 && /^['’]s$|^['’]$/.test(tokens[p]!.value)) {
      const s = nameStart(tokens, p - 1);
      if (s >= 0) {
        return {
          start: s,
          end: rel.end,
          relations: rel.relations,
          subject: cleanName(spanText(tokens, s, p - 1)),
          ...(rel.noun ? { noun: rel.noun } : {}),
        };
      }
    }
  }
  return topOwned(tokens);
}

/** Nouns of a value, not a thing, that WordNet files under neither attribute nor measure. */
const VALUE_NOUNS = new Set(['population', 'name', 'nickname', 'title', 'area']);

/**
 * "Where was the debut album of X recorded?", "When did X's home ground open?": a thing a name owns,
 * asked something of itself, is found first. Not a value ("the population of X", "X's height"), not
 * several things ("X's plays"), and not when it is all that is asked ("What is X's debut album?").
 */
function topOwned(tokens: readonly Token[]): RelationPhrase | null {
  for (let k = 1; k < tokens.length - 2; k++) {
    const definite = tokens[k]!.normal === 'the';
    if (!definite && !isCapital(tokens[k])) continue;
    let i = definite ? k + 1 : k;
    let typeWords = 0;
    while (
      definite &&
      typeWords < MAX_TYPE_WORDS &&
      tokens[i]?.type === 'word' &&
      !isCapital(tokens[i]) &&
      /^(NOUN|ADJ)$/.test(tokens[i]!.pos)
    ) {
      i++;
      typeWords++;
    }
    const owned = ownedPhrase(tokens, k, i, typeWords);
    if (!owned) continue;
    const relation = owned.relations[0]!;
    const head = relation.kind === 'role' ? relation.noun : '';
    if (VALUE_NOUNS.has(head) || isKindByWordNet(head, 'attribute', 2) || isKindByWordNet(head, 'measure', 2))
      return null;
    const rest = tokens.filter(
      (t, j) =>
        (j < owned.start || j > owned.end) &&
        t.type === 'word' &&
        !/^(what|which|who|is|was|the|called|named|known)$/.test(t.normal),
    );
    return rest.length > 0 ? owned : null;
  }
  return null;
}

/**
 * The subject of a relation when it is itself a thing a name owns: "the debut album of X" (type words
 * `from..to-1`, then "of" and a name) or "X's debut album" (a name at `to`, its possessive, then
 * lower-case words ending in a noun): a role of the noun, to be resolved from X first. Not a place
 * ("the city of X" is X), and not "the kind of …".
 */
function ownedPhrase(
  tokens: readonly Token[],
  from: number,
  to: number,
  typeWords: number,
): RelationPhrase | null {
  // One thing: "X's plays" are several.
  const role = (head: Token | undefined): Relation[] | null =>
    head?.pos === 'NOUN' &&
    !(head.normal !== head.lemma && /s$/.test(head.normal)) &&
    !DESCRIPTOR_TYPES[head.lemma] &&
    !KIND_NOUNS.has(head.lemma)
      ? [{ kind: 'role', noun: head.lemma, verbs: [] }]
      : null;
  if (typeWords > 0 && tokens[to]?.normal === 'of') {
    let n = to + 1;
    if (tokens[n]?.pos === 'DET' && !isCapital(tokens[n])) n++;
    const end = isCapital(tokens[n]) || isQuote(tokens[n]) ? nameEnd(tokens, n) : -1;
    const relations = role(tokens[to - 1]);
    if (end >= n && relations)
      return { start: from, end, relations, subject: cleanName(spanText(tokens, n, end)) };
    return null;
  }
  const end = isCapital(tokens[to]) || isQuote(tokens[to]) ? nameEnd(tokens, to) : -1;
  if (end < to || !POSSESSIVE.test(tokens[end + 1]?.value ?? '')) return null;
  let last = end + 1;
  while (
    last - end < 4 &&
    tokens[last + 1]?.type === 'word' &&
    !isCapital(tokens[last + 1]) &&
    /^(NOUN|ADJ)$/.test(tokens[last + 1]!.pos)
  )
    last++;
  const relations = last > end + 1 ? role(tokens[last]) : null;
  if (!relations) return null;
  return { start: to, end: last, relations, subject: cleanName(spanText(tokens, to, end)) };
}

export const cleanName = (s: string): string =>
  s
    .replace(/^[\s"'“”‘’,]+|[\s"'“”‘’,]+$/gu, '')
    .replace(/\s+/g, ' ')
    .trim();
