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
  if (/\p{Lu}/u.test(question.slice(1))) return joinTitles(question, texts);
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
  return joinTitles(out, texts);
}

/** Two capitalised runs joined by a lower-case "and" ("Salt and Signal", "Pride and Prejudice"). */
const AND_RUN =
  /\p{Lu}[\p{L}\p{N}'’-]*(?:[ \t]+\p{Lu}[\p{L}\p{N}'’-]*)*[ \t]+and[ \t]+\p{Lu}[\p{L}\p{N}'’-]*(?:[ \t]+\p{Lu}[\p{L}\p{N}'’-]*)*/gu;

/**
 * `question` with a title that holds a lower-case "and" written as one name ("Salt And Signal"), when
 * the context writes it as one: a title line of its own, or in quotes. A lower-case "and" otherwise
 * joins two names ("Are Pell and Ostby both …?"), so the reader splits there.
 */
function joinTitles(question: string, texts: readonly string[]): string {
  let out = question;
  for (const m of question.matchAll(AND_RUN)) {
    // The longest part of the run the context writes whole: "Who produced Salt and Signal" holds it.
    const words = m[0].split(/[ \t]+/);
    const and = words.indexOf('and');
    for (let from = 0; from < and; from++) {
      const title = words.slice(from).join(' ');
      if (!texts.some((t) => writesAsTitle(t, title))) continue;
      out = out.replace(title, title.replace(/[ \t]and[ \t]/, ' And '));
      break;
    }
  }
  return out;
}

/** Whether `text` writes `title` as one name: its first line, or quoted. */
function writesAsTitle(text: string, title: string): boolean {
  const at = text.indexOf(title);
  if (at < 0) return false;
  if (text.startsWith(`${title}\n`)) return true;
  for (let i = at; i >= 0; i = text.indexOf(title, i + 1)) {
    if (/["“‘']/.test(text[i - 1] ?? '') && /["”’']/.test(text[i + title.length] ?? '')) return true;
  }
  return false;
}
