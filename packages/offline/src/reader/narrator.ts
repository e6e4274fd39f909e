/**
 * Notes in the first person: a diary, a mail, a talk's notes say "my grandmother", "our mother",
 * "I opened the bakery". Who "I" is stands in the note's header: "From: Lorna Dunnet", "Diary of
 * Ines Callowby", "notes for the staff, from Marit Vance", "(card kept by Ines)", "Trip log,
 * Ines.", or a line that is only a name. The reader reads such a note with the narrator's name in
 * place of the first-person words, so "Marit Vance's mother" finds "our mother, Halina Vance".
 */
import type { EntityAnalysis } from '../entities.js';

/** First-person words a note speaks through. */
const FIRST_PERSON = /\b(I|me|my|My|our|Our)\b/g;

/** Entity types a narrator's name may have (the finder types a lone first name as `other`). */
const PERSON_TYPES = new Set(['person', 'other']);

/** How much of a note is its header: where the narrator is named. */
const HEADER_CHARS = 240;

/**
 * The narrator of a note, from the names its header gives with a cue of authorship; null when the
 * note does not speak in the first person or its header names nobody so.
 */
export function narratorOf(text: string, header: EntityAnalysis): string | null {
  const uses = text.match(FIRST_PERSON)?.length ?? 0;
  if (uses < 2) return null;
  const { analysis } = header;
  const tokens = analysis.tokens;
  const names = header.entities.length
    ? header.bySentence
        .flat()
        .filter((m) => m.source !== 'pronoun' && PERSON_TYPES.has(header.byKey.get(m.key)?.type ?? ''))
    : [];
  const nameAt = (m: (typeof names)[number]): string =>
    tokens
      .slice(m.start, m.end + 1)
      .map((t) => t.value)
      .join(' ');
  for (const m of names) {
    const sentence = analysis.sentences.find((s) => m.start >= s.start && m.end <= s.end);
    if (!sentence || sentence.index > 2) continue;
    const before = tokens[m.start - 1];
    const before2 = tokens[m.start - 2];
    // "From: Lorna Dunnet", "… from Marit Vance", "Diary of Ines Callowby", "(kept by Ines)".
    if (before && /^(from|by|of)$/.test(before.normal)) return nameAt(m);
    if (before?.value === ':' && before2 && /^from$/i.test(before2.value)) return nameAt(m);
    // A line that is only the name ("… Gull Road. Ronan Callowby.").
    const words = tokens.slice(sentence.start, sentence.end + 1).filter((t) => t.type !== 'punctuation');
    if (m.start === sentence.start && words.length === m.end - m.start + 1) return nameAt(m);
    // "Trip log, Ines.", "Notes for my talk, Callum Callowby, May 2024.": a name after a comma,
    // last in the header's sentence or before a date.
    if (before?.value === ',') {
      const rest = tokens.slice(m.end + 1, sentence.end + 1).filter((t) => t.type !== 'punctuation');
      if (rest.length === 0 || rest.every((t) => t.type === 'number' || /^\p{Lu}/u.test(t.value)))
        return nameAt(m);
    }
  }
  return null;
}

/** The header of a note, where its narrator is named: its first sentences, up to a few lines. */
export function headerOf(text: string): string {
  if (text.length <= HEADER_CHARS) return text;
  const cut = text.lastIndexOf('.', HEADER_CHARS);
  return text.slice(0, cut > 40 ? cut + 1 : HEADER_CHARS);
}

/**
 * The note with its narrator named where it says "I", "me", "my" and "our" ("our mother" is the
 * narrator's mother too).
 */
export function inThirdPerson(text: string, narrator: string): string {
  return text.replace(FIRST_PERSON, (word, _w, at: number) => {
    // "World War I", "Henry I": a numeral after a name.
    if (word === 'I' && /\p{Lu}\p{L}*\s$/u.test(text.slice(Math.max(0, at - 20), at))) return word;
    return /^(my|our)$/i.test(word) ? `${narrator}'s` : narrator;
  });
}
