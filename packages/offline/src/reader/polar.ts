/**
 * Yes/no questions about one relation, asked as the wh-question of the relation and compared: "Was A
 * born in B?" is "Where was A born?" and "yes" when the answer is B.
 */
import type { EntityAnalysis } from '../entities.js';
import { spanText, type Token } from '../nlp.js';
import { sameName } from './about.js';
import { pairedNames } from './paired.js';
import { readQuestion } from './question.js';
import type { PhraseAnswer } from './types.js';

/**
 * "Was A born in B?", "Is A married to B?": the wh-question about the relation ("Where was A
 * born?") answered from the context, and "yes" when its answer is B. null when the question is
 * no such yes/no question or the context gives no confident answer.
 */
export async function polarByRelation(
  q: string,
  entitiesOf: (text: string, full: boolean) => Promise<EntityAnalysis>,
  single: (q: string) => Promise<PhraseAnswer | null>,
  textOf: (item: number) => string = () => '',
): Promise<PhraseAnswer | null> {
  const qea = await entitiesOf(q, false);
  const tokens = qea.analysis.tokens;
  const reading = readQuestion(tokens);
  if (reading.kind !== 'polar' || reading.same || pairedNames(tokens)) return null;
  const mentions = (qea.bySentence.flat() ?? []).filter((m) => {
    const type = qea.byKey.get(m.key)?.type;
    return m.source !== 'pronoun' && type !== 'concept' && type !== undefined;
  });
  if (mentions.length < 2) return null;
  let lead = 0;
  while (lead < tokens.length && tokens[lead]!.pos === 'AUX') lead++;
  // "Is Merrow Falls the town where Hester Pellow was born?": the name first, a description
  // after it; the description asked as a question of its own, its answer against the name.
  const named = mentions.find((m) => m.start === lead);
  const described = named && describedName(tokens, named.end);
  if (named && described) {
    const sub = await single(described);
    if (!sub?.answer || !sub.confident) return null;
    const same = sameName(sub.answer, spanText(tokens, named.start, named.end));
    return { answer: same ? 'yes' : 'no', items: sub.items, confident: true };
  }
  const object = mentions.reduce((a, b) => (b.start > a.start ? b : a));
  const type = qea.byKey.get(object.key)!.type;
  const wh =
    type === 'person'
      ? 'Who'
      : type === 'geo'
        ? 'Where'
        : type === 'date'
          ? 'When'
          : type === 'number'
            ? 'How many'
            : 'What';
  const kept = tokens.filter(
    (t, k) => k >= lead && (k < object.start || k > object.end) && t.type !== 'punctuation',
  );
  const sub = await single(`${wh} ${kept.map((t) => t.value).join(' ')}?`);
  if (!sub?.answer || !sub.confident) return null;
  const asked = spanText(tokens, object.start, object.end);
  const same =
    sameName(sub.answer, asked) ||
    (type === 'geo' && sub.items.length > 0 && within(sub.answer, asked, textOf(sub.items[0]!)));
  return { answer: same ? 'yes' : 'no', items: sub.items, confident: true };
}

/**
 * "Is the arena in Maine?" over "an arena in Port Calder, Maine" (or "…, Dane County, Wisconsin"):
 * the place found lies in the one asked, which follows it after a comma.
 */
function within(place: string, region: string, text: string): boolean {
  const literal = (x: string) => x.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return new RegExp(
    `\\b${literal(place)},\\s+(?:[\\p{Lu}][\\p{L}.'-]*,?\\s+)*?${literal(region)}\\b`,
    'u',
  ).test(text);
}

const CONNECTOR_WH: Record<string, string> = {
  where: 'Where',
  when: 'When',
  who: 'Who',
  that: 'What',
  which: 'What',
};

/**
 * "Is Merrow Falls *the town where Hester Pellow was born*?": the description after the name that
 * ends at `nameEnd`, as a question of its own ("Where Hester Pellow was born?"); null when none
 * follows (a head noun, then where/when/who/that/which and a clause).
 */
export function describedName(tokens: readonly Token[], nameEnd: number): string | null {
  let k = nameEnd + 1;
  if (/^(the|a|an)$/.test(tokens[k]?.normal ?? '')) k++;
  let heads = 0;
  while (heads < 3 && /^(NOUN|ADJ)$/.test(tokens[k]?.pos ?? '') && !CONNECTOR_WH[tokens[k]!.normal]) {
    k++;
    heads++;
  }
  const wh = CONNECTOR_WH[tokens[k]?.normal ?? ''];
  let end = tokens.length - 1;
  while (end > k && tokens[end]!.type === 'punctuation') end--;
  return heads > 0 && wh && end > k + 1 ? `${wh} ${spanText(tokens, k + 1, end)}?` : null;
}
