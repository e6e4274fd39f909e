/**
 * Places in addresses: "Tacoma, Washington", "Estmark, Norway" name the smaller place first, and a
 * country question is answered with a country the tables know.
 */
import { spanText, type Token } from '../nlp.js';
import { isCountryName } from './countries.js';
import type { QuestionReading } from './question.js';
import type { Span } from './spans.js';

/** Place kinds that a larger place contains, and larger places, as English addresses order them. */
const SMALL_PLACES = new Set(
  'city town village suburb neighborhood neighbourhood borough hamlet municipality'.split(' '),
);
const LARGE_PLACES = new Set('state province country region territory prefecture nation'.split(' '));

/**
 * "Tacoma, Washington", "Sudbury, Ontario": an address names the smaller place first. Asked for a
 * city, the part before a comma and another name fits; asked for a state or province, the part
 * after, unless that part is a country. Asked for a country, a name the country tables know.
 */
export function addressPart(reading: QuestionReading, tokens: readonly Token[], span: Span): number {
  const kind = reading.descriptor;
  if (reading.kind !== 'place' || !kind || !(SMALL_PLACES.has(kind) || LARGE_PLACES.has(kind))) return 1;
  // "Which country …": a name the country tables know is one; another name may be a river or a city.
  if (kind === 'country' || kind === 'nation') return isCountryName(span.text) ? 1.5 : 0.5;
  // A city or town is no country.
  if (SMALL_PLACES.has(kind) && isCountryName(span.text)) return 0.5;
  const larger = tokens[span.end + 1]?.value === ',' && /^\p{Lu}/u.test(tokens[span.end + 2]?.value ?? '');
  const smaller =
    tokens[span.start - 1]?.value === ',' && /^\p{Lu}/u.test(tokens[span.start - 2]?.value ?? '');
  if (!SMALL_PLACES.has(kind)) {
    // A province is no country ("state" is both: "Georgia"), and comes before its country
    // ("Ontario, Canada").
    if (kind !== 'state' && isCountryName(span.text)) return 0.5;
    if (larger) {
      let e = span.end + 2;
      while (/^\p{Lu}/u.test(tokens[e + 1]?.value ?? '')) e++;
      if (isCountryName(spanText(tokens, span.end + 2, e))) return 1;
    }
  }
  if (larger === smaller) return 1;
  return larger === SMALL_PLACES.has(kind) ? 1 : 0.5;
}
