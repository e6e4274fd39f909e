/**
 * Saving and loading what updates reuse ({@link SgRagUpdateState}): `update.json` (the documents
 * and each chunk's extraction, gzipped) and `labels.rows` (each node's label embedding, stored once:
 * the label vector index is built from them when the factory is exact). Format 1 kept the
 * embeddings as `label-embeddings.f32` beside the vector index's own copy; it still loads. Indexes
 * built from triples, and indexes saved before updates existed, have neither and still load.
 */
import {
  compress,
  encodeArrays,
  extractedEntitySchema,
  extractedRelationSchema,
  type IndexWriter,
  type OpenedIndex,
  shapeIssue,
  sourceLocationSchema,
  v,
} from '@grag/core/kit';
import { gunzippedArrays } from './graph-store.js';
import type { KeptChunk, SgRagIndex, SgRagUpdateState } from './types.js';
import { checkStoredUpdate, keptChunksOf, storedUpdate, storedUpdateSchema } from './update-store.js';

/** The artifact that marks an index saved with update state. */
export const UPDATE_FILE = 'update.json';
/** Format 3: the kept chunks' records as typed arrays (update.json then holds the strings; see update-store.ts). */
const UPDATE_ARRAYS_FILE = 'update.bin';
/** The label embeddings, one row per node (`IndexWriter.vectorRows`). */
export const LABEL_ROWS_FILE = 'labels.rows';
/** Format 1's label embeddings, one float32 row per node. */
const LABEL_EMBEDDINGS_V1_FILE = 'label-embeddings.f32';

// A weight that JSON cannot hold (NaN, ±Infinity) is written as null and read back as NaN: the
// graph builder skips such a relation either way, as the build did.
const relationSchema = extractedRelationSchema(v.nullable(v.number()));
// A chunk is `[id, docId, extraction]`, with its location fourth when it has one (indexes saved
// before chunks kept their location have three elements).
const updateSchema = v.object({
  documents: v.array(v.string()),
  chunks: v.array(
    v.tuple(
      v.string(),
      v.string(),
      v.object({ entities: v.array(extractedEntitySchema), relations: v.array(relationSchema) }),
      v.optional(sourceLocationSchema),
    ),
  ),
});

/**
 * Write `index.kept` (nothing for an index without it); its label embeddings only when they are
 * not `collected` (stored as the store's vector collection, which an update reads instead).
 */
export async function saveUpdateState(out: IndexWriter, index: SgRagIndex, collected = false): Promise<void> {
  const { kept } = index;
  if (!kept) return;
  const stored = storedUpdate(kept.documents, kept.chunks);
  await out.json(UPDATE_FILE, stored.json, { compress: true });
  await out.bytes(UPDATE_ARRAYS_FILE, compress(encodeArrays(stored.arrays)));
  if (collected) return;
  if (!kept.labelEmbeddings) throw new TypeError('saveUpdateState: the label embeddings are missing.');
  await out.vectorRows(LABEL_ROWS_FILE, kept.labelEmbeddings, index.providers.embedder.dimensions);
}

/**
 * Read the update state of `index` from `opened`, or undefined when it was saved without one;
 * every chunk must name a listed document, chunk ids and document ids must be distinct, and there
 * must be one label embedding per graph node.
 */
export async function loadUpdateState(
  opened: OpenedIndex<unknown, unknown>,
  index: Pick<SgRagIndex, 'graph'>,
  collected = false,
): Promise<SgRagUpdateState | undefined> {
  if (!opened.names.includes(UPDATE_FILE)) return undefined;
  let documents: string[];
  let chunks: KeptChunk[];
  if (opened.manifest.formatVersion >= 3) {
    const stored = await opened.json(UPDATE_FILE, storedUpdateSchema);
    opened.check(UPDATE_FILE, () => checkStoredUpdate(stored));
    documents = stored.documents;
    chunks = keptChunksOf(
      opened,
      UPDATE_ARRAYS_FILE,
      stored,
      gunzippedArrays(opened, UPDATE_ARRAYS_FILE, await opened.bytes(UPDATE_ARRAYS_FILE)),
    );
  } else {
    const stored = await opened.json(UPDATE_FILE, updateSchema);
    opened.check(UPDATE_FILE, () => {
      const listed = new Set(stored.documents);
      if (listed.size !== stored.documents.length) shapeIssue('documents', 'repeat an id');
      const ids = new Set<string>();
      stored.chunks.forEach(([id, docId], i) => {
        if (ids.has(id)) shapeIssue(`chunks[${i}]`, `repeats the chunk id ${JSON.stringify(id)}`);
        ids.add(id);
        if (!listed.has(docId)) {
          shapeIssue(`chunks[${i}]`, `names the document ${JSON.stringify(docId)}, which is not listed`);
        }
      });
    });
    documents = stored.documents;
    chunks = stored.chunks.map(([id, docId, extraction, location]) => ({
      id,
      docId,
      ...(location ? { location } : {}),
      extraction: {
        entities: extraction.entities,
        relations: extraction.relations.map(({ weight, keywords, ...rest }) => ({
          ...rest,
          weight: weight ?? Number.NaN,
          ...(keywords ? { keywords } : {}),
        })),
      },
    }));
  }
  if (collected) return { documents, chunks };
  const n = index.graph.ids.length;
  const labelEmbeddings = opened.names.includes(LABEL_ROWS_FILE)
    ? await opened.vectorRows(LABEL_ROWS_FILE, n)
    : await opened.float32Rows(LABEL_EMBEDDINGS_V1_FILE, n);
  return { documents, chunks, labelEmbeddings };
}
