/**
 * Names that run on over small words: titles of works and names of bodies ("Institute for the Study
 * of Northern Arts", "Songs from the Lower Harbour", "Salt and the Sea").
 */
import type { Token } from '../nlp.js';

/** Small words a title or a body's name runs on over ("of", "for the", "and the"). */
const TITLE_LINKS = new Set('of for from de la du del von van'.split(' '));
/** …and "and", before "the" ("Salt and the Sea"). */
const TITLE_LINKS_BEFORE_THE = new Set([...TITLE_LINKS, 'and']);
const MONTH_NAMES =
  /^(january|february|march|april|may|june|july|august|september|october|november|december)$/;

/**
 * The title a name at tokens `start..end` may belong to: its first token, and its last after each
 * step forwards (none when it goes on over nothing). Small words and more
 * capitalised ones after it ("Institute" → "Institute for the Study of Northern Arts"), and a
 * capitalised word and small words before it ("Lower Harbour" → "Songs from the Lower Harbour").
 * "and" joins only before "the" ("Salt and the Sea"): "A and B" are mostly two names; "in", "at"
 * not at all ("German at the Institute", "an academy in Kessling": a thing and where it is).
 */
export function titleRange(
  tokens: readonly Token[],
  start: number,
  end: number,
  first: number,
  last: number,
): { start: number; ends: number[] } {
  const capital = (k: number): boolean =>
    k > first &&
    k <= last &&
    tokens[k]!.type === 'word' &&
    /^\p{Lu}/u.test(tokens[k]!.value) &&
    !MONTH_NAMES.test(tokens[k]!.normal);
  const link = (k: number): boolean => TITLE_LINKS.has(tokens[k]?.normal ?? '');
  const linkOrAnd = (k: number): boolean => TITLE_LINKS_BEFORE_THE.has(tokens[k]?.normal ?? '');
  const the = (k: number): boolean => tokens[k]?.normal === 'the';
  /** The capitalised word past the small words that start at `k` (going `step`), or -1. */
  const linkedAt = (k: number, step: 1 | -1): number => {
    // (Backwards, "X of <name>" mostly says what the name is of: "Minister of Culture of Veldmark".)
    if (link(k) && capital(k + step) && !(step === -1 && tokens[k]!.normal === 'of')) return k + step;
    const twoWords = step === 1 ? linkOrAnd(k) && the(k + 1) : the(k) && linkOrAnd(k - 1);
    return twoWords && capital(k + 2 * step) ? k + 2 * step : -1;
  };
  const ends: number[] = [];
  const ofInside = tokens.slice(start, end + 1).some((t) => t.normal === 'of');
  let e = end;
  for (let at = linkedAt(e + 1, 1); at > 0 && e - end < 12; at = linkedAt(e + 1, 1)) {
    // A second plain "of" mostly says where ("Minister of Culture of Veldmark").
    if ((ends.length > 0 || ofInside) && tokens[e + 1]!.normal === 'of' && !the(e + 2)) break;
    e = at;
    while (capital(e + 1)) e++;
    ends.push(e);
  }
  let s = start;
  for (let at = linkedAt(s - 1, -1); at > 0 && end - s < 12; at = linkedAt(s - 1, -1)) {
    s = at;
    while (capital(s - 1) && tokens[s - 1]!.pos !== 'DET') s--;
  }
  return { start: s, ends };
}
