/**
 * The artifacts of an index built on core's {@link EntityGraph} (E2GraphRAG, bridge-rag), read and
 * checked once for every such method: the entity extractor the index was built with, the entity
 * graph, each chunk's title entity and the entities extracted from each chunk (what an update keeps).
 */
import { IndexFormatError } from './contracts/errors.js';
import { EntityGraph } from './graph/entity-graph.js';
import type { OpenedIndex } from './method-index.js';
import { type Infer, shapeIssue, v } from './validate.js';

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
