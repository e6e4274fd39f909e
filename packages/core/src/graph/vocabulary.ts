/**
 * The entity vocabulary of an index: its entity names (and aliases) in a trie over link-key words,
 * for finding them in a question by longest match.
 */
import { InvalidArgumentError } from '../contracts/errors.js';
import type { QueryVocabulary, VocabularyMatch, VocabularyMatchOptions } from '../contracts/tasks.js';
import type { KgEntity } from '../contracts/types.js';
import { linkKey, linkTokens, stripDisambiguator } from './link-keys.js';
import { cleanEntityName, normalizeEntityName } from './names.js';

/** Words that are never an entity of the vocabulary on their own. */
const STOP_WORDS = new Set(
  'a an and are as at be by did do does for from had has have he her his in is it its of on or she that the their they this to was were what when where which who whom whose why how with'.split(
    ' ',
  ),
);

/** A name of an {@link EntityVocabulary}, as {@link EntityVocabulary.entries} lists it. */
export interface VocabularyEntry {
  /** The name's {@link linkKey} words, joined by one space. */
  key: string;
  /** The canonical name a match gives. */
  name: string;
  /** Whether a one-word match of it may be written in lower case. */
  lower: boolean;
}

interface TrieNode {
  next: Map<string, TrieNode>;
  name?: string;
  lower?: boolean;
}

/**
 * The entity names an index knows, for finding them in a question: longest match over
 * {@link linkKey}-folded words, left to right, without overlaps. Build it once per index (from the
 * entity names, or {@link EntityVocabulary.fromEntities}) and pass it to
 * `TaskSuite.extractQueryEntities(query, { vocabulary })`.
 *
 * @example
 * const vocabulary = EntityVocabulary.fromEntities(kg.entities.values());
 * vocabulary.match('Where is the military museum of Phu Luong?')
 * // → [{ name: 'Military Museum of Phú Lương', text: 'military museum of Phu Luong', start: 13, end: 41 }]
 */
export class EntityVocabulary implements QueryVocabulary {
  readonly #root: TrieNode = { next: new Map() };
  #size = 0;

  /**
   * @param names canonical names, or `[alias, canonicalName]` pairs (an alias matches as its
   * canonical name). A name whose words are all stop words ("The", "Who") is ignored.
   */
  constructor(names: Iterable<string | readonly [string, string]> = []) {
    for (const entry of names) {
      if (typeof entry === 'string') this.add(entry);
      else this.add(entry[0], entry[1]);
    }
  }

  /**
   * The vocabulary of a knowledge graph's entities (a `KnowledgeGraph`'s `entities.values()`), with
   * the aliases of a {@link linkEntities} result when given.
   */
  static fromEntities(
    entities: Iterable<Pick<KgEntity, 'name'>>,
    aliases?: ReadonlyMap<string, readonly string[]>,
  ): EntityVocabulary {
    const vocabulary = new EntityVocabulary();
    const byId = new Map<string, string>();
    for (const e of entities) {
      vocabulary.add(e.name);
      byId.set(normalizeEntityName(e.name), e.name);
    }
    for (const [id, list] of aliases ?? []) {
      const name = byId.get(id);
      if (name !== undefined) for (const alias of list) vocabulary.add(alias, name);
    }
    return vocabulary;
  }

  /**
   * The vocabulary {@link EntityVocabulary.entries} gave: the same names, matched alike, without
   * folding a name again (for an index that stores its vocabulary rather than building it at load).
   * @throws InvalidArgumentError when an entry has no key word or repeats a key.
   */
  static fromEntries(entries: Iterable<VocabularyEntry>): EntityVocabulary {
    const vocabulary = new EntityVocabulary();
    for (const { key, name, lower } of entries) {
      const words = key.split(' ');
      if (typeof name !== 'string' || words.some((w) => w === '')) {
        throw new InvalidArgumentError(
          'entries',
          `EntityVocabulary.fromEntries: ${JSON.stringify(key)} is not a key.`,
        );
      }
      const node = vocabulary.#nodeOf(words);
      if (node.name !== undefined) {
        throw new InvalidArgumentError(
          'entries',
          `EntityVocabulary.fromEntries: key ${JSON.stringify(key)} repeats.`,
        );
      }
      node.name = name;
      node.lower = lower;
      vocabulary.#size++;
    }
    return vocabulary;
  }

  /** Every name of the vocabulary as its key (link-key words joined by one space), for {@link EntityVocabulary.fromEntries}. */
  entries(): VocabularyEntry[] {
    const out: VocabularyEntry[] = [];
    const visit = (node: TrieNode, key: string): void => {
      if (node.name !== undefined) out.push({ key, name: node.name, lower: node.lower === true });
      for (const [w, next] of node.next) visit(next, key === '' ? w : `${key} ${w}`);
    };
    visit(this.#root, '');
    return out;
  }

  /** The trie node of the link-key `words`, made (with the nodes on its way) when missing. */
  #nodeOf(words: readonly string[]): TrieNode {
    let node = this.#root;
    for (const w of words) {
      let next = node.next.get(w);
      if (!next) {
        next = { next: new Map() };
        node.next.set(w, next);
      }
      node = next;
    }
    return node;
  }

  /** Number of names (aliases included) added. */
  get size(): number {
    return this.#size;
  }

  /** Add a name, or an alias that stands for `canonical`. The first name added for a key wins. */
  add(name: string, canonical = name): this {
    if (typeof name !== 'string' || typeof canonical !== 'string') {
      throw new InvalidArgumentError('name', 'EntityVocabulary.add: names must be strings.');
    }
    const words = linkKey(name).split(' ').filter(Boolean);
    if (words.length === 0 || words.every((w) => STOP_WORDS.has(w))) return this;
    const node = this.#nodeOf(words);
    if (node.name === undefined) {
      node.name = cleanEntityName(canonical);
      node.lower = !/\p{Lu}/u.test(stripDisambiguator(name));
      this.#size++;
    }
    return this;
  }

  /** The canonical name of a name in the vocabulary (same {@link linkKey}), or `undefined`. */
  get(name: string): string | undefined {
    let node: TrieNode | undefined = this.#root;
    for (const w of linkKey(name).split(' ').filter(Boolean)) {
      node = node.next.get(w);
      if (!node) return undefined;
    }
    return node === this.#root ? undefined : node.name;
  }

  /** The vocabulary entities written in `text`, longest match first, left to right, no overlap. */
  match(text: string, options: VocabularyMatchOptions = {}): VocabularyMatch[] {
    const tokens = linkTokens(text);
    const out: VocabularyMatch[] = [];
    let i = 0;
    while (i < tokens.length) {
      let node: TrieNode | undefined = this.#root;
      let best: { end: number; name: string } | undefined;
      for (let j = i; j < tokens.length && node; j++) {
        node = node.next.get(tokens[j]!.key);
        if (!node?.name) continue;
        const single = j === i;
        const first = tokens[i]!;
        if (options.capitalizedOnly && !first.capitalized) continue;
        if (single && !first.capitalized && !node.lower) continue;
        best = { end: j, name: node.name };
      }
      if (!best) {
        i++;
        continue;
      }
      const start = tokens[i]!.start;
      const end = tokens[best.end]!.end;
      out.push({ name: best.name, text: text.slice(start, end), start, end });
      i = best.end + 1;
    }
    return out;
  }
}

/**
 * Query entities with the vocabulary's matches first: the canonical names of the vocabulary
 * entities written in `query` (longest match), then the other `entities` except those a match
 * already covers (same {@link linkKey}, or their words inside a matched span). What
 * `extractQueryEntities(query, { vocabulary })` returns in every task suite of grag.
 */
export function withVocabularyMatches(
  query: string,
  entities: readonly string[],
  vocabulary: QueryVocabulary | undefined,
): string[] {
  if (!vocabulary) return entities.slice();
  const matches = vocabulary.match(query);
  const out: string[] = [];
  const seen = new Set<string>();
  const push = (name: string): void => {
    const key = linkKey(name);
    if (key === '' || seen.has(key)) return;
    seen.add(key);
    out.push(name);
  };
  for (const m of matches) push(m.name);
  const spans = matches.map((m) => ` ${linkKey(m.text)} `);
  for (const e of entities) {
    const key = linkKey(e);
    if (spans.some((span) => span.includes(` ${key} `))) continue;
    push(e);
  }
  return out;
}
