/** Which words say something to the reader: wink's stop words, less the verbs that say a relation. */
import type { Token } from '../nlp.js';
import { isContent } from '../nlp.js';

/**
 * Verbs wink counts as stop words that say a relation in a question and in its answer's sentence:
 * "Who *made* the cello?", "What did she *give* the town?", "Who *took* over the yard?", "What did he
 * *become*?", "Who *kept* the light?".
 */
const RELATION_STOP_VERBS = new Set(['make', 'give', 'take', 'become', 'keep', 'put', 'use']);

/** Whether a token is a stop word to the reader: wink's stop words, less the relation verbs. */
export function isStopWord(t: Token): boolean {
  return t.stop && !(t.pos === 'VERB' && RELATION_STOP_VERBS.has(t.lemma));
}

/** Whether a token carries content to the reader: a content word, or a relation verb wink calls a stop word. */
export function saysContent(t: Token): boolean {
  return isContent(t) || (t.pos === 'VERB' && RELATION_STOP_VERBS.has(t.lemma));
}
