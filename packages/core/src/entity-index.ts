/**
 * The build skeleton of an index on core's {@link EntityGraph} (bridge-rag, E2GraphRAG): the corpus
 * check, the documents' titles, the `entities` and `graph` stages, and what an update keeps.
 */

import { type ChunkingSettings, chunkBySettings } from './chunking/units.js';
import { InvalidArgumentError } from './contracts/errors.js';
import type { Embedder } from './contracts/models.js';
import type { Tokenizer } from './contracts/tokenizer.js';
import type { Chunk, Document } from './contracts/types.js';
import type { SearchableVectors } from './contracts/vector.js';
import { type ChunkEntityGraph, chunkEntityGraph } from './graph/chunk-linking.js';
import type { EntityExtractor } from './graph/entity-extractor.js';
import type { BuildRuntime, StageOptions } from './runtime.js';
import type { IndexChangePlan, UpdatableIndex } from './update.js';
import { keptWithVectorRows } from './vector-collections.js';

/** What a build of an entity index keeps for its updates (saved with the index). */
export interface EntityIndexKept {
  /** Ids of the indexed documents in build order, blank ones included. */
  documents: string[];
  /** Document id → its title, for the documents that have one (entity linking reads them). */
  titles: Record<string, string>;
  /** Per chunk, per sentence: the entities as the extractor returned them. */
  extracted: string[][][];
  /**
   * Per embedded item (chunk or tree node): its embedding, as the embedder returned it. Absent when
   * the index's vectors are a collection of its store (read them with `StoredVectors.all`).
   */
  embeddings?: Float32Array[];
}

/**
 * What `prepareUpdate` needs of an entity index (bridge-rag's, E2GraphRAG's): its kept state with
 * the embeddings read from its stored vector collection when they are kept there
 * (`keptWithVectorRows`), its documents, and the embedder it was built with; `refusal` as
 * {@link UpdatableIndex.refusal}.
 */
export function entityIndexUpdatable(
  index: { vectors: SearchableVectors; kept?: EntityIndexKept; providers: { embedder: Embedder } },
  refusal: UpdatableIndex<EntityIndexKept>['refusal'],
): UpdatableIndex<EntityIndexKept & { embeddings: Float32Array[] }> {
  return {
    kept: () => keptWithVectorRows(index.vectors, index.kept, 'embeddings'),
    refusal,
    documents: (k) => k.documents,
    embedder: index.providers.embedder,
  };
}

/**
 * A build's refusal of an empty corpus.
 * @throws InvalidArgumentError (`docs`) naming `name`'s build when `docs` is empty.
 */
export function requireDocuments(name: string, docs: readonly Document[]): void {
  if (docs.length === 0) {
    throw new InvalidArgumentError('docs', `${name} build: the corpus is empty; pass at least one document.`);
  }
}

/**
 * The documents of `docs` whose text is not blank.
 * @throws InvalidArgumentError (`docs`) naming `name`'s build when the corpus is empty or every
 * document is blank.
 */
export function nonBlankDocuments(name: string, docs: readonly Document[]): Document[] {
  requireDocuments(name, docs);
  const kept = docs.filter((d) => d.text.trim() !== '');
  if (kept.length === 0) {
    throw new InvalidArgumentError('docs', `${name} build: every document is blank; pass some text.`);
  }
  return kept;
}

/**
 * The chunks of the non-blank documents of `docs` ({@link nonBlankDocuments}), chunked by a method's
 * chunking `settings` with `tokenizer` ({@link chunkBySettings}), and how many documents were blank.
 * @throws InvalidArgumentError as {@link nonBlankDocuments}.
 */
export function nonBlankChunks(
  name: string,
  docs: readonly Document[],
  settings: Readonly<ChunkingSettings>,
  tokenizer: Tokenizer,
): { chunks: Chunk[]; skipped: number } {
  const kept = nonBlankDocuments(name, docs);
  return { chunks: chunkBySettings(kept, settings, tokenizer), skipped: docs.length - kept.length };
}

/** Document id → title, for the documents that have one. */
export function titleRecord(docs: readonly Document[]): Record<string, string> {
  const titles: Record<string, string> = {};
  for (const d of docs) if (typeof d.title === 'string') titles[d.id] = d.title;
  return titles;
}

/**
 * The titles of an index after a change ({@link titleRecord} of the changed corpus): `titles` of
 * the documents the change keeps (none of `plan.drop`, so a replaced document loses its old title),
 * then those of the added documents.
 */
export function changedTitleRecord(
  titles: Readonly<Record<string, string>>,
  plan: Pick<IndexChangePlan, 'add' | 'drop'>,
): Record<string, string> {
  const kept = Object.entries(titles).filter(([id]) => !plan.drop.has(id));
  return { ...Object.fromEntries(kept), ...titleRecord(plan.add) };
}

/**
 * The `entities` stage: the entities of each chunk's `text`, by sentence, one chunk at a time (the
 * extractor is CPU-bound), each labelled by its `id` in progress and errors.
 */
export function entitiesStage(
  rt: BuildRuntime,
  extractor: EntityExtractor,
  chunks: readonly { id: string; text: string }[],
  options?: StageOptions,
): Promise<string[][][]> {
  return rt.stage(
    'entities',
    () =>
      rt.map(chunks, (chunk) => extractor.extract(chunk.text), {
        label: (chunk) => chunk.id,
        unit: 'chunks',
        concurrency: 1,
        issues: () => undefined,
      }),
    options,
  );
}

/**
 * The `graph` stage of a build or an update: the chunks' extracted entities linked into one entity
 * graph (across the corpus with `entityLinking`), titled by `titles` (document id → title); no model
 * call.
 */
export function entityGraphStage(
  rt: BuildRuntime,
  extracted: readonly (readonly (readonly string[])[])[],
  chunks: readonly { docId: string; text: string }[],
  titles: ReadonlyMap<string, string | undefined>,
  entityLinking: boolean,
): Promise<ChunkEntityGraph> {
  return rt.stage('graph', () => chunkEntityGraph({ extracted, chunks, titles, entityLinking }), {
    checkpoint: false,
  });
}
