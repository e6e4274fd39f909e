/**
 * Relations a noun names: the whole kinship table (either-side grandparents, great-grandparents,
 * grandchildren, uncles and aunts, nephews and nieces, cousins, step-, half- and in-law relations,
 * everyday forms like "dad" and "granny"), and agent nouns ("director" → direct).
 */
import { DESCRIPTOR_TYPES } from '../lexicon.js';
import { agentVerb, eventVerb } from './meaning.js';

/** One relation from a known entity to the entity it leads to. */
export type Relation =
  | {
      kind: 'kin';
      /** parent, spouse, child or sibling of the entity. */
      base: 'parent' | 'spouse' | 'child' | 'sibling';
      /** The gender the relation word implies (father → male), or null (parent, spouse). */
      gender: 'male' | 'female' | null;
    }
  | {
      kind: 'role';
      /** The role noun, lemma ("director"). */
      noun: string;
      /** Lemmas of the verbs that state the role ("direct"): "directed by X". */
      verbs: string[];
    };

export const kin = (
  base: 'parent' | 'spouse' | 'child' | 'sibling',
  gender: 'male' | 'female' | null,
): Relation => ({
  kind: 'kin',
  base,
  gender,
});

const P = (g: 'male' | 'female' | null = null): Relation => kin('parent', g);
const C = (g: 'male' | 'female' | null = null): Relation => kin('child', g);
const S = (g: 'male' | 'female' | null = null): Relation => kin('sibling', g);
const W = (g: 'male' | 'female' | null = null): Relation => kin('spouse', g);

/**
 * Kinship nouns, as the chain of basic relations they stand for, applied from the entity outwards:
 * parents, grandparents and great-grandparents, children and grandchildren, siblings and
 * half-siblings, uncles, aunts, nephews, nieces and cousins, spouses, step-relations (in-laws are
 * built from these by {@link inLaw}). Everyday forms ("dad", "granny") stand for the same.
 */
const KIN: Record<string, Relation[]> = {
  father: [P('male')],
  mother: [P('female')],
  parent: [P()],
  husband: [W('male')],
  wife: [W('female')],
  spouse: [W()],
  partner: [W()],
  widow: [W('female')],
  widower: [W('male')],
  son: [C('male')],
  daughter: [C('female')],
  child: [C()],
  brother: [S('male')],
  sister: [S('female')],
  sibling: [S()],
  // Grandparents: the side (paternal / maternal) is read from the word before; either side else.
  grandfather: [P(), P('male')],
  grandmother: [P(), P('female')],
  grandparent: [P(), P()],
  'great-grandfather': [P(), P(), P('male')],
  'great-grandmother': [P(), P(), P('female')],
  grandson: [C(), C('male')],
  granddaughter: [C(), C('female')],
  grandchild: [C(), C()],
  uncle: [P(), S('male')],
  aunt: [P(), S('female')],
  nephew: [S(), C('male')],
  niece: [S(), C('female')],
  cousin: [P(), S(), C()],
  stepfather: [P('female'), W('male')],
  stepmother: [P('male'), W('female')],
  stepson: [W(), C('male')],
  stepdaughter: [W(), C('female')],
  'half-brother': [P(), C('male')],
  'half-sister': [P(), C('female')],
};
/** Everyday kinship words and the noun they stand for ("granny" → grandmother). */
const KIN_ALIASES: Record<string, string> = {
  dad: 'father',
  daddy: 'father',
  pa: 'father',
  mom: 'mother',
  mum: 'mother',
  mummy: 'mother',
  ma: 'mother',
  grandpa: 'grandfather',
  granddad: 'grandfather',
  grandad: 'grandfather',
  grandma: 'grandmother',
  granny: 'grandmother',
  gran: 'grandmother',
  nan: 'grandmother',
  kid: 'child',
  offspring: 'child',
  heir: 'child',
  bride: 'wife',
  groom: 'husband',
};
for (const [alias, noun] of Object.entries(KIN_ALIASES)) KIN[alias] = KIN[noun]!;

/** The kinship noun a word stands for ("grandpa" → grandfather), or the word itself. */
export function kinNoun(lemma: string): string {
  return Object.hasOwn(KIN_ALIASES, lemma) ? KIN_ALIASES[lemma]! : lemma;
}

/** "-in-law": the relation of the spouse (mother-in-law), or the spouse of the relation (son-in-law). */
export function inLaw(noun: string): Relation[] | null {
  const own = KIN[noun];
  if (own?.length !== 1) return null;
  const r = own[0]!;
  if (r.kind !== 'kin') return null;
  // A sibling-in-law is the spouse's sibling or the sibling's spouse; the first is read here.
  if (r.base === 'parent' || r.base === 'sibling') return [W(), r];
  if (r.base === 'child') return [C(), W(r.gender)];
  return null;
}

/** Nouns that type a name rather than relate it ("the film X"): never a relation. */
const NOT_RELATIONS = new Set(
  'film movie song album book novel series show band group team company city town village country river ship boat person man woman people one member player'.split(
    ' ',
  ),
);

/** Nouns of a company or body a relation noun before them qualifies ("production company"). */
const BODY_HEADS = new Set('company studio firm house label publisher agency'.split(' '));

/**
 * "the production company of X", "the recording studio of X": a body named by the event it does
 * for X — the relation of the event's verb ("produced by …"). null for any other pair of nouns.
 */
export function bodyRelation(modifier: string, head: string): Relation[] | null {
  if (!BODY_HEADS.has(head)) return null;
  const verb = eventVerb(modifier);
  return verb ? [{ kind: 'role', noun: `${modifier} ${head}`, verbs: [verb] }] : null;
}

/**
 * The relations a noun (lemma) stands for, or null when it names none: a kinship noun, or an agent
 * noun whose verb relates it ("director" → direct, "founder" → found, "builder" → build; see
 * {@link agentVerb}).
 */
export function relationOf(lemma: string): Relation[] | null {
  const k = KIN[lemma];
  if (k) return k;
  if (NOT_RELATIONS.has(lemma)) return null;
  // "the (record) label of X": the label that released X.
  if (lemma === 'label') return [{ kind: 'role', noun: lemma, verbs: ['release'] }];
  const verb = agentVerb(lemma);
  if (verb) return [{ kind: 'role', noun: lemma, verbs: [verb] }];
  return null;
}

/** Whether a relation leads to a place: "the birthplace of X". */
export function isPlaceRole(relation: Relation): boolean {
  return relation.kind === 'role' && DESCRIPTOR_TYPES[relation.noun] === 'geo';
}
