/**
 * The text-keyword bipartite graph (KET-RAG Algorithm 3, lines 10-15): one node per keyword, one per
 * text unit (sub-chunk); an edge when the keyword occurs in the unit. A keyword node is described by
 * every sentence that contains it, and embedded as the mean of those sentences' embeddings.
 */
import { type Embedder, embedAll, InvalidArgumentError } from '@grag/core';
import { splitSentences } from '@grag/core/kit';
import { KEYWORD_DEFAULTS, type KeywordOptions, keywordTokens } from './keywords.js';

/** A text node of the bipartite graph. */
export interface BipartiteUnit {
  id: string;
  text: string;
}

/** A sentence of a unit; `text === unit.text.slice(start, end)`. */
export interface BipartiteSentence {
  /** Position of the unit in {@link KeywordBipartite.units}. */
  unit: number;
  start: number;
  end: number;
  text: string;
}

/** The text-keyword bipartite graph. Keywords and units are referred to by position. */
export interface KeywordBipartite {
  /** Unit ids (text nodes), in input order. */
  units: string[];
  /** Keywords (keyword nodes), in order of first appearance. */
  keywords: string[];
  /** Keyword position → positions of the units that contain it, ascending (the edges). */
  keywordUnits: Int32Array[];
  /** Every sentence of every unit, in order. */
  sentences: BipartiteSentence[];
  /** Keyword position → positions of the sentences that contain it, ascending. */
  keywordSentences: Int32Array[];
}

/** Options of {@link buildKeywordBipartite}. */
export interface BipartiteOptions extends KeywordOptions {
  /** Sentence splitter. @default splitSentences from `@grag/core` */
  sentences: (text: string) => { start: number; end: number; text: string }[];
}

/** Defaults of {@link buildKeywordBipartite}. */
export const BIPARTITE_DEFAULTS: BipartiteOptions = { ...KEYWORD_DEFAULTS, sentences: splitSentences };

/**
 * Throw `InvalidArgumentError` (naming `argument`) when two of `ids` are the same: `caller`'s
 * inputs are told apart by id (`what`: what one of them is, for the message).
 */
export function assertUniqueIds(
  ids: readonly string[],
  argument: string,
  caller: string,
  what: string,
): void {
  if (new Set(ids).size !== ids.length) {
    throw new InvalidArgumentError(
      argument,
      `${caller}: two ${what}s share an id; give every ${what} a unique id.`,
    );
  }
}

/**
 * Build the text-keyword bipartite graph of `units`: split each unit into sentences, take each
 * sentence's keywords ({@link keywordTokens}: word tokens minus stop words), and link every keyword
 * to the units and sentences it occurs in. Text outside any sentence (whitespace) carries no
 * keywords. O(total text length).
 *
 * @throws InvalidArgumentError when two units share an id.
 * @example
 * const graph = buildKeywordBipartite(subChunks); // sub-chunks from splitChunks
 * graph.keywordUnits[graph.keywords.indexOf('lovelace')]; // units that mention Lovelace
 */
export function buildKeywordBipartite(
  units: readonly BipartiteUnit[],
  options: Partial<BipartiteOptions> = {},
): KeywordBipartite {
  const o = { ...BIPARTITE_DEFAULTS, ...options };
  const ids = units.map((u) => u.id);
  assertUniqueIds(ids, 'units', 'buildKeywordBipartite', 'unit');
  const index = new Map<string, number>();
  const keywords: string[] = [];
  const keywordUnits: number[][] = [];
  const keywordSentences: number[][] = [];
  const sentences: BipartiteSentence[] = [];
  units.forEach((unit, u) => {
    for (const span of o.sentences(unit.text)) {
      const s = sentences.length;
      sentences.push({ unit: u, start: span.start, end: span.end, text: span.text });
      for (const word of new Set(keywordTokens(span.text, o))) {
        let k = index.get(word);
        if (k === undefined) {
          k = keywords.length;
          index.set(word, k);
          keywords.push(word);
          keywordUnits.push([]);
          keywordSentences.push([]);
        }
        const unitList = keywordUnits[k]!;
        if (unitList[unitList.length - 1] !== u) unitList.push(u);
        keywordSentences[k]!.push(s);
      }
    }
  });
  return {
    units: ids,
    keywords,
    keywordUnits: keywordUnits.map((list) => Int32Array.from(list)),
    sentences,
    keywordSentences: keywordSentences.map((list) => Int32Array.from(list)),
  };
}

/**
 * The description of keyword node `keyword` (a position in `graph.keywords`): every sentence that
 * contains it, in corpus order, joined by `separator` (KET-RAG §5.1).
 */
export function keywordDescription(graph: KeywordBipartite, keyword: number, separator = ' '): string {
  const list = graph.keywordSentences[keyword];
  if (list === undefined) {
    throw new InvalidArgumentError(
      'keyword',
      `keywordDescription: ${keyword} is not a keyword position (the graph has ${graph.keywords.length}).`,
    );
  }
  return Array.from(list, (s) => graph.sentences[s]!.text).join(separator);
}

/**
 * The embedding of every keyword node: the mean of the embeddings of the sentences that contain it
 * (KET-RAG §5.1). `sentenceVectors` are aligned with `graph.sentences`. The vectors are views into one
 * buffer of `keywords × dimensions` floats.
 *
 * @throws InvalidArgumentError when the number of sentence vectors or their lengths do not match.
 */
export function keywordVectors(
  graph: KeywordBipartite,
  sentenceVectors: readonly ArrayLike<number>[],
): Float32Array[] {
  if (sentenceVectors.length !== graph.sentences.length) {
    throw new InvalidArgumentError(
      'sentenceVectors',
      `keywordVectors: got ${sentenceVectors.length} sentence vectors for ${graph.sentences.length} sentences; pass one per sentence, in order.`,
    );
  }
  const d = sentenceVectors[0]?.length ?? 0;
  return sentenceMeans(graph, d, (sum, s) => {
    const v = sentenceVectors[s]!;
    if (v.length !== d) {
      throw new InvalidArgumentError(
        'sentenceVectors',
        `keywordVectors: sentence vector ${s} has ${v.length} dimensions, the first has ${d}.`,
      );
    }
    for (let c = 0; c < d; c++) sum[c]! += v[c]!;
  });
}

/** Sentence vectors as compressed sparse rows: row `s` holds `values[k]` at `components[k]` for `k` in `offsets[s] … offsets[s + 1] - 1`. */
export interface SparseSentenceVectors {
  rows: number;
  dimensions: number;
  offsets: ArrayLike<number>;
  components: ArrayLike<number>;
  values: ArrayLike<number>;
}

/**
 * {@link keywordVectors} of sentence vectors given as sparse rows (every component but +0; `@grag/core`'s
 * `sparseVectorRows` reads them so): the same vectors, bit for bit (a sum that starts at +0 is left
 * as it is by adding ±0), with far fewer additions for sparse embeddings.
 *
 * @throws InvalidArgumentError when the number of rows does not match the sentences or a component is out of range.
 */
export function keywordVectorsOfSparse(
  graph: KeywordBipartite,
  sentenceVectors: SparseSentenceVectors,
): Float32Array[] {
  const { rows, dimensions, offsets, components, values } = sentenceVectors;
  if (rows !== graph.sentences.length || offsets.length !== rows + 1) {
    throw new InvalidArgumentError(
      'sentenceVectors',
      `keywordVectorsOfSparse: got ${rows} sentence vectors (${offsets.length} offsets) for ${graph.sentences.length} sentences; pass one per sentence, in order.`,
    );
  }
  // As keywordVectors: the dimensions of the first sentence vector (none without sentences).
  const d = rows > 0 ? dimensions : 0;
  return sentenceMeans(graph, d, (sum, s) => {
    for (let k = offsets[s]!; k < offsets[s + 1]!; k++) {
      const c = components[k]!;
      if (!(c >= 0 && c < d)) {
        throw new InvalidArgumentError(
          'sentenceVectors',
          `keywordVectorsOfSparse: sentence vector ${s} has component ${c}, beyond ${d} dimensions.`,
        );
      }
      sum[c]! += values[k]!;
    }
  });
}

/** The mean of the sentence vectors of each keyword, `add` adding sentence `s`'s to a float64 sum. */
function sentenceMeans(
  graph: KeywordBipartite,
  d: number,
  add: (sum: Float64Array, sentence: number) => void,
): Float32Array[] {
  const buffer = new Float32Array(graph.keywords.length * d);
  const sum = new Float64Array(d);
  return graph.keywordSentences.map((list, k) => {
    sum.fill(0);
    for (const s of list) add(sum, s);
    const out = buffer.subarray(k * d, (k + 1) * d);
    const inv = list.length > 0 ? 1 / list.length : 0;
    for (let c = 0; c < d; c++) out[c] = sum[c]! * inv;
    return out;
  });
}

/**
 * Embed every sentence of `graph` with `embedder` and return the sentence vectors and the keyword
 * vectors ({@link keywordVectors}).
 */
export async function embedKeywordBipartite(
  graph: KeywordBipartite,
  embedder: Embedder,
  options: { abortSignal?: AbortSignal; batchSize?: number } = {},
): Promise<{ sentenceVectors: Float32Array[]; keywordVectors: Float32Array[] }> {
  const sentenceVectors = await embedAll(
    embedder,
    graph.sentences.map((s) => s.text),
    options,
  );
  return { sentenceVectors, keywordVectors: keywordVectors(graph, sentenceVectors) };
}
