/**
 * A relation phrase of a question replaced by the name it resolved to ("Where was the director of
 * X born?" → "Where was Y born?"), and whether the phrase was all the question asked.
 */
import { DESCRIPTOR_TYPES } from '../lexicon.js';
import { spanText, type Token } from '../nlp.js';
import type { RelationPhrase } from './chain.js';
import { clauseEnd } from './clause-end.js';
import { replaceSpan } from './decompose.js';
import { isPlaceRole } from './kinship.js';

/**
 * The question with a relation phrase replaced by the entity it names: "Where was the founder of
 * the X born?" → "Where was Y born?". `whole` is true when nothing but a wh-word and a copula is
 * left ("Who is the father of X?"): the entity is the answer.
 */
export function substitute(
  tokens: readonly Token[],
  phrase: RelationPhrase,
  name: string,
): { text: string; whole: boolean } {
  // "the star of X who was born in 1975": the clause said which one; the name found says it now.
  const clause = /^(who|that)$/.test(tokens[phrase.end + 1]?.normal ?? '')
    ? clauseEnd(tokens, phrase.end + 2)
    : -1;
  const end = clause > phrase.end + 1 ? clause : phrase.end;
  const before = spanText(tokens, 0, phrase.start - 1);
  const after = end + 1 < tokens.length ? spanText(tokens, end + 1, tokens.length - 1) : '';
  const text = replaceSpan(tokens, phrase.start, end, name);
  // "What was the name of X's mother?", "What is X's mother called?", "What was X's mother's
  // name?" ask for the name itself.
  const naming = /\bname of$/i.test(before.trim()) || /^(called|named|['’]s name)\b/i.test(after.trim());
  const rest = [...tokens.slice(0, phrase.start), ...tokens.slice(end + 1)].filter(
    (t) =>
      t.type === 'word' &&
      !/^(who|whom|what|which|is|was|are|were|the)$/.test(t.normal) &&
      !(naming && /^(name|of|called|named|['’]s)$/.test(t.normal)),
  );
  // "Which city is the birthplace of X?": a place asked of a place role is the place itself.
  const placeAsked =
    rest.length === 1 &&
    phrase.relations.some(isPlaceRole) &&
    DESCRIPTOR_TYPES[rest[0]!.lemma] === 'geo' &&
    /^(what|which)$/.test(tokens[0]?.normal ?? '');
  // "Which town is the administrative centre of X?": the kind asked of what the relation names.
  const kindAsked =
    rest.length === 1 &&
    rest[0] === tokens[1] &&
    tokens[1]!.pos === 'NOUN' &&
    // (A kind of thing, not an attribute of it: "What nationality is …" asks another question.)
    /^(geo|person|organization)$/.test(DESCRIPTOR_TYPES[tokens[1]!.lemma] ?? '') &&
    /^(what|which)$/.test(tokens[0]?.normal ?? '') &&
    /^(is|was)$/.test(tokens[2]?.normal ?? '') &&
    phrase.start <= 4;
  return { text, whole: rest.length === 0 || placeAsked || kindAsked };
}
