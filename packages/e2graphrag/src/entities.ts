/**
 * E2GraphRAG's entity extractor (§3.1): no LLM; per sentence, the named entities and the nouns.
 * The paper uses spaCy; the default here is wink-nlp with its English lite model. Any extractor that
 * implements {@link EntityExtractor} can replace it.
 */
import { InvalidArgumentError } from '@grag/core';
import { splitSentences } from '@grag/core/kit';
import { createWinkReader } from '@grag/offline';

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

/** Options of {@link createWinkEntityExtractor}. */
export interface WinkEntityExtractorOptions {
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

/** Defaults of {@link createWinkEntityExtractor}. */
export const WINK_ENTITY_EXTRACTOR_DEFAULTS: Readonly<WinkEntityExtractorOptions> = {
  nouns: true,
  names: true,
  nameParts: false,
  lowercaseNames: false,
  minLength: 2,
  nameConnectors: ['of', 'de', 'da', 'del', 'der', 'di', 'du', 'la', 'le', 'van', 'von', 'y', '&'],
};

/** wink-nlp with sentence boundaries and POS tags, shared with `@grag/offline` (one instance per process). */
const winkReader = createWinkReader(['sbd', 'pos']);

const LETTER = /\p{L}/u;
const CAPITALIZED = /^\p{Lu}/u;

interface WinkToken {
  value: string;
  lemma: string;
  pos: string;
  type: string;
  space: string;
  stop: boolean;
}

/**
 * The default {@link EntityExtractor}: wink-nlp with `wink-eng-lite-web-model`, no download, no
 * model call. Per sentence (wink's sentences, also cut at line breaks):
 * - names: maximal runs of proper nouns (`PROPN`), with capitalized nouns or adjectives next to
 *   them ("New York City"), words joined by a hyphen ("Jean-Paul") and connectors between
 *   capitalized words ("University of Oxford"); written as in the text (case kept, spacing
 *   normalized). wink's lite model has no person/organization/place tagger, so these runs stand in
 *   for spaCy's PERSON, ORG and GPE entities;
 * - nouns: every other `NOUN`, as its lemma, lower-cased; stop words and tokens without a letter
 *   are skipped.
 */
export function createWinkEntityExtractor(
  options: Partial<WinkEntityExtractorOptions> = {},
): EntityExtractor {
  const o: WinkEntityExtractorOptions = { ...WINK_ENTITY_EXTRACTOR_DEFAULTS, ...options };
  if (!Number.isInteger(o.minLength) || o.minLength < 1) {
    throw new InvalidArgumentError(
      'minLength',
      `createWinkEntityExtractor: minLength must be a positive integer, got ${String(o.minLength)}.`,
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
  const id = `wink-eng-lite:v1:${flags.join(',')}`;

  const nameish = (t: WinkToken): boolean =>
    t.type === 'word' &&
    (t.pos === 'PROPN' || ((t.pos === 'NOUN' || t.pos === 'ADJ') && CAPITALIZED.test(t.value)));

  function sentenceEntities(tokens: WinkToken[], start: number, end: number): string[] {
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
            (next.value === '-' && next.space === '' && after?.space === '') ||
            (connectors.has(next.value.toLowerCase()) && !CAPITALIZED.test(next.value));
          if (joins && j + 2 <= end && after && nameish(after) && CAPITALIZED.test(after.value)) {
            j += 2;
            hasProper ||= after.pos === 'PROPN';
            continue;
          }
          break;
        }
        if (hasProper) {
          if (o.names) {
            let name = '';
            for (let k = i; k <= j; k++) name += (k > i && tokens[k]!.space ? ' ' : '') + tokens[k]!.value;
            keep(name.normalize('NFKC'), true);
            if (o.nameParts && j > i) {
              for (let k = i; k <= j; k++)
                if (nameish(tokens[k]!)) keep(tokens[k]!.value.normalize('NFKC'), true);
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
      // The reader makes wink forget the text afterwards: the entities depend on `text` only, not on
      // the texts read before it (a resumed build gives the same graph as an uninterrupted one).
      return winkReader.read(text, (doc, its) => {
        const all = doc.tokens();
        const values = all.out(its.value) as string[];
        const lemmas = all.out(its.lemma) as string[];
        const tags = all.out(its.pos) as string[];
        const types = all.out(its.type) as string[];
        const spaces = all.out(its.precedingSpaces) as string[];
        const stops = all.out(its.stopWordFlag) as unknown as boolean[];
        const tokens: WinkToken[] = values.map((value, k) => ({
          value,
          lemma: lemmas[k] ?? value,
          pos: tags[k] ?? 'X',
          type: types[k] ?? 'word',
          space: /\n/.test(spaces[k] ?? '') ? '\n' : (spaces[k] ?? ''),
          stop: stops[k] === true,
        }));
        const sentences: string[][] = [];
        for (const [from, to] of doc.sentences().out(its.span) as unknown as [number, number][]) {
          // Cut at line breaks too: a title line and the next sentence are separate sentences.
          let start = from;
          for (let k = from; k <= to + 1; k++) {
            const t = tokens[k];
            const lineBreak =
              k > to || (t !== undefined && (t.type === 'tabCRLF' ? /\n/.test(t.value) : false));
            if (!lineBreak) continue;
            if (k - 1 >= start) {
              const entities = sentenceEntities(tokens, start, k - 1);
              if (entities.length > 0 || k > start) sentences.push(entities);
            }
            start = k + 1;
          }
        }
        return sentences;
      });
    },
  };
}
