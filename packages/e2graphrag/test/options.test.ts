import { type Document, InvalidArgumentError, type VectorSearchOptions } from '@grag/core';
import { createBuildContext } from '@grag/core/kit';
import { createPromptTasks } from '@grag/core/tasks';
import { createScriptedChatModel, createScriptedEmbedder, recordingIndexFactory } from '@grag/core/test';
import { describe, expect, it } from 'vitest';
import { createE2GraphRag, E2GRAPHRAG_DEFAULTS, e2GraphRag } from '../src/index.js';
import { savedParams } from '../src/options.js';
import { capitalized, context } from './fixtures.js';

const method = createE2GraphRag({ extractor: capitalized });
const docs: Document[] = [
  { id: 'a', text: 'Alice met Bob in Paris. Bob stayed in Paris.' },
  { id: 'b', text: 'Carol visited Rome with Alice.' },
];

describe('options', () => {
  it('a misspelled build option is an InvalidArgumentError that suggests the right key', async () => {
    const error = await e2GraphRag.build(docs, context(), { chunkSzie: 600 } as object).catch((e) => e);
    expect(InvalidArgumentError.isInstance(error)).toBe(true);
    expect(error.message).toContain(
      'e2graphrag build: unknown option "chunkSzie"; did you mean "chunkSize"?',
    );
  });

  it('accepts every documented build and query option, concurrency (no default) included', async () => {
    const index = await method.build(docs, context(), {
      ...E2GRAPHRAG_DEFAULTS,
      chunking: 'document',
      concurrency: 2,
    });
    expect(index.stats.chunks).toBe(2);
    const r = await method.retrieve(index, 'Where did Alice meet Bob?', {
      topK: 5,
      budgetTokens: 500,
      signal: new AbortController().signal,
      hops: 2,
      chunkThreshold: 10,
      preferAdjacentRuns: true,
      denseOnly: false,
      graphFilter: true,
      entityAwareRanking: true,
      denseRetrieval: true,
      occurrenceRanking: true,
      entryPoints: 'lexical',
      fuseEntryPoints: true,
      graphWeight: 0.5,
      bridges: 1,
      bridgeSeeds: 2,
    });
    expect(r.trace).toMatchObject({ k: 5, chunkThreshold: 10, entryPoints: 'lexical', ranking: 'fused' });
  });

  it('a query option overrides the index default for that query only, and is checked', async () => {
    const index = await method.build(docs, context(), { chunking: 'document', entryPoints: 'dense' });
    expect(index.lexical).toBeUndefined();
    const lexical = await method.retrieve(index, 'Carol?', { entryPoints: 'lexical' });
    expect(lexical.trace.entryPoints).toBe('lexical');
    expect((await method.retrieve(index, 'Carol?')).trace.entryPoints).toBe('dense');
    await expect(method.retrieve(index, 'Carol?', { entryPoints: 'sideways' as never })).rejects.toThrow(
      /e2graphrag retrieve: entryPoints must be one of "dense", "lexical", "hybrid" \(got "sideways"\)/,
    );
    await expect(method.retrieve(index, 'Alice?', { hosp: 2 } as object)).rejects.toThrow(
      /e2graphrag retrieve: unknown option "hosp"; did you mean "hops"\?/,
    );
  });

  it('saved params: `linking` is read as entityLinking, and an index older than linking is the paper', () => {
    expect(savedParams({ linking: true, chunkSize: 600 })).toEqual({
      entityLinking: true,
      entryPoints: 'dense',
      fuseEntryPoints: false,
      bridges: 0,
      mentionBridges: 0,
      chunkSize: 600,
      // saved before presets existed, with linking: the offline preset it was built with
      preset: 'offline',
    });
    // saved before mention bridges existed: read without them, as it was built and measured
    expect(
      savedParams({ entityLinking: true, entryPoints: 'hybrid', fuseEntryPoints: true, bridges: 2 }),
    ).toEqual({
      entityLinking: true,
      entryPoints: 'hybrid',
      fuseEntryPoints: true,
      bridges: 2,
      mentionBridges: 0,
      preset: 'offline',
    });
    expect(savedParams({ entityLinking: true, bridges: 2, mentionBridges: 1 })).toMatchObject({
      mentionBridges: 1,
    });
  });
});

describe('entryEf', () => {
  function recordingContext(calls: VectorSearchOptions[]) {
    return createBuildContext({
      embedder: createScriptedEmbedder({ dimensions: 16 }),
      tasks: createPromptTasks(createScriptedChatModel((_call, i) => `overview ${i + 1}`)),
      vectorIndex: recordingIndexFactory(calls),
    });
  }

  it('gives the dense entry search its breadth in every preset: 1024 by default, none with 0', async () => {
    for (const preset of ['paper', 'offline'] as const) {
      const calls: VectorSearchOptions[] = [];
      const index = await method.build(docs, recordingContext(calls), { chunking: 'document', preset });
      expect(index.options.entryEf).toBe(1024);
      // No query entity: Algorithm 1 takes the dense search's nodes.
      const byDefault = await method.retrieve(index, 'who stayed there?', { topK: 2 });
      expect(calls.length).toBeGreaterThan(0);
      expect(new Set(calls.map((c) => c.ef))).toEqual(new Set([1024]));
      calls.length = 0;
      const own = await method.retrieve(index, 'who stayed there?', { topK: 2, entryEf: 0 });
      expect(calls.length).toBeGreaterThan(0);
      expect(calls.every((c) => !('ef' in c))).toBe(true);
      // An exact index ignores it: the same items either way.
      expect(own.items.map((i) => [i.id, i.score])).toEqual(byDefault.items.map((i) => [i.id, i.score]));
      calls.length = 0;
      await method.retrieve(index, 'who stayed there?', { entryEf: 300 });
      expect(new Set(calls.map((c) => c.ef))).toEqual(new Set([300]));
    }
    // Set at build time, it is the index's default for its queries.
    const calls: VectorSearchOptions[] = [];
    const index = await method.build(docs, recordingContext(calls), { chunking: 'document', entryEf: 0 });
    await method.retrieve(index, 'who stayed there?');
    expect(calls.length).toBeGreaterThan(0);
    expect(calls.every((c) => !('ef' in c))).toBe(true);
  });

  it('the offline preset fills the budget: chunks past the paper k of 25 are packed', async () => {
    // Forty short log entries naming the vessel asked about: each fits in the default 12,000-token
    // budget, so the offline preset (k = 100) packs all forty; the paper's k stops at 25.
    const logs: Document[] = Array.from({ length: 40 }, (_, i) => ({
      id: `log${i}`,
      text: `The vessel Nordlys called at Halvard on day ${i + 1} and took on water.`,
    }));
    const index = await method.build(logs, context(), { chunking: 'document', preset: 'offline' });
    expect(index.options.topK).toBe(100);
    const question = 'When did Nordlys call at Halvard?';
    const chunkIds = (r: { items: { id: string; kind: string }[] }) =>
      r.items.filter((i) => i.kind === 'chunk').map((i) => i.id.split('#')[0]);
    const all = await method.retrieve(index, question);
    expect(new Set(chunkIds(all))).toEqual(new Set(logs.map((d) => d.id)));
    expect(chunkIds(await method.retrieve(index, question, { topK: 25 }))).toHaveLength(25);
  });

  it('refuses an entryEf that is negative or not an integer, naming it', async () => {
    await expect(method.build(docs, context(), { entryEf: -1 })).rejects.toThrow(
      /e2graphrag build: entryEf must be a non-negative integer \(got -1\)/,
    );
    const index = await method.build(docs, context(), { chunking: 'document' });
    await expect(method.retrieve(index, 'Carol?', { entryEf: 1.5 })).rejects.toThrow(
      /e2graphrag retrieve: entryEf must be a non-negative integer \(got 1.5\)/,
    );
  });
});
