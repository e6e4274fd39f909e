/**
 * wink-nlp, loaded once per process on first use and read through {@link createWinkReader} (wink
 * forgets each text after reading it, so what is read from a text is a pure function of the text),
 * and a plain-data analysis of a text (tokens with POS tags, lemmas and flags; sentences; wink's
 * numeric/date entities) that the heuristics work on.
 */
import { InvalidArgumentError, StateError } from '@grag/core';
import type { AsHelpers, Document, ItsFunction, ItsHelpers, WinkMethods } from 'wink-nlp';

/** One token of an analysed text. */
export interface Token {
  /** Position in the analysed text, from 0. */
  index: number;
  /** The token as written. */
  value: string;
  /** Lower-cased, normalized form (wink's `normal`). */
  normal: string;
  /** Lower-cased lemma. */
  lemma: string;
  /** Universal POS tag from wink (`PROPN`, `NOUN`, `VERB`, ...). */
  pos: string;
  /** wink token type: `word`, `number`, `punctuation`, `tabCRLF`, ... */
  type: string;
  /** wink's stop-word flag. */
  stop: boolean;
  /** Whitespace before the token in the source text. */
  space: string;
}

/** A numeric or temporal entity found by wink's NER (`DATE`, `TIME`, `MONEY`, ...). */
export interface WinkEntity {
  /** First and last token index (inclusive). */
  start: number;
  end: number;
  /** wink's entity type, e.g. `DATE`. */
  type: string;
  value: string;
}

/** A sentence: a run of tokens `start..end` (inclusive). */
export interface Sentence {
  /** Position among the sentences of the text, from 0. */
  index: number;
  start: number;
  end: number;
  /** The sentence text, trimmed. */
  text: string;
}

/** A text analysed by wink, as plain data. */
export interface Analysis {
  text: string;
  tokens: Token[];
  sentences: Sentence[];
  entities: WinkEntity[];
}

/**
 * A wink-nlp pipe a {@link WinkReader} can run: sentence boundaries, negation, sentiment, wink's
 * numeric/date entities, POS tags. wink runs its pipes in a fixed order, whatever order they are
 * given in. wink's `cer` pipe is not offered: custom entities are learned into an instance, which a
 * shared reader does not expose.
 */
export type WinkPipe = 'sbd' | 'negation' | 'sentiment' | 'ner' | 'pos';

/** The pipes in wink's order (the key of an instance). */
const WINK_PIPES: readonly WinkPipe[] = ['sbd', 'ner', 'negation', 'sentiment', 'pos'];

/**
 * wink's `its` helpers, with `lemma` typed as the token its-function it is (wink's typings give it
 * an add-ons parameter, so `tokens().out(its.lemma)` would not type-check).
 */
export type WinkIts = Omit<ItsHelpers, 'lemma'> & { lemma: ItsFunction<string> };

/**
 * Reads texts with wink-nlp on `wink-eng-lite-web-model` so that what is read from a text depends
 * on the text only, never on the texts read before it in the process (see {@link createWinkReader}).
 */
export interface WinkReader {
  /** The instance's pipes, in wink's order. */
  readonly pipes: readonly WinkPipe[];
  /**
   * Read `text` with wink (`readDoc`) and resolve to what `fn` returns for the document. `fn` gets
   * the document and wink's `its` and `as` helpers; it must be synchronous and return plain data
   * copied out of the document: wink forgets the text as soon as `fn` returns, so a document kept
   * beyond `fn` may give wrong values. Throws `InvalidArgumentError` if `fn` returns a promise.
   */
  read<T>(text: string, fn: (doc: Document, its: WinkIts, as: AsHelpers) => T): Promise<T>;
}

/**
 * One of the growable tables of wink's model (`lexeme`, `suffix`, `shape`, ...): values by index,
 * index by value, next free index. wink appends every new word (and its new feature values) to
 * these tables while it reads a text.
 */
interface WinkTable {
  list: unknown[];
  hash: Record<string, number>;
  index: number;
}

/** A wink instance with the growable tables of its model and their size when the instance was built. */
interface WinkSession {
  modules: WinkModules;
  pipes: readonly WinkPipe[];
  nlp: WinkMethods;
  lexemes: WinkTable;
  /** Size of the lexeme table as built: words below it are wink's own (plus its model's patterns). */
  lexemeBase: number;
  /** Lexemes below this index were already dropped from the hash by {@link forgetReadWords}. */
  lexemeMark: number;
  /** The other growable tables, with their built size. */
  features: { table: WinkTable; base: number }[];
}

/**
 * After this many words appended to the lexeme table (it only grows, see {@link forgetReadWords}),
 * the instance is replaced by a fresh one (about 0.2 s) to bound memory.
 */
const RENEW_AFTER_LEXEMES = 100_000;

type WinkModules = { winkNLP: typeof import('wink-nlp').default; model: Model };
type Model = Parameters<typeof import('wink-nlp').default>[0];

let modulesPromise: Promise<WinkModules> | undefined;
/** One wink instance per pipe set (keyed by the pipes in wink's order), shared by every reader. */
const sessions = new Map<string, WinkSession>();

function isTable(value: unknown): value is WinkTable {
  const t = value as Partial<WinkTable> | null;
  return (
    typeof t === 'object' &&
    t !== null &&
    Array.isArray(t.list) &&
    typeof t.hash === 'object' &&
    t.hash !== null &&
    typeof t.index === 'number'
  );
}

/** The model's custom-entity meta model, read once (see {@link createSession}). */
let metaCER: unknown;

/**
 * A fresh wink instance. The model is wrapped so that the private copy wink makes of its core
 * (`model.core()`, a new object per instance) can be reached: its growable tables are what wink
 * learns from the texts it reads, and {@link forgetReadWords} rolls them back. The model's
 * `metaCER()` is called once per process: it re-serializes its own module-level result on every
 * call (wink-eng-lite-web-model 1.8), so a few dozen instances would exhaust the string length.
 */
function createSession({ winkNLP, model }: WinkModules, pipes: readonly WinkPipe[]): WinkSession {
  let core: { features: Record<string, unknown> } | undefined;
  const source = model as unknown as { core(): { features: Record<string, unknown> }; metaCER(): unknown };
  const wrapped = {
    ...model,
    core: () => {
      core = source.core();
      return core;
    },
    metaCER: () => {
      metaCER ??= source.metaCER();
      return metaCER;
    },
  } as unknown as Model;
  const nlp = winkNLP(wrapped, [...pipes]);
  const lexemes = core?.features.lexeme;
  if (!core || !isTable(lexemes)) {
    throw new StateError(
      '@grag/offline: wink-eng-lite-web-model has no lexeme table; install the ^1.8 version this package depends on.',
    );
  }
  const features = Object.entries(core.features)
    .filter(([name, table]) => name !== 'lexeme' && isTable(table))
    .map(([, table]) => ({ table: table as WinkTable, base: (table as WinkTable).list.length }));
  return {
    modules: { winkNLP, model },
    pipes,
    nlp,
    lexemes,
    lexemeBase: lexemes.list.length,
    lexemeMark: lexemes.list.length,
    features,
  };
}

/**
 * Make wink forget the words it learned from the texts read since the last call, so that the next
 * text is read exactly as by a fresh instance.
 *
 * wink's tokenizer consults its lexicon to decide where to split (`Kvarnby's...` is split into
 * `Kvarnby's . ..` while `Kvarnby's` is unknown, into `Kvarnby's ...` once wink has seen it), and
 * every text it reads appends its new words to that lexicon: without this, a text's tokens (and
 * so its sentences, entities and relations) depend on the texts read before it in the process.
 *
 * New lexemes are dropped from the lexeme hash (wink then no longer finds them) but stay in the
 * lexeme list: wink keeps their features in a private array parallel to that list, which must stay
 * aligned. The other tables (suffix, shape, ... values) have no such twin: they are cut back to
 * their built size, so their indices never outgrow the bits wink packs them into.
 */
function forgetReadWords(s: WinkSession): void {
  const { list, hash } = s.lexemes;
  for (let i = s.lexemeMark; i < list.length; i++) {
    const value = list[i] as string;
    if (hash[value] === i) delete hash[value];
  }
  s.lexemeMark = list.length;
  for (const { table, base } of s.features) {
    for (let i = base; i < table.list.length; i++) {
      const value = table.list[i] as string;
      if (table.hash[value] === i) delete table.hash[value];
    }
    table.list.length = base;
    table.index = base;
  }
}

/**
 * The process-wide wink-nlp instance on `wink-eng-lite-web-model` with `pipes` (lemmas come from
 * the model's add-ons on demand), created on the first call and replaced by a fresh one now and
 * then (see {@link RENEW_AFTER_LEXEMES}). Read texts only through a {@link WinkReader}: it makes
 * wink forget each text after reading it.
 */
async function getSession(key: string, pipes: readonly WinkPipe[]): Promise<WinkSession> {
  modulesPromise ??= Promise.all([import('wink-nlp'), import('wink-eng-lite-web-model')]).then(
    ([{ default: winkNLP }, { default: model }]) => ({ winkNLP, model: model as unknown as Model }),
  );
  const modules = await modulesPromise;
  let session = sessions.get(key);
  if (!session) {
    session = createSession(modules, pipes);
    sessions.set(key, session);
  }
  return session;
}

/**
 * A {@link WinkReader} on wink-nlp with `wink-eng-lite-web-model` and `pipes`: the one way grag
 * packages read text with wink. wink and its model load once per process, on the first `read`;
 * readers with the same pipes share one wink instance.
 *
 * What `read` gives for a text depends on the text only. wink's tokenizer decides where to split
 * by looking words up in its lexicon, and every text it reads appends its unknown words to that
 * lexicon, so a plain wink instance tokenizes a text (and splits its sentences, tags its words)
 * differently after another text taught it one of its words: a resumed build, or the same texts in
 * another order, would give other results. The reader rolls the lexicon back after each text, and
 * replaces the instance after 100,000 words read to bound memory.
 *
 * @param pipes wink's pipes to run, e.g. `['sbd', 'pos']` for sentences and POS tags (no default:
 *   the pipes change what wink gives, so each caller names its own).
 */
export function createWinkReader(pipes: readonly WinkPipe[]): WinkReader {
  const unknown = pipes.filter((p) => !WINK_PIPES.includes(p));
  if (unknown.length > 0) {
    throw new InvalidArgumentError(
      'pipes',
      `createWinkReader: unknown wink pipe ${unknown.map((p) => JSON.stringify(p)).join(', ')}; use ${WINK_PIPES.join(', ')}.`,
    );
  }
  const ordered = WINK_PIPES.filter((p) => pipes.includes(p));
  const key = ordered.join(',');
  return {
    pipes: ordered,
    async read(text, fn) {
      const session = await getSession(key, ordered);
      let result: ReturnType<typeof fn>;
      try {
        // Synchronous from readDoc to the rollback: no other text is read in between.
        const nlp = session.nlp;
        result = fn(nlp.readDoc(text), nlp.its as unknown as WinkIts, nlp.as);
      } finally {
        forgetReadWords(session);
        if (
          session.lexemes.list.length - session.lexemeBase > RENEW_AFTER_LEXEMES &&
          sessions.get(key) === session
        ) {
          sessions.set(key, createSession(session.modules, ordered));
        }
      }
      if (typeof (result as { then?: unknown } | null)?.then === 'function') {
        throw new InvalidArgumentError(
          'fn',
          'WinkReader.read: fn returned a promise; copy what you need out of the document synchronously.',
        );
      }
      return result;
    },
  };
}

/**
 * Whether a lower-cased word is in wink's English lexicon (common words are; most personal names
 * are not). Words of the texts read so far do not count. False before wink has loaded (any
 * {@link WinkReader.read} call loads it).
 */
export function isKnownWord(word: string): boolean {
  // Every instance is built from the same model: any one holds wink's own lexicon.
  const session = sessions.values().next().value;
  const index = session?.lexemes.hash[word];
  return index !== undefined && index < (session?.lexemeBase ?? 0);
}

/** The reader behind {@link analyze}: sentence boundaries, POS tags and wink's NER. */
const analysisReader = createWinkReader(['sbd', 'pos', 'ner']);

const cache = new Map<string, Analysis>();
/** Analyses kept for reuse (the same chunk is often given to several tasks in a row). */
const CACHE_SIZE = 64;

/** Rebuild the text of tokens `start..end` with their original spacing (newlines become spaces). */
export function spanText(
  tokens: readonly Pick<Token, 'type' | 'value' | 'space'>[],
  start: number,
  end: number,
): string {
  let out = '';
  for (let i = start; i <= end; i++) {
    const token = tokens[i];
    if (!token || token.type === 'tabCRLF') {
      if (out && !out.endsWith(' ')) out += ' ';
      continue;
    }
    if (i > start && token.space) out += /\n/.test(token.space) ? ' ' : token.space.replace(/\s+/g, ' ');
    out += token.value;
  }
  return out.trim();
}

/**
 * Analyse `text` with wink: tokens, sentences and wink's entities. Sentences are wink's, further
 * split at line breaks (wink keeps a heading line and the next sentence together otherwise).
 * The result depends on `text` only, not on the texts analysed before it. The last 64 analyses are
 * cached (the same chunk often goes to several tasks in a row); callers must not modify them.
 */
export async function analyze(text: string): Promise<Analysis> {
  const hit = cache.get(text);
  if (hit) {
    cache.delete(text);
    cache.set(text, hit);
    return hit;
  }
  const analysis = await analysisReader.read(text, (doc, its) => toAnalysis(text, doc, its));
  cache.set(text, analysis);
  if (cache.size > CACHE_SIZE) {
    const oldest = cache.keys().next().value;
    if (oldest !== undefined) cache.delete(oldest);
  }
  return analysis;
}

/** The token columns of a wink document, one array a column, in token order (wink's raw values). */
export interface WinkTokenColumns {
  values: string[];
  normals: string[];
  lemmas: string[];
  tags: string[];
  types: string[];
  stops: boolean[];
  spaces: string[];
}

/** The columns of `doc`'s tokens that grag reads: value, normal, lemma, POS tag, type, stop flag and preceding space. */
export function winkTokenColumns(doc: Document, its: WinkIts): WinkTokenColumns {
  const all = doc.tokens();
  return {
    values: all.out(its.value) as string[],
    normals: all.out(its.normal) as string[],
    lemmas: all.out(its.lemma) as string[],
    tags: all.out(its.pos) as string[],
    types: all.out(its.type) as string[],
    stops: all.out(its.stopWordFlag) as unknown as boolean[],
    spaces: all.out(its.precedingSpaces) as string[],
  };
}

/**
 * `doc`'s tokens as `analyze` gives them, before {@link bareForms}: normal and lemma lower-cased,
 * and a value wink leaves out defaulted (normal and lemma to the token, POS `X`, type `word`).
 */
export function winkTokens(doc: Document, its: WinkIts): Token[] {
  const { values, normals, lemmas, tags, types, stops, spaces } = winkTokenColumns(doc, its);
  return values.map((value, index) => ({
    index,
    value,
    normal: (normals[index] ?? value).toLowerCase(),
    lemma: (lemmas[index] ?? value).toLowerCase(),
    pos: tags[index] ?? 'X',
    type: types[index] ?? 'word',
    stop: stops[index] === true,
    space: spaces[index] ?? '',
  }));
}

/** The document wink read from `text`, as plain data. */
function toAnalysis(text: string, doc: Document, its: WinkIts): Analysis {
  const tokens = winkTokens(doc, its);
  bareForms(tokens);

  const sentences: Sentence[] = lineSentences(
    tokens,
    doc.sentences().out(its.span) as unknown as [number, number][],
  ).map((s, index) => ({ index, ...s }));

  const entitySpans = doc.entities().out(its.span) as unknown as [number, number][];
  const details = doc.entities().out(its.detail) as unknown as { value: string; type: string }[];
  const entities: WinkEntity[] = entitySpans.map((span, i) => ({
    start: span[0],
    end: span[1],
    type: details[i]?.type ?? 'OTHER',
    value: details[i]?.value ?? spanText(tokens, span[0], span[1]),
  }));

  return { text, tokens, sentences, entities };
}

/** Modal verbs: the verb after them is bare. */
const MODALS = new Set(['will', 'would', 'can', 'could', 'shall', 'should', 'may', 'might', 'must']);
/** Past forms of one verb that are also the bare form of another ("found" of find, and to found). */
const BARE_PAST = new Set(['found', 'ground', 'wound', 'fell', 'saw', 'lay']);

/**
 * The sentences of `tokens` as `analyze` gives them: wink's sentence `spans` split at line breaks,
 * line-break tokens trimmed at both ends, empty ones left out.
 */
export function lineSentences(
  tokens: readonly Pick<Token, 'type' | 'value' | 'space'>[],
  spans: readonly (readonly [number, number])[],
): { start: number; end: number; text: string }[] {
  const out: { start: number; end: number; text: string }[] = [];
  const push = (start: number, end: number): void => {
    while (start <= end && tokens[start]?.type === 'tabCRLF') start++;
    while (end >= start && tokens[end]?.type === 'tabCRLF') end--;
    if (start > end) return;
    const text = spanText(tokens, start, end);
    if (text) out.push({ start, end, text });
  };
  for (const [first, last] of spans) {
    let start = first;
    for (let i = first; i <= last; i++) {
      const token = tokens[i];
      if (token?.type === 'tabCRLF' && /\n/.test(token.value)) {
        push(start, i - 1);
        start = i + 1;
      }
    }
    push(start, last);
  }
  return out;
}

/**
 * "What studio did X found?": after "do", "to" or a modal the verb is bare, so "found" is to found,
 * not a form of find (wink lemmatises it "find" everywhere). And "Who edits the Courier?": a word in
 * -s right after "who", before a determiner or a name, is its verb, not a plural noun (wink tags
 * "edits" a noun). Every reading of wink's tokens applies it, so their lemmas agree.
 */
export function bareForms(tokens: Pick<Token, 'normal' | 'lemma' | 'pos' | 'type'>[]): void {
  for (let k = 1; k < tokens.length; k++) {
    const t = tokens[k]!;
    const next = tokens[k + 1];
    if (
      tokens[k - 1]!.normal === 'who' &&
      t.pos === 'NOUN' &&
      /[^s]s$/.test(t.normal) &&
      (next?.pos === 'DET' || next?.pos === 'PROPN')
    ) {
      t.pos = 'VERB';
      if (t.lemma === t.normal) t.lemma = t.normal.replace(/(ch|sh|ss|x|z)es$/, '$1').replace(/s$/, '');
    }
    if (!BARE_PAST.has(t.normal) || t.lemma === t.normal) continue;
    for (let j = k - 1; j >= Math.max(0, k - 4); j--) {
      const before = tokens[j]!;
      if (before.lemma === 'do' || before.normal === 'to' || MODALS.has(before.normal)) {
        t.lemma = t.normal;
        break;
      }
      if (before.pos === 'VERB' || before.type === 'punctuation') break;
    }
  }
}

/** Whether a token carries content (a word or number that is not a stop word). */
export function isContent(token: Pick<Token, 'type' | 'stop' | 'value'>): boolean {
  return (
    (token.type === 'word' || token.type === 'number') && !token.stop && /[\p{L}\p{N}]/u.test(token.value)
  );
}

/** Lower-cased lemmas of the content tokens `start..end`. */
export function contentLemmas(analysis: Analysis, start: number, end: number): string[] {
  const out: string[] = [];
  for (let i = start; i <= end; i++) {
    const token = analysis.tokens[i];
    if (token && isContent(token)) out.push(token.lemma);
  }
  return out;
}
