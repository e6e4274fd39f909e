/**
 * The artifacts of an index built on core's {@link EntityGraph} (E2GraphRAG, bridge-rag), written,
 * read and checked once for every such method: the entity extractor the index was built with, the
 * entity graph, each chunk's title entity, the entities extracted from each chunk and the
 * embeddings (what an update keeps), the vector index, and the BM25 index the queries search.
 */

import { bm25FileArrays } from './bm25-file.js';
import { IndexFormatError } from './contracts/errors.js';
import type { BuildContext } from './contracts/method.js';
import type { IndexStore } from './contracts/store.js';
import { isStoredVectors, type SearchableVectors } from './contracts/vector.js';
import type { EntityIndexKept } from './entity-index.js';
import { EntityGraph } from './graph/entity-graph.js';
import type { Bm25Index } from './lexical/index.js';
import {
  type IndexProviders,
  type IndexWriter,
  type MethodIndexFormat,
  type MethodIndexHeader,
  type OpenedIndex,
  type OpenMethodIndexOptions,
  openMethodIndex,
} from './method-index.js';
import { type Infer, shapeIssue, v } from './validate.js';

/** The artifact names of an entity index (a method adds its own beside them). */
export const ENTITY_INDEX_FILES = {
  /** The entity graph with its entity↔chunk indexes. */
  graph: 'graph.json',
  /** Each chunk's title entity (linked indexes). */
  links: 'links.json',
  /** What an update keeps besides the embeddings: the documents, their titles, each chunk's entities. */
  kept: 'update.json',
  /** The kept embeddings, core's lossless vector rows. */
  embeddings: 'embeddings.rows',
  /** The vector index (with kept embeddings, saved only when the factory is not exact). */
  vectors: 'vectors.bin',
  /**
   * The BM25 index the method's queries search (core's BM25 file: `bm25FileArrays`,
   * `loadBm25File`), read at load instead of tokenizing every text again; absent from indexes saved
   * before it was kept.
   */
  lexical: 'lexical.bm25',
} as const;

/** The JSON artifacts of an entity index are gzipped ({@link OpenedIndex.json} reads either). */
const GZIP = { compress: true } as const;

/** What the manifest of an entity index records of it. */
export interface EntityIndexHeaderParts<P extends object> {
  providers: IndexProviders;
  options: P;
  stats: object;
  extractor: { readonly id: string };
}

/** The manifest header of an entity index: its params, and its stats with the entity extractor's id. */
export function entityIndexHeader<P extends object>(
  index: EntityIndexHeaderParts<P>,
  format: MethodIndexFormat,
): MethodIndexHeader<P> {
  return {
    ...format,
    providers: index.providers,
    params: index.options,
    stats: { ...index.stats, entityExtractor: index.extractor.id },
  };
}

/**
 * Open an entity index ({@link openMethodIndex}'s checks) and refuse it when it was built with
 * another entity extractor than `extractor` (one that recorded its extractor among the providers,
 * as indexes did before the stats held it, is checked against that).
 * @returns the opened index and its stats without the extractor's id.
 * @throws IndexFormatError as `openMethodIndex` does, or saying to use the same extractor.
 */
export async function openEntityIndex<P, S extends object>(
  target: string | IndexStore,
  ctx: Pick<BuildContext, 'embedder' | 'tasks' | 'tokenizer' | 'vectorIndex'>,
  extractor: { readonly id: string },
  options: OpenMethodIndexOptions<P, S & { entityExtractor?: string | undefined }>,
): Promise<{
  opened: OpenedIndex<P, S & { entityExtractor?: string | undefined }>;
  stats: Omit<S, 'entityExtractor'>;
}> {
  const opened = await openMethodIndex(target, ctx, options);
  const { entityExtractor: built = opened.manifest.providers.entityExtractor, ...stats } = opened.stats;
  assertSameExtractor(opened, options.formatVersion, built, extractor);
  return { opened, stats };
}

/**
 * Write the artifacts every entity index has: the entity graph; with `homes`, each chunk's title
 * entity; with `kept`, the kept state, its embeddings as vector rows and the vector index (saved
 * only when the factory cannot build it again from them); without, the vector index alone. With
 * `collected` (the caller stored the vectors as a collection of the store, see
 * `writeVectorCollection`), neither the embeddings nor the vector index: the collection is both.
 */
export async function writeEntityIndexFiles(
  out: IndexWriter,
  parts: {
    graph: EntityGraph;
    homes: readonly (string | undefined)[] | undefined;
    kept: EntityIndexKept | undefined;
    vectors: SearchableVectors;
    /** The embedder's dimensions (the rows' length). */
    dimensions: number;
    /** The vectors were stored as a collection. @default false */
    collected?: boolean;
    /** The BM25 index the queries search, kept as `lexical.bm25`. */
    lexical?: Bm25Index;
  },
): Promise<void> {
  await out.json(ENTITY_INDEX_FILES.graph, parts.graph.toJSON(), GZIP);
  if (parts.lexical) await out.arrays(ENTITY_INDEX_FILES.lexical, bm25FileArrays(parts.lexical));
  if (parts.homes)
    await out.json(ENTITY_INDEX_FILES.links, { homes: parts.homes.map((h) => h ?? null) }, GZIP);
  const { vectors } = parts;
  if (!parts.collected && isStoredVectors(vectors)) {
    throw new TypeError(
      'writeEntityIndexFiles: stored vectors are written as a collection (collected: true).',
    );
  }
  if (parts.kept) {
    const { embeddings, ...kept } = parts.kept;
    await out.json(ENTITY_INDEX_FILES.kept, kept, GZIP);
    if (parts.collected || isStoredVectors(vectors)) return;
    if (!embeddings) throw new TypeError('writeEntityIndexFiles: kept embeddings are missing.');
    await out.vectorRows(ENTITY_INDEX_FILES.embeddings, embeddings, parts.dimensions);
    await out.vectorIndex(ENTITY_INDEX_FILES.vectors, vectors);
  } else if (!parts.collected && !isStoredVectors(vectors)) {
    await out.vectors(ENTITY_INDEX_FILES.vectors, vectors);
  }
}

/**
 * The kept state of an entity index ({@link readEntityKept}, `chunks` chunks) with its `count`
 * embeddings, as {@link writeEntityIndexFiles} wrote them; without them when `collected` (the
 * store keeps them as a collection: an update reads them there).
 */
export async function readEntityIndexKept(
  opened: Pick<OpenedIndex<unknown, unknown>, 'json' | 'check' | 'vectorRows'>,
  chunks: number,
  count: number,
  collected = false,
): Promise<EntityIndexKept> {
  const kept = await readEntityKept(opened, ENTITY_INDEX_FILES.kept, chunks);
  if (collected) return kept;
  const embeddings = await opened.vectorRows(ENTITY_INDEX_FILES.embeddings, count);
  return { ...kept, embeddings };
}

/** What the readers use of an opened index. */
type Opened = Pick<OpenedIndex<unknown, unknown>, 'location' | 'locate' | 'json' | 'check'>;

/**
 * Refuse an index built with another entity extractor than `extractor` (queries must be read as the
 * chunks were). `built` undefined (an index that recorded none) is accepted.
 *
 * @throws IndexFormatError saying to use the same extractor or rebuild.
 */
export function assertSameExtractor(
  opened: Pick<Opened, 'location'>,
  formatVersion: number,
  built: string | undefined,
  extractor: { readonly id: string },
): void {
  if (built === undefined || built === extractor.id) return;
  throw new IndexFormatError(
    opened.location,
    formatVersion,
    `${opened.location} was built with entity extractor '${built}' (now '${extractor.id}'). Use the same extractor or rebuild the index.`,
  );
}

/**
 * The entity graph saved as `file`, checked to index `chunks` chunks; `mismatch(found)` says what is
 * wrong when it indexes `found` instead.
 */
export async function readEntityGraph(
  opened: Opened,
  file: string,
  chunks: number,
  mismatch: (found: number) => string,
): Promise<EntityGraph> {
  const graph = EntityGraph.fromJSON(await opened.json(file, v.unknown()), opened.locate(file));
  opened.check(file, () => {
    if (graph.chunkCount !== chunks) shapeIssue('chunks', mismatch(graph.chunkCount));
  });
  return graph;
}

/** The title entity of each chunk (`null` for none), as saved. */
const homesSchema = v.object({ homes: v.array(v.nullable(v.string())) });

/** Each chunk's title entity key (or undefined), saved as `file` and checked to cover `chunks` chunks. */
export async function readHomes(
  opened: Opened,
  file: string,
  chunks: number,
): Promise<(string | undefined)[]> {
  const links = await opened.json(file, homesSchema);
  opened.check(file, () => {
    if (links.homes.length !== chunks) {
      shapeIssue('homes', `has ${links.homes.length} title entities for ${chunks} chunks`);
    }
  });
  return links.homes.map((h) => h ?? undefined);
}

/** What an update of an entity-graph index keeps: the documents, their titles, each chunk's entities by sentence. */
export const entityKeptSchema = v.object({
  documents: v.array(v.string()),
  titles: v.record(v.string()),
  extracted: v.array(v.array(v.array(v.string()))),
});

/** The kept state saved as `file` (see {@link entityKeptSchema}), checked to hold the entities of `chunks` chunks. */
export async function readEntityKept(
  opened: Pick<Opened, 'json' | 'check'>,
  file: string,
  chunks: number,
): Promise<Infer<typeof entityKeptSchema>> {
  const kept = await opened.json(file, entityKeptSchema);
  opened.check(file, () => {
    if (kept.extracted.length !== chunks) {
      shapeIssue(
        'extracted',
        `has the entities of ${kept.extracted.length} chunks, but the index has ${chunks}`,
      );
    }
  });
  return kept;
}
