import { join } from 'node:path';
import { type Document, IndexFormatError } from '@grag/core';
import { directoryStore } from '@grag/core/store';
import { copyStoredIndex, editedIndexCopy } from '@grag/core/test';
import { expectIdenticalRetrievals, temporaryRoot } from '@grag/core/test/vitest';
import { beforeAll, describe, expect, test } from 'vitest';
import { createE2GraphRag, entityExtractorFromFunction } from '../src/index.js';
import { capitalized, context } from './fixtures.js';

// Linked (the offline preset): the index has links.json.
const method = createE2GraphRag({
  extractor: capitalized,
  defaults: { chunking: 'document', preset: 'offline' },
});
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
  const root = temporaryRoot('grag-e2-persist-');
  let saved: string;
  beforeAll(async () => {
    saved = join(root(), 'index');
    await method.save(await method.build(docs, context()), saved);
  });

  /** A copy of the saved index with `file`'s JSON edited by `edit`. */
  // biome-ignore lint/suspicious/noExplicitAny: edits reach into JSON of a known layout
  const edited = (name: string, file: string, edit: (json: Record<string, any>) => void) =>
    editedIndexCopy(saved, join(root(), name), file, edit);

  /** The `IndexFormatError` that loading the index in `dir` fails with, naming its `file`. */
  const refusal = async (dir: string, file: string): Promise<Error> => {
    const error = await rejection(method.load(dir, context()));
    expect(IndexFormatError.isInstance(error)).toBe(true);
    expect(error.message).toContain(join(dir, file));
    return error;
  };

  test('an index saved before presets existed (grag offline defaults, no preset in its params) loads and retrieves as before', async () => {
    const before = await edited('before-presets', 'manifest.json', (manifest) => {
      delete manifest.params.preset;
    });
    // The method's defaults are the paper's now; a saved index keeps the options it was built with.
    const paperDefaults = createE2GraphRag({ extractor: capitalized });
    const [old, now] = await Promise.all([
      paperDefaults.load(before, context()),
      method.load(saved, context()),
    ]);
    expect(old.options).toEqual(now.options);
    expect(old.options).toMatchObject({
      preset: 'offline',
      entityLinking: true,
      entryPoints: 'hybrid',
      bridges: 2,
    });
    const queries = [QUERY, 'Who lived in the capital of Germany?', 'Which prizes did Marie Curie win?'];
    const ask = (index: typeof old) => Promise.all(queries.map((q) => paperDefaults.retrieve(index, q)));
    expectIdenticalRetrievals(await ask(old), await ask(now));
  });

  test('an index saved before BM25 was kept (no lexical.bm25) loads, builds it, and retrieves alike', async () => {
    const older = await copyStoredIndex(directoryStore(saved), directoryStore(join(root(), 'older')), {
      artifact: (name) => (name === 'lexical.bm25' ? null : undefined),
    });
    const [old, now] = await Promise.all([method.load(older, context()), method.load(saved, context())]);
    expect(old.lexical?.toArrays()).toEqual(now.lexical?.toArrays());
    const queries = [QUERY, 'Who lived in the capital of Germany?'];
    const ask = (index: typeof old) => Promise.all(queries.map((q) => method.retrieve(index, q)));
    expectIdenticalRetrievals(await ask(old), await ask(now));
  });

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
    expect((await refusal(dir, 'graph.json')).message).toContain(
      'index 4 chunks, but the summary tree has 3 leaves',
    );
  });

  test('refuses title entities for another number of chunks', async () => {
    const dir = await edited('links-count', 'links.json', (links) => {
      links.homes.pop();
    });
    expect((await refusal(dir, 'links.json')).message).toContain('has 2 title entities for 3 chunks');
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
