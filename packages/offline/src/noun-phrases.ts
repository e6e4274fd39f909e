/** Salient noun phrases of a text, the "concept" entities ("harbour suite", "supermarket"). */

import type { EntityInfo, Mention } from './entities.js';
import { GENERIC_NOUNS } from './lexicon.js';
import { type Analysis, isContent, type Token } from './nlp.js';

/** Adjectives dropped from the start of a noun phrase. */
const WEAK_ADJECTIVES = new Set(
  'new old other many several various certain same own first last early late former great good best better major main such whole full'.split(
    ' ',
  ),
);

/**
 * Add the `limit` most salient noun phrases outside other mentions: runs of nouns and adjectives in
 * a sentence, cut to end on a noun, without weak leading adjectives, at most 4 words, not a lone
 * generic noun and not an existing entity's key; kept when longer than a word or repeated, ranked
 * by count (a longer phrase counts more). Each of their spans is passed to `add` as a mention.
 */
export function addNounPhrases(
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
