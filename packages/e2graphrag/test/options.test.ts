import { createBuildContext, createPromptTasks, type Document, InvalidArgumentError } from '@grag/core';
import { createScriptedChatModel, createScriptedEmbedder } from '@grag/core/test';
import { describe, expect, it } from 'vitest';
import {
  createE2GraphRag,
  E2GRAPHRAG_DEFAULTS,
  e2GraphRag,
  entityExtractorFromFunction,
} from '../src/index.js';

const method = createE2GraphRag({
  extractor: entityExtractorFromFunction((s) => s.match(/\b[A-Z][a-z]+\b/g) ?? [], { id: 'capitalized' }),
});
const docs: Document[] = [
  { id: 'a', text: 'Alice met Bob in Paris. Bob stayed in Paris.' },
  { id: 'b', text: 'Carol visited Rome with Alice.' },
];
const context = () =>
  createBuildContext({
    embedder: createScriptedEmbedder({ dimensions: 16 }),
    tasks: createPromptTasks(createScriptedChatModel((_call, i) => `overview ${i + 1}`)),
  });

describe('option keys', () => {
  it('a misspelled build option is an InvalidArgumentError that suggests the right key', async () => {
    const error = await e2GraphRag.build(docs, context(), { chunkSzie: 600 } as object).catch((e) => e);
    expect(InvalidArgumentError.isInstance(error)).toBe(true);
    expect(error.message).toContain(
      'e2graphrag build: unknown option "chunkSzie"; did you mean "chunkSize"?',
    );
  });

  it('accepts every documented build option, concurrency (no default) included', async () => {
    const index = await method.build(docs, context(), {
      ...E2GRAPHRAG_DEFAULTS,
      chunking: 'document',
      concurrency: 2,
    });
    expect(index.stats.chunks).toBe(2);
    await expect(
      method.retrieve(index, 'Where did Alice meet Bob?', {
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
      }),
    ).resolves.toBeDefined();
  });

  it('refuses a misspelled query option', async () => {
    const index = await method.build(docs, context(), { chunking: 'document' });
    await expect(method.retrieve(index, 'Alice?', { hosp: 2 } as object)).rejects.toThrow(
      /e2graphrag retrieve: unknown option "hosp"; did you mean "hops"\?/,
    );
  });
});
