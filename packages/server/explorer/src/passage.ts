/**
 * Where an item's text sits in its source document. Methods quote passages with a header (E2GraphRAG
 * writes the document id on a line before the chunk) or rebuild them from sentences (NodeRAG's
 * semantic units), so the item text is looked up whole, then without its first lines, then sentence
 * by sentence.
 */

/** Sentences shorter than this are not looked up alone (too likely to match by chance). */
const MIN_SENTENCE = 20;

/** Ranges `[start, end)` of `text` that `passage` quotes, ascending and disjoint; none when nothing matches. */
export function quotedRanges(text: string, passage: string): [number, number][] {
  const whole = passage.trim();
  if (!whole) return [];
  let rest = whole;
  for (let dropped = 0; dropped <= 3; dropped++) {
    const at = text.indexOf(rest);
    if (at >= 0 && rest.length >= Math.min(MIN_SENTENCE, whole.length)) return [[at, at + rest.length]];
    const newline = rest.indexOf('\n');
    if (newline < 0) break;
    rest = rest.slice(newline + 1).trim();
  }
  const ranges: [number, number][] = [];
  let from = 0;
  for (const sentence of whole.split(/(?<=[.!?])\s+|\n+/)) {
    const s = sentence.trim();
    if (s.length < MIN_SENTENCE) continue;
    const at = text.indexOf(s, from);
    if (at < 0) continue;
    ranges.push([at, at + s.length]);
    from = at + s.length;
  }
  return ranges;
}
