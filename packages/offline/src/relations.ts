/**
 * Relations between entities that co-occur in a sentence, described by the verb phrase between
 * them when there is one ("Elena Varga worked at Pasteur Institute").
 */
import type { EntityAnalysis, Mention } from './entities.js';
import { spanText, type Token } from './nlp.js';

/** A relation found in one sentence. */
export interface SentenceRelation {
  /** Key of the entity mentioned first. */
  source: string;
  target: string;
  sentence: number;
  /** The verb phrase linking them ("worked at"), or null when the sentence has none between them. */
  phrase: string | null;
  /** Lemmas of the verbs in the phrase. */
  verbs: string[];
}

const CLAUSE_WORDS = new Set([
  'where',
  'who',
  'whom',
  'which',
  'when',
  'while',
  'whose',
  'that',
  'because',
  'although',
  'but',
]);
const TRAILING_DROP = new Set(['DET', 'PUNCT', 'CCONJ', 'SCONJ', 'PRON', 'NUM', 'SYM', 'ADJ', 'SPACE']);

/** Whether a token acts as a verb (wink sometimes tags past participles like "married" as ADJ). */
export function isVerbish(token: Token | undefined): boolean {
  if (!token) return false;
  if (token.pos === 'VERB' || token.pos === 'AUX') return true;
  return token.pos === 'ADJ' && /[a-z]ed$/.test(token.normal);
}

/**
 * A word before a name in its noun phrase: a determiner, adjective, common noun or another name
 * ("the old ferry Grey Heron", "the Merrow Falls concert hall").
 */
function isModifier(token: Token): boolean {
  return (
    token.pos === 'DET' ||
    token.pos === 'ADJ' ||
    token.pos === 'PROPN' ||
    // A capitalised word is part of a name whatever its tag ("Falls" read as a verb).
    (token.type === 'word' && /^\p{Lu}/u.test(token.value)) ||
    (token.pos === 'NOUN' && /^\p{Ll}/u.test(token.value))
  );
}

function verbLemmas(tokens: readonly Token[], start: number, end: number): string[] {
  const out: string[] = [];
  for (let i = start; i <= end; i++) {
    const t = tokens[i];
    if (t && isVerbish(t) && t.pos !== 'AUX') out.push(t.lemma);
  }
  return out;
}

/**
 * The verb phrase between mentions `a` (first) and `b`, or null.
 * - Nothing in between but words: from the first verb (with a preceding adverb or auxiliary) to
 *   the end of the gap, less trailing determiners and adjectives ("was born in", "worked at").
 *   A comma or relative word before the verb means the verb belongs to another clause: null.
 * - Another entity in between: the verb right after `a` plus the preposition right before `b`
 *   ("Keller married Varga in Geneva" → Keller "married in" Geneva).
 */
export function phraseBetween(
  tokens: readonly Token[],
  a: Mention,
  b: Mention,
  between: readonly Mention[],
  maxGap: number,
): { phrase: string; verbs: string[] } | null {
  const gapStart = a.end + 1;
  const gapEnd = b.start - 1;
  if (gapEnd < gapStart) return null;
  let words = 0;
  for (let i = gapStart; i <= gapEnd; i++) if (tokens[i]?.type === 'word') words++;
  if (words === 0 || words > maxGap) return null;
  // "Anna Smith of Acme Corp. said ...", "The captain of the ferry Grey Heron is ...": an entity
  // inside a prepositional phrase (past its determiner and common-noun modifiers) is not the subject
  // of the verb that follows it.
  let p = a.start - 1;
  while (p >= 0 && isModifier(tokens[p]!)) p--;
  const before = tokens[p];
  const objectOfPreposition = !!before && before.pos === 'ADP' && p > 0 && tokens[p - 1]?.pos !== 'PUNCT';

  if (between.length === 0) {
    let v = -1;
    for (let i = gapStart; i <= gapEnd; i++) {
      const t = tokens[i]!;
      if (isVerbish(t)) {
        v = i;
        break;
      }
      if (t.pos === 'PUNCT' || CLAUSE_WORDS.has(t.normal)) return null;
    }
    // "of the Selcombe Falls chapel is": the verb follows the phrase's head noun.
    let head = gapStart;
    while (head < v && isModifier(tokens[head]!)) head++;
    if (v < 0 || (objectOfPreposition && v === head)) return null;
    let start = v;
    while (start - 1 >= gapStart && (tokens[start - 1]!.pos === 'ADV' || tokens[start - 1]!.pos === 'PART'))
      start--;
    let end = gapEnd;
    while (end > v && TRAILING_DROP.has(tokens[end]!.pos)) end--;
    for (let i = start; i <= end; i++)
      if (tokens[i]!.pos === 'PUNCT' && tokens[i]!.value !== '-') return null;
    return { phrase: spanText(tokens, start, end), verbs: verbLemmas(tokens, start, end) };
  }

  let v = gapStart;
  while (v <= gapEnd && tokens[v]!.pos === 'ADV') v++;
  if (!isVerbish(tokens[v]) || objectOfPreposition) return null;
  let runEnd = v;
  while (
    runEnd + 1 <= gapEnd &&
    (isVerbish(tokens[runEnd + 1]) || tokens[runEnd + 1]!.pos === 'PART' || tokens[runEnd + 1]!.pos === 'ADV')
  )
    runEnd++;
  if ((between[0]?.start ?? gapEnd + 1) <= runEnd) return null;
  // Only a preposition (with determiners or adjectives) may separate the last entity in between
  // from `b`: "married Varga in Geneva", not "brought the sonar to Orsa with the help of".
  const lastBetween = Math.max(...between.map((m) => m.end));
  let prep: Token | undefined;
  for (let i = lastBetween + 1; i <= gapEnd; i++) {
    const t = tokens[i]!;
    if (t.pos === 'ADP' && !prep) prep = t;
    else if (t.pos !== 'DET' && t.pos !== 'ADJ' && t.pos !== 'NUM') return null;
  }
  if (!prep) return null;
  const phrase = `${spanText(tokens, gapStart, runEnd)} ${prep.value}`;
  return { phrase, verbs: verbLemmas(tokens, gapStart, runEnd) };
}

/**
 * Relations of every pair of distinct entities mentioned in a sentence. For each pair the two
 * closest mentions are used (so "She ... met Tomas Keller" links the resolved "She" to Keller).
 */
export function sentenceRelations(
  ea: EntityAnalysis,
  sentenceIndex: number,
  maxGap: number,
): SentenceRelation[] {
  const mentions = ea.bySentence[sentenceIndex] ?? [];
  const tokens = ea.analysis.tokens;
  const keys = [...new Set(mentions.map((m) => m.key))];
  const out: SentenceRelation[] = [];
  for (let x = 0; x < keys.length; x++) {
    for (let y = x + 1; y < keys.length; y++) {
      const pairs: [Mention, Mention][] = [];
      for (const m of mentions) {
        if (m.key !== keys[x]) continue;
        for (const n of mentions) {
          if (n.key !== keys[y]) continue;
          const pair: [Mention, Mention] = m.start < n.start ? [m, n] : [n, m];
          if (pair[1].start > pair[0].end) pairs.push(pair);
        }
      }
      if (pairs.length === 0) continue;
      // The closest pair of mentions that a verb phrase links; the closest pair otherwise.
      pairs.sort((p, q) => p[1].start - p[0].end - (q[1].start - q[0].end) || p[0].start - q[0].start);
      let chosen = pairs[0]!;
      let found: { phrase: string; verbs: string[] } | null = null;
      for (const pair of pairs) {
        const [first, second] = pair;
        const between = mentions.filter(
          (m) => m.start > first.end && m.end < second.start && m.key !== first.key,
        );
        found = phraseBetween(tokens, first, second, between, maxGap);
        if (found) {
          chosen = pair;
          break;
        }
      }
      const [first, second] = chosen;
      out.push({
        source: first.key,
        target: second.key,
        sentence: sentenceIndex,
        phrase: found?.phrase ?? null,
        verbs: found?.verbs ?? [],
      });
    }
  }
  return out;
}
