/**
 * What a clause says beyond its words: whether it names who did what the question asks ("… was built
 * in 1889" names no builder), and the unit a number question asks for ("…, in percent?").
 */
import type { Token } from '../nlp.js';
import { MEASURE_WORDS } from '../query.js';
import { LIFE_VERBS } from './events.js';
import type { QuestionReading } from './question.js';

/**
 * Whether sentence tokens `range` use the question's verb (`says(k)`) only in the passive with no
 * "by": "… which was built in 1889, and where Walter kept the light" names no builder, so no name
 * in it is who built. false when the verb is not said at all, or said actively or with its agent.
 */
export function namesNoAgent(
  tokens: readonly Token[],
  range: { start: number; end: number },
  says: (k: number) => boolean,
): boolean {
  let said = false;
  for (let k = range.start; k <= range.end; k++) {
    const t = tokens[k]!;
    if (t.pos === 'NOUN' || !says(k)) continue;
    said = true;
    const aux = tokens[k - 1]?.pos === 'ADV' ? tokens[k - 2] : tokens[k - 1];
    // "was built", "got built"; "the Kittiwake, built in 1971,": a participle after a comma; "a
    // barge built in 1932": a transitive verb with no object, a preposition right after it.
    const reduced =
      aux?.value === ',' || /^(in|on|at|during|around|about)$/.test(tokens[k + 1]?.normal ?? '');
    if (!aux || !(/^(be|get)$/.test(aux.lemma) || reduced)) return false;
    for (let j = k + 1; j <= Math.min(range.end, k + 8); j++) {
      if (/^[.;]$/.test(tokens[j]!.value)) break;
      if (tokens[j]!.normal === 'by') return false;
    }
  }
  return said;
}

/**
 * The unit of the number a question asks for: the noun counted ("How many shipwrights …?") or one
 * named last ("How far along is the hull, in percent?"); null when it names none.
 */
export function askedUnit(
  tokens: readonly Token[],
  reading: QuestionReading,
  countedNoun: boolean,
): string | null {
  if (countedNoun && reading.descriptor && !MEASURE_WORDS.test(reading.descriptor)) return reading.descriptor;
  let last = tokens.length - 1;
  while (last > 0 && tokens[last]!.type === 'punctuation') last--;
  return tokens[last - 1]?.normal === 'in' && tokens[last]!.pos === 'NOUN' ? tokens[last]!.lemma : null;
}

/**
 * Whether a date span stands right after a verb the question does not say (`weight(k)` 0): "(updated
 * January 2025)" dates the update, so it is no answer to when someone started.
 */
export function datesOtherVerb(
  tokens: readonly Token[],
  span: { start: number },
  range: { start: number },
  weight: (k: number) => number,
): boolean {
  const at = span.start - 1;
  const v = tokens[at];
  return (
    at >= range.start &&
    v?.pos === 'VERB' &&
    /^\p{Ll}/u.test(v.value) &&
    weight(at) === 0 &&
    !LIFE_VERBS.has(v.normal)
  );
}

/** Units of measure by what they measure. */
const UNIT_KINDS: Record<string, readonly string[]> = {
  length: 'metre meter kilometre kilometer km m cm mm mile yard foot feet inch'.split(' '),
  time: 'second minute hour day week month year decade century'.split(' '),
  weight: 'kilogram kg gram g tonne ton pound lb ounce'.split(' '),
  area: 'hectare acre'.split(' '),
  speed: 'knot mph kph'.split(' '),
  other: 'litre liter gallon percent degree storey story floor lap'.split(' '),
};
const UNITS = new Map(
  Object.entries(UNIT_KINDS).flatMap(([kind, units]) => units.map((u) => [u, kind] as const)),
);

/** What each "how …" word measures. */
const MEASURED: Record<string, readonly string[]> = {
  long: ['length', 'time'],
  far: ['length', 'time'],
  wide: ['length'],
  deep: ['length'],
  high: ['length'],
  tall: ['length'],
  short: ['length', 'time'],
  thick: ['length'],
  big: ['length', 'area'],
  large: ['length', 'area'],
  small: ['length', 'area'],
  heavy: ['weight'],
  fast: ['speed'],
};

/** The kind of unit `noun` is ("kilometres" → length), or null when it is no unit ("ferries"). */
export function unitKind(noun: Token): string | null {
  return UNITS.get(noun.lemma) ?? UNITS.get(noun.normal) ?? null;
}

/** Whether a unit of kind `kind` answers "how `measure`" ("kilometres" answer "how far", not "how heavy"). */
export function measuredIn(measure: string, kind: string): boolean {
  return MEASURED[measure]?.includes(kind) ?? false;
}
