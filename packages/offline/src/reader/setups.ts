/**
 * A topic or a sentence set apart before the question, put back where the question takes it up:
 * "The lighthouse keeper's daughter — where was she born?" → "Where was the lighthouse keeper's
 * daughter born?"; "Ruben taught at an institute; when was it founded?" → "When was the institute
 * where Ruben taught founded?"; "X was born somewhere; … there?" → "… in the place where X was
 * born?". Read from the parse (punctuation, determiners, pronouns), not from any template.
 */
import { spanText, type Token } from '../nlp.js';
import {
  capitalise,
  isCapital,
  isPersonNoun,
  lowerFirst,
  misreadVerb,
  RELATIVE,
  replaceSpan,
  WH_START,
} from './decompose.js';

/** Pronouns that take up a topic set apart before the question, and their possessive forms. */
const SUBJECT_PRONOUNS = new Set(['he', 'she', 'they', 'it', 'him', 'her', 'them']);
const POSSESSIVE_PRONOUNS = new Set(['his', 'its', 'their', 'hers']);
/** Indefinite pronouns for a person a sentence introduces ("… was built by someone"). */
const SOMEONE = new Set(['someone', 'somebody']);
/** Nouns of places a question may take up by "there". */
const PLACE_HEADS = new Set('place city town village country state county region area venue site'.split(' '));
/** Particles of phrasal verbs ("set up", "hand over", "pass on"). */
const PARTICLES = new Set(['up', 'down', 'out', 'off', 'over', 'away', 'back', 'on', 'in']);

/**
 * "Topic — question with a pronoun?" → the question with the topic in the pronoun's place. null
 * when the question sets nothing apart, or the question part has no pronoun to take it up.
 */
export function reorderQuestion(tokens: readonly Token[]): string | null {
  // The break: a dash or colon (or a comma before a wh-word) after a topic without a verb of its own;
  // or the full stop after a sentence that introduces what the question asks about ("X has a sister.").
  let cut = -1;
  let setup: Setup | null = null;
  for (let k = 1; k < tokens.length - 2; k++) {
    const v = tokens[k]!.value;
    if (v === '.') {
      // A full stop cuts only after a sentence that introduces something.
      setup = chooseSetup(describeSetups(tokens.slice(0, k)), tokens.slice(k + 1));
      if (setup) {
        cut = k;
        break;
      }
      const named = namedSubjectTakenUp(tokens.slice(0, k), tokens.slice(k + 1));
      if (named) return named;
    } else if (/^[—–:;]$|^--$/.test(v) || (v === ',' && WH_START.has(tokens[k + 1]!.normal))) {
      cut = k;
      break;
    }
  }
  if (cut < 0) return null;
  const topic = tokens.slice(0, cut);
  const rest = tokens.slice(cut + 1);
  let topicText: string;
  let head: string | null = null;
  let person = false;
  if (setup) {
    topicText = setup.description;
    head = setup.head;
    person = isPersonNoun(head);
  } else {
    // A topic is a noun phrase: a verb only inside its own relative clause ("the man who built X").
    const relative = topic.findIndex((t) => RELATIVE.has(t.normal) || t.normal === 'whoever');
    const own = relative < 0 ? topic : topic.slice(0, relative);
    if (topic.some((t) => t.normal === 'or')) return null; // "A or B: which …?" names options
    if (own.some((t, i) => (t.pos === 'VERB' || t.pos === 'AUX') && !misreadVerb(tokens, i))) {
      // A sentence set apart by a dash or semicolon introduces what the question takes up ("X
      // taught at a school — how many students does that school have?").
      setup = chooseSetup(describeSetups(topic), tokens.slice(cut + 1));
      if (!setup) return namedSubjectTakenUp(topic, rest);
      head = setup.head;
      person = isPersonNoun(head);
      topicText = setup.description;
    } else if (topic.length > 14) return null;
    else {
      const named = namedSubjectTakenUp(topic, rest);
      if (named) return named;
      topicText = spanText(tokens, 0, cut - 1);
    }
  }
  // "that institute", "the other grandmother": the introduced entity taken up by its noun.
  const taken = head ? takenUpAt(rest, head) : null;
  if (taken) {
    const [at, end] = taken;
    // "Who set that institute up?": the particle goes back to its verb ("who set up the institute …").
    const particle = rest[end + 1];
    const moved = !!particle && PARTICLES.has(particle.normal) && rest[at - 1]?.pos === 'VERB';
    const before = `${spanText(rest, 0, at - 1)}${moved ? ` ${particle.value}` : ''}`;
    const text = `${before} ${topicText} ${spanText(rest, end + (moved ? 2 : 1), rest.length - 1)}`;
    return capitalise(
      text
        .replace(/\s+/g, ' ')
        .replace(/ ([?.!,])/g, '$1')
        .trim(),
    );
  }
  // "… born somewhere; how often did the plague strike there?": the place in the adverb's stead.
  const there = head && PLACE_HEADS.has(head) ? rest.findIndex((t, k) => t.normal === 'there' && k > 1) : -1;
  if (there > 0) {
    const after = there + 1 < rest.length ? spanText(rest, there + 1, rest.length - 1) : '';
    const text = `${spanText(rest, 0, there - 1)} in ${topicText}${/^[?.!,]/.test(after) ? '' : ' '}${after}`;
    return capitalise(text.replace(/\s+/g, ' ').trim());
  }
  const at = rest.findIndex((t) => SUBJECT_PRONOUNS.has(t.normal) || POSSESSIVE_PRONOUNS.has(t.normal));
  if (at < 0) return null;
  // The pronoun must agree with what the sentence introduced: "it" is no uncle, "she" no ferry.
  if (head && (/^its?$/.test(rest[at]!.normal) ? person : !/^the(y|m|ir)$/.test(rest[at]!.normal) && !person))
    return null;
  // "What's her name?" asks for the person introduced.
  if (
    head &&
    /^(her|his|its|their)$/.test(rest[at]!.normal) &&
    rest[at + 1]?.lemma === 'name' &&
    /^[?.]?$/.test(rest[at + 2]?.value ?? '')
  )
    return `Who is ${topicText}?`;
  topicText = topicText.replace(/^(whoever|whatever)\b/i, (w) =>
    /^whoever$/i.test(w) ? 'the person who' : 'the thing that',
  );
  topicText =
    topicText.charAt(0).toLowerCase() === topicText.charAt(0) ? topicText : lowerFirst(topicText, tokens[0]!);
  // "he or she", "his or her": one pronoun.
  let last = at;
  const isPronoun = (t: Token | undefined): boolean =>
    !!t && (SUBJECT_PRONOUNS.has(t.normal) || POSSESSIVE_PRONOUNS.has(t.normal));
  if (rest[at + 1]?.normal === 'or' && isPronoun(rest[at + 2])) last = at + 2;
  // "her" before a noun is a possessive ("what was her name?").
  const possessive = possessiveAt(rest, at, last);
  let replacement = possessive ? `${topicText}'s` : topicText;
  // "who was his wife?" of "the man who founded X": "the wife of the man who founded X", not a
  // possessive after a clause.
  if (possessive && setup) {
    let n = last;
    while (/^(ADJ|NOUN)$/.test(rest[n + 1]?.pos ?? '') && !isCapital(rest[n + 1])) n++;
    if (n > last) {
      replacement = `the ${spanText(rest, last + 1, n)} of ${topicText}`;
      last = n;
    }
  }
  let before = at > 0 ? spanText(rest, 0, at - 1) : '';
  // "who set it up?": the particle goes back to its verb before the topic takes the pronoun's
  // place ("who set up the club?").
  const particle = rest[last + 1];
  if (at > 0 && particle && PARTICLES.has(particle.normal) && rest[at - 1]!.pos === 'VERB') {
    before = `${before} ${particle.value}`;
    last++;
  }
  const after = last + 1 < rest.length ? spanText(rest, last + 1, rest.length - 1) : '';
  const text = `${before} ${replacement}${/^[?.!,]/.test(after) ? '' : ' '}${after}`;
  return capitalise(text.replace(/\s+/g, ' ').trim());
}

/**
 * "Maren Dulle starred in The Salt Road; who is she married to?": a sentence set apart that
 * introduces nothing new but opens with a name, taken up by the question's pronoun → "who is Maren
 * Dulle married to?". The sentence adds what the context will say anyway. null when the sentence
 * does not open with a name and a verb, or the question has no third-person pronoun or more than one
 * (whether "she" agrees with the name is not checked: the name is the only thing the sentence names).
 */
function namedSubjectTakenUp(topic: readonly Token[], rest: readonly Token[]): string | null {
  let end = 0;
  while (end + 1 < topic.length && isCapital(topic[end + 1])) end++;
  if (!isCapital(topic[0]) || topic[0]!.pos === 'PRON' || topic[end + 1]?.pos === 'PUNCT') return null;
  // A verb right after the name (the tagger may read a past tense as an adjective: "starred").
  const verb = topic[end + 1];
  if (!verb || (verb.pos !== 'VERB' && verb.pos !== 'AUX' && !/[^e]ed$/.test(verb.normal))) return null;
  const at = rest.findIndex((t) => /^(he|she|him|her|his|it|its)$/.test(t.normal));
  if (at < 0 || rest.slice(at + 1).some((t) => /^(he|she|him|her|his|it|its)$/.test(t.normal))) return null;
  const name = spanText(topic, 0, end);
  return capitalise(replaceSpan(rest, at, at, possessiveAt(rest, at, at) ? `${name}'s` : name));
}

/**
 * Whether the pronoun at `at` (through `last`, "his or her") is a possessive: "his", "its",
 * "their", or "her" before a noun ("what was her name?").
 */
function possessiveAt(rest: readonly Token[], at: number, last: number): boolean {
  const pronoun = rest[at]!;
  return (
    POSSESSIVE_PRONOUNS.has(pronoun.normal) ||
    (pronoun.normal === 'her' && /^(NOUN|ADJ)$/.test(rest[last + 1]?.pos ?? ''))
  );
}

/** Indefinite determiners that introduce an entity ("a sister", "an institute"). */
const INDEFINITE = new Set(['a', 'an', 'some']);

/** What a sentence before the question introduces: a definite description and its head noun. */
interface Setup {
  description: string;
  head: string;
}

/** Where the question takes up a noun: "that institute", "the other yard" (from, to). */
function takenUpAt(rest: readonly Token[], head: string): [number, number] | null {
  for (let k = 0; k < rest.length - 1; k++) {
    if (!/^(that|this|the)$/.test(rest[k]!.normal)) continue;
    const n = /^(other|same)$/.test(rest[k + 1]!.normal) ? k + 2 : k + 1;
    if (rest[n]?.lemma === head) return [k, n];
  }
  return null;
}

/**
 * The entity a question takes up among those its setup introduced: the one it names by its noun
 * ("that school"), else the one its pronoun agrees with ("she": a person), else the first.
 */
function chooseSetup(setups: readonly Setup[], rest: readonly Token[]): Setup | null {
  if (setups.length <= 1) return setups[0] ?? null;
  const named = setups.find((s) => takenUpAt(rest, s.head));
  if (named) return named;
  const pronoun = rest.find((t) => SUBJECT_PRONOUNS.has(t.normal) || POSSESSIVE_PRONOUNS.has(t.normal));
  if (pronoun && !/^the(y|m|ir)$/.test(pronoun.normal)) {
    const person = !/^its?$/.test(pronoun.normal);
    return setups.find((s) => isPersonNoun(s.head) === person) ?? setups[0]!;
  }
  return setups[0]!;
}

/**
 * What a sentence before a question introduces, as definite descriptions: "X has a sister" → "the
 * sister of X"; "X was launched by a grandmother" → "the grandmother who launched X"; "X works at
 * an institute" → "the institute where X works"; "X skippers a ferry" → "the ferry that X
 * skippers"; its subject, "A chemist helped X" → "the chemist who helped X". Empty when the
 * sentence introduces nothing this way.
 */
function describeSetups(tokens: readonly Token[]): Setup[] {
  const out: Setup[] = [];
  const object = describeSetup(tokens);
  if (object) out.push(object);
  // "X was born somewhere": the place where X was born.
  const somewhere = tokens.findIndex(
    (t, k) => t.normal === 'somewhere' && tokens.slice(0, k).some((v) => v.pos === 'VERB' || v.pos === 'AUX'),
  );
  if (somewhere > 0) {
    const post =
      somewhere + 1 < tokens.length ? ` ${spanText(tokens, somewhere + 1, tokens.length - 1)}` : '';
    out.push({
      description: `the place where ${lowerFirst(spanText(tokens, 0, somewhere - 1), tokens[0]!)}${post}`,
      head: 'place',
    });
  }
  // "A chemist helped X": an indefinite subject, its verb right after its noun.
  if (INDEFINITE.has(tokens[0]?.normal ?? '')) {
    let h = 0;
    // Modifiers ("English", "marine") and nouns up to a lower-case head noun.
    while (tokens[h + 1] && /^(ADJ|NOUN|PROPN)$/.test(tokens[h + 1]!.pos)) h++;
    const verb = tokens[h + 1];
    if (
      h > 0 &&
      tokens[h]!.pos === 'NOUN' &&
      !isCapital(tokens[h]) &&
      verb &&
      (verb.pos === 'VERB' || verb.pos === 'AUX')
    ) {
      const connector = isPersonNoun(tokens[h]!.lemma) ? 'who' : 'that';
      out.push({
        description: `the ${spanText(tokens, 1, h)} ${connector} ${spanText(tokens, h + 1, tokens.length - 1)}`,
        head: tokens[h]!.lemma,
      });
    }
  }
  return out;
}

/** The object a sentence introduces ({@link describeSetups}), or null. */
function describeSetup(tokens: readonly Token[]): Setup | null {
  const i = tokens.findIndex(
    (t, k) =>
      (INDEFINITE.has(t.normal) || SOMEONE.has(t.normal)) &&
      tokens.slice(0, k).some((v) => v.pos === 'VERB' || v.pos === 'AUX'),
  );
  if (i < 1) return null;
  let h = i;
  while (tokens[h + 1] && /^(ADJ|NOUN)$/.test(tokens[h + 1]!.pos) && !isCapital(tokens[h + 1])) h++;
  // "someone", "somebody": a person.
  const someone = SOMEONE.has(tokens[i]!.normal);
  if (!someone && (h === i || tokens[h]!.pos !== 'NOUN')) return null;
  if (someone) h = i;
  const noun = someone ? 'person' : spanText(tokens, i + 1, h);
  const head = someone ? 'person' : tokens[h]!.lemma;
  const post = h + 1 < tokens.length ? ` ${spanText(tokens, h + 1, tokens.length - 1)}` : '';
  const last = tokens[i - 1]!;
  const text = (from: number, to: number): string => lowerFirst(spanText(tokens, from, to), tokens[from]!);
  let description: string | null = null;
  if (last.lemma === 'have' && i >= 2) description = `the ${noun} of ${text(0, i - 2)}`;
  else if (last.normal === 'by' && i >= 4 && tokens[i - 3]!.lemma === 'be') {
    const connector = isPersonNoun(head) ? 'who' : 'that';
    description = `the ${noun} ${connector} ${tokens[i - 2]!.value} ${text(0, i - 4)}`;
  } else if (last.pos === 'ADP' && i >= 2 && (tokens[i - 2]!.pos === 'VERB' || tokens[i - 2]!.lemma === 'be'))
    description = /^(at|in)$/.test(last.normal)
      ? `the ${noun} where ${text(0, i - 2)}`
      : `the ${noun} that ${text(0, i - 1)}`;
  else if (last.pos === 'VERB') description = `the ${noun} that ${text(0, i - 1)}`;
  return description ? { description: `${description}${post}`, head } : null;
}
