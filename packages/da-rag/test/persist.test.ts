import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { IndexFormatError } from '@grag/core';
import { createBuildContext, MANIFEST_FILE } from '@grag/core/kit';
import { createScriptedEmbedder, editedIndexCopy } from '@grag/core/test';
import { createOfflineTasks } from '@grag/offline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DA_RAG_DEFAULTS, daRag } from '../src/index.js';
import { CORPUS } from './corpus.js';

// The generic checks (other method, format, providers, params, wrong-shape JSON, fuzz) are in
// contract.test.ts; these are DA-RAG's own cross-file checks.
const context = () =>
  createBuildContext({ embedder: createScriptedEmbedder({ dimensions: 16 }), tasks: createOfflineTasks() });

let root: string;
let saved: string;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'grag-da-persist-'));
  saved = join(root, 'index');
  await daRag.save(await daRag.build(CORPUS.slice(0, 4), context(), { chunking: 'fixed' }), saved);
});

afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

/** A copy of the saved index with `file`'s JSON edited. */
// biome-ignore lint/suspicious/noExplicitAny: edits reach into JSON of a known layout
const edited = (name: string, file: string, edit: (json: any) => void) =>
  editedIndexCopy(saved, join(root, name), file, edit);

async function refusal(dir: string, file: string, problem: RegExp): Promise<void> {
  const error = await daRag.load(dir, context()).catch((e: unknown) => e);
  expect(IndexFormatError.isInstance(error), String(error)).toBe(true);
  expect((error as Error).message).toContain(join(dir, file));
  expect((error as Error).message).toMatch(problem);
  expect((error as Error).message).toMatch(/rebuild the index\.$/);
}

describe('da-rag index loading', () => {
  it('refuses chunks.json whose parallel arrays disagree', async () => {
    const dir = await edited('texts', 'chunks.json', (units) => {
      (units.texts as string[]).push('one too many');
    });
    await refusal(dir, 'chunks.json', /texts has \d+ entries for \d+ chunks/);
  });

  it('refuses graph.json naming a chunk or an entity that does not exist', async () => {
    const entity = await edited('entity-chunk', 'graph.json', (graph) => {
      (graph.entities as { chunkIds: string[] }[])[0]!.chunkIds.push('no-such-chunk');
    });
    await refusal(entity, 'graph.json', /entities\[0\]\.chunkIds\[\d+\] names no chunk of chunks\.json/);
    const relation = await edited('relation', 'graph.json', (graph) => {
      (graph.relations as { target: string }[])[0]!.target = 'no-such-entity';
    });
    await refusal(relation, 'graph.json', /relations\[0\] joins an unknown entity/);
    const layer = await edited('layer', 'graph.json', (graph) => {
      (graph.chunkLayer as number[])[0] = 999;
    });
    await refusal(layer, 'graph.json', /chunkLayer\[0\] is 999, beyond the \d+ nodes of the layer/);
  });

  it('refuses a manifest whose vector dimensions are not the embedder’s', async () => {
    const dir = await edited('dimensions', MANIFEST_FILE, (manifest) => {
      (manifest.stats as { dimensions: number }).dimensions = 17;
    });
    await refusal(dir, MANIFEST_FILE, /stats\.dimensions is 17, but the embedder has 16/);
  });

  it('loads an index written before an option existed, or before the vector index was recorded', async () => {
    const dir = await edited('older', MANIFEST_FILE, (manifest) => {
      const params = manifest.params as Record<string, unknown>;
      delete params.memberOrder;
      delete params.querySeeds;
      delete (manifest.providers as Record<string, unknown>).vectorIndex;
    });
    const loaded = await daRag.load(dir, context());
    expect(loaded.options.memberOrder).toBe(DA_RAG_DEFAULTS.memberOrder);
    expect(loaded.options.querySeeds).toBe(DA_RAG_DEFAULTS.querySeeds);
    expect(loaded.options.chunking).toBe('fixed');
  });
});
