/**
 * Exact matching of query entities against node names (dual search, NodeRAG §2.5 and appendix C.4):
 * whole-word, case-insensitive phrase matching with an inverted index of name words.
 */
const WORD = /[\p{L}\p{N}_]+/gu;

/** Lower-cased word tokens of a text (letters, digits, underscore). */
function words(text: string): string[] {
  return text.toLowerCase().match(WORD) ?? [];
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * The matcher of one query entity: its whitespace-separated words, in order, separated by any
 * whitespace, case-insensitive, with a word boundary at both ends (Unicode-aware: a letter, digit or
 * underscore may not touch the phrase). `null` for a blank entity.
 */
export function phraseMatcher(entity: string): RegExp | null {
  const parts = entity
    .trim()
    .split(/\s+/u)
    .filter((p) => p !== '');
  if (parts.length === 0) return null;
  return new RegExp(`(?<![\\p{L}\\p{N}_])${parts.map(escapeRegExp).join('\\s+')}(?![\\p{L}\\p{N}_])`, 'iu');
}

/**
 * An index of node names for exact matching (dual search, NodeRAG §2.5 and appendix C.4): a query
 * entity matches a name when the entity's words occur in the name as a whole phrase, case-insensitive
 * (the official code's `\b` word-boundary phrase search). "Obama" matches "Barack Obama"; "art" does
 * not match "Bart". An inverted index of name words narrows the candidates before the phrase test.
 */
export class NameIndex {
  readonly #keys: string[] = [];
  readonly #names: string[] = [];
  readonly #postings = new Map<string, number[]>();

  /** Add a node's name. */
  add(key: string, name: string): void {
    const id = this.#keys.length;
    this.#keys.push(key);
    this.#names.push(name);
    for (const word of new Set(words(name))) {
      let list = this.#postings.get(word);
      if (!list) {
        list = [];
        this.#postings.set(word, list);
      }
      list.push(id);
    }
  }

  /** Number of names indexed. */
  get size(): number {
    return this.#keys.length;
  }

  /** Keys whose name contains `entity` as a whole-word phrase, in insertion order. */
  match(entity: string): string[] {
    const matcher = phraseMatcher(entity);
    if (matcher === null) return [];
    const tokens = words(entity);
    let candidates: readonly number[] | undefined;
    if (tokens.length > 0) {
      for (const token of tokens) {
        const list = this.#postings.get(token) ?? [];
        if (candidates === undefined || list.length < candidates.length) candidates = list;
      }
    }
    const ids = candidates ?? this.#keys.map((_, i) => i); // no word characters: test every name
    const out: string[] = [];
    for (const id of ids) if (matcher.test(this.#names[id]!)) out.push(this.#keys[id]!);
    return out;
  }
}
