/**
 * Where a relative clause of a question ends ("the shipyard that built the Orsa | founded …"), and
 * whether a name after a noun opens a clause without "that" ("the academy Harrow Vane attended").
 */
import type { Token } from '../nlp.js';

const CLAUSE_BREAK = /^[?,;:—–]$|^--$/;
/** Prepositions a participle clause takes its object with ("built *by* …", "based *in* …"). */
export const PARTICIPLE_LINKS = new Set(['by', 'to', 'in', 'at', 'from', 'for', 'with', 'on', 'as', 'after']);

export const isWord = (t: Token | undefined): boolean => !!t && (t.type === 'word' || t.type === 'number');
export const isCapital = (t: Token | undefined): boolean =>
  !!t && isWord(t) && /^[\p{Lu}\p{N}]/u.test(t.value);

/** Whether a noun names a person: "man", "someone", a relative ("sister"), a role ("director"). */
/**
 * "the academy *Harrow Vane attended*" without "that": a name at `k` and a verb in the past or in
 * -s right after it, in a question whose main verb comes after the clause ("… attended *founded*")
 * or takes the phrase as its object ("Who runs the yard Mira works at?"). A name and a verb right
 * after a noun are else the noun's name and the main verb ("Was the film Glass Harbour shot …").
 */
export function objectRelative(tokens: readonly Token[], k: number): boolean {
  let i = k;
  while (i < tokens.length && isCapital(tokens[i])) i++;
  // "the label X *was released* on": a passive after the name.
  const passive = tokens[i]?.pos === 'AUX' && /^(is|was|are|were)$/.test(tokens[i]!.normal);
  // "the country *Kessa is in*", "the city X is from": a copula and a stranded preposition, then
  // the question's end or its main verb.
  // ("Which country X is from?" asks it: the noun after "which" is no description.)
  const after = tokens[i + 2];
  if (
    passive &&
    !/^(which|what)$/.test(tokens[k - 2]?.normal ?? '') &&
    tokens[i + 1]?.pos === 'ADP' &&
    (!after ||
      after.type === 'punctuation' ||
      after.pos === 'VERB' ||
      after.pos === 'AUX' ||
      // ("When did the country X is in *gain* independence?": after "did", whatever the tagger says.)
      (after.normal === after.lemma && tokens.slice(0, k).some((t) => t.pos === 'AUX' && t.lemma === 'do')))
  )
    return true;
  if (passive) i++;
  const verb = tokens[i];
  if (verb?.pos !== 'VERB' || verb.normal === verb.lemma) return false;
  if (passive && !PARTICIPLE_LINKS.has(tokens[i + 1]?.normal ?? '')) return false;
  const before = tokens[k - 3];
  if (before && (before.pos === 'ADP' || (before.pos === 'VERB' && !misreadVerb(tokens, k - 3)))) return true;
  for (let j = i + 1; j < tokens.length; j++) {
    // ("… was born in *lies* on …": after a stranded preposition a verb not in -ing is the main one.)
    if (tokens[j]!.pos === 'VERB' && (tokens[j - 1]?.pos !== 'ADP' || !/ing$/.test(tokens[j]!.normal)))
      return true;
    if (tokens[j]!.type === 'punctuation') break;
  }
  return false;
}

/** A name at `k` followed within two tokens by a verb: the subject of a clause without "that". */
export function reducedRelative(tokens: readonly Token[], k: number): boolean {
  let i = k;
  while (i < tokens.length && isCapital(tokens[i])) i++;
  for (let j = i; j < Math.min(tokens.length, i + 2); j++) {
    const t = tokens[j]!;
    if (t.pos === 'VERB') return true;
    if (t.pos !== 'AUX' && t.pos !== 'ADV') return false;
  }
  return false;
}

/**
 * Last token of a clause starting at `k`: its verb group, then its object or complement (a name, a
 * noun phrase, with "of"/possessive links), stopping at punctuation or at a verb that follows the
 * object (the main clause's: "the shipyard that built the Orsa *founded*").
 */
/**
 * Whether the "verb" at `i` is a noun the tagger misread: after a possessive ("Merrow's hull team"),
 * a determiner ("the hull") or a preposition ("in charge of").
 */
export function misreadVerb(tokens: readonly Token[], i: number): boolean {
  const t = tokens[i]!;
  const prev = tokens[i - 1];
  if (t.pos !== 'VERB' || !prev) return false;
  return /^['’]s?$/.test(prev.value) || prev.pos === 'DET' || (prev.pos === 'ADP' && !/ing$/.test(t.normal));
}

export function clauseEnd(tokens: readonly Token[], k: number): number {
  const doSupport = tokens.slice(0, k).some((x) => x.pos === 'AUX' && x.lemma === 'do');
  let i = k;
  let sawVerb = false;
  let sawObject = false;
  let end = -1;
  for (; i < tokens.length; i++) {
    const t = tokens[i]!;
    if (CLAUSE_BREAK.test(t.value) || t.value === '?') break;
    // "Merrow Falls": a capitalised "verb" after a capitalised word goes on with the name; "the city
    // X was born in *lies* on …": an inflected verb after the clause's stranded preposition is the
    // main clause's, not a noun the tagger misread.
    // After "did", so is a bare word there when the clause's subject came before its verb ("When did
    // the country X is from *become* …", "… X is in *gain* …"; not "the man who lives in *town*").
    const afterStranded =
      sawVerb &&
      tokens[i - 1]?.pos === 'ADP' &&
      (t.normal !== t.lemma || (doSupport && sawObject && /^(VERB|NOUN)$/.test(t.pos))) &&
      !/ing$/.test(t.normal);
    if (afterStranded && t.pos === 'NOUN') break;
    const nominal =
      !afterStranded && (misreadVerb(tokens, i) || (i > k && isCapital(t) && isCapital(tokens[i - 1])));
    // "the woman that starred in X *married* to?": a participle the tagger reads as an adjective
    // after the clause's verb and object is the main clause's.
    if (sawVerb && sawObject && t.pos === 'ADJ' && /ed$/.test(t.normal) && tokens[i + 1]?.pos === 'ADP')
      break;
    // "that *starred* in X": a past tense right after the relative, read as a noun, is its verb.
    const pastRead = i === k && t.pos === 'NOUN' && /[^e]ed$/.test(t.normal);
    if (((t.pos === 'VERB' || t.pos === 'AUX') && !nominal) || pastRead) {
      // A verb after the object closes the clause ("that built the Orsa *founded*"); a clause whose
      // subject comes first takes its verb after it ("where her mother *works*").
      // "was built": a participle after its auxiliary is the same verb.
      const group = tokens[i - 1]?.pos === 'AUX' && t.pos === 'VERB';
      // "who starred in X *and grew* up in Y": a second inflected verb of the clause.
      const coordinated =
        t.pos === 'VERB' &&
        tokens[i - 1]?.normal === 'and' &&
        t.normal !== t.lemma &&
        !/ing$/.test(t.normal) &&
        sawVerb;
      if (coordinated) {
        sawObject = false;
        end = i;
        continue;
      }
      if (sawObject && sawVerb && !group) break;
      // "the country where X is located *gain* independence": a verb's base form right after a
      // verb group is the main clause's (the clause has no object to wait for).
      if (sawVerb && !group && t.pos === 'VERB' && t.normal === t.lemma && tokens[i - 1]?.pos === 'VERB')
        break;
      sawVerb = true;
      end = i;
      continue;
    }
    // "When did the country where X is located *gain* independence?": after "did", a bare word
    // right after the clause's verb group is the main verb, whatever the tagger read it as.
    if (
      sawVerb &&
      doSupport &&
      t.pos === 'NOUN' &&
      t.normal === t.lemma &&
      tokens[i - 1]?.pos === 'VERB' &&
      tokens[i - 2]?.pos === 'AUX'
    )
      break;
    // "Who did the man who founded the club *work* for?": after "did", a bare word between the
    // clause's object and a stranded final preposition is the main verb, however it is tagged.
    if (
      sawVerb &&
      sawObject &&
      doSupport &&
      t.pos === 'NOUN' &&
      t.normal === t.lemma &&
      (tokens[i + 1]?.value === '?' || (tokens[i + 1]?.pos === 'ADP' && tokens[i + 2]?.value === '?'))
    )
      break;
    if (!sawVerb && (t.pos === 'PRON' || t.pos === 'ADV' || t.pos === 'PART')) {
      end = i;
      continue;
    }
    // "What town is the coach of the team based at X *from*?": a preposition stranded at the end,
    // after the clause's verb, preposition and object, is the main clause's.
    const stranded =
      t.pos === 'ADP' && tokens[i + 1]?.value === '?' && sawVerb && sawObject && tokens[end]?.pos !== 'ADP';
    if (stranded && tokens.slice(k, i).some((x) => x.pos === 'ADP')) break;
    if (isWord(t) || /^['’]s?$/.test(t.value) || /^["“”]$/.test(t.value)) {
      if (/^(NOUN|PROPN|NUM|ADJ|PRON)$/.test(t.pos) || isCapital(t) || nominal) sawObject = true;
      end = i;
      continue;
    }
    break;
  }
  return sawVerb || sawObject ? end : -1;
}
