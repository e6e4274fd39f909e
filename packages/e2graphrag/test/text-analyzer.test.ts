/**
 * E2GraphRAG reads entities with the build context's text analyzer: without one (and without an
 * `extractor`) a build or load is refused with one line saying what to pass; with
 * `createWinkTextAnalyzer()` it gives what the extractor built into the package gave before the
 * analyzer came from the context (the entities, the index contents and the retrieval recorded in
 * `__fixtures__/v1-wink` by that code, in index format 1).
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { type BuildContext, type Document, InvalidArgumentError } from '@grag/core';
import { createBuildContext } from '@grag/core/kit';
import { manifestContent } from '@grag/core/test';
import { temporaryRoot } from '@grag/core/test/vitest';
import { createWinkTextAnalyzer } from '@grag/offline';
import { describe, expect, it } from 'vitest';
import { createE2GraphRag, createEntityExtractor, e2GraphRag } from '../src/index.js';
import { capitalized, context } from './fixtures.js';

const FIXTURE = join(import.meta.dirname, '__fixtures__', 'v1-wink');
const readJson = async (file: string) => JSON.parse(await readFile(join(FIXTURE, file), 'utf8'));

/** The scripted providers the fixture index was built with, and the wink text analyzer. */
const withAnalyzer = (): BuildContext => ({ ...context(), textAnalyzer: createWinkTextAnalyzer() });

const summary = (r: { context: string; items: { id: string; kind: string; score: number }[] }) => ({
  context: r.context,
  items: r.items.map((i) => ({ id: i.id, kind: i.kind, score: i.score })),
});

describe('e2graphrag without a text analyzer', () => {
  const docs: Document[] = [{ id: 'a', text: 'Ilse Marten sailed to Kvarn.' }];

  it('refuses to build, naming the option and where to get it', async () => {
    const error = await e2GraphRag.build(docs, context()).catch((e: unknown) => e);
    expect(InvalidArgumentError.isInstance(error), String(error)).toBe(true);
    expect((error as InvalidArgumentError).argument).toBe('ctx');
    const message = (error as Error).message;
    expect(message.split('\n')).toHaveLength(1);
    expect(message).toMatch(/^e2graphrag build: .*text analyzer/);
    expect(message).toContain('textAnalyzer: createWinkTextAnalyzer()');
    expect(message).toContain('@grag/offline');
  });

  it('refuses to load, and names the method instance', async () => {
    const error = await createE2GraphRag({ name: 'e2-custom' })
      .load(join(FIXTURE, 'index'), context())
      .catch((e: unknown) => e);
    expect(InvalidArgumentError.isInstance(error), String(error)).toBe(true);
    expect((error as Error).message).toMatch(/^e2-custom load: .*textAnalyzer: createWinkTextAnalyzer\(\)/);
  });

  it('still refuses an empty corpus first (the options and corpus are checked before the analyzer)', async () => {
    const error = await e2GraphRag.build([], context()).catch((e: unknown) => e);
    expect((error as InvalidArgumentError).argument).toBe('docs');
  });

  it('needs none when the method is given an extractor', async () => {
    const index = await createE2GraphRag({ extractor: capitalized }).build(docs, context());
    expect(index.extractor.id).toBe('capitalized');
    expect(index.stats.entities).toBe(3);
  });
});

describe('e2graphrag with the wink text analyzer gives what it gave before', () => {
  const root = temporaryRoot('grag-e2-analyzer-');

  it('extracts the recorded entities, with the recorded extractor ids', async () => {
    const { texts, extractors } = await readJson('entities.json');
    const wink = createWinkTextAnalyzer();
    const made = {
      default: createEntityExtractor(wink),
      parts: createEntityExtractor(wink, { nameParts: true, nouns: false }),
      lower: createEntityExtractor(wink, { lowercaseNames: true, minLength: 3 }),
    };
    for (const [name, extractor] of Object.entries(made)) {
      expect(extractor.id).toBe(extractors[name].id);
      const entities = [];
      for (const text of texts) entities.push(await extractor.extract(text));
      expect(entities, name).toEqual(extractors[name].entities);
    }
  });

  it('loads an index saved before and retrieves what it retrieved then', async () => {
    const recorded = await readJson('retrieval.json');
    const index = await e2GraphRag.load(join(FIXTURE, 'index'), withAnalyzer());
    expect(index.extractor.id).toBe('wink-eng-lite:v1:nouns,names');
    const retrieval = await e2GraphRag.retrieve(index, recorded.query, {
      budgetTokens: recorded.budgetTokens,
    });
    expect(summary(retrieval)).toEqual({ context: recorded.context, items: recorded.items });
  });

  it('builds an index holding what the recorded one holds from the same documents', async () => {
    const docs: Document[] = await readJson('docs.json');
    const recorded = await readJson('retrieval.json');
    // The fixture was built with the defaults of its day: grag's offline configuration, now the
    // offline preset, with the k of that day (the preset's is 100 since it fills the budget).
    const index = await e2GraphRag.build(docs, withAnalyzer(), {
      chunking: 'document',
      preset: 'offline',
      topK: 25,
    });
    const retrieval = await e2GraphRag.retrieve(index, recorded.query, {
      budgetTokens: recorded.budgetTokens,
    });
    expect(summary(retrieval)).toEqual({ context: recorded.context, items: recorded.items });
    const dir = join(root(), 'rebuilt');
    await e2GraphRag.save(index, dir);
    // Saved in format 2, it holds what the format-1 fixture holds and retrieves the same.
    const [now, before] = await Promise.all([
      e2GraphRag.load(dir, withAnalyzer()),
      e2GraphRag.load(join(FIXTURE, 'index'), withAnalyzer()),
    ]);
    expect(now.tree).toEqual(before.tree);
    expect(now.graph.toJSON()).toEqual(before.graph.toJSON());
    expect(now.homes).toEqual(before.homes);
    expect(now.kept).toEqual(before.kept);
    expect(now.stats).toEqual(before.stats);
    expect(now.options).toEqual(before.options);
    // The fixture predates presets: its params name none, and load reads it as the offline preset.
    expect(now.options.preset).toBe('offline');
    const rebuilt = await manifestContent(dir);
    expect(rebuilt.params.preset).toBe('offline');
    delete rebuilt.params.preset;
    // It predates task contracts too: a build now records the method's build tasks.
    expect(rebuilt.tasks).toEqual(e2GraphRag.capabilities.tasks?.build);
    delete rebuilt.tasks;
    // And entryEf: a build records it, and the fixture loads with its default (`now.options` above).
    expect(rebuilt.params.entryEf).toBe(1024);
    delete rebuilt.params.entryEf;
    expect(rebuilt).toEqual(await manifestContent(join(FIXTURE, 'index')));
    const reloaded = await e2GraphRag.retrieve(now, recorded.query, { budgetTokens: recorded.budgetTokens });
    expect(summary(reloaded)).toEqual({ context: recorded.context, items: recorded.items });
  });

  it('records the analyzer of the context in the extractor id of the manifest', async () => {
    const index = await e2GraphRag.build(
      [{ id: 'a', text: 'Ilse Marten sailed to Kvarn.' }],
      createBuildContext({
        ...context(),
        textAnalyzer: { ...createWinkTextAnalyzer(), id: 'wink-other:v9' },
      }),
    );
    const dir = join(root(), 'other');
    await e2GraphRag.save(index, dir);
    const manifest = JSON.parse(await readFile(join(dir, 'manifest.json'), 'utf8'));
    expect(manifest.stats.entityExtractor).toBe('wink-other:v9:nouns,names');
    const error = await e2GraphRag.load(dir, withAnalyzer()).catch((e: unknown) => e);
    expect((error as Error).message).toContain(
      "was built with entity extractor 'wink-other:v9:nouns,names' (now 'wink-eng-lite:v1:nouns,names')",
    );
  });
});
