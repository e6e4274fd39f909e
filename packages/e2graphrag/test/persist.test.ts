import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Document, IndexFormatError } from '@grag/core';
import { editedIndexCopy } from '@grag/core/test';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createE2GraphRag, entityExtractorFromFunction } from '../src/index.js';
import { capitalized, context } from './fixtures.js';

// Linked (the default): the index has links.json.
const method = createE2GraphRag({ extractor: capitalized, defaults: { chunking: 'document' } });
const docs: Document[] = [
  { id: 'paris', title: 'Paris', text: 'Paris is the capital of France. Marie Curie worked in Paris.' },
  { id: 'berlin', title: 'Berlin', text: 'Berlin is the capital of Germany. Einstein lived in Berlin.' },
  { id: 'curie', title: 'Marie Curie', text: 'Marie Curie won two Nobel prizes with Pierre.' },
];
const QUERY = 'Where did Marie Curie work?';

async function rejection(promise: Promise<unknown>): Promise<Error> {
  return promise.then(
    () => {
      throw new Error('expected a rejection');
    },
    (error: Error) => error,
  );
}

describe('e2graphrag index files', () => {
  let root: string;
  let saved: string;
  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'grag-e2-persist-'));
    saved = join(root, 'index');
    await method.save(await method.build(docs, context()), saved);
  });
  afterAll(() => rm(root, { recursive: true, force: true }));

  /** A copy of the saved index with `file`'s JSON edited by `edit`. */
  // biome-ignore lint/suspicious/noExplicitAny: edits reach into JSON of a known layout
  const edited = (name: string, file: string, edit: (json: Record<string, any>) => void) =>
    editedIndexCopy(saved, join(root, name), file, edit);

  test('refuses an index built with another entity extractor, saying to rebuild', async () => {
    const other = createE2GraphRag({ extractor: entityExtractorFromFunction(() => [], { id: 'other' }) });
    const error = await rejection(other.load(saved, context()));
    expect(IndexFormatError.isInstance(error)).toBe(true);
    expect(error.message).toContain("entity extractor 'capitalized' (now 'other')");
    expect(error.message).toMatch(/rebuild the index\.$/);
  });

  test('refuses an entity graph over other chunks than the summary tree', async () => {
    const dir = await edited('graph-chunks', 'graph.json', (graph) => {
      graph.chunks.push([]);
    });
    const error = await rejection(method.load(dir, context()));
    expect(IndexFormatError.isInstance(error)).toBe(true);
    expect(error.message).toContain(join(dir, 'graph.json'));
    expect(error.message).toContain('index 4 chunks, but the summary tree has 3 leaves');
  });

  test('refuses title entities for another number of chunks', async () => {
    const dir = await edited('links-count', 'links.json', (links) => {
      links.homes.pop();
    });
    const error = await rejection(method.load(dir, context()));
    expect(IndexFormatError.isInstance(error)).toBe(true);
    expect(error.message).toContain(join(dir, 'links.json'));
    expect(error.message).toContain('has 2 title entities for 3 chunks');
  });

  test('loads an index saved before the envelope: `linking` param, extractor among the providers', async () => {
    const dir = await edited('before-envelope', 'manifest.json', (manifest) => {
      const { entityLinking, ...params } = manifest.params;
      manifest.params = { ...params, linking: entityLinking };
      const { entityExtractor, ...stats } = manifest.stats;
      manifest.stats = stats;
      const { tasks: _, ...providers } = manifest.providers;
      manifest.providers = { ...providers, entityExtractor };
    });
    const loaded = await method.load(dir, context());
    expect(loaded.options.entityLinking).toBe(true);
    expect(loaded.homes).toEqual(['Paris', 'Berlin', 'Marie Curie']);
    const fresh = await method.load(saved, context());
    const [a, b] = await Promise.all([method.retrieve(fresh, QUERY), method.retrieve(loaded, QUERY)]);
    expect(b.context).toBe(a.context);
    const other = createE2GraphRag({ extractor: entityExtractorFromFunction(() => [], { id: 'other' }) });
    await expect(other.load(dir, context())).rejects.toThrow(/entity extractor 'capitalized'/);
  });
});
