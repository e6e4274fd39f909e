/**
 * What the update tests share: the corpora (A, B, C of generated records), build options, queries,
 * a context that records every model call, and the comparisons with a fresh build.
 */
import type { BuildContext, Retrieval, TaskSuite } from '@grag/core';
import { createBuildContext } from '@grag/core/kit';
import { corpusChange, createScriptedEmbedder, ENTITY_QUERIES, entityDocuments } from '@grag/core/test';
import { expectSameRetrievals as expectSameItems } from '@grag/core/test/vitest';
import { createOfflineTasks } from '@grag/offline';
import { createKetRag, type KetRagIndex, type KetRagVariant } from '../src/index.js';

/** A: 10 of 15 generated records, built on; B: the other 5, added; C: the ids removed; the corpus after. */
export const { A, B, C, AplusBminusC } = corpusChange(entityDocuments(15), 10, ['d2', 'd5', 'd7']);
/** Build options: small chunks, so 10 records make 30 chunks. */
export const build = { chunkSize: 24, overlap: 4, subChunkSize: 12 };
/** Fixed queries the retrievals are compared on. */
export const QUERIES = [
  ...ENTITY_QUERIES,
  'Who worked for the Orsa Marine Institute?',
  'Tomas Brandt visited Orsa',
  'Ilse Varga 1973',
];

/** A context whose embedder records every text it embeds and whose tasks record what they are sent. */
export function counted() {
  const embedder = createScriptedEmbedder({ dimensions: 48 });
  const base = createOfflineTasks();
  const extracted: string[] = [];
  const summarized: string[][] = [];
  const tasks = new Proxy(base, {
    get(target, key, receiver) {
      const value = Reflect.get(target, key, receiver);
      if (key === 'extractGraph') {
        return (text: string, ...rest: unknown[]) => {
          extracted.push(text);
          return (value as (...args: unknown[]) => unknown).call(target, text, ...rest);
        };
      }
      if (key === 'summarize') {
        return (descriptions: string[], ...rest: unknown[]) => {
          summarized.push([...descriptions]);
          return (value as (...args: unknown[]) => unknown).call(target, descriptions, ...rest);
        };
      }
      return value;
    },
  }) as TaskSuite;
  const ctx: BuildContext = createBuildContext({ embedder, tasks });
  return {
    ctx,
    extracted,
    summarized,
    get embedded() {
      return embedder.calls.flatMap((c) => c.values);
    },
  };
}

/** The method building `variant`. */
/** The variant with the offline preset (the settings these tests' counts were taken with). */
export const methodOf = (variant: KetRagVariant) =>
  createKetRag({ variant, defaults: { preset: 'offline' } });

/** The retrievals of {@link QUERIES} from `index` (400-token budget). */
export async function results(variant: KetRagVariant, index: KetRagIndex): Promise<Retrieval[]> {
  const method = methodOf(variant);
  return Promise.all(QUERIES.map((q) => method.retrieve(index, q, { budgetTokens: 400 })));
}

/** Expect the same items (ids, kinds, sources, scores within 1e-6) and contexts. */
export function expectSameRetrievals(got: Retrieval[], want: Retrieval[]): void {
  expectSameItems(got, want, { scoreTolerance: 1e-6 });
}

/** The parts of an index a fresh build must reproduce exactly (everything but search structures). */
export function contentOf(index: KetRagIndex) {
  return {
    chunks: index.chunks,
    chunkTexts: index.chunkTexts,
    subChunks: index.subChunks,
    core: index.core,
    knn: index.knn,
    entities: index.skeleton?.entities,
    relationships: index.skeleton?.relationships,
    aliases: index.skeleton?.aliases,
    titleEntities: index.skeleton?.titleEntities,
    keywords: index.keyword?.bipartite.keywords,
    keywordUnits: index.keyword?.bipartite.keywordUnits,
    stats: index.stats,
  };
}
