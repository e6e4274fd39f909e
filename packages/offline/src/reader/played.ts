/**
 * "What instrument does Tomas Kell play?" over "the fiddler Tomas Kell": the thing of the kind asked
 * that the role the context gives the name is derived from (WordNet: fiddler → fiddle, pianist →
 * piano, footballer → football).
 */
import type { Token } from '../nlp.js';
import { isKindByWordNet, relatedNouns } from '../wordnet.js';
import { firstName } from './age.js';
import { descriptorType } from './asked.js';
import { coordinatedRoles, roleSpans } from './identity.js';
import type { QuestionReading } from './question.js';
import type { AnswerSentence } from './types.js';

/**
 * The kind asked (`reading.descriptor`, a WordNet kind such as "instrument" or "sport") that a role
 * of the question's name derives from, with the sentence giving the role; null when no role does.
 * A derived noun must share its first four letters with the role ("swimmer" is no "bathe").
 */
export function kindFromRole(
  tokens: readonly Token[],
  reading: QuestionReading,
  sentences: readonly AnswerSentence[],
): { answer: string; sentence: number } | null {
  const kind = reading.descriptor;
  const name = firstName(tokens);
  // A kind of thing, not of a named type ("Which folk group …" asks for a group's name).
  if (reading.kind !== 'thing' || !kind || !name || descriptorType(kind)) return null;
  for (const r of roleSpans(name, sentences)) {
    const roleTokens = sentences[r.sentence]!.ea.analysis.tokens;
    for (const [, end] of coordinatedRoles(roleTokens, r.start, r.end)) {
      const role = roleTokens[end]!.lemma;
      const derived = relatedNouns(role).filter(
        (n) => n.slice(0, 4) === role.slice(0, 4) && isKindByWordNet(n, kind),
      );
      // The noun closest to the role's own form ("fiddle" of "fiddler" before "violin").
      derived.sort((a, b) => Number(!role.startsWith(a)) - Number(!role.startsWith(b)));
      if (derived[0]) return { answer: derived[0], sentence: r.sentence };
    }
  }
  return null;
}
