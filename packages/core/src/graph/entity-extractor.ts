/**
 * E2GraphRAG's entity extractor (§3.1): no LLM; per sentence, the named entities and the nouns.
 * The paper uses spaCy; here the sentences, POS tags and lemmas come from the build context's
 * `TextAnalyzer` (`createWinkTextAnalyzer()` from `@grag/offline`: wink-nlp with its English lite
 * model). Any extractor that implements {@link EntityExtractor} can replace it.
 */
import { splitSentences } from '../chunking/sentences.js';
import { InvalidArgumentError } from '../contracts/errors.js';
import type { TextAnalyzer, TextToken } from '../contracts/text.js';

/**
 * Finds the entities of a text, sentence by sentence. The same extractor, with the same
 * normalization, must serve indexing and querying: the method records `id` in the index manifest
 * and refuses to load an index with another extractor.
 */
export interface EntityExtractor {
  /** Names the extractor and its settings, e.g. `'wink-eng-lite:v1'`. */
  readonly id: string;
  /**
   * The entities of each sentence of `text`, in order of mention, already normalized (the keys of
   * the entity graph). Repeats within a sentence are kept: they are counted as occurrences.
   */
  extract(text: string): Promise<string[][]>;
}

/** Split a text into sentences: at line breaks, then with core's rule-based `splitSentences`. */
export function sentencesOf(text: string): string[] {
  const out: string[] = [];
  for (const line of text.split(/\r?\n/)) {
    for (const span of splitSentences(line)) out.push(span.text);
  }
  return out;
}

/**
 * An {@link EntityExtractor} from a function of one sentence: handy for tests, other NLP libraries
 * or a dictionary matcher. Texts are split with {@link sentencesOf} unless `split` is given.
 */
export function entityExtractorFromFunction(
  extractEntities: (sentence: string) => string[] | Promise<string[]>,
  options: { id?: string; split?: (text: string) => string[] } = {},
): EntityExtractor {
  const split = options.split ?? sentencesOf;
  return {
    id: options.id ?? 'custom',
    async extract(text) {
      const out: string[][] = [];
      for (const sentence of split(text)) out.push(await extractEntities(sentence));
      return out;
    },
  };
}

/** Options of {@link createEntityExtractor}. */
export interface EntityExtractorOptions {
  /** Keep common nouns, lemmatized and lower-cased. @default true (E2GraphRAG §3.1: "named entities and common nouns") */
  nouns: boolean;
  /** Keep names: runs of proper nouns, case kept. @default true (E2GraphRAG §3.1) */
  names: boolean;
  /**
   * Also add each word of a multi-word name as an entity ("Anton Kessler" gives "Anton" and
   * "Kessler" too). The official code does this for person names. @default false
   */
  nameParts: boolean;
  /**
   * Lower-case names too, so "Harald Iii Of Orsa" in a title-cased question matches "Harald III of
   * Orsa" in the text, at the price of merging a name with a same-spelled noun.
   * @default false (E2GraphRAG §3.1 lower-cases common nouns only)
   */
  lowercaseNames: boolean;
  /** Shortest entity kept, in characters. @default 2 */
  minLength: number;
  /** Lower-case words that join two capitalized words into one name ("University of Oxford"). */
  nameConnectors: readonly string[];
}

/** Defaults of {@link createEntityExtractor}. */
export const ENTITY_EXTRACTOR_DEFAULTS: Readonly<EntityExtractorOptions> = {
  nouns: true,
  names: true,
  nameParts: false,
  lowercaseNames: false,
  minLength: 2,
  nameConnectors: ['of', 'de', 'da', 'del', 'der', 'di', 'du', 'la', 'le', 'van', 'von', 'y', '&'],
};

const LETTER = /\p{L}/u;
const CAPITALIZED = /^\p{Lu}/u;

/**
 * The default {@link EntityExtractor}: names and nouns from the tokens of `analyzer`
 * (`createWinkTextAnalyzer()` from `@grag/offline`: wink-nlp with `wink-eng-lite-web-model`, no
 * download, no model call). Per sentence (the analyzer's sentences, also cut at line breaks):
 * - names: maximal runs of proper nouns (`PROPN`), with capitalized nouns or adjectives next to
 *   them ("New York City"), words joined by a hyphen ("Jean-Paul") and connectors between
 *   capitalized words ("University of Oxford"); written as in the text (case kept, spacing
 *   normalized). wink's lite model has no person/organization/place tagger, so these runs stand in
 *   for spaCy's PERSON, ORG and GPE entities;
 * - nouns: every other `NOUN`, as its lemma, lower-cased; stop words and tokens without a letter
 *   are skipped.
 *
 * Its `id` is the analyzer's id and the options that change what it gives, e.g.
 * `'wink-eng-lite:v1:nouns,names'`.
 *
 * @example
 * ```ts
 * const extractor = createEntityExtractor(createWinkTextAnalyzer(), { nameParts: true });
 * const method = createE2GraphRag({ extractor });
 * ```
 */
export function createEntityExtractor(
  analyzer: TextAnalyzer,
  options: Partial<EntityExtractorOptions> = {},
): EntityExtractor {
  if (typeof analyzer?.doAnalyze !== 'function') {
    throw new InvalidArgumentError(
      'analyzer',
      'createEntityExtractor: pass a TextAnalyzer, e.g. `createWinkTextAnalyzer()` from @grag/offline.',
    );
  }
  const o: EntityExtractorOptions = { ...ENTITY_EXTRACTOR_DEFAULTS, ...options };
  if (!Number.isInteger(o.minLength) || o.minLength < 1) {
    throw new InvalidArgumentError(
      'minLength',
      `createEntityExtractor: minLength must be a positive integer, got ${String(o.minLength)}.`,
    );
  }
  const connectors = new Set(o.nameConnectors.map((c) => c.toLowerCase()));
  const flags = [
    o.nouns ? 'nouns' : 'no-nouns',
    o.names ? 'names' : 'no-names',
    ...(o.nameParts ? ['name-parts'] : []),
    ...(o.lowercaseNames ? ['lowercase-names'] : []),
    ...(o.minLength !== 2 ? [`min${o.minLength}`] : []),
  ];
  const id = `${analyzer.id}:${flags.join(',')}`;

  const nameish = (t: TextToken): boolean =>
    t.type === 'word' &&
    (t.pos === 'PROPN' || ((t.pos === 'NOUN' || t.pos === 'ADJ') && CAPITALIZED.test(t.text)));

  function sentenceEntities(tokens: TextToken[], start: number, end: number): string[] {
    const out: string[] = [];
    const keep = (entity: string, name = false): void => {
      if (name && o.lowercaseNames) entity = entity.toLowerCase();
      if (entity.length >= o.minLength && LETTER.test(entity)) out.push(entity);
    };
    let i = start;
    while (i <= end) {
      const t = tokens[i]!;
      if (nameish(t)) {
        // Grow a run of name tokens; hyphens (no spaces) and connectors may join two of them.
        let j = i;
        let hasProper = t.pos === 'PROPN';
        for (;;) {
          const next = tokens[j + 1];
          const after = tokens[j + 2];
          if (j + 1 > end || !next) break;
          if (nameish(next) && next.space !== '\n') {
            j++;
            hasProper ||= next.pos === 'PROPN';
            continue;
          }
          const joins =
            (next.text === '-' && next.space === '' && after?.space === '') ||
            (connectors.has(next.text.toLowerCase()) && !CAPITALIZED.test(next.text));
          if (joins && j + 2 <= end && after && nameish(after) && CAPITALIZED.test(after.text)) {
            j += 2;
            hasProper ||= after.pos === 'PROPN';
            continue;
          }
          break;
        }
        if (hasProper) {
          if (o.names) {
            let name = '';
            for (let k = i; k <= j; k++) name += (k > i && tokens[k]!.space ? ' ' : '') + tokens[k]!.text;
            keep(name.normalize('NFKC'), true);
            if (o.nameParts && j > i) {
              for (let k = i; k <= j; k++)
                if (nameish(tokens[k]!)) keep(tokens[k]!.text.normalize('NFKC'), true);
            }
          }
          i = j + 1;
          continue;
        }
      }
      if (o.nouns && t.pos === 'NOUN' && t.type === 'word' && !t.stop)
        keep(t.lemma.toLowerCase().normalize('NFKC'));
      i++;
    }
    return out;
  }

  return {
    id,
    async extract(text) {
      const analysis = await analyzer.doAnalyze(text);
      // A token's preceding whitespace that holds a line break counts as one: a name never runs across it.
      const tokens: TextToken[] = analysis.tokens.map((t) =>
        /\n/.test(t.space) ? { ...t, space: '\n' } : t,
      );
      const sentences: string[][] = [];
      for (const [from, to] of analysis.sentences) {
        // Cut at line breaks too: a title line and the next sentence are separate sentences.
        let start = from;
        for (let k = from; k <= to + 1; k++) {
          const t = tokens[k];
          const lineBreak = k > to || (t !== undefined && t.type === 'space' && /\n/.test(t.text));
          if (!lineBreak) continue;
          if (k - 1 >= start) {
            const entities = sentenceEntities(tokens, start, k - 1);
            if (entities.length > 0 || k > start) sentences.push(entities);
          }
          start = k + 1;
        }
      }
      return sentences;
    },
  };
}

/** Who asks {@link contextEntityExtractor} for an extractor, for its message. */
export interface EntityExtractorUser {
  /** The method's name in prose, e.g. `'E2GraphRAG'`. */
  method: string;
  /** The factory that takes an `extractor` setting, e.g. `'createE2GraphRag'`. */
  factory: string;
}

/**
 * The entity extractor of a method that was given none: {@link createEntityExtractor} on the build
 * context's text analyzer.
 *
 * @param caller - Names the build or load in the message, e.g. `'e2graphrag build'`.
 * @throws InvalidArgumentError (argument `ctx`) when the context has no `textAnalyzer`, saying what
 *   to pass instead.
 */
export function contextEntityExtractor(
  ctx: { readonly textAnalyzer?: TextAnalyzer },
  caller: string,
  user: EntityExtractorUser,
): EntityExtractor {
  if (!ctx.textAnalyzer) {
    throw new InvalidArgumentError(
      'ctx',
      `${caller}: ${user.method} reads entities with a text analyzer and the build context has none; pass \`textAnalyzer: createWinkTextAnalyzer()\` from @grag/offline (createOfflineProviders() includes it), or an \`extractor\` to ${user.factory}.`,
    );
  }
  return createEntityExtractor(ctx.textAnalyzer);
}
