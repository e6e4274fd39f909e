/**
 * How entity linking folds a name: its words (case and diacritics folded, with their place in the
 * text), its disambiguator, and its link key, the form under which aliases meet.
 */
import { cleanEntityName } from './names.js';

/** A word of a text, folded for linking, with its place in the text. */
export interface LinkToken {
  /** Lower-cased, diacritics removed ("Phú" → "phu"). */
  key: string;
  /** Character offsets in the text: `text.slice(start, end)` is the word as written. */
  start: number;
  end: number;
  /** Whether the word as written starts with an upper-case letter or a digit. */
  capitalized: boolean;
}

const WORD = /[\p{L}\p{N}]+/gu;
const DISAMBIGUATOR = /\s*[([][^()[\]]*[)\]]$/u;

function foldWord(word: string): string {
  if (/^[\x00-\x7f]*$/.test(word)) return word.toLowerCase();
  return word
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .toUpperCase()
    .toLowerCase()
    .normalize('NFKC');
}

/** The words of `text`, folded for linking (see {@link LinkToken}). */
export function linkTokens(text: string): LinkToken[] {
  const out: LinkToken[] = [];
  for (const m of text.matchAll(WORD)) {
    const key = foldWord(m[0]);
    if (key === '') continue;
    out.push({
      key,
      start: m.index,
      end: m.index + m[0].length,
      capitalized: /^[\p{Lu}\p{Lt}\p{N}]/u.test(m[0]),
    });
  }
  return out;
}

/**
 * A name without a trailing parenthesised (or bracketed) disambiguator: "Still Waters (film)" →
 * "Still Waters". A name that is only brackets is returned cleaned.
 */
export function stripDisambiguator(name: string): string {
  const clean = cleanEntityName(name);
  const stripped = clean.replace(DISAMBIGUATOR, '').trim();
  return stripped === '' ? clean : stripped;
}

/**
 * The alias-folding key of a name: {@link cleanEntityName}, disambiguator dropped, words only
 * (punctuation is a word break), lower-cased, diacritics removed, a leading "the" dropped.
 * "The Military Museum of Phú Lương (Vietnam)" → "military museum of phu luong"; "W. D.
 * MacAlder" → "e d macalder". `''` when no word is left.
 */
export function linkKey(name: string): string {
  return cleanLinkKey(cleanEntityName(name));
}

/** {@link linkKey} of a name already cleaned by {@link cleanEntityName}. */
export function cleanLinkKey(clean: string): string {
  const words = linkTokens(clean.replace(DISAMBIGUATOR, '').trim() || clean).map((t) => t.key);
  if (words.length > 1 && words[0] === 'the') words.shift();
  return words.join(' ');
}
