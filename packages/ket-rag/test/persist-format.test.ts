/**
 * The index format (version 5): each vector collection stored once, graphs as typed arrays, the
 * sub-chunks' token counts, HNSW indexes as their graphs alone, the entity vocabulary stored, and a
 * saved-then-loaded index retrieving exactly what the index in memory does (same items, same
 * scores, same context), for every variant and for exact, approximate and HNSW vector factories.
 * Indexes of versions 1 to 4 still load (retrieving exactly what the code of their day
 * retrieved from them, recorded); other versions are refused with one line saying to rebuild.
 */
import { cp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  type BuildContext,
  IndexFormatError,
  type Retrieval,
  type VectorIndex,
  type VectorIndexFactory,
} from '@grag/core';
import { createBuildContext, decompressed, flatIndexFactory } from '@grag/core/kit';
import { createScriptedEmbedder, retrieveEach } from '@grag/core/test';
import {
  checkIndexFormats,
  EXACT_AND_SAVED_FACTORIES,
  expectIdenticalRetrievals,
  temporaryRoot,
} from '@grag/core/test/vitest';
import { HnswIndex, hnswIndexFactory } from '@grag/hnsw';
import { createOfflineTasks } from '@grag/offline';
import { describe, expect, it } from 'vitest';
import { createKetRag, KET_RAG_VARIANTS, type KetRagIndex } from '../src/index.js';
import { CORPUS } from './corpus.js';

const QUERIES = [
  'Who founded the Kessler Shipyard?',
  'Which island is across the Veskan Strait from Varnholm?',
  'Who directed the Orsa Marine Institute?',
  'Mira Kessler and Tomas Brandt',
  'ferries',
];
// The offline preset: the v1 fixture was built with the offline defaults of its day.
const BUILD = { chunking: 'document', subChunkSize: 16, preset: 'offline' } as const;
const FIXTURES = join(dirname(fileURLToPath(import.meta.url)), 'fixtures');
const V1_FIXTURE = join(FIXTURES, 'v1-index');
/**
 * What the v1 fixture retrieves, and retrieves after the update below, recorded at 23ece0a, where a
 * fresh build retrieved the same: the fixture holds the extraction of its day, which a fresh build
 * no longer matches since the offline extractor closes descriptions with full stops.
 */
const V1_RETRIEVALS = join(FIXTURES, 'v1-retrievals.json');
const V1_UPDATE_RETRIEVALS = join(FIXTURES, 'v1-update-retrievals.json');
/** Saved by the code of format 2 (same corpus, context and build options), with what it retrieved. */
const V2_FIXTURE = join(FIXTURES, 'v2-index');
const V2_RETRIEVALS = join(FIXTURES, 'v2-retrievals.json');
/** Saved by the code of format 3 with `hnswIndexFactory()` (same corpus and build options), with what it retrieved. */
const V3_HNSW_FIXTURE = join(FIXTURES, 'v3-hnsw-index');
const V3_HNSW_RETRIEVALS = join(FIXTURES, 'v3-hnsw-retrievals.json');
/** Saved by the code of format 4 with `hnswIndexFactory()` (same corpus and build options), with what it retrieved. */
const V4_HNSW_FIXTURE = join(FIXTURES, 'v4-hnsw-index');
const V4_HNSW_RETRIEVALS = join(FIXTURES, 'v4-hnsw-retrievals.json');

/** What a fixture recorded of each query's retrieval. */
interface Recorded {
  query: string;
  context: string;
  tokens: number;
  items: { id: string; kind: string; score: number }[];
}

/** `got` is exactly what was recorded: the same context, token count, items and scores. */
function expectRecorded(got: Retrieval[], recorded: Recorded[]): void {
  expect(recorded.map((r) => r.query)).toEqual(QUERIES);
  got.forEach((r, i) => {
    expect(r.context).toBe(recorded[i]!.context);
    expect(r.tokens).toBe(recorded[i]!.tokens);
    expect(r.items.map(({ id, kind, score }) => ({ id, kind, score }))).toEqual(recorded[i]!.items);
  });
}

/** The vector indexes of `index` by name (the file names without their ending). */
function vectorIndexes(index: KetRagIndex): Record<string, VectorIndex> {
  const found: Record<string, VectorIndex | undefined> = {
    chunks: index.chunkVectors as VectorIndex | undefined,
    entities: index.skeleton?.entityVectors as VectorIndex | undefined,
    keywords: index.keyword?.keywordVectors,
    subchunks: index.entry?.vectors as VectorIndex | undefined,
  };
  return Object.fromEntries(Object.entries(found).filter(([, v]) => v !== undefined)) as Record<
    string,
    VectorIndex
  >;
}

/** hnswlib's bytes of every HNSW index of `index` (as `HnswIndex.save` writes them), by name. */
async function hnswBytes(index: KetRagIndex, dir: string): Promise<Record<string, Buffer>> {
  const out: Record<string, Buffer> = {};
  for (const [name, vectors] of Object.entries(vectorIndexes(index))) {
    expect(vectors, name).toBeInstanceOf(HnswIndex);
    const path = join(dir, `${name}.bytes`);
    await vectors.save(path);
    out[name] = await readFile(path);
  }
  return out;
}

const context = (vectorIndex: VectorIndexFactory = flatIndexFactory): BuildContext =>
  createBuildContext({
    embedder: createScriptedEmbedder({ dimensions: 16 }),
    tasks: createOfflineTasks(),
    vectorIndex,
  });

const retrievals = (method: ReturnType<typeof createKetRag>, index: KetRagIndex) =>
  retrieveEach(method, index, QUERIES, [{ budgetTokens: 400 }]);

const root = temporaryRoot('ket-rag-format-');

describe('ket-rag index format 5', () => {
  for (const variant of KET_RAG_VARIANTS) {
    it(`${variant}: a saved and loaded index retrieves exactly what the index in memory does`, async () => {
      const method = createKetRag({ variant });
      for (const [kind, factory] of EXACT_AND_SAVED_FACTORIES) {
        const dir = join(root(), `${variant}-${kind}`);
        const { want } = await checkIndexFormats({
          dir,
          build: () => method.build(CORPUS, context(factory), BUILD),
          method,
          context: () => context(factory),
          retrievals: (index) => retrievals(method, index),
        });
        expect(want.every((r) => r.items.length > 0)).toBe(true);
        const files = await readdir(dir);
        // No vector collection twice: raw vectors once as rows, no float32 copies; an exact index
        // is rebuilt from them, an approximate one saved beside them.
        expect(files.filter((f) => f.endsWith('.f32'))).toEqual([]);
        const indexes = files.filter((f) => f.endsWith('.vec'));
        if (kind === 'exact') expect(indexes).toEqual([]);
        else expect(indexes.length).toBeGreaterThan(0);
      }
    });
  }

  it('the update state refers to the vector rows instead of copying them', async () => {
    const method = createKetRag();
    const dir = join(root(), 'refers');
    await method.save(await method.build(CORPUS, context(), BUILD), dir);
    const bytes = new Uint8Array(await readFile(join(dir, 'update.json')));
    const update = JSON.parse(new TextDecoder().decode(decompressed(bytes, 'update.json')));
    expect(update.vectors).toEqual({
      chunks: 'chunks.rows',
      subChunks: 'subchunks.rows',
      entities: 'entities.rows',
      sentences: 'sentences.rows',
    });
    const files = await readdir(dir);
    expect(files.sort()).toEqual(
      [
        'chunks.rows',
        'counts.bin',
        'entities.bm25',
        'entities.rows',
        'keywords.bin',
        'keywords.json',
        'knn.bin',
        'manifest.json',
        'sentences.rows',
        'skeleton-text.bin',
        'skeleton.bin',
        'skeleton.json',
        'subchunks.bm25',
        'subchunks.rows',
        'units.json',
        'update.bin',
        'update.json',
        'vocabulary.bin',
      ].sort(),
    );
    const manifest = JSON.parse(await readFile(join(dir, 'manifest.json'), 'utf8'));
    expect(manifest.formatVersion).toBe(5);
    expect((await method.load(dir, context())).options.semanticKnn).toBe('index');
  });

  it("the skeleton's strings are one text in skeleton-text.bin, or skeleton.json when one would not read back the same", async () => {
    const method = createKetRag();
    const built = await method.build(CORPUS, context(), BUILD);
    const dir = join(root(), 'skeleton-text');
    await method.save(built, dir);
    expect(await readdir(dir)).toContain('skeleton-text.bin');
    const loaded = await method.load(dir, context());
    expect(loaded.skeleton!.entities).toEqual(built.skeleton!.entities);
    expect(loaded.skeleton!.relationships).toEqual(built.skeleton!.relationships);
    // A lone surrogate has no UTF-8: the strings stay JSON.
    loaded.skeleton!.entities[0]!.description += '\ud800';
    const odd = join(root(), 'skeleton-json');
    await method.save(loaded, odd);
    expect(await readdir(odd)).not.toContain('skeleton-text.bin');
    const back = await method.load(odd, context());
    expect(back.skeleton!.entities).toEqual(loaded.skeleton!.entities);
    expect(back.skeleton!.entities[0]!.description.endsWith('\ud800')).toBe(true);
  });

  it('the update state is checked against its SHA-256 in units.json at load and parsed when first read', async () => {
    const method = createKetRag();
    const built = await method.build(CORPUS, context(), BUILD);
    const dir = join(root(), 'kept-digests');
    await method.save(built, dir);
    const units = JSON.parse(
      new TextDecoder().decode(decompressed(new Uint8Array(await readFile(join(dir, 'units.json'))), 'u')),
    );
    expect(Object.keys(units.kept).sort()).toEqual(['update.bin', 'update.json']);
    const loaded = await method.load(dir, context());
    expect(Object.getOwnPropertyDescriptor(loaded, 'kept')?.get).toBeDefined();
    expect(loaded.kept!.extractions).toEqual(built.kept!.extractions);
    expect(loaded.kept!.summaries).toEqual(built.kept!.summaries);
    expect(loaded.kept!.documents).toEqual(built.kept!.documents);
    expect(loaded.kept!.sentenceVectors).toEqual(built.kept!.sentenceVectors);
    // Another update.bin (one byte changed) is refused at load, naming it.
    const damaged = join(root(), 'kept-damaged');
    await cp(dir, damaged, { recursive: true });
    const bin = new Uint8Array(await readFile(join(damaged, 'update.bin')));
    bin[bin.length - 1]! ^= 1;
    await writeFile(join(damaged, 'update.bin'), bin);
    const error = await method.load(damaged, context()).catch((e: unknown) => e);
    expect(IndexFormatError.isInstance(error), String(error)).toBe(true);
    expect((error as Error).message).toContain(join(damaged, 'update.bin'));
    expect((error as Error).message).toMatch(/SHA-256 recorded in units\.json.*rebuild the index\.$/);
  });

  for (const variant of KET_RAG_VARIANTS) {
    it(`${variant}: with HNSW, each vector index is stored as its graph alone and restored to the same hnswlib bytes, retrieving exactly the same`, async () => {
      const method = createKetRag({ variant });
      const hnsw = () => context(hnswIndexFactory());
      const dir = join(root(), `${variant}-hnsw`);
      const { index, loaded } = await checkIndexFormats({
        dir,
        build: () => method.build(CORPUS, hnsw(), BUILD),
        method,
        context: hnsw,
        retrievals: (i) => retrievals(method, i),
      });
      const files = await readdir(dir);
      expect(files.filter((f) => f.endsWith('.vec'))).toEqual([]);
      const names = Object.keys(vectorIndexes(index)).sort();
      expect(names.length).toBeGreaterThan(0);
      expect(files.filter((f) => f.endsWith('.hnsw')).sort()).toEqual(names.map((n) => `${n}.hnsw`));
      // The keyword vectors (sentence-vector means) are stored only for a keyword graph, and only
      // when computing them at load would take many additions per component (here: computed).
      expect(files).not.toContain('keywords.rows');
      const scratch = join(root(), `${variant}-hnsw-bytes`);
      await cp(dir, scratch, { recursive: true });
      const built = await hnswBytes(index, scratch);
      expect(await hnswBytes(loaded, scratch)).toEqual(built);
      // Each graph is the index without its vectors (16 float32 each here).
      for (const name of names) {
        const cut = built[name]!.length - vectorIndexes(index)[name]!.size * 16 * 4;
        expect((await stat(join(dir, `${name}.hnsw`))).size, name).toBeLessThan(cut + 256);
      }
      // Saved again, the same files.
      const again = join(root(), `${variant}-hnsw-again`);
      await method.save(loaded, again);
      for (const file of files.filter((f) => f !== 'manifest.json')) {
        expect(await readFile(join(again, file)), file).toEqual(await readFile(join(dir, file)));
      }
    });
  }

  /**
   * Loads the format-`version` HNSW `fixture`, checks it retrieves what the code of that format
   * recorded in `recordedFile`, and saves it again: the copy saved is of version 5.
   */
  async function resavedHnswFixture(version: number, fixture: string, recordedFile: string) {
    const method = createKetRag();
    const hnsw = () => context(hnswIndexFactory());
    const recorded = JSON.parse(await readFile(recordedFile, 'utf8')) as Recorded[];
    const manifest = JSON.parse(await readFile(join(fixture, 'manifest.json'), 'utf8'));
    expect([manifest.formatVersion, manifest.providers.vectorIndex]).toEqual([version, 'hnsw']);
    const loaded = await method.load(fixture, hnsw());
    const got = await retrievals(method, loaded);
    expectRecorded(got, recorded);
    const again = join(root(), `v${version}-hnsw-again`);
    await method.save(loaded, again);
    expect(JSON.parse(await readFile(join(again, 'manifest.json'), 'utf8')).formatVersion).toBe(5);
    return { method, hnsw, loaded, got, again, files: await readdir(again) };
  }

  it('loads a format-3 index built with HNSW and retrieves exactly what the code of format 3 retrieved from it; saved again, it is version 5, its indexes graphs of the same hnswlib bytes', async () => {
    const { method, hnsw, loaded, got, again, files } = await resavedHnswFixture(
      3,
      V3_HNSW_FIXTURE,
      V3_HNSW_RETRIEVALS,
    );
    expect(files.filter((f) => f.endsWith('.hnsw')).sort()).toEqual([
      'entities.hnsw',
      'keywords.hnsw',
      'subchunks.hnsw',
    ]);
    expect(files.filter((f) => f.endsWith('.vec'))).toEqual([]);
    const reloaded = await method.load(again, hnsw());
    expectIdenticalRetrievals(await retrievals(method, reloaded), got);
    const scratch = join(root(), 'v3-hnsw-bytes');
    await cp(again, scratch, { recursive: true });
    expect(await hnswBytes(reloaded, scratch)).toEqual(await hnswBytes(loaded, scratch));
  });

  it('loads a format-4 index built with HNSW and retrieves exactly what the code of format 4 retrieved from it; saved again, it is version 5 with its vocabulary stored, and retrieves the same', async () => {
    expect(await readdir(V4_HNSW_FIXTURE)).not.toContain('vocabulary.bin');
    const { method, hnsw, loaded, got, again, files } = await resavedHnswFixture(
      4,
      V4_HNSW_FIXTURE,
      V4_HNSW_RETRIEVALS,
    );
    expect(files).toContain('vocabulary.bin');
    // Saved before `semanticKnn`: its KNN graph was found by brute force, and updates keep that.
    expect(loaded.options.semanticKnn).toBe('exact');
    // Every other file as format 4 wrote it.
    for (const file of files.filter((f) => f !== 'manifest.json' && f !== 'vocabulary.bin')) {
      expect(await readFile(join(again, file)), file).toEqual(await readFile(join(V4_HNSW_FIXTURE, file)));
    }
    const reloaded = await method.load(again, hnsw());
    expect(reloaded.skeleton!.vocabulary!.entries()).toEqual(loaded.skeleton!.vocabulary!.entries());
    expectIdenticalRetrievals(await retrievals(method, reloaded), got);
  });

  it('the entity vocabulary is stored (vocabulary.bin) and read back to the same names; without the file it is built at load', async () => {
    const method = createKetRag();
    const built = await method.build(CORPUS, context(), BUILD);
    const dir = join(root(), 'vocabulary');
    await method.save(built, dir);
    const loaded = await method.load(dir, context());
    const names = built.skeleton!.vocabulary!.entries();
    expect(names.length).toBeGreaterThan(0);
    expect(loaded.skeleton!.vocabulary!.entries()).toEqual(names);
    expect(loaded.skeleton!.vocabulary!.size).toBe(built.skeleton!.vocabulary!.size);
    for (const query of QUERIES) {
      expect(loaded.skeleton!.vocabulary!.match(query)).toEqual(built.skeleton!.vocabulary!.match(query));
    }
    const without = join(root(), 'vocabulary-missing');
    await cp(dir, without, { recursive: true });
    await rm(join(without, 'vocabulary.bin'));
    const rebuilt = await method.load(without, context());
    expect(rebuilt.skeleton!.vocabulary!.entries()).toEqual(names);
    expectIdenticalRetrievals(await retrievals(method, rebuilt), await retrievals(method, built));
  });

  it('loads an index of format version 2 and retrieves exactly what the code of format 2 retrieved from it; saved again, it is version 5 and retrieves the same', async () => {
    const method = createKetRag();
    const recorded = JSON.parse(await readFile(V2_RETRIEVALS, 'utf8')) as Recorded[];
    const loaded = await method.load(V2_FIXTURE, context());
    expect(loaded.counts).toBeUndefined();
    const got = await retrievals(method, loaded);
    expectRecorded(got, recorded);
    const again = join(root(), 'v2-again');
    await method.save(loaded, again);
    expect(JSON.parse(await readFile(join(again, 'manifest.json'), 'utf8')).formatVersion).toBe(5);
    expectIdenticalRetrievals(await retrievals(method, await method.load(again, context())), got);
  });

  it('loads an index of format version 1 and retrieves what a build of its day did; saved again, it is version 5; updates as that build did; refuses a format version it does not read, saying to rebuild', async () => {
    const method = createKetRag();
    const { refusal } = await checkIndexFormats({
      dir: join(root(), 'present'),
      build: () => method.build(CORPUS, context(), BUILD),
      method,
      context,
      retrievals: (index) => retrievals(method, index),
      refused: {
        formatVersion: 6,
        message: /format version 6; this version reads 5 \(and 1, 2, 3, 4\)\. Rebuild the index/,
      },
    });
    const loaded = await method.load(V1_FIXTURE, context());
    const got = await retrievals(method, loaded);
    expectRecorded(got, JSON.parse(await readFile(V1_RETRIEVALS, 'utf8')) as Recorded[]);
    const again = join(root(), 'v1-again');
    await method.save(loaded, again);
    expect(JSON.parse(await readFile(join(again, 'manifest.json'), 'utf8')).formatVersion).toBe(5);
    expectIdenticalRetrievals(await retrievals(method, await method.load(again, context())), got);
    // An update of the loaded version-1 index retrieves what the update of that day's build did.
    const { index: updated } = await method.update!(loaded, { remove: ['orsa'] }, context());
    expectRecorded(
      await retrievals(method, updated),
      JSON.parse(await readFile(V1_UPDATE_RETRIEVALS, 'utf8')) as Recorded[],
    );
    expect(refusal!.message.split('\n')).toHaveLength(1);
  });
});
