/**
 * Answer normalization of the SQuAD evaluation script, extended to Unicode: lower case, punctuation
 * and symbols removed, the articles a / an / the dropped, whitespace collapsed.
 */

/** Unicode punctuation and symbols (SQuAD removes ASCII `string.punctuation`, which holds both). */
const PUNCTUATION = /[\p{P}\p{S}]/gu;
/** Combining diacritical marks left by NFKD (`é` → `e` + U+0301). Other scripts' marks are kept. */
const DIACRITICS = /[\u0300-\u036f]/g;
const ARTICLES: ReadonlySet<string> = new Set(['a', 'an', 'the']);

/** How {@link normalizeAnswer} treats punctuation. */
export interface NormalizeOptions {
  /**
   * `'remove'` deletes punctuation as SQuAD does (`1,000` → `1000`, `U.S.` → `us`); `'space'` reads
   * it as a word break (`Smith's` → `smith s`). @default 'remove' (SQuAD v1.1 evaluation script)
   */
  punctuation: 'remove' | 'space';
  /** Fold accents (`Zürich` → `zurich`) and compatibility forms (`ﬁ` → `fi`, full-width letters). @default true */
  foldAccents: boolean;
}

/** Defaults of {@link NormalizeOptions}. */
export const NORMALIZE_DEFAULTS: NormalizeOptions = { punctuation: 'remove', foldAccents: true };

/**
 * SQuAD answer normalization: lower case, no punctuation, no articles, single spaces. Unicode-aware:
 * punctuation and symbols of every script are removed, Latin accents folded (NFKD), and articles
 * are dropped as whole words only (`theatre` keeps its `the`).
 *
 * @example normalizeAnswer('The  Eiffel-Tower!') // 'eiffeltower'
 */
export function normalizeAnswer(text: string, options: Partial<NormalizeOptions> = {}): string {
  const { punctuation, foldAccents } = { ...NORMALIZE_DEFAULTS, ...options };
  let s = foldAccents ? text.normalize('NFKD').replace(DIACRITICS, '') : text;
  s = s.toLowerCase();
  s = s.replace(PUNCTUATION, punctuation === 'space' ? ' ' : '');
  return s
    .split(/\s+/)
    .filter((word) => word !== '' && !ARTICLES.has(word))
    .join(' ');
}

/** The words of the normalized answer (SQuAD's `normalize_answer(s).split()`). */
export function answerTokens(text: string, options: Partial<NormalizeOptions> = {}): string[] {
  const normalized = normalizeAnswer(text, options);
  return normalized === '' ? [] : normalized.split(' ');
}
