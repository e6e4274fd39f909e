/**
 * Entity linking for a passage–entity graph built without a model (E2GraphRAG's NLP entity graph,
 * grag's bridge-rag): the extracted names of every chunk folded into canonical entities with
 * {@link linkEntities} (case, diacritics, punctuation, disambiguators, short names, surnames,
 * acronyms), each document's title made an entity of its chunks, and title mentions the extractor
 * missed added; the {@link EntityGraph} of the result. Queries are matched against the index's
 * entity names with {@link EntityVocabulary} (longest match).
 */
import { EntityGraph } from './entity-graph.js';
import { linkKey } from './link-keys.js';
import { type LinkableItem, linkEntities } from './linking.js';
import { EntityVocabulary, withVocabularyMatches } from './vocabulary.js';

/** What {@link linkChunkEntities} reads of each chunk. */
export interface LinkChunk {
  docId: string;
  text: string;
}

/** Result of {@link linkChunkEntities}. */
export interface LinkedChunkEntities {
  /** Per chunk, per sentence: the canonical entities (the title entity in every sentence). */
  sentences: string[][][];
  /** Per chunk: its document's title entity (its "home" entity), or `undefined` without a title. */
  homes: (string | undefined)[];
  /** Title mentions added from the chunk texts (the extractor missed them). */
  textMentions: number;
}

/**
 * Link the entities of every chunk (`sentences[c][s]`, as the extractor returns them) across the
 * corpus. A document's title becomes the entity of its main subject: it is added to every sentence
 * of the document's chunks (so it co-occurs with everything the passage says about it), and a
 * title written in another chunk's text is added there as a mention even when the extractor missed
 * it (one extra sentence with the chunk's own title entity, so the mention is one hop from it).
 */
export function linkChunkEntities(
  sentences: readonly (readonly (readonly string[])[])[],
  chunks: readonly LinkChunk[],
  titles: ReadonlyMap<string, string | undefined>,
): LinkedChunkEntities {
  const items: LinkableItem[] = chunks.map((chunk, i) => ({
    chunkId: String(i),
    docId: chunk.docId,
    text: chunk.text,
    extraction: {
      entities: [...new Set(sentences[i]!.flat())].map((name) => ({ name, type: '', description: '' })),
      relations: [],
    },
  }));
  const linking = linkEntities(items, { titles });
  const out: string[][][] = [];
  const homes: (string | undefined)[] = [];
  let textMentions = 0;
  chunks.forEach((chunk, i) => {
    const home = linking.titleEntities.get(chunk.docId);
    homes.push(home);
    const present = new Set<string>();
    const linked: string[][] = sentences[i]!.map((sentence) => {
      const names: string[] = [];
      for (const e of sentence) {
        const name = linking.resolve(e);
        if (name === '') continue;
        names.push(name);
        present.add(name);
      }
      if (home !== undefined && !names.includes(home)) names.push(home);
      return names;
    });
    const missed = linking.items[i]!.extraction.entities.map((e) => e.name).filter(
      (name) => name !== home && name !== '' && !present.has(name),
    );
    if (missed.length > 0) {
      textMentions += missed.length;
      linked.push(home !== undefined ? [home, ...missed] : missed);
    } else if (home !== undefined && linked.length === 0) linked.push([home]);
    out.push(linked);
  });
  return { sentences: out, homes, textMentions };
}

/** The vocabulary of an index's entities, for matching query spans (see core's `EntityVocabulary`). */
export function entityVocabulary(entities: Iterable<string>): EntityVocabulary {
  return new EntityVocabulary(entities);
}

/**
 * Query entities against an index: each extracted entity replaced by the index entity with the
 * same link key (case, diacritics, disambiguator folded), then the vocabulary's longest matches in
 * the query text put first (core's `withVocabularyMatches`).
 */
export function linkQueryEntities(
  query: string,
  extracted: readonly string[],
  vocabulary: EntityVocabulary,
): string[] {
  const folded = extracted.map((e) => (linkKey(e) === '' ? e : (vocabulary.get(e) ?? e)));
  return withVocabularyMatches(query, folded, vocabulary);
}

/** The entity graph of the chunks, and each chunk's title entity. */
export interface ChunkEntityGraph {
  graph: EntityGraph;
  /** Per chunk: its document's title entity; empty without linking. */
  homes: (string | undefined)[];
  /** Title mentions added by linking. */
  textMentions: number;
}

/**
 * The entity graph of the extracted entities (`extracted[c][s]`: sentence s of chunk c): as they
 * come, or linked across the corpus (see {@link linkChunkEntities}) with `entityLinking`.
 */
export function chunkEntityGraph(input: {
  extracted: readonly (readonly (readonly string[])[])[];
  chunks: readonly { docId: string; text: string }[];
  titles: ReadonlyMap<string, string | undefined>;
  entityLinking: boolean;
}): ChunkEntityGraph {
  const { extracted, chunks, titles } = input;
  if (!input.entityLinking)
    return { graph: EntityGraph.fromSentences(extracted), homes: [], textMentions: 0 };
  const linked = linkChunkEntities(extracted, chunks, titles);
  return {
    graph: EntityGraph.fromSentences(linked.sentences),
    homes: linked.homes,
    textMentions: linked.textMentions,
  };
}
