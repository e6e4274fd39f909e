/**
 * What a NodeRAG index keeps for updates, on disk: `update.json` (documents, each chunk's
 * decomposition, attribute summaries and high-level elements by the key of what was sent; gzipped)
 * and `embeddings.rows` (the embedding of each vector key, as core's lossless vector rows; the
 * vector index is built from them at load when the factory is exact). Format 1 kept them as
 * `embeddings.f32` and plain JSON; it still loads. Indexes saved before updates existed have
 * neither file and load without them.
 */
import type { ParseIssue } from '@grag/core';
import type { IndexWriter, OpenedIndex, Schema } from '@grag/core/kit';
import { shapeIssue, v } from '@grag/core/kit';
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

/** Write `kept` (vectors of `dimensions` components). */
export async function saveKept(out: IndexWriter, kept: NodeRagKept, dimensions: number): Promise<void> {
  const { embeddings, ...rest } = kept;
  await out.json(UPDATE_FILE, rest, { compress: true });
  await out.vectorRows(EMBEDDINGS_FILE, embeddings, dimensions);
}

/**
 * The kept data of `opened`, checked against its `chunks` and `vectorKeys` counts; `undefined`
 * when the index was saved before updates existed (neither file). @throws IndexFormatError
 */
export async function loadKept<P, S>(
  opened: OpenedIndex<P, S>,
  counts: { chunks: number; vectors: number },
): Promise<NodeRagKept | undefined> {
  const v1 = !opened.names.includes(EMBEDDINGS_FILE) && opened.names.includes(EMBEDDINGS_V1_FILE);
  const embeddingsFile = v1 ? EMBEDDINGS_V1_FILE : EMBEDDINGS_FILE;
  const has = [UPDATE_FILE, embeddingsFile].map((file) => opened.names.includes(file));
  if (!has[0] && !has[1]) return undefined;
  if (!has[0] || !has[1]) {
    const [present, absent] = has[0] ? [UPDATE_FILE, embeddingsFile] : [embeddingsFile, UPDATE_FILE];
    throw opened.error(present, `is present but ${absent} is missing`);
  }
  const stored = await opened.json(UPDATE_FILE, storedKeptSchema);
  opened.check(UPDATE_FILE, () => {
    if (stored.decompositions.length !== counts.chunks) {
      shapeIssue(
        'decompositions',
        `has ${stored.decompositions.length} entries for the ${counts.chunks} chunks of chunks.json`,
      );
    }
  });
  const embeddings = v1
    ? await opened.float32Rows(EMBEDDINGS_V1_FILE, counts.vectors)
    : await opened.vectorRows(EMBEDDINGS_FILE, counts.vectors);
  return { ...stored, embeddings };
}
