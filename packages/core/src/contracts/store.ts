/**
 * The storage contract of an index (issue: indexes in PostgreSQL). An index is one manifest plus a
 * set of named artifacts (bytes: JSON documents, float32 rows, a saved vector index, a tree), kept
 * by an {@link IndexStore}. A store writes a whole new version at once and readers see either the
 * old version or the new one, never a mix. The embedded default is a directory (one file per
 * artifact, `manifest.json` last, renamed into place: `directoryStore`); `memoryStore` keeps them
 * in the process and `@grag/postgres` in tables. `runIndexStoreSpec` (`@grag/core/test/vitest`)
 * checks an implementation against this contract.
 */
import type { Metric, StoredVectors } from './vector.js';

/**
 * How the values of an index's vector rows are written (see {@link IndexStore.vectorPrecision}):
 * `'float32'`, lossless, or `'float16'` (IEEE 754 half precision, rounded to nearest: half the bytes
 * of the values, each within a relative 2^-11 of the float32 one).
 */
export type VectorPrecision = 'float32' | 'float16';

/** Every {@link VectorPrecision}. */
export const VECTOR_PRECISIONS: readonly VectorPrecision[] = ['float32', 'float16'];

/** Whether `value` is a {@link VectorPrecision}. */
export function isVectorPrecision(value: unknown): value is VectorPrecision {
  return (VECTOR_PRECISIONS as readonly unknown[]).includes(value);
}

/** What a store holds at its location before a write (see {@link IndexStore.target}). */
export type StoreTarget = 'absent' | 'empty' | 'index';

/**
 * Where one index lives. Methods never talk to a store directly: `writeMethodIndex` and
 * `openMethodIndex` do, so every method saves and loads through any store.
 */
export interface IndexStore {
  /** The kind of store, e.g. `'directory'`, `'memory'` or `'postgres'`. */
  readonly kind: string;
  /**
   * Where the index lives, for messages: a directory path, or a database URL without its password
   * followed by `#<index name>`.
   */
  readonly location: string;
  /**
   * What the location holds: nothing (`'absent'`), an empty place (`'empty'`) or a grag index
   * (`'index'`); a store without the distinction says `'absent'` before its first version. Anything else (a user's file, a non-empty directory that is not an index, a schema
   * that is not grag's) throws `OutputError` naming the location and what to do: a store never
   * replaces what grag did not write.
   */
  target(): Promise<StoreTarget>;
  /**
   * Write a new version: `write` puts every artifact, then the manifest is stored and the version
   * becomes the one readers see, in one step. If `write` throws (or the process dies), nothing of
   * the new version is visible and the old one, if any, stays served. Two writers of one index
   * never interleave (a directory: distinct temporary directories and an atomic rename; Postgres:
   * an advisory lock per index and one transaction).
   */
  writeVersion(
    manifest: Omit<IndexManifest, 'manifestVersion' | 'createdAt'> & Partial<IndexManifest>,
    write: (out: ArtifactWriter) => Promise<void>,
  ): Promise<void>;
  /**
   * Open the current version for reading. Throws `IndexFormatError` (naming the location and
   * saying to build the index) when there is none. The returned snapshot keeps reading that
   * version even if a writer stores a newer one meanwhile (the directory store reads files in
   * place: it keeps the version only as long as no writer replaces the directory).
   */
  open(): Promise<StoredIndex>;
  /**
   * Take the store's writer lock, for a read-modify-write (open or load, change, write): until it
   * is released, writers of the same location through other stores or processes wait (up to
   * `timeoutMs`, then an `OutputError` naming the holder), and so do other `lock()` calls on this
   * store (callers in one process take turns), while `writeVersion` through this store does not.
   * `writeVersion` takes the lock itself for the length of one write when this store does not
   * hold it. A lock whose holder died is taken over. The directory store has one (a lock file),
   * and so has `@grag/postgres` (a session-level advisory lock); a store without it (the memory
   * store) serialises nothing beyond its single writes. See `withStoreLock`.
   */
  lock?(options?: StoreLockOptions): Promise<StoreLock>;
  /**
   * How the vector rows of the versions written through this store are encoded (`IndexWriter.vectorRows`:
   * the embeddings a method keeps and restores its vector indexes from); readers need not know, every
   * artifact says how it is encoded. The manifest of a version written with `'float16'` records it
   * (`IndexManifest.vectorPrecision`). @default the precision of the version a write replaces
   * (so an update keeps it), `'float32'` for a new index
   */
  readonly vectorPrecision?: VectorPrecision;
  /** Release connections or handles (a no-op for a directory). */
  close?(): Promise<void>;
}

/** How {@link IndexStore.lock} waits for another writer. */
export interface StoreLockOptions {
  /**
   * How long to wait for another writer before giving up with an `OutputError` that names it;
   * `0` refuses at once. @default the store's (60 s for a directory)
   */
  timeoutMs?: number;
  /** Called once when the lock is held by another writer and the call starts waiting (`holder` names it: `pid 123, since 14:02:07`). */
  onWait?: (holder: string) => void;
  /** Stops the wait with an `AbortError`. */
  signal?: AbortSignal;
}

/** A writer lock taken with {@link IndexStore.lock}. */
export interface StoreLock {
  /** Release the lock (again: nothing). */
  release(): Promise<void>;
}

/** Puts the artifacts of one version being written. */
export interface ArtifactWriter {
  /**
   * Store `data` under `name` (a file name such as `'chunks.json'`: no slashes, not
   * `manifest.json`, else `InvalidArgumentError`; see `checkArtifactName`). The bytes are taken
   * when the call resolves: changing `data` afterwards changes nothing stored. A name written twice
   * keeps its last bytes. Using the writer after its version ended throws `StateError`.
   */
  write(name: string, data: Uint8Array): Promise<void>;
  /**
   * A private scratch directory for writers that can only write files (a vector index's
   * `save(path)`); files left in it are not stored unless passed to {@link write}. Removed when
   * the version is stored or abandoned.
   */
  scratch(): Promise<string>;
  /**
   * Present only on stores that keep vector collections searchable in place (`@grag/postgres`
   * with `vectors: true`): store `vectors` (id = position) as collection `name` of this version,
   * searched exactly (a scan) or through an HNSW index. Stored with the version, deleted with it.
   */
  vectorCollection?(
    name: string,
    vectors: readonly ArrayLike<number>[],
    options: VectorCollectionOptions,
  ): Promise<void>;
}

/** How a vector collection is searched (see {@link ArtifactWriter.vectorCollection}). */
export interface VectorCollectionOptions {
  dimensions: number;
  metric: Metric;
  /** Search by scanning every vector (the results of `FlatIndex`), else through an HNSW index. */
  exact: boolean;
}

/** One version of an index, opened for reading. */
export interface StoredIndex {
  /** The version's manifest (checked as a manifest, not yet against a method). */
  readonly manifest: IndexManifest;
  /** Names of the version's artifacts (the manifest excluded), sorted. */
  readonly names: readonly string[];
  /** Where artifact `name` lives, for messages (a file path, or `<location>/<name>`). */
  locate(name: string): string;
  /**
   * The bytes of artifact `name` (a copy: changing them changes nothing stored; a `Buffer` is
   * fine); `IndexFormatError` naming it when it is missing or unreadable.
   */
  read(name: string): Promise<Uint8Array>;
  /** A private scratch directory (see {@link ArtifactWriter.scratch}), removed by {@link release}. */
  scratch(): Promise<string>;
  /** Release what the snapshot holds (scratch files, a pinned version). */
  release(): Promise<void>;
  /** Names of the version's vector collections (absent: the store keeps none), sorted. */
  readonly collections?: readonly string[];
  /**
   * Open collection `name` of this version, searched where it is stored; it stays usable after
   * {@link release} as long as the store is open and keeps the version. `IndexFormatError` naming
   * it when it is missing.
   */
  vectorCollection?(name: string): Promise<StoredVectors>;
}

/** What an index directory says about itself. */
export interface IndexManifest {
  /** Layout version of this manifest. */
  manifestVersion: number;
  /** Method that wrote the index, e.g. `'naive-dense'`. */
  method: string;
  /** Version of the method's on-disk format. */
  formatVersion: number;
  /** ISO time of writing. */
  createdAt: string;
  /** The method options the index was built with. */
  params: Record<string, unknown>;
  /** Fingerprints of the providers used (`provider:model[:dims]`), so a mismatched load can be detected. */
  providers: Record<string, string>;
  /** Counts and sizes worth showing (documents, chunks, nodes, bytes). */
  stats?: Record<string, unknown>;
  /**
   * The task contracts the build called, by task name, each with the specification version the
   * method asked for and the suite implemented (`MethodCapabilities.tasks.build`); `{}` when the
   * method calls none. Absent in manifests written before grag recorded it, and by methods that
   * declare no tasks.
   */
  tasks?: Record<string, number>;
  /**
   * `'float16'` when the vector rows were written at half precision (see
   * {@link IndexStore.vectorPrecision}), so that a rewrite (`grag update`) keeps it; absent for float32.
   */
  vectorPrecision?: VectorPrecision;
  /**
   * An index directory's files besides the manifest (the version's artifacts), written by the
   * directory store, so that anything else in the directory is known not to be the index's.
   */
  files?: string[];
}

/** The manifest layout fields a store adds to what a writer gives: version and time of writing. */
export type ManifestInput = Omit<IndexManifest, 'manifestVersion' | 'createdAt'> & Partial<IndexManifest>;
