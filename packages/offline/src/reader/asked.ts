/**
 * The noun a what/which question asks for and the entity type it wants: "which *ferry*", "what
 * river *port*", "which *vocalist*" (a person: an agent noun).
 */
import { DESCRIPTOR_TYPES } from '../lexicon.js';
import type { Token } from '../nlp.js';
import { isVerbLike } from '../query.js';
import { isKindByWordNet } from '../wordnet.js';
import { isAgentNoun } from './meaning.js';

/**
 * A past tense the tagger read as a noun after the noun asked for: "Which actor *starred* with X",
 * "which ship *carried* the mail" (an "-ed" word after a noun, before a preposition or determiner).
 */
function pastTenseRead(tokens: readonly Token[], k: number): boolean {
  const t = tokens[k]!;
  const next = tokens[k + 1];
  return (
    tokens[k - 1]?.pos === 'NOUN' &&
    t.pos === 'NOUN' &&
    /^\p{Ll}.{2,}[^e]ed$/u.test(t.value) &&
    !!next &&
    /^(ADP|DET|PROPN|PRON)$/.test(next.pos)
  );
}

/**
 * The entity type a noun asks for: the lexicon's, else a person for an agent noun ("vocalist"), else
 * a place for a noun whose first WordNet sense is a region ("suburb", "borough", "hometown").
 */
export function descriptorType(noun: string): string | null {
  return (
    DESCRIPTOR_TYPES[noun] ??
    (isAgentNoun(noun) ? 'person' : isKindByWordNet(noun, 'region', 1) ? 'geo' : null)
  );
}

/** The last noun of the adjectives and nouns from token `k` ("which *ferry*", "what river *port*"). */
export function nounAfterWh(
  tokens: readonly Token[],
  k: number,
): { noun: string | null; plural: boolean; kindEnd?: number } {
  let noun: string | null = null;
  let plural = false;
  // "Which Arctic Tern album …": a name before the noun modifies it.
  let named = k;
  while (tokens[named]?.pos === 'PROPN') named++;
  if (named > k && tokens[named]?.pos === 'NOUN' && !/^\p{Lu}/u.test(tokens[named]!.value)) k = named;
  for (
    let i = k;
    tokens[i] &&
    (tokens[i]!.pos === 'ADJ' || tokens[i]!.pos === 'NOUN') &&
    !isVerbLike(tokens, i) &&
    !pastTenseRead(tokens, i);
    i++
  ) {
    if (tokens[i]!.pos !== 'NOUN') continue;
    noun = tokens[i]!.lemma;
    plural = tokens[i]!.normal !== noun && /s$/.test(tokens[i]!.normal);
    // "What kind of bird …", "which breed of dog": the answer is a kind of bird, of dog.
    if (KIND_NOUNS.has(noun) && tokens[i + 1]?.normal === 'of') {
      let j = i + 2;
      while (tokens[j]?.pos === 'DET') j++;
      const inner = nounAfterWh(tokens, j);
      // The wh-phrase runs to the noun after "of" (the answer's sentence need not say "bird").
      if (inner.noun) return { ...inner, kindEnd: inner.kindEnd ?? lastNoun(tokens, j) };
    }
  }
  return { noun, plural };
}

/** The last noun of the run of adjectives and nouns from `k`. */
function lastNoun(tokens: readonly Token[], k: number): number {
  let end = k;
  for (let i = k; tokens[i] && (tokens[i]!.pos === 'ADJ' || tokens[i]!.pos === 'NOUN'); i++)
    if (tokens[i]!.pos === 'NOUN') end = i;
  return end;
}

/** Nouns that ask for a kind of the noun after "of": "what kind of bird", "which breed of dog". */
export const KIND_NOUNS: ReadonlySet<string> = new Set([
  'kind',
  'type',
  'sort',
  'form',
  'variety',
  'breed',
  'species',
]);
