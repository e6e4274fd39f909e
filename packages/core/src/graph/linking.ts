/**
 * Corpus-level entity linking: document titles as canonical entities, alias folding (case,
 * diacritics, punctuation, disambiguators, surnames, initials, acronyms), and a vocabulary that
 * finds the index's entities in a question by longest match.
 */
import { InvalidArgumentError } from '../errors.js';
import type { ExtractedEntity, ExtractedRelation, KgEntity } from '../types.js';
import type { ExtractionItem, ExtractionLike } from './kg.js';
import { cleanEntityName, normalizeEntityName } from './names.js';

/** A word of a text, folded for linking, with its place in the text. */
export interface LinkToken {
  /** Lower-cased, diacritics removed ("Phú" → "phu"). */
  key: string;
  /** Character offsets in the text: `text.slice(start, end)` is the word as written. */
  start: number;
  end: number;
  /** Whether the word as written starts with an upper-case letter or a digit. */
  capitalized: boolean;
}

const WORD = /[\p{L}\p{N}]+/gu;
const DISAMBIGUATOR = /\s*[([][^()[\]]*[)\]]$/u;
/** Words an acronym skips ("Bank of America" → BOA is not taken; "BA" is). */
const ACRONYM_SKIP = new Set([
  'of',
  'the',
  'and',
  'for',
  'in',
  'on',
  'at',
  'a',
  'an',
  'de',
  'la',
  'le',
  'du',
  'des',
  '&',
]);
/** Types a bare surname may have (extractors often cannot type a lone word). */
const PERSON_COMPATIBLE = new Set(['', 'person', 'other', 'unknown']);
/** Words that are never an entity of the vocabulary on their own. */
const STOP_WORDS = new Set(
  'a an and are as at be by did do does for from had has have he her his in is it its of on or she that the their they this to was were what when where which who whom whose why how with'.split(
    ' ',
  ),
);

function foldWord(word: string): string {
  if (/^[\x00-\x7f]*$/.test(word)) return word.toLowerCase();
  return word
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .toUpperCase()
    .toLowerCase()
    .normalize('NFKC');
}

/** The words of `text`, folded for linking (see {@link LinkToken}). */
export function linkTokens(text: string): LinkToken[] {
  const out: LinkToken[] = [];
  for (const m of text.matchAll(WORD)) {
    const key = foldWord(m[0]);
    if (key === '') continue;
    out.push({
      key,
      start: m.index,
      end: m.index + m[0].length,
      capitalized: /^[\p{Lu}\p{Lt}\p{N}]/u.test(m[0]),
    });
  }
  return out;
}

/**
 * A name without a trailing parenthesised (or bracketed) disambiguator: "Still Waters (film)" →
 * "Still Waters". A name that is only brackets is returned cleaned.
 */
export function stripDisambiguator(name: string): string {
  const clean = cleanEntityName(name);
  const stripped = clean.replace(DISAMBIGUATOR, '').trim();
  return stripped === '' ? clean : stripped;
}

/**
 * The alias-folding key of a name: {@link cleanEntityName}, disambiguator dropped, words only
 * (punctuation is a word break), lower-cased, diacritics removed, a leading "the" dropped.
 * "The Military Museum of Phú Lương (Vietnam)" → "military museum of phu luong"; "W. D.
 * MacAlder" → "e d macalder". `''` when no word is left.
 */
export function linkKey(name: string): string {
  return cleanLinkKey(cleanEntityName(name));
}

/** {@link linkKey} of a name already cleaned by {@link cleanEntityName}. */
function cleanLinkKey(clean: string): string {
  const words = linkTokens(clean.replace(DISAMBIGUATOR, '').trim() || clean).map((t) => t.key);
  if (words.length > 1 && words[0] === 'the') words.shift();
  return words.join(' ');
}

/** How an alias was folded into its canonical entity. */
export type AliasKind = 'exact' | 'title-mention' | 'disambiguator' | 'short-name' | 'surname' | 'acronym';

/** Options of {@link linkEntities}. */
export interface EntityLinkingOptions {
  /**
   * Title of each document (docId → title). The title is the canonical name of the document's main
   * subject: every chunk of the document gets that entity, and mentions of it anywhere link to it.
   */
  titles?: ReadonlyMap<string, string | undefined> | Readonly<Record<string, string | undefined>>;
  /** Fold "MacAlder" into the only person named "… MacAlder". @default true */
  surnames?: boolean;
  /** Fold "E. D. MacAlder" / "Edvin MacAlder" into "Edvin D. MacAlder". @default true */
  shortNames?: boolean;
  /** Fold "NBA" into the only entity whose initials spell it. @default true */
  acronyms?: boolean;
  /**
   * Find titles in the chunk texts (items with `text`): a capitalised occurrence of a title's words
   * adds the title entity to the chunk even when the extractor missed it. @default true
   */
  scanTexts?: boolean;
}

/** What {@link linkEntities} reads: an extraction with its provenance and, optionally, its text. */
export interface LinkableItem extends ExtractionItem {
  /** The chunk's text, for title mentions the extractor missed (see `scanTexts`). */
  text?: string;
}

/** Counts of what {@link linkEntities} did. */
export interface EntityLinkingStats {
  /** Distinct names (by {@link normalizeEntityName}) seen in entity records and relation endpoints. */
  names: number;
  /** Distinct canonical entities after linking. */
  entities: number;
  /** Documents with a title entity. */
  titleEntities: number;
  /** Names folded into another entity, by rule (`exact`: same {@link linkKey}, e.g. case or diacritics). */
  folded: Record<AliasKind, number>;
  /** Title entities added to chunks from their text (a mention the extractor missed). */
  textMentions: number;
  /** Aliases left separate because they fit several entities, by rule. */
  ambiguous: { disambiguator: number; shortName: number; surname: number; acronym: number };
  /** Relations dropped because both ends became one entity. */
  selfRelations: number;
}

/** The result of {@link linkEntities}. */
export interface EntityLinking {
  /** Canonical name of every name seen, by its {@link normalizeEntityName} key. */
  canonical: Map<string, string>;
  /** Names folded into each canonical entity (by its normalized key), as first written, itself excluded. */
  aliases: Map<string, string[]>;
  /** Canonical name of the title entity of each titled document. */
  titleEntities: Map<string, string>;
  stats: EntityLinkingStats;
  /** The items with every name replaced by its canonical name, title entities added. */
  items: LinkableItem[];
  /** The canonical name of any name (itself, cleaned, when it was never seen). */
  resolve(name: string): string;
}

interface NameInfo {
  /** normalizeEntityName key. */
  id: string;
  name: string;
  lkey: string;
  /** Group key: `lkey` without spaces ("South-East Asia" = "Southeast Asia"). */
  gkey: string;
  count: number;
  order: number;
  types: Map<string, number>;
  /** Whether some occurrence is all capitals of 2-6 letters ("NBA"). */
  acronymShaped: boolean;
  title: boolean;
}

function titleMap(titles: EntityLinkingOptions['titles']): Map<string, string> {
  const out = new Map<string, string>();
  if (!titles) return out;
  const entries = titles instanceof Map ? titles.entries() : Object.entries(titles);
  for (const [docId, title] of entries) {
    if (typeof title === 'string' && cleanEntityName(title) !== '') out.set(docId, title);
  }
  return out;
}

function topType(types: Map<string, number>): string {
  let best = '';
  let value = 0;
  for (const [type, count] of types) if (count > value) [best, value] = [type, count];
  return best;
}

/** Whether `short` names the same person as `full` in fewer words or with initials. */
function isShortForm(short: string[], full: string[]): boolean {
  if (short.length < 2 || short.length > full.length || short.at(-1) !== full.at(-1)) return false;
  if (short.length === full.length && short.every((w, i) => w === full[i])) return false;
  let j = 0;
  for (let i = 0; i < short.length - 1; i++) {
    const w = short[i]!;
    while (j < full.length - 1 && !(full[j] === w || (w.length === 1 && full[j]!.startsWith(w)))) j++;
    if (j >= full.length - 1) return false;
    j++;
  }
  return true;
}

function acronymOf(name: string): string {
  const letters = linkTokens(stripDisambiguator(name))
    .filter((t) => t.capitalized && !ACRONYM_SKIP.has(t.key))
    .map((t) => t.key[0]);
  return letters.length >= 2 ? letters.join('') : '';
}

function addCount<K>(map: Map<K, string[]>, key: K, value: string): void {
  const list = map.get(key);
  if (!list) map.set(key, [value]);
  else if (!list.includes(value)) list.push(value);
}

/**
 * Link the entities of a whole corpus: a pure function of its input.
 *
 * Rules, in order:
 * 1. A titled document's main subject is its title (disambiguator dropped when no other title
 *    shares the rest: "Still Waters (film)" → "Still Waters"). Every chunk of the document gets that
 *    entity, and with `scanTexts`, every chunk whose text writes the title (capitalised) gets it too.
 * 2. Names with the same {@link linkKey} (case, diacritics, punctuation, disambiguator, leading
 *    "the"; spaces ignored: "South-East Asia" = "Southeast Asia") are one entity, named by the
 *    title when there is one, else by its most frequent spelling with capitals (any spelling when
 *    none has capitals; first seen on ties), without its disambiguator. Two titles that differ only by disambiguator ("Mercury (planet)", "Mercury
 *    (element)") stay apart, and a bare "Mercury" joins neither (counted as ambiguous).
 * 3. `shortNames`: a person's name with fewer words or initials ("E. D. MacAlder",
 *    "Edvin MacAlder") folds into the only longer person name it fits.
 * 4. `surnames`: a capitalised one-word name (not typed as anything but a person) folds into the
 *    only person (of two or more words) ending with it.
 * 5. `acronyms`: a 2-6 capital-letter name ("NBA") folds into the only non-person entity whose
 *    capitalised initials spell it.
 * A short name, surname or acronym that fits several entities is left as it is and counted in
 * `stats.ambiguous`; a title is never folded by rules 3-5. Persons are the names whose most
 * frequent type is `person`.
 */
export function linkEntities(
  items: Iterable<LinkableItem>,
  options: EntityLinkingOptions = {},
): EntityLinking {
  const list = [...items];
  const titles = titleMap(options.titles);
  const names = new Map<string, NameInfo>();
  let order = 0;
  // Names repeat across records: clean and key each distinct string once.
  // [cleaned name, normalized key, whether it is written as an acronym]
  const idOf = new Map<string, [string, string, boolean]>();
  const cleaned = (raw: string): [string, string, boolean] => {
    let entry = idOf.get(raw);
    if (!entry) {
      const name = cleanEntityName(raw);
      // normalizeEntityName of a cleaned name: its case folding only.
      entry = [
        name,
        name.toUpperCase().toLowerCase().normalize('NFKC'),
        /^\p{Lu}{2,6}$/u.test(name.replace(/\./g, '')),
      ];
      idOf.set(raw, entry);
    }
    return entry;
  };
  const see = (raw: string, type: string | undefined, title = false): void => {
    const [name, id, acronymShaped] = cleaned(raw);
    if (id === '') return;
    let info = names.get(id);
    if (!info) {
      const lkey = cleanLinkKey(name);
      info = {
        id,
        name,
        lkey,
        gkey: lkey.replace(/ /g, ''),
        count: 0,
        order: order++,
        types: new Map(),
        acronymShaped: false,
        title: false,
      };
      names.set(id, info);
    }
    info.count++;
    if (title) info.title = true;
    if (type) {
      const t = type.trim().toLowerCase();
      if (t !== '') info.types.set(t, (info.types.get(t) ?? 0) + 1);
    }
    if (acronymShaped) info.acronymShaped = true;
  };
  for (const title of new Set(titles.values())) see(title, undefined, true);
  for (const item of list) {
    for (const e of item.extraction.entities) see(e.name, e.type);
    for (const r of item.extraction.relations) {
      see(r.source, undefined);
      see(r.target, undefined);
    }
  }

  const folded: Record<AliasKind, number> = {
    exact: 0,
    'title-mention': 0,
    disambiguator: 0,
    'short-name': 0,
    surname: 0,
    acronym: 0,
  };
  const ambiguous = { disambiguator: 0, shortName: 0, surname: 0, acronym: 0 };

  // 2. Groups by link key. A group holding titles that differ by disambiguator is split.
  const groups = new Map<string, NameInfo[]>();
  for (const info of names.values()) if (info.gkey !== '') addGroup(groups, info.gkey, info);
  /** Canonical NameInfo of each name id. */
  const target = new Map<string, NameInfo>();
  /** The canonical name of each canonical id (a title loses its disambiguator when unambiguous). */
  const display = new Map<string, string>();
  const ambiguousKeys = new Set<string>();
  for (const [gkey, group] of groups) {
    const titled = group.filter((g) => g.title);
    if (titled.length > 1) {
      // "Mercury (planet)" and "Mercury (element)": each title is its own entity; the rest stay apart.
      ambiguousKeys.add(gkey);
      ambiguous.disambiguator += group.length - titled.length;
      for (const g of group) {
        target.set(g.id, g);
        display.set(g.id, g.name);
      }
      continue;
    }
    // A spelling with capitals over a lower-case one ("Harbour Suite", not "the harbour suite").
    const capitals = (n: NameInfo) => (/\p{Lu}/u.test(n.name) ? 1 : 0);
    const head =
      titled[0] ??
      [...group].sort((a, b) => capitals(b) - capitals(a) || b.count - a.count || a.order - b.order)[0]!;
    display.set(head.id, stripDisambiguator(head.name));
    for (const g of group) {
      target.set(g.id, head);
      if (g === head) continue;
      const bracketed = (n: NameInfo) => normalizeEntityName(stripDisambiguator(n.name)) !== n.id;
      if (bracketed(g) || bracketed(head)) folded.disambiguator++;
      else folded.exact++;
    }
  }

  // Later rules move a whole entity (every name aimed at it): `forward` records the move, `find` follows it.
  const forward = new Map<NameInfo, NameInfo>();
  const find = (info: NameInfo): NameInfo => {
    let h = info;
    for (let next = forward.get(h); next !== undefined; next = forward.get(h)) h = next;
    return h;
  };
  const headOf = (info: NameInfo): NameInfo => find(target.get(info.id) ?? info);
  const heads = () => [...new Set(target.values())].filter((h) => !forward.has(h));
  const typeCache = new Map<string, string>();
  const typeOf = (info: NameInfo): string => {
    const cached = typeCache.get(info.gkey);
    if (cached !== undefined) return cached;
    const counts = new Map<string, number>();
    for (const g of groups.get(info.gkey) ?? [info]) {
      for (const [t, c] of g.types) if (t !== 'unknown') counts.set(t, (counts.get(t) ?? 0) + c);
    }
    const type = topType(counts);
    typeCache.set(info.gkey, type);
    return type;
  };
  const isPerson = (info: NameInfo): boolean => typeOf(info) === 'person';
  const redirect = (from: NameInfo, to: NameInfo): void => {
    const a = find(from);
    const b = find(to);
    if (a !== b) forward.set(a, b);
  };

  // 2b. A title that is a name, a comma and a place ("Skarn, Orsa"): the bare name folds
  // into it when no other title has that name.
  const byBase = new Map<string, NameInfo[]>();
  for (const h of heads()) {
    if (!h.title) continue;
    const comma = /^(.+?),\s+([^,]+)$/u.exec(stripDisambiguator(h.name));
    if (!comma) continue;
    const place = groups.get(linkKey(comma[2]!).replace(/ /g, ''));
    if (place && typeOf(place[0]!) === 'geo') addGroup(byBase, linkKey(comma[1]!).replace(/ /g, ''), h);
  }
  for (const [base, owners] of byBase) {
    const bare = (groups.get(base) ?? []).filter((g) => headOf(g) === g && !g.title);
    if (bare.length === 0 || groups.get(base)!.some((g) => g.title)) continue;
    if (owners.length > 1) {
      ambiguous.disambiguator += bare.length;
      continue;
    }
    for (const g of bare) {
      redirect(g, owners[0]!);
      folded.disambiguator++;
    }
  }

  // 3. Short forms and initials of person names.
  if (options.shortNames ?? true) {
    const people = heads().filter((h) => h.lkey.includes(' ') && isPerson(h) && !ambiguousKeys.has(h.gkey));
    const byLast = new Map<string, NameInfo[]>();
    for (const p of people) addGroup(byLast, p.lkey.split(' ').at(-1)!, p);
    for (const p of people) {
      const words = p.lkey.split(' ');
      const owners = (byLast.get(words.at(-1)!) ?? []).filter(
        (q) => q !== p && isShortForm(words, q.lkey.split(' ')),
      );
      // The longest forms own it ("E. MacAlder" fits "Edvin MacAlder" and "Edvin D. MacAlder").
      const maximal = owners.filter(
        (q) => !owners.some((r) => r !== q && isShortForm(q.lkey.split(' '), r.lkey.split(' '))),
      );
      // A title is the subject of its own document: it is never folded into another name.
      if (p.title) continue;
      if (maximal.length === 1) {
        redirect(p, maximal[0]!);
        folded['short-name']++;
      } else if (maximal.length > 1) ambiguous.shortName++;
    }
  }

  // 4. Surnames.
  if (options.surnames ?? true) {
    const fullNames = heads().filter((h) => h.lkey.includes(' ') && isPerson(h));
    const bySurname = new Map<string, NameInfo[]>();
    for (const p of fullNames) addGroup(bySurname, p.lkey.split(' ').at(-1)!, p);
    for (const h of heads()) {
      if (h.lkey.includes(' ') || h.lkey.length < 3 || h.title || !/^\p{Lu}/u.test(h.name)) continue;
      if (!PERSON_COMPATIBLE.has(typeOf(h))) continue;
      const owners = bySurname.get(h.lkey);
      if (!owners) continue;
      const distinct = [...new Set(owners.map(headOf))];
      if (distinct.length === 1) {
        redirect(h, distinct[0]!);
        folded.surname++;
      } else ambiguous.surname++;
    }
  }

  // 5. Acronyms.
  if (options.acronyms ?? true) {
    const byAcronym = new Map<string, NameInfo[]>();
    for (const h of heads()) {
      if (!h.lkey.includes(' ') || isPerson(h)) continue;
      const acronym = acronymOf(h.name);
      if (acronym.length >= 2 && acronym.length <= 6) addGroup(byAcronym, acronym, h);
    }
    for (const h of heads()) {
      if (!h.acronymShaped || h.lkey.includes(' ') || h.title) continue;
      const owners = byAcronym.get(h.lkey.replace(/ /g, ''));
      if (!owners) continue;
      const distinct = [...new Set(owners.map(headOf))].filter((o) => o !== h);
      if (distinct.length === 1) {
        redirect(h, distinct[0]!);
        folded.acronym++;
      } else if (distinct.length > 1) ambiguous.acronym++;
    }
  }

  const canonical = new Map<string, string>();
  const aliases = new Map<string, string[]>();
  const headIds = new Map<NameInfo, string>();
  for (const info of names.values()) {
    const head = headOf(info);
    const name = display.get(head.id) ?? head.name;
    canonical.set(info.id, name);
    let headId = headIds.get(head);
    if (headId === undefined) {
      headId = name === head.name ? head.id : normalizeEntityName(name);
      headIds.set(head, headId);
    }
    // An alias is a name folded into another entity; not the title's own form without its "(…)".
    if (
      info.id !== headId &&
      (info !== head || normalizeEntityName(stripDisambiguator(info.name)) !== headId)
    ) {
      addCount(aliases, headId, info.name);
    }
  }
  const resolve = (name: string): string => {
    const [clean, id] = cleaned(name);
    return canonical.get(id) ?? clean;
  };

  // 1. Title entities, and title mentions in the texts.
  const titleEntities = new Map<string, string>();
  for (const [docId, title] of titles) titleEntities.set(docId, resolve(title));
  const scan = (options.scanTexts ?? true) && titleEntities.size > 0;
  const trie = scan ? buildTrie([...new Set(titleEntities.values())], ambiguousKeys) : undefined;

  let selfRelations = 0;
  let textMentions = 0;
  const out: LinkableItem[] = list.map((item) => {
    const entities: ExtractedEntity[] = item.extraction.entities.map((e) => {
      const name = resolve(e.name);
      return name === e.name ? e : { ...e, name };
    });
    const present = new Set(entities.map((e) => cleaned(e.name)[1]));
    const addEntity = (name: string): boolean => {
      const id = cleaned(name)[1];
      if (present.has(id)) return false;
      present.add(id);
      entities.push({ name, type: '', description: '' });
      return true;
    };
    const own = titleEntities.get(item.docId);
    if (own !== undefined) addEntity(own);
    if (trie && item.text) {
      for (const name of trie.find(item.text)) if (addEntity(name)) textMentions++;
    }
    const relations: ExtractedRelation[] = [];
    for (const r of item.extraction.relations) {
      const source = resolve(r.source);
      const targetName = resolve(r.target);
      const a = cleaned(source)[1];
      if (a !== '' && a === cleaned(targetName)[1] && cleaned(r.source)[1] !== cleaned(r.target)[1]) {
        selfRelations++;
        continue;
      }
      relations.push(
        source === r.source && targetName === r.target ? r : { ...r, source, target: targetName },
      );
    }
    const extraction: ExtractionLike = { entities, relations };
    const linked: LinkableItem = { chunkId: item.chunkId, docId: item.docId, extraction };
    if (item.text !== undefined) linked.text = item.text;
    return linked;
  });
  folded['title-mention'] = textMentions;

  return {
    canonical,
    aliases,
    titleEntities,
    items: out,
    resolve,
    stats: {
      names: names.size,
      entities: new Set(canonical.values()).size,
      titleEntities: titleEntities.size,
      folded,
      textMentions,
      ambiguous,
      selfRelations,
    },
  };
}

function addGroup<K, V>(map: Map<K, V[]>, key: K, value: V): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}

interface TitleTrie {
  find(text: string): string[];
}

/** Longest-match finder of the title names in a text, capitalised occurrences only. */
function buildTrie(titleNames: string[], ambiguousKeys: Set<string>): TitleTrie {
  const vocabulary = new EntityVocabulary([]);
  for (const name of titleNames) {
    const key = linkKey(name);
    // One-word titles of fewer than 4 letters ("It", "Go") match too much running text.
    if (key === '' || ambiguousKeys.has(key.replace(/ /g, '')) || (!key.includes(' ') && key.length < 4))
      continue;
    vocabulary.add(name);
  }
  return { find: (text) => vocabulary.match(text, { capitalizedOnly: true }).map((m) => m.name) };
}

/** One occurrence of a vocabulary entity in a text (see {@link EntityVocabulary.match}). */
export interface VocabularyMatch {
  /** The canonical name of the entity. */
  name: string;
  /** The text as written: `text.slice(start, end)`. */
  text: string;
  start: number;
  end: number;
}

/** Options of {@link EntityVocabulary.match}. */
export interface VocabularyMatchOptions {
  /**
   * Only matches whose first word is capitalised (or a digit). Without it, names of two or more
   * words match in any case, and one-word names only when capitalised in the text or written in
   * lower case in the vocabulary. @default false
   */
  capitalizedOnly?: boolean;
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
export class EntityVocabulary {
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
    let node = this.#root;
    for (const w of words) {
      let next = node.next.get(w);
      if (!next) {
        next = { next: new Map() };
        node.next.set(w, next);
      }
      node = next;
    }
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
  vocabulary: EntityVocabulary | undefined,
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
