/**
 * Relation words by meaning: a question's "helmed", "perished", "debuted", "set up" or "wed" and a
 * passage's "directed", "died", "released", "founded" or "married" read as one relation. Every word
 * (lemma) maps to a canonical concept: the head of its synonym group in a general English lexicon,
 * the verb an agent noun ("director", "founder") or an event noun ("death", "marriage") stands
 * for, else the word itself. Matching on concepts instead of words is what lets the reader follow
 * everyday wording; nothing here is keyed on one dataset's phrasing.
 */
import type { EntityAnalysis } from '../entities.js';
import { DESCRIPTOR_TYPES } from '../lexicon.js';
import { type Analysis, isKnownWord } from '../nlp.js';
import { saysContent } from './stop-words.js';
import { GROUPS, SECOND_SENSES } from './synonyms.js';

/** Agent nouns whose verb morphology does not give (author → write). */
const IRREGULAR_AGENTS: Readonly<Record<string, string>> = {
  author: 'write',
  novelist: 'write',
  poet: 'write',
  playwright: 'write',
  screenwriter: 'write',
  lyricist: 'write',
  songwriter: 'write',
  journalist: 'write',
  architect: 'design',
  cofounder: 'found',
  'co-founder': 'found',
  heir: 'succeed',
  successor: 'succeed',
  predecessor: 'precede',
  pianist: 'perform',
  guitarist: 'perform',
  violinist: 'perform',
  vocalist: 'sing',
  artist: 'perform',
  star: 'star',
  actor: 'star',
  actress: 'star',
  spouse: 'marry',
  husband: 'marry',
  wife: 'marry',
  widow: 'marry',
  widower: 'marry',
  alumnus: 'study',
  student: 'study',
  pupil: 'study',
  graduate: 'study',
  employee: 'work',
  employer: 'work',
  member: 'join',
  // "X belongs to the council" is a member of it (and, as a second sense, owned: synonyms.ts).
  belong: 'join',
  captain: 'lead',
  chairman: 'lead',
  chairwoman: 'lead',
  chair: 'lead',
  ceo: 'lead',
  president: 'lead',
  head: 'lead',
  leader: 'lead',
  chief: 'lead',
  mayor: 'lead',
  coach: 'coach',
  manager: 'operate',
  operator: 'operate',
  proprietor: 'own',
  landlord: 'own',
  landlady: 'own',
  resident: 'live',
  inhabitant: 'live',
  native: 'bear',
  birthplace: 'bear',
  hometown: 'bear',
  birthday: 'bear',
};

/**
 * Irregular past forms of relation verbs, for a form wink leaves as it is after a prefix
 * ("co-wrote", "co-written"): wink lemmatises the bare forms itself.
 */
const PAST_FORMS: Readonly<Record<string, string>> = {
  wrote: 'write',
  written: 'write',
  led: 'lead',
  built: 'build',
  made: 'make',
  ran: 'run',
  held: 'hold',
  began: 'begin',
  begun: 'begin',
  sang: 'sing',
  sung: 'sing',
  drew: 'draw',
  drawn: 'draw',
  taught: 'teach',
};

/** Event nouns and the verb they name (the text says "died" where a question says "death"). */
const EVENT_NOUNS: Readonly<Record<string, string>> = {
  birth: 'bear',
  death: 'die',
  burial: 'bury',
  marriage: 'marry',
  wedding: 'marry',
  foundation: 'found',
  founding: 'found',
  establishment: 'found',
  creation: 'create',
  construction: 'build',
  release: 'release',
  publication: 'publish',
  premiere: 'release',
  debut: 'release',
  opening: 'open',
  closure: 'close',
  closing: 'close',
  retirement: 'retire',
  election: 'elect',
  education: 'study',
  graduation: 'study',
  residence: 'live',
  // "a population of 900", "900 inhabitants", "How many people live …": who lives there.
  population: 'live',
  discovery: 'discover',
  invention: 'invent',
  recording: 'record',
  performance: 'perform',
  translation: 'translate',
  destruction: 'destroy',
  direction: 'direct',
  production: 'produce',
  composition: 'compose',
  design: 'design',
  ownership: 'own',
  location: 'locate',
  headquarters: 'locate',
  employment: 'work',
  membership: 'join',
};

const canonical = new Map<string, string>();
const phrases: string[][] = [];
for (const group of GROUPS) {
  const parts = group.split(' ');
  const head = parts[0]!;
  for (const w of parts) {
    // Multi-word members are written with underscores: "pass_away", "set_up".
    if (w.includes('_')) phrases.push([...w.split('_'), head]);
    else if (!canonical.has(w)) canonical.set(w, head);
  }
}
for (const [noun, verb] of Object.entries({ ...IRREGULAR_AGENTS, ...EVENT_NOUNS }))
  if (!canonical.has(noun)) canonical.set(noun, canonical.get(verb) ?? verb);

/**
 * The verb an agent noun is made from: "director" → "direct", "founder" → "found", "composer" →
 * "compose", "creator" → "create", "painter" → "paint"; checked against wink's English lexicon.
 * null when the noun is no agent noun.
 */
export function agentVerb(noun: string): string | null {
  const irregular = IRREGULAR_AGENTS[noun];
  if (irregular) return irregular;
  // "co-writer", "co-producer": who did it together did it.
  const together = /^co-([a-z]{3,})$/.exec(noun)?.[1];
  if (together) return agentVerb(together);
  const m = /^(.{3,}?)(er|or|ist)$/.exec(noun);
  if (!m) return null;
  const stem = m[1]!;
  const tries =
    m[2] === 'ist'
      ? [stem, `${stem}e`]
      : [stem, `${stem}e`, stem.replace(/(.)\1$/, '$1'), stem.replace(/i$/, 'y')];
  // A relation verb first: "writer" is who writes, not a "writ".
  for (const verb of tries) if (verb.length >= 3 && canonical.has(verb)) return verb;
  for (const verb of tries) if (verb.length >= 3 && isKnownWord(verb)) return verb;
  return null;
}

/** The verb an event noun is made from ("production" → "produce", "founding" → "found"), or null. */
export function eventVerb(noun: string): string | null {
  if (Object.hasOwn(EVENT_NOUNS, noun)) return EVENT_NOUNS[noun]!;
  const ing = /^([a-z]{3,})ing$/.exec(noun)?.[1];
  if (!ing) return null;
  for (const verb of [ing, `${ing}e`, ing.replace(/(.)\1$/, '$1')]) if (canonical.has(verb)) return verb;
  return null;
}

/**
 * Whether a noun names a person by what they do: "vocalist", "novelist", "heir", "skipper",
 * "builder" (an agent noun whose verb is a relation the lexicon knows), not "letter" or "river".
 */
export function isAgentNoun(noun: string): boolean {
  if (Object.hasOwn(IRREGULAR_AGENTS, noun)) return true;
  const verb = agentVerb(noun);
  return verb !== null && (noun.endsWith('ist') || canonical.has(verb));
}

/** Concepts worked out once per lemma (a reader asks for the same words over and over). */
const lemmaConcepts = new Map<string, string>();

/** The concept a lemma stands for (its synonym group's head, or the verb of an agent/event noun). */
export function concept(lemma: string): string {
  const known = canonical.get(lemma) ?? lemmaConcepts.get(lemma);
  if (known) return known;
  const found = conceptOf(lemma);
  if (lemmaConcepts.size >= 100_000) lemmaConcepts.clear();
  lemmaConcepts.set(lemma, found);
  return found;
}

function conceptOf(lemma: string): string {
  // "co-wrote", "co-founded", "co-writer", "co-star": the relation done together is the relation.
  const together = /^co-?([a-z]{3,})$/.exec(lemma)?.[1];
  if (together && lemma !== 'cost' && !canonical.has(lemma)) {
    const base = PAST_FORMS[together] ?? together;
    const head = concept(base);
    if (head !== base || canonical.has(base) || isKnownWord(base)) return head;
  }
  // "reopened", "rebuilt", "re-elected": the same relation again.
  const again = /^re-?([a-z]{3,})$/.exec(lemma)?.[1];
  if (again && canonical.has(again)) return canonical.get(again)!;
  // A verb's -ing noun names its event: "the crossing took 25 minutes" is a crossing.
  const ing = /^([a-z]{3,})ing$/.exec(lemma)?.[1];
  if (ing) {
    for (const verb of [ing, `${ing}e`, ing.replace(/(.)\1$/, '$1')]) {
      if (!canonical.has(verb) && !isKnownWord(verb)) continue;
      const head = canonical.get(verb) ?? verb;
      canonical.set(lemma, head);
      return head;
    }
  }
  // A past tense the tagger read as a noun keeps its own form as lemma ("Who starred in X?"): the verb.
  const past = /^([a-z]{3,})ed$/.exec(lemma)?.[1];
  if (past) {
    for (const verb of [past, `${past}e`, past.replace(/(.)\1$/, '$1'), past.replace(/i$/, 'y')]) {
      if (verb.length < 3 || (!canonical.has(verb) && !isKnownWord(verb))) continue;
      const head = canonical.get(verb) ?? verb;
      canonical.set(lemma, head);
      return head;
    }
  }
  const verb = EVENT_NOUNS[lemma] ?? agentVerb(lemma);
  if (verb) {
    const head = canonical.get(verb) ?? verb;
    canonical.set(lemma, head);
    return head;
  }
  return lemma;
}

/** How much a word's second sense counts against its own concept ("begun" is also "opened"). */
export const SECOND_SENSE_WEIGHT = 0.8;

/** The other relations a lemma can name besides its concept ("start" also founds), see SECOND_SENSES. */
export function secondSenses(lemma: string): readonly string[] {
  return Object.hasOwn(SECOND_SENSES, lemma) ? SECOND_SENSES[lemma]! : [];
}

/** Object pronouns a phrasal verb's particle may follow ("set it up", "passed them on"). */
const OBJECT_PRONOUN = /^(it|them|him|her|us|me|this|that)$/;

/**
 * Concepts of a run of lemmas, multi-word members folded ("pass away" → "die"): one entry per
 * input lemma, the phrase's concept on its first word and `''` on the rest. A two-word phrasal
 * verb also matches with an object pronoun between its words ("set it up").
 */
export function concepts(lemmas: readonly string[]): string[] {
  const out = lemmas.map(concept);
  for (let i = 0; i < lemmas.length; i++) {
    for (const phrase of phrases) {
      const n = phrase.length - 1;
      if (i + n > lemmas.length) continue;
      let match = true;
      for (let j = 0; j < n && match; j++) match = lemmas[i + j] === phrase[j];
      if (match) {
        out[i] = concept(phrase[n]!);
        for (let j = 1; j < n; j++) out[i + j] = '';
      } else if (
        n === 2 &&
        lemmas[i] === phrase[0] &&
        OBJECT_PRONOUN.test(lemmas[i + 1] ?? '') &&
        lemmas[i + 2] === phrase[1]
      ) {
        out[i] = concept(phrase[n]!);
        out[i + 2] = '';
      }
    }
  }
  return out;
}

const conceptCache = new WeakMap<Analysis, string[]>();
/** The concept of every token of an analysis ('' where a multi-word phrase continues). */
export function tokenConcepts(analysis: Analysis): string[] {
  let out = conceptCache.get(analysis);
  if (!out) {
    out = concepts(analysis.tokens.map((t) => t.lemma));
    conceptCache.set(analysis, out);
  }
  return out;
}

/**
 * Concepts of the content tokens `start..end` (a phrase's stop words count through its head); with
 * `withSenses` each word's second senses too (a context's "started a yard" founded it; a question's
 * words weigh in their second senses as well, though only their first says the relation asked).
 */
export function contentConcepts(
  analysis: Analysis,
  start: number,
  end: number,
  withSenses = false,
): string[] {
  const all = tokenConcepts(analysis);
  const out: string[] = [];
  for (let i = start; i <= end; i++) {
    const token = analysis.tokens[i];
    const c = all[i];
    if (!token || !c) continue;
    if (saysContent(token) || c !== token.lemma) {
      out.push(c);
      if (withSenses) out.push(...secondSenses(token.lemma));
    }
  }
  return out;
}

/** Verbs a where-question uses to ask where a thing is, not what happened there. */
const LOCATING_VERBS = new Set([
  'find',
  'see',
  'visit',
  'get',
  'go',
  'reach',
  'locate',
  'lie',
  'sit',
  'stand',
  'situate',
  'flow',
]);
/** Kinds of place a where-question narrows to ("Where in town …", "Where in the city …"). */
const PLACE_KINDS = new Set(['town', 'city', 'village', 'country', 'area', 'place', 'world', 'building']);

/** Verbs that say little of a relation themselves: the nouns with them say it ("what is it called"). */
const LIGHT_VERBS = new Set(
  'call name have get take give go come do make cover include contain hold become use keep put see find know'.split(
    ' ',
  ),
);

/**
 * The relation words of a question: concepts of its content words outside its names and its
 * wh-phrase ("Who *founded* the Gig Club?" → found).
 */
export function predicateConcepts(qea: EntityAnalysis, whStart: number, whEnd: number): Set<string> {
  const { analysis } = qea;
  const inName = new Uint8Array(analysis.tokens.length);
  for (const mentions of qea.bySentence)
    for (const m of mentions) {
      if (qea.byKey.get(m.key)?.type === 'concept' || m.source === 'pronoun') continue;
      for (let k = m.start; k <= m.end; k++) inName[k] = 1;
    }
  const all = tokenConcepts(analysis);
  const out = new Set<string>();
  // "Where would I find X?", "Where can you see Y?": the verb only asks where X is.
  // "What river does X lie on?": a place asked for by its kind locates the same way.
  const where =
    analysis.tokens[whStart]?.normal === 'where' ||
    DESCRIPTOR_TYPES[analysis.tokens[whEnd]?.lemma ?? ''] === 'geo';
  const verbs = new Set<string>();
  const nouns = new Set<string>();
  analysis.tokens.forEach((t, k) => {
    if (inName[k] || (k >= whStart && k <= whEnd) || !all[k]) return;
    // A possessive "'s" relates, but says no relation of its own.
    if (/^['’]s?$/.test(t.value)) return;
    if (/^\p{Lu}/u.test(t.value) && k > 0) return;
    // "Where in town …": the kind of place asked for, not a relation.
    if (where && (LOCATING_VERBS.has(t.lemma) || PLACE_KINDS.has(t.lemma))) return;
    if (!saysContent(t) && all[k] === t.lemma) return;
    out.add(all[k]!);
    if (t.pos === 'VERB' && !LIGHT_VERBS.has(t.lemma)) verbs.add(all[k]!);
    else if (t.pos === 'NOUN') nouns.add(all[k]!);
  });
  // A verb says the relation asked about ("Who *built* the weir house?"); the nouns with it say
  // what it is about, not the relation: a sentence that "kept the weir house" does not answer.
  if (verbs.size > 0) for (const n of nouns) if (!verbs.has(n)) out.delete(n);
  return out;
}

/**
 * Whether a noun names a kind of `kind`: the same word or concept, or a compound headed by it
 * ("shipyard" is a yard, "clubhouse" a house; English compounds take their head last).
 */
export function isKindOf(lemma: string, kind: string): boolean {
  if (lemma === kind || concept(lemma) === concept(kind)) return true;
  return kind.length >= 3 && lemma.length - kind.length >= 3 && lemma.endsWith(kind);
}
