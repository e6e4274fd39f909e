/**
 * A question typed in lower case ("who founded the brinemark institute") with the names the context
 * writes capitalised put back ("Brinemark Institute"): the reader finds names by their capitals.
 */

/** Capitalised word runs, with the small words names hold ("Bank of Ostby", "Van der Berg"). */
const NAME_RUN =
  /\p{Lu}[\p{L}\p{N}'’-]*(?:[ \t]+(?:(?:of|the|de|van|von|der|la|le|and|&)[ \t]+)*\p{Lu}[\p{L}\p{N}'’-]*)*/gu;
const WORD = /[\p{L}\p{N}'’-]+/gu;
/** Words a sentence may open with in capitals that are never names. */
const FUNCTION_WORDS = new Set(
  'a an the in on at of and but or for to from by with as it he she they we i you this that these those his her its their our my after before when while if since then there here what who which where how why'.split(
    ' ',
  ),
);

/**
 * `question` with the names of `texts` in their capitals, when it has no capital after its first
 * letter; else `question` unchanged. A name is a capitalised run the texts write (a leading "The"
 * left out); a single word only when the texts never write it in lower case and it is no function
 * word ("Brinemark", not "Institute" of "the institute", not a sentence's "The"). Longer names are
 * put back first.
 */
export function recaseQuestion(question: string, texts: readonly string[]): string {
  if (/\p{Lu}/u.test(question.slice(1))) return question;
  const names = new Map<string, string>();
  const lower = new Set<string>();
  for (const text of texts) {
    for (const m of text.matchAll(NAME_RUN)) {
      const name = m[0].replace(/^The\s+/, '');
      if (/^\p{Lu}/u.test(name) && !names.has(name.toLowerCase())) names.set(name.toLowerCase(), name);
    }
    for (const w of text.match(WORD) ?? []) if (/^\p{Ll}/u.test(w)) lower.add(w);
  }
  const candidates = [...names]
    .filter(([key]) => key.includes(' ') || !(lower.has(key) || FUNCTION_WORDS.has(key)))
    .sort((a, b) => b[0].length - a[0].length);
  let out = question;
  for (const [key, name] of candidates) {
    const at = out.indexOf(key);
    if (at < 0) continue;
    const before = out[at - 1] ?? ' ';
    const after = out[at + key.length] ?? ' ';
    if (/[\p{L}\p{N}]/u.test(before) || /[\p{L}\p{N}]/u.test(after)) continue;
    out = out.slice(0, at) + name + out.slice(at + key.length);
  }
  return out;
}
