/**
 * Corpus-level entity linking: document titles as canonical entities, and alias folding (case,
 * diacritics, punctuation, disambiguators, surnames, initials, acronyms). The folding keys are in
 * `link-keys.ts`, the rules that fold one entity into another in `alias-rules.ts`, and the
 * vocabulary that finds the index's entities in a question in `vocabulary.ts`.
 */
import type { ExtractedEntity, ExtractedRelation } from '../contracts/types.js';
import {
  type AliasKind,
  addGroup,
  EntityFolding,
  type FoldCounts,
  foldAcronyms,
  foldCommaTitles,
  foldShortNames,
  foldSurnames,
  type NameInfo,
} from './alias-rules.js';
import type { ExtractionItem, ExtractionLike } from './kg.js';
import { cleanLinkKey, linkKey, stripDisambiguator } from './link-keys.js';
import { cleanEntityName, normalizeEntityName } from './names.js';
import { EntityVocabulary } from './vocabulary.js';

export type { AliasKind } from './alias-rules.js';

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

function titleMap(titles: EntityLinkingOptions['titles']): Map<string, string> {
  const out = new Map<string, string>();
  if (!titles) return out;
  const entries = titles instanceof Map ? titles.entries() : Object.entries(titles);
  for (const [docId, title] of entries) {
    if (typeof title === 'string' && cleanEntityName(title) !== '') out.set(docId, title);
  }
  return out;
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
  const { names, cleaned } = collectNames(list, titles);
  const counts: FoldCounts = {
    folded: {
      exact: 0,
      'title-mention': 0,
      disambiguator: 0,
      'short-name': 0,
      surname: 0,
      acronym: 0,
    },
    ambiguous: { disambiguator: 0, shortName: 0, surname: 0, acronym: 0 },
  };
  const { groups, target, display, ambiguousKeys } = groupByLinkKey(names, counts);
  const folding = new EntityFolding(groups, target);
  foldCommaTitles(folding, counts);
  if (options.shortNames ?? true) foldShortNames(folding, ambiguousKeys, counts);
  if (options.surnames ?? true) foldSurnames(folding, counts);
  if (options.acronyms ?? true) foldAcronyms(folding, counts);

  const { canonical, aliases } = canonicalNames(names, folding, display);
  const resolve = (name: string): string => {
    const [clean, id] = cleaned(name);
    return canonical.get(id) ?? clean;
  };

  // 1. Title entities, and title mentions in the texts.
  const titleEntities = new Map<string, string>();
  for (const [docId, title] of titles) titleEntities.set(docId, resolve(title));
  const scan = (options.scanTexts ?? true) && titleEntities.size > 0;
  const trie = scan ? buildTrie([...new Set(titleEntities.values())], ambiguousKeys) : undefined;
  const { out, selfRelations, textMentions } = linkItems(list, { titleEntities, trie, cleaned, resolve });
  counts.folded['title-mention'] = textMentions;

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
      folded: counts.folded,
      textMentions,
      ambiguous: counts.ambiguous,
      selfRelations,
    },
  };
}

/** `[cleaned name, normalized key, whether it is written as an acronym]` of a raw name. */
type CleanName = (raw: string) => [string, string, boolean];

/**
 * Every name of the titles, entity records and relation endpoints, by its
 * {@link normalizeEntityName} key in order of first sight, with its counts and types; and the
 * cleaning of a raw name, done once per distinct string (names repeat across records).
 */
function collectNames(
  list: readonly LinkableItem[],
  titles: ReadonlyMap<string, string>,
): { names: Map<string, NameInfo>; cleaned: CleanName } {
  const names = new Map<string, NameInfo>();
  let order = 0;
  const idOf = new Map<string, [string, string, boolean]>();
  const cleaned: CleanName = (raw) => {
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
  return { names, cleaned };
}

/**
 * Rule 2: names grouped by link key (spaces ignored), each group aimed at its head. A group
 * holding titles that differ by disambiguator is split: each name stays its own entity.
 */
function groupByLinkKey(
  names: ReadonlyMap<string, NameInfo>,
  counts: FoldCounts,
): {
  groups: Map<string, NameInfo[]>;
  /** Canonical NameInfo of each name id. */
  target: Map<string, NameInfo>;
  /** The canonical name of each canonical id (a title loses its disambiguator when unambiguous). */
  display: Map<string, string>;
  /** Group keys of titles that differ only by disambiguator. */
  ambiguousKeys: Set<string>;
} {
  const { folded, ambiguous } = counts;
  const groups = new Map<string, NameInfo[]>();
  for (const info of names.values()) if (info.gkey !== '') addGroup(groups, info.gkey, info);
  const target = new Map<string, NameInfo>();
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
  return { groups, target, display, ambiguousKeys };
}

/**
 * The canonical name of every name (by its normalized key), and the names folded into each
 * canonical entity (by the canonical entity's normalized key).
 */
function canonicalNames(
  names: ReadonlyMap<string, NameInfo>,
  folding: EntityFolding,
  display: ReadonlyMap<string, string>,
): { canonical: Map<string, string>; aliases: Map<string, string[]> } {
  const canonical = new Map<string, string>();
  const aliases = new Map<string, string[]>();
  const headIds = new Map<NameInfo, string>();
  for (const info of names.values()) {
    const head = folding.headOf(info);
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
  return { canonical, aliases };
}

/**
 * The items with every name replaced by its canonical name, relations whose ends became one
 * entity dropped, and the title entity of each item's document added, with the titles its text
 * writes (`trie`).
 */
function linkItems(
  list: readonly LinkableItem[],
  linking: {
    titleEntities: ReadonlyMap<string, string>;
    trie: TitleTrie | undefined;
    cleaned: CleanName;
    resolve: (name: string) => string;
  },
): { out: LinkableItem[]; selfRelations: number; textMentions: number } {
  const { titleEntities, trie, cleaned, resolve } = linking;
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
  return { out, selfRelations, textMentions };
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
