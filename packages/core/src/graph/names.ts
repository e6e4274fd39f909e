/**
 * Entity names: the display form ({@link cleanEntityName}) and the merge key
 * ({@link normalizeEntityName}) that knowledge-graph assembly and entity linking both use.
 */

// Characters stripped from both ends of a name: whitespace, quotes of every script, markdown emphasis.
const EDGE_QUOTES = /^[\s"'`“”„‟‘’‚‛«»‹›「」『』*_]+|[\s"'`“”„‟‘’‚‛«»‹›「」『』*_]+$/gu;
// Sentence punctuation left at the end of a name by a model ("Paris." / "Paris,").
const TRAILING_PUNCTUATION = /[.,;:!?。、，；：！？]+$/u;
const BRACKETS: Record<string, string> = { '(': ')', '[': ']', '{': '}', '<': '>', '（': '）', '【': '】' };

/**
 * The display form of an entity name: NFKC-normalized, trimmed, inner whitespace collapsed to one
 * space, and stripped (repeatedly) of surrounding quotes, markdown emphasis (`*`, `_`), one pair of
 * brackets enclosing the whole name, and trailing sentence punctuation (`.,;:!?`). Case is kept.
 * Inner punctuation is kept (`C#`, `AT&T`, `.NET`); a trailing period goes (`U.S.` becomes `U.S`).
 */
export function cleanEntityName(name: string): string {
  let s = name.normalize('NFKC').replace(/\s+/gu, ' ');
  for (;;) {
    const before = s;
    s = s.replace(EDGE_QUOTES, '').replace(TRAILING_PUNCTUATION, '').trim();
    const close = s.length >= 2 ? BRACKETS[s[0]!] : undefined;
    if (close !== undefined && s.endsWith(close) && enclosesAll(s)) s = s.slice(1, -1);
    if (s === before) return s;
  }
}

/** Whether the first character's bracket closes at the very end (so "(a) (b)" is left alone). */
function enclosesAll(s: string): boolean {
  const open = s[0]!;
  const close = BRACKETS[open]!;
  let depth = 0;
  for (let i = 0; i < s.length; i++) {
    if (s[i] === open) depth++;
    else if (s[i] === close) {
      depth--;
      if (depth === 0) return i === s.length - 1;
    }
  }
  return false;
}

/**
 * The merge key of an entity name: {@link cleanEntityName}, then case-folded by upper- then
 * lower-casing, then NFKC again
 * (which approximates Unicode full case folding: `Straße` and `STRASSE` meet as `strasse`). Two extracted names denote the same entity exactly when their keys are equal. The key
 * is `''` for a name with no content left.
 * @example normalizeEntityName('  "The  Beatles." ') === 'the beatles'
 */
export function normalizeEntityName(name: string): string {
  return foldCase(cleanEntityName(name));
}

/** Case folding of a cleaned name: upper- then lower-cased, then NFKC again. */
export function foldCase(s: string): string {
  return s.toUpperCase().toLowerCase().normalize('NFKC');
}
