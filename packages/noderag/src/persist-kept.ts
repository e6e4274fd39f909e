/**
 * What a NodeRAG index keeps for updates, on disk: `update.json` (documents, each chunk's
 * decomposition, attribute summaries and high-level elements by the key of what was sent; gzipped)
 * and `embeddings.rows` (the embedding of each vector key, as core's lossless vector rows; the
 * vector index is built from them at load when the factory is exact). Format 1 kept them as
 * `embeddings.f32` and plain JSON; it still loads. Indexes saved before updates existed have
 * neither file and load without them.
 *
 * Since format 4 `chunks.json` records the SHA-256 of `update.json`: `load` compares the bytes with
 * it and decodes them only when the kept data is first read (an update, a save), since retrieval
 * never reads it. Without the record (formats 1 to 3) the file is decoded and checked at load.
 */
import type { ParseIssue } from '@grag/core';
import type { IndexWriter, OpenedIndex, Schema } from '@grag/core/kit';
import {
  compress,
  decompressed,
  parseJsonArtifact,
  sha256Hex,
  shapeIssue,
  v,
  validate,
} from '@grag/core/kit';
import type { KeptDecomposition, KeptElement, NodeRagKept } from './kept.js';

const UPDATE_FILE = 'update.json';
const EMBEDDINGS_FILE = 'embeddings.rows';
/** Format 1's float32 rows of the embeddings. */
const EMBEDDINGS_V1_FILE = 'embeddings.f32';

/** The files {@link saveKept} writes (a `save` without `kept` writes none of them). */
export const KEPT_FILES = [UPDATE_FILE, EMBEDDINGS_FILE] as const;

type StoredKept = Omit<NodeRagKept, 'embeddings'>;

const ISSUE_KINDS = [
  'skipped-record',
  'missing-field',
  'truncated',
  'no-records',
  'invalid-value',
] as const satisfies readonly ParseIssue['kind'][];

const issueKinds = v.array(v.literal(...ISSUE_KINDS));

const decompositionSchema: Schema<KeptDecomposition> = v.object({
  units: v.array(
    v.object({
      text: v.string(),
      entities: v.array(v.string()),
      relationships: v.array(v.object({ source: v.string(), relation: v.string(), target: v.string() })),
    }),
  ),
  issues: issueKinds,
});

const elementSchema: Schema<KeptElement> = v.object({
  title: v.string(),
  description: v.string(),
  issues: issueKinds,
});

const storedKeptSchema: Schema<StoredKept> = v.object({
  documents: v.array(v.object({ id: v.string(), title: v.optional(v.string()) })),
  decompositions: v.array(decompositionSchema),
  attributes: v.array(v.tuple(v.string(), v.string())),
  elements: v.array(v.tuple(v.string(), elementSchema)),
  important: v.optional(v.array(v.string())),
  communities: v.optional(v.array(v.tuple(v.string(), v.number()))),
});

/** The bytes of `update.json` for `kept` (gzipped JSON), rendered first so that their SHA-256 can be recorded. */
export function keptBytes(kept: NodeRagKept): Uint8Array {
  const { embeddings: _embeddings, ...rest } = kept;
  return compress(new TextEncoder().encode(JSON.stringify(rest)));
}

/** The SHA-256 of `bytes` (hex), as `chunks.json` records it for `update.json`. */
export function keptDigest(bytes: Uint8Array): string {
  return sha256Hex(bytes);
}

/**
 * Write `kept` (vectors of `dimensions` components), `update.json` as `bytes` ({@link keptBytes});
 * the embeddings only when they are not `collected` (the store's vector collection holds them).
 */
export async function saveKept(
  out: IndexWriter,
  kept: NodeRagKept,
  dimensions: number,
  bytes: Uint8Array = keptBytes(kept),
  collected = false,
): Promise<void> {
  await out.bytes(UPDATE_FILE, bytes);
  if (collected) return;
  if (!kept.embeddings) throw new TypeError('saveKept: the embeddings are missing.');
  await out.vectorRows(EMBEDDINGS_FILE, kept.embeddings, dimensions);
}

/**
 * The kept data of a loaded index: its embeddings (none when the store's vector collection holds
 * them), and the rest decoded when first asked for.
 */
export interface LoadedKept {
  embeddings: Float32Array[] | undefined;
  /** The kept data, `embeddings` included; decoded and checked on the first call, the same object after. */
  kept: () => NodeRagKept;
}

/**
 * The kept data of `opened`, checked against its `chunks` and `vectors` counts; `undefined` when
 * the index was saved before updates existed (neither file). With `digest` (the SHA-256 of
 * `update.json` that `chunks.json` records, format 4) the file is only compared with it now and
 * decoded on the first `kept()`; without, it is decoded and checked now. @throws IndexFormatError
 */
export async function loadKept<P, S>(
  opened: OpenedIndex<P, S>,
  counts: { chunks: number; vectors: number },
  digest: string | undefined,
  collected = false,
): Promise<LoadedKept | undefined> {
  const v1 = !opened.names.includes(EMBEDDINGS_FILE) && opened.names.includes(EMBEDDINGS_V1_FILE);
  const embeddingsFile = v1 ? EMBEDDINGS_V1_FILE : EMBEDDINGS_FILE;
  // With a vector collection the embeddings are the collection's: only update.json is kept.
  const has = collected
    ? [opened.names.includes(UPDATE_FILE), true]
    : [UPDATE_FILE, embeddingsFile].map((file) => opened.names.includes(file));
  if (collected && !has[0]) return undefined;
  if (!has[0] && !has[1]) return undefined;
  if (!has[0] || !has[1]) {
    const [present, absent] = has[0] ? [UPDATE_FILE, embeddingsFile] : [embeddingsFile, UPDATE_FILE];
    throw opened.error(present, `is present but ${absent} is missing`);
  }
  const bytes = await opened.bytes(UPDATE_FILE);
  let stored: StoredKept | undefined;
  const decode = (): StoredKept => {
    stored ??= storedKeptOf(opened, bytes, counts.chunks);
    return stored;
  };
  if (digest === undefined) decode();
  else if (keptDigest(bytes) !== digest) {
    throw opened.error(
      UPDATE_FILE,
      'does not match the SHA-256 chunks.json records for it (damaged or replaced)',
    );
  }
  const embeddings = collected
    ? undefined
    : v1
      ? await opened.float32Rows(EMBEDDINGS_V1_FILE, counts.vectors)
      : await opened.vectorRows(EMBEDDINGS_FILE, counts.vectors);
  let kept: NodeRagKept | undefined;
  return {
    embeddings,
    kept: () => {
      kept ??= { ...decode(), ...(embeddings ? { embeddings } : {}) };
      return kept;
    },
  };
}

/** The stored kept data of `bytes` (`update.json`), checked to hold a decomposition per chunk. */
function storedKeptOf<P, S>(opened: OpenedIndex<P, S>, bytes: Uint8Array, chunks: number): StoredKept {
  const where = opened.locate(UPDATE_FILE);
  const stored = validate(storedKeptSchema, parseJsonArtifact(decompressed(bytes, where), where), where);
  opened.check(UPDATE_FILE, () => {
    if (stored.decompositions.length !== chunks) {
      shapeIssue(
        'decompositions',
        `has ${stored.decompositions.length} entries for the ${chunks} chunks of chunks.json`,
      );
    }
  });
  return stored;
}
