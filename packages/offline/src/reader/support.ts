/**
 * Whether the context supports an answer: the sentence it comes from states the relation asked
 * about (one of the question's relation words, by concept) and names what the question names — in
 * the sentence, in the sentences before it that it takes up, in its item, or through a bridge for a
 * multi-hop question. What lets the reader say "unknown" instead of answering anyway.
 */
import type { EntityAnalysis } from '../entities.js';
import type { Analysis, Token } from '../nlp.js';
import { isKindByWordNet } from '../wordnet.js';
import { contentWords } from '../words.js';
import { isMaking, namesMaker } from './agent.js';
import { findRelationPhrase } from './chain.js';
import { findDescription } from './decompose.js';
import { concept, predicateConcepts, tokenConcepts } from './meaning.js';
import { askedVerbSenses, LIFE_SPAN, type QuestionReading } from './question.js';

/**
 * Whether sentence `x` names a kind of `kind` as a noun's modifier: "an ice hockey team", "a jazz
 * label" (what a thing is, said of it, rather than a word of another clause).
 */
function modifierKind(x: ScoredSentence, kind: string): boolean {
  const { tokens, sentences } = x.ea.analysis;
  const range = sentences[x.index]!;
  for (let k = range.start; k < range.end; k++) {
    const t = tokens[k]!;
    if (t.pos !== 'NOUN' || tokens[k + 1]!.pos !== 'NOUN' || t.lemma === kind) continue;
    if (isKindByWordNet(t.lemma, kind)) return true;
  }
  return false;
}

/** The seat noun of a question's "the <seat> of <Name>" ("capital"), or null. */
function seatOfName(tokens: readonly Token[]): string | null {
  for (let k = 0; k + 2 < tokens.length; k++) {
    const t = tokens[k]!;
    if (t.pos !== 'NOUN' || tokens[k + 1]!.normal !== 'of') continue;
    const named = tokens[k + (tokens[k + 2]!.normal === 'the' ? 3 : 2)];
    if (named?.pos !== 'PROPN') continue;
    if (t.lemma === 'seat' || isKindByWordNet(t.lemma, 'seat')) return t.lemma;
  }
  return null;
}

/** Whether a question's relation words are all verbs of making a work ("Who recorded X?"). */
const making = (predicate: ReadonlySet<string>): boolean =>
  predicate.size > 0 && [...predicate].every(isMaking);

/** A context sentence with what the scorers need. */
export interface ScoredSentence {
  text: string;
  /** Concepts of its content words. */
  lemmas: string[];
  /** Keys of the entities it mentions (pronouns resolved). */
  keys: Set<string>;
  /** Types of the entities it mentions, per key. */
  types: Map<string, string>;
  numbers: string[];
  item: number;
  ea: EntityAnalysis;
  index: number;
  /** Who "my" and "our" are in its item, a note in the first person (see `narratorOf`). */
  narrator?: string;
}

/** Whether `phrase` occurs in `text` between non-letters ("paris" in "in paris.", not in "comparison"). */
export function containsPhrase(text: string, phrase: string): boolean {
  for (let at = text.indexOf(phrase); at >= 0; at = text.indexOf(phrase, at + 1)) {
    const before = text[at - 1] ?? ' ';
    const after = text[at + phrase.length] ?? ' ';
    if (!/[\p{L}\p{N}]/u.test(before) && !/[\p{L}\p{N}]/u.test(after)) return true;
  }
  return false;
}

/** A labelled header line of a note or mail: "Subject: …", "From: …", "Re: …". */
const HEADER_LINE = /^\s*\p{Lu}[\p{L} ]{0,15}:\s/u;

/** What a wh-question asks, as the support test reads it. */
interface Asked {
  /** Concepts of its relation words: what the answer's sentence must state. */
  predicate: Set<string>;
  /** The kind of thing asked for, which a sentence naming a kind of it states. */
  kindOf: string | undefined;
  /** Whether it names its answer through another entity (answered through a bridge). */
  multiHop: boolean;
  /** "Where does X come from?": "from <Name>" states it. */
  fromAsked: boolean;
  /** A seat of a name is asked ("the capital of Veska"): stated of that name only. */
  ownRelation: boolean;
}

/** What `qa`, read as `reading`, asks (`bridges`: whether a multi-hop answer may come through a bridge). */
function askedOf(qa: Analysis, reading: QuestionReading, bridges: boolean): Asked {
  const predicate = predicateConcepts(
    { analysis: qa, entities: [], byKey: new Map(), bySentence: [] },
    reading.whStart,
    reading.whEnd,
  );
  // "What is the capital of Veska?", "Which city is the capital of Veska?": a seat (WordNet's "the
  // location where something is based": a capital, a county seat) of a name is where that name is
  // based, which the answer's sentence must state of it (any place in Veska's note is no capital).
  // A kind of place ("the country of X") or an attribute ("the nationality of X") is read as before.
  const seat = seatOfName(qa.tokens);
  if (seat) predicate.add(concept(seat));
  // "Who started the Kessler Shipyard?" is stated by "it was founded by …" (see askedVerbSenses).
  for (const sense of askedVerbSenses(qa.tokens, reading)) predicate.add(sense);
  return {
    predicate,
    // "What sport do the Gulls play?" over "The Gulls are an ice hockey team": a sentence naming a
    // kind of the thing asked states it, whatever the verb ("play", "practise", "speak").
    kindOf: reading.kind === 'thing' && reading.descriptor ? reading.descriptor : undefined,
    // Only a question that names its answer through another entity ("the institute that owns X",
    // "the founder of Y") is answered through a bridge.
    multiHop: bridges && (!!findDescription(qa.tokens) || !!findRelationPhrase(qa.tokens)),
    // "Where does X come from?" (come from, hail from: born): "X is a folk band from Lowmarsh" says it.
    fromAsked: qa.tokens.some(
      (t, k) => /^(come|hail|originate)$/.test(t.lemma) && qa.tokens[k + 1]?.normal === 'from',
    ),
    ownRelation: seat !== null,
  };
}

/** The support tests over one context, for the questions asked of it (`query` the user's). */
export function createSupport(candidates: readonly ScoredSentence[], query: string) {
  const questionLower = query.toLowerCase();
  /** The sentences of each context item, in order. */
  const byItem = new Map<number, ScoredSentence[]>();
  for (const c of candidates) {
    const list = byItem.get(c.item) ?? [];
    list.push(c);
    byItem.set(c.item, list);
  }
  /**
   * Whether the context supports a wh-answer: its sentence states the relation asked about (one
   * of the question's relation words, by meaning) and names what the question names (or belongs
   * to an item that does, or was reached through a resolved relation). `reading` is the question
   * `qa` read; `bridges: false` refuses answers reached through another item (the question asks
   * for a relation of a name directly).
   */
  const acceptor = (
    qa: Analysis,
    reading: QuestionReading,
    options: { bridges?: boolean } = {},
  ): ((i: number, bridge: number) => boolean) | undefined => {
    if (reading.kind === 'choice' || reading.kind === 'polar') return undefined;
    const asked = askedOf(qa, reading, options.bridges !== false);
    const keys = qEntityKeys(qa);
    return (i, bridge) => supported(i, asked, keys, asked.multiHop ? bridge : -1);
  };
  const supported = (i: number, asked: Asked, keys: readonly string[], bridge = -1): boolean => {
    const { predicate, kindOf, fromAsked, ownRelation } = asked;
    const c = candidates[i]!;
    const states = (x: ScoredSentence): boolean =>
      predicate.size === 0 ||
      (fromAsked && /\bfrom\s+(?:the\s+)?\p{Lu}/u.test(x.text)) ||
      x.lemmas.some((l) => predicate.has(l)) ||
      (!!kindOf && modifierKind(x, kindOf)) ||
      // A life span in brackets states a birth and a death: "(12 June 1930 – 2 April 2001)".
      ((predicate.has('bear') || predicate.has('die')) && LIFE_SPAN.test(x.text)) ||
      // "an album by X" says who made, recorded or wrote it.
      (making(predicate) && namesMaker(x.ea.analysis.tokens, x.ea.analysis.sentences[x.index]!));
    if (!states(c)) return false;
    // What the question names: in the sentence, in the one before it (the same subject goes
    // on), or as the title of its item.
    if (keys.length === 0) return true;
    // The two sentences before count when this one takes a subject up ("She …", "The club …",
    // "… to launch her in March").
    const range = c.ea.analysis.sentences[c.index]!;
    const first = c.ea.analysis.tokens[range.start];
    // A pronoun later in the sentence takes a subject up only when the sentence names no person
    // it could stand for ("My wife Sunniva says … about her" is about Sunniva).
    const namesPerson = [...c.types.values()].includes('person');
    const takesUp =
      (!!first && /^(the|this|he|she|it|they|his|her|its|their)$/.test(first.normal)) ||
      (!namesPerson &&
        c.ea.analysis.tokens
          .slice(range.start, range.end + 1)
          .some((t) => /^(he|she|it|they|him|her|them|his|its|their)$/.test(t.normal)));
    const near = [c];
    // A relation of the name ("the capital of Veska") is stated of it by name or in its own item:
    // "Its capital is Kaltern" after "Lundmark is a province of Veska" is Lundmark's.
    for (const j of ownRelation ? [] : [i - 1, i - 2])
      if (takesUp && candidates[j] && candidates[j]!.item === c.item) near.push(candidates[j]!);
    if (keys.some((k) => near.some((x) => names(x, k)))) return true;
    // A sentence that states two or more of the question's relation words ("is leading the hull
    // team") may leave the name to its item ("Subject: the Wren …" earlier in the same note).
    let shared = 0;
    for (const l of new Set(c.lemmas)) if (predicate.has(l)) shared++;
    const item = byItem.get(c.item)!;
    const scope = shared >= 2 && !ownRelation ? [...item] : [];
    // Its title, and the header lines of a note or mail ("From: …", "Subject: the Wren, status").
    for (const x of item) if (x.index === 0 || (x.index <= 3 && HEADER_LINE.test(x.text))) scope.push(x);
    // A multi-hop answer: its sentence shares a name with a sentence of another item that
    // names what the question names ("… directed by Ilse Marren" ← the item about the vessel).
    if (bridge >= 0) scope.push(...(byItem.get(bridge) ?? []));
    return keys.some((k) => scope.some((x) => names(x, k)));
  };
  /** The names of a question (not its noun phrases or numbers). */
  const surnames = new Set<string>();
  const qEntityKeys = (qa: Analysis): string[] => {
    const out: string[] = [];
    const named = (k: number): boolean => {
      const t = qa.tokens[k];
      // A capital "I" is the asker, not a name.
      return !!t && t.pos !== 'PRON' && (t.pos === 'PROPN' || (/^\p{Lu}/u.test(t.value) && k > 0));
    };
    qa.tokens.forEach((t, k) => {
      if (!named(k)) return;
      out.push(t.normal);
      if (named(k - 1) && !named(k + 1)) surnames.add(t.normal);
    });
    return out;
  };
  /**
   * Whether a sentence names what the question calls `word`: the word itself, unless it is
   * the surname of another person the sentence names in full ("Vance" in "Teodor Vance" is not
   * Marit Vance).
   */
  const names = (c: ScoredSentence, word: string): boolean => {
    const words = new Set(c.lemmas);
    const lower = c.text.toLowerCase();
    if (!containsPhrase(lower, word) && !words.has(word)) return false;
    for (const key of c.keys) {
      const parts = key.split(' ');
      if (
        surnames.has(word) &&
        parts.length > 1 &&
        parts[parts.length - 1] === word &&
        !containsPhrase(questionLower, key)
      )
        return false;
    }
    return true;
  };
  /** Whether some context sentence calls `name` a `head` ("the ferry Sable Gull", "X Institute"). */
  const describedAs = (name: string, head: string): boolean => {
    const words = contentWords(name);
    const wanted = concept(head);
    if (words.length === 0) return false;
    if (concept(words[words.length - 1]!.replace(/s$/, '')) === wanted) return true;
    for (const c of candidates) {
      const tokens = c.ea.analysis.tokens;
      const range = c.ea.analysis.sentences[c.index]!;
      const all = tokenConcepts(c.ea.analysis);
      for (let k = range.start; k <= range.end; k++) {
        if (tokens[k]!.normal !== words[0]) continue;
        for (let j = Math.max(range.start, k - 4); j <= Math.min(range.end, k + words.length + 3); j++)
          if (all[j] === wanted || tokens[j]!.lemma === head) return true;
      }
    }
    return false;
  };
  return { acceptor, describedAs };
}
