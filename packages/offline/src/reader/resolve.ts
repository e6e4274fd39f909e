/**
 * Resolving a relation from a named entity to the entity it leads to ("the director of X" → the
 * person the item about X says directed it; "X's mother" → the parent the context names).
 */
import type { Token } from '../nlp.js';
import { containsWords, contentWords } from '../words.js';
import { aboutItems, genderOf, openedItems, personName, wordSet } from './about.js';
import { resolveInverseKin } from './inverse.js';
import { isPlaceRole, type Relation } from './kinship.js';
import { readingOf } from './question.js';
import { near, roleCue } from './role-cue.js';
import { type Span, sentenceSpans } from './spans.js';
import type { AnswerSentence } from './types.js';

/** What {@link resolveRelation} found: the entity, and the sentence that says so. */
export interface ResolvedEntity {
  name: string;
  /** Index in the sentences given. */
  sentence: number;
  score: number;
}

const PERSON_READING = readingOf('person', 'person');
const KIN_NAME_TYPES = new Set(['person', 'other', 'organization', 'work', 'event']);
const ROLE_NAME_TYPES = new Set(['person', 'other', 'organization', 'work', 'event']);
/** Names a place role ("birthplace") may lead to. */
const PLACE_NAME_TYPES = new Set(['geo', 'other', 'organization']);
/** How likely a name of each type is a person or a group ("the *Strumpet wife of X*" is a work). */
const TYPE_WEIGHT: Record<string, number> = { organization: 0.8, work: 0.6, event: 0.6 };

const PRONOUN = /^(he|she)$/;
const PARENT_NOUNS = new Set(['son', 'daughter', 'child', 'children', 'heir', 'offspring']);
const SPOUSE_CUES = new Set(
  'married marry marries marrying wed weds wedded wife husband spouse consort widow widower'.split(' '),
);
const CHILD_CUES = new Set('son sons daughter daughters child children heir'.split(' '));
const SIBLING_CUES = new Set('brother brothers sister sisters sibling siblings'.split(' '));

/** How strongly sentence tokens `range` say that `span` stands in `relation` to the item's subject. */
function relationCue(
  relation: Relation,
  tokens: readonly Token[],
  range: { start: number; end: number },
  span: Span,
  spans: readonly Span[],
  genderOfName: (span: Span) => 'male' | 'female' | null,
  firstPerson = false,
  subject: ReadonlySet<string> = new Set(),
): number {
  /** Whether the subject is named within eight words after token `k`, in the same clause. */
  const subjectAfter = (k: number): boolean => {
    for (let j = k + 1; j <= Math.min(range.end, k + 8); j++) {
      if (/^[.;]$/.test(tokens[j]!.value)) return false;
      if (subject.has(tokens[j]!.normal)) return true;
    }
    return false;
  };
  const stops = (from: number, to: number): boolean => {
    for (let k = from; k <= to; k++) if (/^[.;]$/.test(tokens[k]?.value ?? '')) return true;
    return false;
  };
  let best = 0;
  for (let k = range.start; k <= range.end; k++) {
    const t = tokens[k]!;
    // In the narrator's own note, a relation word counts only as "my …" or "our …".
    if (firstPerson && !/^(my|our)$/.test(tokens[k - 1]?.normal ?? '')) continue;
    const after = span.start - k - 1; // words between the cue and a span after it
    const before = k - span.end - 1; // words between a span before the cue and it
    if (after >= 0 && stops(k + 1, span.start - 1)) continue;
    if (before >= 0 && stops(span.end + 1, k - 1)) continue;
    if (relation.kind === 'role') {
      best = Math.max(best, roleCue(relation, tokens, k, span, after, before, range.start));
      continue;
    }
    const gender = relation.gender;
    if (relation.base === 'parent') {
      // "the son of A and B", "born to A and B", "His parents were A and B": the father first.
      const anchor =
        (PARENT_NOUNS.has(t.lemma) || PARENT_NOUNS.has(t.normal)) && tokens[k + 1]?.normal === 'of'
          ? k + 1
          : t.normal === 'born' && tokens[k + 1]?.normal === 'to'
            ? k + 1
            : (t.lemma === 'parent' || t.normal === 'parents') &&
                /^(were|are|was|:)$/.test(tokens[k + 1]?.normal ?? '')
              ? k + 1
              : -1;
      if (anchor >= 0) {
        const following = spans.filter((x) => x.start > anchor && !stops(anchor + 1, x.start - 1));
        const first = following[0];
        if (first && first.start - anchor - 1 <= 4) {
          let second: Span | undefined;
          for (const x of following.slice(1)) {
            if (x.start - first.end > 12) break;
            let and = false;
            for (let j = first.end + 1; j < x.start; j++) if (tokens[j]!.normal === 'and') and = true;
            if (and) {
              second = x;
              break;
            }
          }
          // "He was the son of A": the item's subject is the child; with another name before the
          // anchor ("X's friend B, son of A") it may be someone else's parent.
          const own = spans.some((x) => x.end < anchor && x.start >= range.start) ? 0.5 : 1;
          // The father is named first, unless the parents' own items say otherwise ("son of A and
          // B" where A's item says "she").
          let [father, mother] = [first, second];
          if (span === first || span === second) {
            const g1 = genderOfName(first);
            const g2 = second ? genderOfName(second) : null;
            if (second && (g1 === 'female' || g2 === 'male')) [father, mother] = [second, first];
          }
          if (span === father) best = Math.max(best, own * (gender === 'female' ? 0.35 : 0.9));
          if (span === mother)
            best = Math.max(best, own * (gender === 'female' ? 0.9 : gender === 'male' ? 0.35 : 0.5));
        }
      }
      // "A and B had two children, C and D", "… and their daughter C was born": the names
      // before a child word whose child is the subject are the subject's parents.
      if (
        before >= 0 &&
        (CHILD_CUES.has(t.normal) || CHILD_CUES.has(t.lemma)) &&
        tokens[k + 1]?.normal !== 'of' &&
        subjectAfter(k)
      )
        // The parents are the clause's subject however long the clause ("A married B, a …, and
        // their daughter C"; "their" takes up the couple): no decay with distance.
        best = Math.max(
          best,
          tokens[k - 1]?.normal === 'their' ? (before <= 20 ? 0.9 : 0) : before <= 8 ? 0.8 : 0,
        );
      // "Her father was X" names a parent when the question does not say which.
      const nouns =
        gender === 'male' ? ['father'] : gender === 'female' ? ['mother'] : ['parent', 'father', 'mother'];
      if (
        nouns.includes(t.lemma) &&
        !/^['’]s?$/.test(tokens[k + 1]?.value ?? '') &&
        tokens[k + 1]?.normal !== 'of'
      ) {
        best = Math.max(best, near(after, 5, 1));
        if (/^(his|her|their)$/.test(tokens[k - 1]?.normal ?? ''))
          best = Math.max(best, near(before, 4, 0.8));
      }
      continue;
    }
    // "A and B had two children, C and D": C and D are siblings.
    if (
      relation.base === 'sibling' &&
      after >= 0 &&
      after <= 12 &&
      /^(children|sons|daughters|kids)$/.test(t.normal) &&
      tokens[k + 1]?.normal !== 'of' &&
      !stops(k + 1, span.start - 1)
    ) {
      for (let j = k + 1; j <= Math.min(range.end, k + 14); j++) {
        if (/^[.;]$/.test(tokens[j]!.value)) break;
        if (subject.has(tokens[j]!.normal) && (j < span.start || j > span.end)) {
          best = Math.max(best, 0.8);
          break;
        }
      }
    }
    const cues =
      relation.base === 'spouse' ? SPOUSE_CUES : relation.base === 'child' ? CHILD_CUES : SIBLING_CUES;
    if (!cues.has(t.normal) && !cues.has(t.lemma)) continue;
    if (relation.base === 'child' && tokens[k + 1]?.normal === 'of') continue;
    if (/^['’]s?$/.test(tokens[k + 1]?.value ?? '')) continue;
    best = Math.max(best, near(after, relation.base === 'child' ? 8 : 6, 1), near(before, 3, 0.6));
  }
  return best;
}

/**
 * The entity that stands in `relation` to `subject` in the context: "the director of Harbour Lights"
 * → the person "directed by" in the item about Harbour Lights; "the father of X" → the first parent
 * of "son of A and B" (a named parent whose own item says "she" is not a father). Sentences of an
 * item about the subject count whole, other sentences naming it at 0.6. null when no name is tied
 * to the subject by a cue word.
 */
export function resolveRelation(
  relation: Relation,
  subject: string,
  sentences: readonly AnswerSentence[],
  exclude: readonly string[] = [],
): ResolvedEntity | null {
  const subjectWords = contentWords(subject);
  if (subjectWords.length === 0) return null;
  const subjectSet = new Set(subjectWords);
  const excluded = exclude.map((e) => new Set(contentWords(e)));
  const about = aboutItems(subject, sentences);
  // A note opened about the subject: its first sentence is no title, its "she" is the subject.
  const opened = openedItems(subject, sentences);
  const whole = new Map<number, boolean>();
  /** Whether the item names the subject's other words ("Vance" of "Teodor Vance") somewhere. */
  const namesWhole = (item: number): boolean => {
    let named = whole.get(item);
    if (named === undefined) {
      const rest = subjectWords.slice(1);
      named = rest.every((w) => sentences.some((x) => x.item === item && wordSet(x).has(w)));
      whole.set(item, named);
    }
    return named;
  };
  const place = isPlaceRole(relation);
  const types = relation.kind === 'kin' ? KIN_NAME_TYPES : place ? PLACE_NAME_TYPES : ROLE_NAME_TYPES;
  const found = new Map<string, ResolvedEntity>();
  const seen = new Set<string>();
  for (let i = 0; i < sentences.length; i++) {
    const s = sentences[i]!;
    let weight = 0;
    // In a note the subject writes, "my mother" is the subject's ("our mother, Halina Vance" in
    // Marit Vance's note): only the relation words "my" or "our" own count there.
    const mine = !!s.narrator && namesSame(s.narrator, subjectWords);
    if (about.has(s.item)) weight = s.index === 0 ? 0 : 1;
    else if (opened.has(s.item)) weight = 1;
    else if (containsWords(wordSet(s), subjectWords) >= 0.8) weight = 0.6;
    else if (mine) weight = 1;
    // "Teodor's sister, Marit" in a note that names the Vances elsewhere.
    else if (subjectWords.length > 1 && wordSet(s).has(subjectWords[0]!) && namesWhole(s.item)) weight = 0.5;
    if (weight === 0) continue;
    const key = `${s.item}:${s.index}`;
    if (seen.has(key)) continue;
    seen.add(key);
    const tokens = s.ea.analysis.tokens;
    const range = s.ea.analysis.sentences[s.index]!;
    const spans = sentenceSpans(s.ea, s.index, PERSON_READING).filter((x) => {
      if (!types.has(x.type)) return false;
      // "an Ostish novelist, born in Pellin": a people's adjective is no place.
      if (place && x.end === x.start && tokens[x.start]!.pos === 'ADJ') return false;
      const words = contentWords(x.text);
      // Not the subject itself ("Renn" for Tobias Renn); a relative may share its
      // surname ("His father was Aldo Renn").
      if (words.length === 0 || containsWords(subjectSet, words) === 1) return false;
      return !excluded.some((e) => containsWords(e, words) === 1);
    });
    spans.sort((a, b) => a.start - b.start);
    for (const span of spans) {
      const score =
        weight *
        (TYPE_WEIGHT[span.type] ?? 1) *
        relationCue(
          relation,
          tokens,
          range,
          span,
          spans,
          (x) => genderOf(personName(tokens, x, range.end, sentences), sentences),
          mine && weight === 1,
          subjectSet,
        );
      if (score <= 0) continue;
      // A pronoun span ("she married X") carries the name it stands for.
      const text = PRONOUN.test(tokens[span.start]!.normal)
        ? span.text
        : personName(tokens, span, range.end, sentences);
      const name = contentWords(text).join(' ');
      const entry = found.get(name);
      if (!entry || score > entry.score) found.set(name, { name: text, sentence: i, score });
    }
  }
  let best: ResolvedEntity | null = null;
  for (const entry of found.values()) {
    if (relation.kind === 'kin' && relation.gender) {
      const gender = genderOf(entry.name, sentences);
      if (gender && gender !== relation.gender) entry.score *= 0.2;
      // Of two parents named alike, the father is the one the context calls a man.
      else if (gender) entry.score *= 1.1;
    }
    if (!best || entry.score > best.score || (entry.score === best.score && entry.sentence < best.sentence))
      best = entry;
  }
  return best && best.score >= 0.3 ? best : null;
}

/** Whether a narrator's name is the subject's: "Ines" for "Ines Callowby", or the whole name. */
function namesSame(narrator: string, subjectWords: readonly string[]): boolean {
  const words = contentWords(narrator);
  return words.length > 0 && containsWords(new Set(subjectWords), words) === 1;
}

/**
 * Resolve a chain of relations from `subject` ("paternal grandfather" = parent of the parent). A
 * `noun` the chain stands for ("grandfather") is looked for first as the text says it ("my
 * grandfather Walter", "X's aunt, Marit"), then the chain is followed step by step.
 */
export function resolveChain(
  relations: readonly Relation[],
  subject: string,
  sentences: readonly AnswerSentence[],
  exclude: readonly string[] = [],
  noun?: string,
): ResolvedEntity | null {
  const last = relations[relations.length - 1];
  if (noun && relations.length > 1) {
    const said = resolveRelation({ kind: 'role', noun, verbs: [] }, subject, sentences, exclude);
    const gender = last?.kind === 'kin' ? last.gender : null;
    if (said && !(gender && genderOf(said.name, sentences) === (gender === 'male' ? 'female' : 'male')))
      return said;
    // …or from the other side: "Mia is Peter Holt's granddaughter" for Mia's grandfather.
    const inverse = resolveInverseKin(noun, subject, sentences, PERSON_READING);
    if (inverse && !(gender && genderOf(inverse.name, sentences) === (gender === 'male' ? 'female' : 'male')))
      return inverse;
  }
  let current: ResolvedEntity | null = null;
  let from = subject;
  const avoid = [...exclude];
  for (const relation of relations) {
    current = resolveRelation(relation, from, sentences, avoid);
    if (!current) return null;
    avoid.push(from);
    from = current.name;
  }
  return current;
}
