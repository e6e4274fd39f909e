import { isKindByWordNet, isSynonymByWordNet } from '../wordnet.js';
import { contentWords } from '../words.js';
import { aboutItems, type Support, sentencesNaming } from './about.js';
import { askedKind, measuresAsked, nearestToMeasure, nounCompounds, otherKind } from './comparatives.js';
import { COUNTRIES, COUNTRY_ALIASES, countriesIn, countriesOf, DEMONYMS, optionFrom } from './countries.js';
import { AGE_WORDS, eventDistance, eventYear, numberValue } from './events.js';
import { roleHeads } from './identity.js';
import { type Relation, relationOf } from './kinship.js';
import { agentVerb, concept, concepts, isKindOf } from './meaning.js';
import { pairedNames, pairInContext, subjectTokens } from './paired.js';
import { LIFE_SPAN, MONTHS, TIME_WORDS, YEAR } from './question.js';
import { resolveChain } from './resolve.js';
import { calledAlike } from './shared.js';
import type { AnswerQuestion, AnswerSentence, PhraseAnswer } from './types.js';

/**
 * The relation a comparison or a polar question asks about beyond its compared names: "Which film
 * has the *founder* born later, A or B?", "Do both A and B have *founders* from one
 * country?". null when the question compares the named things themselves.
 */
function questionRelation(question: AnswerQuestion, skip: ReadonlySet<string>): Relation[] | null {
  const { tokens, reading } = question;
  // From the wh-word on: "*whose director* was born later" names the relation in the wh-phrase.
  for (let k = Math.max(0, reading.whStart); k < tokens.length; k++) {
    const t = tokens[k]!;
    if (t.type !== 'word' || /^\p{Lu}/u.test(t.value) || skip.has(t.normal)) continue;
    if (t.pos !== 'NOUN' && t.pos !== 'PROPN') continue;
    const relations = relationOf(t.lemma) ?? relationOf(t.normal.replace(/s$/, ''));
    if (relations) return relations;
  }
  return null;
}

/**
 * The event whose date decides a choice: the question's verbs ("born", "opened"), by the concepts
 * of the whole question so a phrasal verb counts as one ("passed away": die); for an age
 * ("younger", "the elder", "the older organisation") the start of the thing: a birth, a founding,
 * a building.
 */
function eventsAsked(question: AnswerQuestion, optionWords: ReadonlySet<string>): Set<string> {
  const questionConcepts = concepts(question.tokens.map((t) => t.lemma));
  const events = new Set(
    question.tokens.flatMap((t, k) =>
      t.pos === 'VERB' && !optionWords.has(t.normal) && questionConcepts[k] ? [questionConcepts[k]] : [],
    ),
  );
  if (question.tokens.some((t) => AGE_WORDS.test(t.normal)))
    for (const origin of ['born', 'found', 'build', 'open']) events.add(concept(origin));
  if (question.reading.since) events.add(concept(question.reading.since));
  events.delete(concept('be'));
  return events;
}

/**
 * "X (born 1934) is a director. She died in 2011.": the years of a life from a birth and a death in
 * sentences of their own, and the sentence of the death; null when they do not both stand there.
 */
function lifeFromEvents(
  named: readonly { i: number }[],
  phrase: string,
  sentences: readonly AnswerSentence[],
): [number, number] | null {
  const dated = (event: string) =>
    named
      .map(({ i }) => ({ i, year: eventYear(sentences[i]!, phrase, new Set([concept(event)])) }))
      .find((x) => x.year !== null);
  const [born, died] = [dated('bear'), dated('die')];
  return born && died && died.year! > born.year! ? [died.year! - born.year!, died.i] : null;
}

export function chooseOption(
  question: AnswerQuestion,
  sentences: readonly AnswerSentence[],
  support: Support,
  wordsAt: (i: number) => Set<string>,
): PhraseAnswer {
  const { reading } = question;
  const optionWords = new Set(reading.options.flatMap(contentWords));
  const predicate = [...question.lemmas].filter((l) => !optionWords.has(l));
  const byTime =
    reading.lifespan ||
    !!reading.since ||
    question.tokens.some((t) => !optionWords.has(t.normal) && TIME_WORDS.has(t.normal));
  const events = eventsAsked(question, optionWords);
  /** The value a phrase's sentences give: a year (birth; death; life span) or a number. */
  const dateOrNumberOf = (phrase: string, ownItemOnly = false) => {
    let named = sentencesNaming(phrase, sentences, support, wordsAt, predicate);
    const own = aboutItems(phrase, sentences);
    if (ownItemOnly) named = named.filter(({ i }) => own.has(sentences[i]!.item));
    if (byTime) {
      // Its own item in reading order: the first dated sentence there is where its dates stand
      // ("X (4 May 1901 – 2 June 1980) was…", "X is a 1940 film…"); later sentences date other
      // events ("In 1966 X was edited down…").
      const first = named.filter(({ i }) => own.has(sentences[i]!.item));
      first.sort(
        (x, y) =>
          sentences[x.i]!.item - sentences[y.i]!.item || sentences[x.i]!.index - sentences[y.i]!.index,
      );
      // Outside its own item, a sentence that puts the phrase next to the event asked about
      // ("Callum (born 1981) and Ines (born 1984)") dates it before one that only names it.
      const rest = named.filter(({ i }) => !own.has(sentences[i]!.item));
      const closeness = new Map(rest.map(({ i }) => [i, eventDistance(sentences[i]!, phrase, predicate)]));
      rest.sort((x, y) => Number(closeness.get(x.i)! > 4) - Number(closeness.get(y.i)! > 4));
      named = [...first, ...rest];
    }
    let value: number | null = null;
    let valueAt = -1;
    // Dates of the event asked about first ("born 1981", "… born in Tressick in 1982"): a
    // sentence that dates the phrase by another event ("In 2012 A married B") comes after.
    // A life span in the phrase's own item ("X (4 May 1901 – 2 June 1980)") dates it first.
    const spanned = named.some(({ i }) => own.has(sentences[i]!.item) && LIFE_SPAN.test(sentences[i]!.text));
    if (byTime && events.size > 0 && !reading.lifespan && !spanned) {
      for (const { i } of named) {
        const year = eventYear(sentences[i]!, phrase, events);
        if (year !== null) return { named, value: year, valueAt: i };
      }
    }
    if (reading.direction || reading.lifespan) {
      for (const { i } of named) {
        const s = sentences[i]!;
        const range = s.ea.analysis.sentences[s.index]!;
        const values: number[] = [];
        const at: number[] = [];
        const tokens = s.ea.analysis.tokens;
        const phraseWords = new Set(contentWords(phrase));
        let mention = -1;
        for (let k = range.start; k <= range.end; k++) {
          const t = tokens[k]!;
          if (mention < 0 && phraseWords.has(t.normal)) mention = k;
          if (byTime) {
            if (YEAR.test(t.value)) {
              values.push(Number(t.value));
              at.push(k);
            }
          } else if (!YEAR.test(t.value)) {
            const n = numberValue(t);
            if (n !== null) {
              values.push(n);
              at.push(k);
            }
          }
        }
        // "It covers 84 km² and is 31 metres deep": the value next to the measure asked ("deeper").
        const byMeasure = byTime ? -1 : nearestToMeasure(tokens, range, measuresAsked(question.tokens), at);
        if (byMeasure >= 0 && values.length > 1) values.unshift(values.splice(byMeasure, 1)[0]!);
        // A sentence that dates several things ("A (born 1981) and B (born 1984)"): the value
        // nearest after the phrase's own mention is its own.
        else if (mention >= 0 && values.length > 1 && !reading.lifespan && !reading.deathDate) {
          let best = 0;
          let bestDistance = Number.POSITIVE_INFINITY;
          at.forEach((k, j) => {
            const d = k >= mention ? k - mention : 1.5 * (mention - k);
            if (d < bestDistance) {
              bestDistance = d;
              best = j;
            }
          });
          values.unshift(values.splice(best, 1)[0]!);
        }
        if (reading.lifespan) {
          // "(6 September 1667 – 25 August 1721)": the years between birth and death.
          if (values.length < 2 || values[1]! <= values[0]!) continue;
          value = values[1]! - values[0]!;
        } else if (values.length) {
          value = byTime && reading.deathDate ? Math.max(...values) : values[0]!;
        } else continue;
        valueAt = i;
        break;
      }
      if (reading.lifespan && valueAt < 0)
        [value, valueAt] = lifeFromEvents(named, phrase, sentences) ?? [value, valueAt];
    }
    return { named, value, valueAt };
  };
  const looked = reading.options.map((option) => ({ option, ...dateOrNumberOf(option) }));
  const [a, b] = looked as [(typeof looked)[0], (typeof looked)[0]];
  const negatedAt = (at: number, option: string): boolean => negatedIn(sentences[at]!, option);
  const negated = (x: typeof a): boolean => x.named[0] !== undefined && negatedAt(x.named[0].i, x.option);
  // A sentence that names both options and negates one decides between them.
  for (const { i } of a.named) {
    if (!b.named.some((x) => x.i === i)) continue;
    const [na, nb] = [negatedAt(i, a.option), negatedAt(i, b.option)];
    if (na !== nb) return { answer: (na ? b : a).option, items: [sentences[i]!.item], confident: true };
  }
  const fit = (x: typeof a): number => (x.named[0]?.score ?? 0) * (negated(x) ? 0.3 : 1);
  let pick = fit(a) >= fit(b) ? a : b;
  const fromAsked =
    reading.direction || reading.lifespan ? null : optionFrom(question, optionWords, sentences);
  if (fromAsked !== null) pick = fromAsked === 0 ? a : b;
  const direction = reading.direction ?? (reading.lifespan ? 'max' : null);
  const decide = (va: number | null, vb: number | null): boolean => {
    if (!direction || va === null || vb === null || va === vb) return false;
    pick = (direction === 'min') === va < vb ? a : b;
    return true;
  };
  // "Whose founder was born later, A or B?": compare the founders when the context
  // names both and dates them; else the options' own dates stand in for theirs.
  const relation = questionRelation(question, optionWords);
  let bridged = false;
  if (relation && direction) {
    const resolved = reading.options.map((o) => resolveChain(relation, o, sentences, reading.options));
    if (resolved[0] && resolved[1]) {
      // Their own items only: a film's sentence naming its director dates the film, not him.
      const [va, vb] = resolved.map((r) => dateOrNumberOf(r!.name, true));
      bridged = decide(va!.value, vb!.value);
    }
  }
  if (!bridged) decide(a.value, b.value);
  const items: number[] = [];
  for (const x of [pick, pick === a ? b : a]) {
    const at = x.valueAt >= 0 ? x.valueAt : x.named[0]?.i;
    if (at !== undefined && !items.includes(sentences[at]!.item)) items.push(sentences[at]!.item);
  }
  return { answer: pick.option, items, confident: pick.named.length > 0 };
}

export function polarAnswer(
  question: AnswerQuestion,
  sentences: readonly AnswerSentence[],
  support: Support,
  wordsAt: (i: number) => Set<string>,
  qWords: ReadonlySet<string>,
): PhraseAnswer {
  const { reading } = question;
  // The two coordinated names when the question has them ("Are A and B both …?"): names as the
  // question writes them, which the entity finder may split ("Salt And Iron").
  const paired = pairedNames(question.tokens);
  const pair = paired && pairInContext(paired, sentences);
  const subjects = (pair ?? question.names).filter((n) => contentWords(n).length > 0);
  const subjectWords = new Set(subjects.flatMap(contentWords));
  // The subjects' words as the question's tokens read them (wink reads "Grey" as "gray").
  const subjectLemmas = new Set(
    question.tokens
      .filter((t) => subjectWords.has(t.normal) || subjectWords.has(t.value.toLowerCase()))
      .flatMap((t) => [t.lemma, concept(t.lemma)]),
  );
  const predicate = [...question.lemmas].filter(
    (l) => !subjectWords.has(l) && !subjectLemmas.has(l) && l !== 'both' && l !== 'same' && l !== 'also',
  );
  const items: number[] = [];
  const cite = (i: number | undefined): void => {
    if (i !== undefined && !items.includes(sentences[i]!.item)) items.push(sentences[i]!.item);
  };
  if (subjects.length === 0) {
    let best = -1;
    for (let i = 0; i < sentences.length; i++)
      if (best < 0 || support[i]!.value > support[best]!.value) best = i;
    cite(best);
    return { answer: support[best]!.value > 0 ? 'yes' : 'no', items, confident: false };
  }
  const named = subjects.map((s) => sentencesNaming(s, sentences, support, wordsAt, predicate));
  let yes: boolean;
  // "Are A and B from the same country?", "… the same nationality?": the countries their items
  // say, nationality adjectives read as countries ("American" = "United States"); through the
  // relation the question names when the context resolves it ("the directors of A and B").
  let countries: Set<string>[] | null = null;
  if (reading.same && subjects.length >= 2 && question.tokens.some((t) => concept(t.lemma) === 'country')) {
    const relation = questionRelation(question, subjectWords);
    // Through the relation when the items of both related entities say their countries; else the
    // subjects' own countries stand in (a film's country for its director's).
    const through = relation
      ? subjects.map((subject) => {
          const bridge = resolveChain(relation, subject, sentences, subjects);
          return bridge ? countriesOf(bridge.name, sentences, true) : new Set<string>();
        })
      : [];
    countries =
      relation && through.every((set) => set.size > 0)
        ? through
        : subjects.map((subject) => countriesOf(subject, sentences));
    if (countries.some((set) => set.size === 0)) countries = null;
  }
  // "Do A and B play the same sport?": what the context calls each ("an ice hockey team").
  const sameAt = question.tokens.findIndex((t) => t.normal === 'same');
  const sameNoun = sameAt >= 0 ? question.tokens.slice(sameAt + 1).find((t) => t.pos === 'NOUN') : undefined;
  const alike =
    !countries && reading.same && sameNoun ? calledAlike(subjects, sameNoun.lemma, sentences) : null;
  if (countries) {
    const [first, ...rest] = countries as [Set<string>, ...Set<string>[]];
    yes = rest.every((set) => [...set].some((c) => first.has(c)));
  } else if (reading.same && subjects.length >= 2 && alike !== null) {
    yes = alike;
  } else if (reading.same && subjects.length >= 2) {
    // Compare what the sentences naming each subject say beyond the question: their capitalised
    // words (nationalities, places) other than the subjects' own.
    const attributes = named.map((list) => {
      const set = new Set<string>();
      for (const { i } of list.slice(0, 2)) {
        const s = sentences[i]!;
        const range = s.ea.analysis.sentences[s.index]!;
        for (let k = range.start + 1; k <= range.end; k++) {
          const t = s.ea.analysis.tokens[k]!;
          if (t.type !== 'word' || !/^\p{Lu}/u.test(t.value)) continue;
          if (subjectWords.has(t.normal) || qWords.has(t.normal) || MONTHS.has(t.normal)) continue;
          set.add(t.normal);
        }
      }
      return set;
    });
    const [first, ...rest] = attributes;
    yes = !!first && rest.every((set) => [...set].some((w) => first.has(w)));
  } else {
    // Every subject must be said to have the property: most of the predicate's words appear in a
    // sentence that names it, and none calls it another kind of what the question calls it ("a
    // folk band" for "a rock band").
    const compounds = nounCompounds(question.tokens);
    const questionLemmas = new Set(question.tokens.map((t) => t.lemma));
    const otherKindOf = (i: number): boolean => {
      const s = sentences[i]!;
      const range = s.ea.analysis.sentences[s.index]!;
      return compounds.some((c) =>
        otherKind(s.ea.analysis.tokens, range.start, range.end, c, questionLemmas),
      );
    };
    // "Is X a bird?": what the context calls X ("a small tern") is a bird, or another thing.
    const asked = askedKind(question.tokens, subjectWords);
    // "Are X and Y both American?", "… both from Norway?": the countries their items say.
    const q = question.tokens;
    // Where the question writes the subjects: "Lindholm" of "… both Lindholm-based teams?" is asked.
    const at = subjectTokens(q, subjects);
    const inSubject = (k: number): boolean =>
      at ? at.has(k) : subjectWords.has(q[k]!.normal) || subjectWords.has(q[k]!.value.toLowerCase());
    const askedCountries = countriesIn(q, 1, q.length - 1, inSubject);
    // "… both published in London?": a name the question asks about must be said of each.
    const askedNames = q
      .filter((t, k) => k > 0 && t.pos !== 'DET' && /^\p{Lu}/u.test(t.value) && !inSubject(k))
      .map((t) => t.lemma)
      .filter((l) => !COUNTRY_WORDS.has(l));
    const countryWords = new Set(
      q
        .filter((t) => /^\p{Lu}/u.test(t.value) && COUNTRY_WORDS.has(t.normal))
        .flatMap((t) => [t.lemma, concept(t.lemma)]),
    );
    yes = named.every((list, n) => {
      let words = predicate;
      if (askedCountries.size > 0) {
        const own = countriesOf(subjects[n]!, sentences);
        if (own.size > 0 && ![...askedCountries].every((c) => own.has(c))) return false;
        // The country is settled: the other words of the predicate remain ("American bands").
        if (own.size > 0) words = predicate.filter((l) => !countryWords.has(l));
      }
      const heads = asked ? roleHeads(subjects[n]!, sentences) : new Set<string>();
      if (asked && heads.size > 0) {
        const fits = [...heads].some((h) => kindOfRole(h, asked.kind));
        if (!fits) return false;
        if (!asked.modified) return true;
      }
      if (list.slice(0, 3).some(({ i }) => otherKindOf(i))) return false;
      let coverage = 0;
      for (const { i } of list.slice(0, 3)) {
        const s = sentences[i]!;
        const lemmas = new Set(s.lemmas);
        const set = wordsAt(i);
        if (!askedNames.every((l) => lemmas.has(l) || set.has(l) || lemmas.has(concept(l)))) continue;
        let hits = 0;
        for (const l of words) if (lemmas.has(l) || set.has(l)) hits++;
        coverage = Math.max(coverage, words.length ? hits / words.length : 1);
      }
      return list.length > 0 && coverage >= 0.5;
    });
  }
  for (const list of named) cite(list[0]?.i);
  return { answer: yes ? 'yes' : 'no', items, confident: named.every((l) => l.length > 0) };
}

/** The words of country names: a country asked is checked against the countries said, not word by word. */
const COUNTRY_WORDS: ReadonlySet<string> = new Set(
  [...COUNTRIES, ...Object.keys(COUNTRY_ALIASES), ...Object.keys(DEMONYMS)].flatMap((c) => c.split(' ')),
);

/**
 * Whether a role the context gives is a kind of the one asked: "a Canadian novelist" is a writer, but
 * an author a writer (one WordNet concept), but a screenwriter is no novelist, though both write (two
 * agent nouns of one verb are kinds of each other only by WordNet or as "songwriter" of "writer").
 */
function kindOfRole(role: string, kind: string): boolean {
  if (isKindByWordNet(role, kind) || isSynonymByWordNet(role, kind)) return true;
  if (!isKindOf(role, kind)) return false;
  return role === kind || role.endsWith(kind) || !(agentVerb(role) && agentVerb(kind));
}

/** "Bins go out on Tuesdays, not Mondays": whether sentence `s` negates `option` ("not" right before it). */
function negatedIn(s: AnswerSentence, option: string): boolean {
  const range = s.ea.analysis.sentences[s.index]!;
  const tokens = s.ea.analysis.tokens;
  const words = new Set(contentWords(option));
  for (let k = range.start; k <= range.end; k++) {
    const w = tokens[k]!.normal;
    if (!words.has(w) && !words.has(w.replace(/([^s])s$/, '$1'))) continue;
    for (let j = Math.max(range.start, k - 2); j < k; j++)
      if (/^(not|never|no)$/.test(tokens[j]!.normal)) return true;
    break;
  }
  return false;
}
