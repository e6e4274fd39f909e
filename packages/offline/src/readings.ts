/**
 * The entity readings of texts for the offline tasks: each text analysed and its entities found
 * once, the last few hundred kept.
 */
import { type EntityAnalysis, findEntities } from './entities.js';
import { analyze } from './nlp.js';
import type { OfflineTasksOptions } from './tasks-options.js';
import { wordCount } from './words.js';

/** Entity readings of texts kept per task suite for reuse. */
const READINGS_KEPT = 512;

/**
 * The first line of a text when it looks like a title (what methods prepend: "Title\ntext"): 1 to
 * 12 words, starting with a capital or a digit, no sentence punctuation at its end, and more text
 * after it.
 */
export function titleLine(text: string): string | undefined {
  const match = /^\s*#*\s*([^\n]*)\n\s*\S/u.exec(text);
  const line = match?.[1]?.trim();
  if (!line || !/^[\p{Lu}\p{Lt}\p{N}"“']/u.test(line) || /[.!?:;,]$/u.test(line)) return undefined;
  const words = wordCount(line);
  return words >= 1 && words <= 12 ? line : undefined;
}

/**
 * The entity reading of a text: `full` for extraction (pronouns resolved per the settings, noun
 * phrases, the subject: `subject`, or the title line when the settings take it), else names only.
 */
export type ReadEntities = (text: string, full: boolean, subject?: string) => Promise<EntityAnalysis>;

/** A {@link ReadEntities} that keeps the last {@link READINGS_KEPT} readings. */
export function createReadings(
  settings: Pick<OfflineTasksOptions, 'resolvePronouns' | 'maxNounPhrases' | 'titleLineSubject'>,
): ReadEntities {
  // What is read from a text depends on the text (and these settings) only: the last few hundred
  // readings are kept, since the same passages reach `answer` question after question.
  const readings = new Map<string, EntityAnalysis>();
  return async (text: string, full: boolean, subject?: string): Promise<EntityAnalysis> => {
    const key = `${full ? 1 : 0}\u0000${subject ?? ''}\u0000${text}`;
    const hit = readings.get(key);
    if (hit) {
      readings.delete(key);
      readings.set(key, hit);
      return hit;
    }
    const found = {
      resolvePronouns: full && settings.resolvePronouns,
      maxNounPhrases: full ? settings.maxNounPhrases : 0,
    };
    const main = full ? (subject ?? (settings.titleLineSubject ? titleLine(text) : undefined)) : undefined;
    const ea = findEntities(await analyze(text), main === undefined ? found : { ...found, subject: main });
    readings.set(key, ea);
    if (readings.size > READINGS_KEPT) readings.delete(readings.keys().next().value!);
    return ea;
  };
}
