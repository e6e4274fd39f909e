/**
 * The alias rules of entity linking that fold one entity into another after the link-key groups
 * are formed (rules 2b-5 of {@link linkEntities}): a bare name into its `Name, Place` title, short
 * forms and initials of person names, surnames, acronyms.
 */
import { linkKey, linkTokens, stripDisambiguator } from './link-keys.js';

/** How an alias was folded into its canonical entity. */
export type AliasKind = 'exact' | 'title-mention' | 'disambiguator' | 'short-name' | 'surname' | 'acronym';

/** What the rules folded, and what they left apart because it fit several entities. */
export interface FoldCounts {
  folded: Record<AliasKind, number>;
  ambiguous: { disambiguator: number; shortName: number; surname: number; acronym: number };
}

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

/** A distinct name of the corpus while it is linked. */
export interface NameInfo {
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

/** The type with the highest count (the first on ties); `''` for none. */
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

/** The initials of a name's capitalised words (skipping "of", "the", …); `''` under two letters. */
function acronymOf(name: string): string {
  const letters = linkTokens(stripDisambiguator(name))
    .filter((t) => t.capitalized && !ACRONYM_SKIP.has(t.key))
    .map((t) => t.key[0]);
  return letters.length >= 2 ? letters.join('') : '';
}

/** Append `value` to the list under `key`. */
export function addGroup<K, V>(map: Map<K, V[]>, key: K, value: V): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}

/**
 * The entities while the alias rules run. Every name aims at the head of its link-key group
 * (`target`); a rule moves a whole entity (every name aimed at it): `redirect` records the move,
 * `find` follows it.
 */
export class EntityFolding {
  readonly #forward = new Map<NameInfo, NameInfo>();
  readonly #typeCache = new Map<string, string>();

  constructor(
    /** The names of each link-key group, by group key. */
    readonly groups: ReadonlyMap<string, NameInfo[]>,
    /** The head of each name's group, by name id. */
    readonly target: ReadonlyMap<string, NameInfo>,
  ) {}

  /** Where an entity is now, after the moves. */
  find(info: NameInfo): NameInfo {
    let h = info;
    for (let next = this.#forward.get(h); next !== undefined; next = this.#forward.get(h)) h = next;
    return h;
  }

  /** The entity a name belongs to now. */
  headOf(info: NameInfo): NameInfo {
    return this.find(this.target.get(info.id) ?? info);
  }

  /** The entities not moved into another. */
  heads(): NameInfo[] {
    return [...new Set(this.target.values())].filter((h) => !this.#forward.has(h));
  }

  /** The most frequent type of a name's group (`unknown` left out). */
  typeOf(info: NameInfo): string {
    const cached = this.#typeCache.get(info.gkey);
    if (cached !== undefined) return cached;
    const counts = new Map<string, number>();
    for (const g of this.groups.get(info.gkey) ?? [info]) {
      for (const [t, c] of g.types) if (t !== 'unknown') counts.set(t, (counts.get(t) ?? 0) + c);
    }
    const type = topType(counts);
    this.#typeCache.set(info.gkey, type);
    return type;
  }

  /** Whether a name's group is mostly typed `person`. */
  isPerson(info: NameInfo): boolean {
    return this.typeOf(info) === 'person';
  }

  /** Move the entity of `from` into the entity of `to`. */
  redirect(from: NameInfo, to: NameInfo): void {
    const a = this.find(from);
    const b = this.find(to);
    if (a !== b) this.#forward.set(a, b);
  }
}

/**
 * Rule 2b. A title that is a name, a comma and a place ("Skarn, Orsa"): the bare name folds into it
 * when no other title has that name.
 */
export function foldCommaTitles(f: EntityFolding, counts: FoldCounts): void {
  const byBase = new Map<string, NameInfo[]>();
  for (const h of f.heads()) {
    if (!h.title) continue;
    const comma = /^(.+?),\s+([^,]+)$/u.exec(stripDisambiguator(h.name));
    if (!comma) continue;
    const place = f.groups.get(linkKey(comma[2]!).replace(/ /g, ''));
    if (place && f.typeOf(place[0]!) === 'geo') addGroup(byBase, linkKey(comma[1]!).replace(/ /g, ''), h);
  }
  for (const [base, owners] of byBase) {
    const bare = (f.groups.get(base) ?? []).filter((g) => f.headOf(g) === g && !g.title);
    if (bare.length === 0 || f.groups.get(base)!.some((g) => g.title)) continue;
    if (owners.length > 1) {
      counts.ambiguous.disambiguator += bare.length;
      continue;
    }
    for (const g of bare) {
      f.redirect(g, owners[0]!);
      counts.folded.disambiguator++;
    }
  }
}

/**
 * Rule 3. A person's name with fewer words or initials ("E. D. MacAlder", "Edvin MacAlder") folds
 * into the only longer person name it fits. Names of a group split by disambiguator
 * (`ambiguousKeys`) are left out.
 */
export function foldShortNames(
  f: EntityFolding,
  ambiguousKeys: ReadonlySet<string>,
  counts: FoldCounts,
): void {
  const people = f.heads().filter((h) => h.lkey.includes(' ') && f.isPerson(h) && !ambiguousKeys.has(h.gkey));
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
      f.redirect(p, maximal[0]!);
      counts.folded['short-name']++;
    } else if (maximal.length > 1) counts.ambiguous.shortName++;
  }
}

/**
 * Rule 4. A capitalised one-word name (not typed as anything but a person) folds into the only
 * person (of two or more words) ending with it.
 */
export function foldSurnames(f: EntityFolding, counts: FoldCounts): void {
  const fullNames = f.heads().filter((h) => h.lkey.includes(' ') && f.isPerson(h));
  const bySurname = new Map<string, NameInfo[]>();
  for (const p of fullNames) addGroup(bySurname, p.lkey.split(' ').at(-1)!, p);
  for (const h of f.heads()) {
    if (h.lkey.includes(' ') || h.lkey.length < 3 || h.title || !/^\p{Lu}/u.test(h.name)) continue;
    if (!PERSON_COMPATIBLE.has(f.typeOf(h))) continue;
    const owners = bySurname.get(h.lkey);
    if (!owners) continue;
    const distinct = [...new Set(owners.map((o) => f.headOf(o)))];
    if (distinct.length === 1) {
      f.redirect(h, distinct[0]!);
      counts.folded.surname++;
    } else counts.ambiguous.surname++;
  }
}

/** Rule 5. A 2-6 capital-letter name ("NBA") folds into the only non-person entity whose capitalised initials spell it. */
export function foldAcronyms(f: EntityFolding, counts: FoldCounts): void {
  const byAcronym = new Map<string, NameInfo[]>();
  for (const h of f.heads()) {
    if (!h.lkey.includes(' ') || f.isPerson(h)) continue;
    const acronym = acronymOf(h.name);
    if (acronym.length >= 2 && acronym.length <= 6) addGroup(byAcronym, acronym, h);
  }
  for (const h of f.heads()) {
    if (!h.acronymShaped || h.lkey.includes(' ') || h.title) continue;
    const owners = byAcronym.get(h.lkey.replace(/ /g, ''));
    if (!owners) continue;
    const distinct = [...new Set(owners.map((o) => f.headOf(o)))].filter((o) => o !== h);
    if (distinct.length === 1) {
      f.redirect(h, distinct[0]!);
      counts.folded.acronym++;
    } else if (distinct.length > 1) counts.ambiguous.acronym++;
  }
}
