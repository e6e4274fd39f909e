/**
 * Saving and loading what updates reuse ({@link KetRagUpdateState}), format version 2:
 * `update.json` (gzipped: documents, titles, each core chunk's extraction, the model's summaries)
 * names the vector files it reuses instead of copying them: the raw vectors are written once, as
 * vector rows (`chunks.rows`, `subchunks.rows`, `entities.rows`, `sentences.rows`), and the vector
 * indexes over them are saved only when the factory cannot rebuild them as fast as it loads them
 * (see `IndexWriter.vectorIndex`). Indexes saved before updates existed have no `update.json`.
 */
import {
  checkVectorRowsArtifact,
  compress,
  decodeArrays,
  decodeVectorRows,
  decompressed,
  encodeArrays,
  extractedEntitySchema,
  extractedRelationSchema,
  type IndexWriter,
  lazyField,
  type OpenedIndex,
  parseJsonArtifact,
  type Schema,
  type SparseVectorRows,
  sha256Hex,
  shapeIssue,
  sparseVectorRows,
  v,
  validate,
} from '@grag/core/kit';
import { extractionsOf, storedExtractions } from './persist-extractions.js';
import type { KetRagIndex, KetRagUpdateState } from './types.js';

/** The name of the file that marks an index saved with update state. */
export const UPDATE_FILE = 'update.json';

/** The files of the raw vector collections (one each; the update state and the indexes read them). */
export const ROWS = {
  chunks: 'chunks.rows',
  subChunks: 'subchunks.rows',
  entities: 'entities.rows',
  sentences: 'sentences.rows',
} as const;

export const extractionSchema = v.object({
  entities: v.array(extractedEntitySchema),
  relations: v.array(extractedRelationSchema(v.number())),
  issues: v.int({ min: 0 }),
});

export const keptFields = {
  documents: v.array(v.string()),
  titles: v.array(v.tuple(v.string(), v.string())),
  extractions: v.array(v.tuple(v.string(), extractionSchema)),
  summaries: v.array(v.tuple(v.string(), v.string())),
};

/** Which vector rows the update state reuses (file names, written once by the index). */
const vectorsField = v.object({
  chunks: v.optional(v.string()),
  subChunks: v.optional(v.string()),
  entities: v.optional(v.string()),
  sentences: v.optional(v.string()),
});

/** Format 3: the extractions' chunk ids and strings here, their records in `update.bin`. */
const updateSchemaV3 = v.object({
  documents: keptFields.documents,
  titles: keptFields.titles,
  summaries: keptFields.summaries,
  extractionIds: v.array(v.string()),
  strings: v.array(v.string()),
  vectors: vectorsField,
});

/** Format 3's typed arrays of the kept extractions, gzipped (see persist-extractions.ts). */
export const UPDATE_ARRAYS_FILE = 'update.bin';

const updateSchema = v.object({
  ...keptFields,
  /** Which vector rows the update state reuses (file names, written once by the index). */
  vectors: v.object({
    chunks: v.optional(v.string()),
    subChunks: v.optional(v.string()),
    entities: v.optional(v.string()),
    sentences: v.optional(v.string()),
  }),
});

/** The raw vector collections of `index`, each once: the update state's, or the channels' (the same arrays). */
export function vectorRowsOf(index: KetRagIndex): Partial<Record<keyof typeof ROWS, Float32Array[]>> {
  const { kept } = index;
  const rows: Partial<Record<keyof typeof ROWS, Float32Array[]>> = {};
  if (kept?.chunkVectors) rows.chunks = kept.chunkVectors;
  const subChunks = index.keyword?.subChunkVectors ?? kept?.subChunkVectors;
  if (subChunks) rows.subChunks = subChunks;
  if (kept?.entityVectors) rows.entities = kept.entityVectors;
  if (kept?.sentenceVectors) rows.sentences = kept.sentenceVectors;
  return rows;
}

/** The files of an update state: name and bytes. */
export type KeptFiles = [file: string, bytes: Uint8Array][];

/**
 * The files `index.kept` is saved as, referring to the vector rows (undefined without an update
 * state); not to those `collected` (kept as the store's vector collections, which an update reads).
 */
export function keptFiles(
  index: KetRagIndex,
  collected: ReadonlySet<string> = new Set(),
): KeptFiles | undefined {
  const { kept } = index;
  if (!kept) return undefined;
  const stored = storedExtractions([...kept.extractions]);
  const json = (value: unknown) => compress(new TextEncoder().encode(JSON.stringify(value)));
  return [
    [
      UPDATE_FILE,
      json({
        documents: kept.documents,
        titles: kept.titles,
        summaries: [...kept.summaries],
        extractionIds: stored.ids,
        strings: stored.strings,
        vectors: Object.fromEntries(keptRows(kept, collected).map((key) => [key, ROWS[key]])),
      }),
    ],
    // Gzipped: positions in a string table compress about twice.
    [UPDATE_ARRAYS_FILE, compress(encodeArrays(stored.arrays))],
  ];
}

/** The raw vector collections an update state keeps as rows (not `collected`), in {@link ROWS}' order. */
function keptRows(kept: KetRagUpdateState, collected: ReadonlySet<string>): (keyof typeof ROWS)[] {
  const has = {
    chunks: kept.chunkVectors,
    subChunks: kept.subChunkVectors,
    entities: kept.entityVectors,
    sentences: kept.sentenceVectors,
  };
  return (Object.keys(ROWS) as (keyof typeof ROWS)[]).filter((key) => has[key] && !collected.has(key));
}

/** The vector files the update state names (see {@link keptFiles}); undefined without one. */
export function keptRowFiles(
  index: KetRagIndex,
  collected: ReadonlySet<string> = new Set(),
): string[] | undefined {
  return index.kept && keptRows(index.kept, collected).map((key) => ROWS[key]);
}

/**
 * Write every raw vector collection once (but those `collected`, kept as the store's vector
 * collections), and the update state's `files` ({@link keptFiles}).
 */
export async function saveKept(
  out: IndexWriter,
  index: KetRagIndex,
  files: KeptFiles | undefined,
  collected: ReadonlySet<string> = new Set(),
): Promise<void> {
  const rows = vectorRowsOf(index);
  for (const key of Object.keys(ROWS) as (keyof typeof ROWS)[]) {
    const list = rows[key];
    if (list && !collected.has(key)) await out.vectorRows(ROWS[key], list);
  }
  for (const [file, data] of files ?? []) await out.bytes(file, data);
}

/** The raw vector rows of an index of version 2 or later, each decoded when first asked for, once. */
export interface RowReader {
  (key: keyof typeof ROWS): Float32Array[] | undefined;
  /** Whether the index holds the rows (without decoding them). */
  has(key: keyof typeof ROWS): boolean;
  /** The rows as sparse rows (each call decodes them again; for vectors only summed once). */
  sparse(key: keyof typeof ROWS): SparseVectorRows | undefined;
  /** Check every file of rows not decoded yet, without decoding it (a damaged index is refused at load). */
  checkRest(): void;
}

/** The raw vector rows an index holds, each decoded once, when first asked for (their bytes are read now). */
export async function rowReader(
  opened: OpenedIndex<unknown, unknown>,
  counts: Record<keyof typeof ROWS, number>,
): Promise<RowReader> {
  const dimensions = opened.providers.embedder.dimensions;
  const bytes: Partial<Record<keyof typeof ROWS, Uint8Array>> = {};
  for (const key of Object.keys(ROWS) as (keyof typeof ROWS)[]) {
    if (opened.names.includes(ROWS[key])) bytes[key] = await opened.bytes(ROWS[key]);
  }
  const decoded: Partial<Record<keyof typeof ROWS, Float32Array[]>> = {};
  const checked = new Set<keyof typeof ROWS>();
  const read = (key: keyof typeof ROWS) => {
    const b = bytes[key];
    if (b === undefined) return undefined;
    decoded[key] ??= decodeVectorRows(b, counts[key], dimensions, opened.locate(ROWS[key]));
    checked.add(key);
    return decoded[key];
  };
  const sparse = (key: keyof typeof ROWS) => {
    const b = bytes[key];
    if (b === undefined) return undefined;
    const rows = sparseVectorRows(b, counts[key], dimensions, opened.locate(ROWS[key]));
    checked.add(key);
    return rows;
  };
  const checkRest = () => {
    for (const key of Object.keys(bytes) as (keyof typeof ROWS)[]) {
      if (checked.has(key)) continue;
      checkVectorRowsArtifact(bytes[key]!, counts[key], dimensions, opened.locate(ROWS[key]));
      checked.add(key);
    }
  };
  return Object.assign(read, {
    has: (key: keyof typeof ROWS) => bytes[key] !== undefined,
    sparse,
    checkRest,
  });
}

/** What every saved update state holds, whatever the format: documents, titles, extractions, summaries. */
interface StoredKept {
  documents: string[];
  titles: KetRagUpdateState['titles'];
  extractions: [string, KetRagUpdateState['extractions'] extends Map<string, infer E> ? E : never][];
  summaries: [string, KetRagUpdateState['summaries'] extends Map<string, infer S> ? S : never][];
}

/**
 * Check a saved update state against its loaded `index` (inside `opened.check`): every kept
 * extraction names a chunk, and the kept documents hold every chunk's document.
 */
export function checkKeptCoverage(
  stored: Pick<StoredKept, 'documents' | 'extractions'>,
  index: KetRagIndex,
): void {
  const chunkIds = new Set(index.chunks.map((c) => c.id));
  stored.extractions.forEach(([id], i) => {
    if (!chunkIds.has(id)) shapeIssue(`extractions[${i}]`, `names ${JSON.stringify(id)}, not a chunk`);
  });
  const held = new Set(stored.documents);
  for (const c of index.chunks) {
    if (!held.has(c.docId)) shapeIssue('documents', `lacks ${JSON.stringify(c.docId)}, a chunk's document`);
  }
}

/** The update state of a saved one, before its vectors are added. */
export function keptStateOf(stored: StoredKept): KetRagUpdateState {
  return {
    documents: stored.documents,
    titles: stored.titles,
    extractions: new Map(stored.extractions),
    summaries: new Map(stored.summaries),
  };
}

/** The saved update state's bytes: `update.json`, and `update.bin` from format 3 on. */
interface KeptBytes {
  json: Uint8Array;
  arrays?: Uint8Array;
}

/** The update state's files of `opened`, or undefined when it was saved without one. */
async function keptBytes(opened: OpenedIndex<unknown, unknown>): Promise<KeptBytes | undefined> {
  if (!opened.names.includes(UPDATE_FILE)) return undefined;
  const json = await opened.bytes(UPDATE_FILE);
  return opened.manifest.formatVersion >= 3
    ? { json, arrays: await opened.bytes(UPDATE_ARRAYS_FILE) }
    : { json };
}

/** A gzipped JSON artifact of `bytes`, checked against `schema` (as `OpenedIndex.json` reads it). */
function jsonOf<T>(
  opened: OpenedIndex<unknown, unknown>,
  file: string,
  bytes: Uint8Array,
  schema: Schema<T>,
): T {
  const where = opened.locate(file);
  return validate(schema, parseJsonArtifact(decompressed(bytes, where), where), where);
}

/** The stored update state of `bytes` (format 3's in the shape of format 2's). */
function storedKeptOf(opened: OpenedIndex<unknown, unknown>, bytes: KeptBytes) {
  if (bytes.arrays === undefined) return jsonOf(opened, UPDATE_FILE, bytes.json, updateSchema);
  const { extractionIds, strings, ...rest } = jsonOf(opened, UPDATE_FILE, bytes.json, updateSchemaV3);
  const where = opened.locate(UPDATE_ARRAYS_FILE);
  const arrays = decodeArrays(decompressed(bytes.arrays, where), where);
  return { ...rest, extractions: extractionsOf(opened, UPDATE_ARRAYS_FILE, extractionIds, strings, arrays) };
}

/** The update state of `bytes` for the loaded `index`, checked against it; its vectors are the index's rows. */
function keptOf(
  opened: OpenedIndex<unknown, unknown>,
  bytes: KeptBytes,
  index: KetRagIndex,
  rows: RowReader,
): KetRagUpdateState {
  const stored = storedKeptOf(opened, bytes);
  opened.check(UPDATE_FILE, () => {
    checkKeptCoverage(stored, index);
    for (const key of Object.keys(ROWS) as (keyof typeof ROWS)[]) {
      const file = stored.vectors[key];
      if (file !== undefined && (file !== ROWS[key] || !rows.has(key))) {
        shapeIssue(`vectors.${key}`, `names ${JSON.stringify(file)}, not a vector file of this index`);
      }
    }
  });
  const kept = keptStateOf(stored);
  const { vectors } = stored;
  if (vectors.chunks) lazyField(kept, 'chunkVectors', () => rows('chunks')!);
  if (vectors.subChunks) lazyField(kept, 'subChunkVectors', () => rows('subChunks')!);
  if (vectors.entities) lazyField(kept, 'entityVectors', () => rows('entities')!);
  if (vectors.sentences) lazyField(kept, 'sentenceVectors', () => rows('sentences')!);
  return kept;
}

/**
 * Set `index.kept` to the update state of `opened`, when it was saved with one. With the files'
 * `digests` (format 4) the files are checked against them now and parsed when `index.kept` is first
 * read (an update, a save): only updates use them, and they are the largest JSON of an index. A
 * file that does not match its digest is refused now, as every damaged file; without digests (formats
 * 1 to 3) the state is parsed and checked now. Its vectors are the index's rows (read through
 * `rows`, which decodes each file once).
 */
export async function loadKept(
  opened: OpenedIndex<unknown, unknown>,
  index: KetRagIndex,
  rows: RowReader,
  digests?: Readonly<Record<string, string>>,
): Promise<void> {
  const bytes = await keptBytes(opened);
  if (bytes === undefined) return;
  const files: [string, Uint8Array | undefined][] = [
    [UPDATE_FILE, bytes.json],
    [UPDATE_ARRAYS_FILE, bytes.arrays],
  ];
  if (digests === undefined || digests[UPDATE_FILE] === undefined) {
    index.kept = keptOf(opened, bytes, index, rows);
    return;
  }
  for (const [file, data] of files) {
    if (data !== undefined && sha256Hex(data) !== digests[file]) {
      throw opened.error(file, 'does not match its SHA-256 recorded in units.json');
    }
  }
  lazyField(index, 'kept', () => keptOf(opened, bytes, index, rows));
}

/** The SHA-256 of each file {@link saveKept} writes, for `units.json` (undefined without an update state). */
export function keptDigests(files: KeptFiles | undefined): Record<string, string> | undefined {
  return files && Object.fromEntries(files.map(([file, data]) => [file, sha256Hex(data)]));
}
