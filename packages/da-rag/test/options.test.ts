import { createBuildContext, InvalidArgumentError } from '@grag/core';
import { createOfflineProviders } from '@grag/offline';
import { describe, expect, it } from 'vitest';
import { DA_RAG_DEFAULTS, daRag } from '../src/index.js';
import { CORPUS } from './corpus.js';

const context = () => {
  const { tasks, embedder } = createOfflineProviders();
  return createBuildContext({ embedder, tasks });
};

describe('option keys', () => {
  it('a misspelled build option is an InvalidArgumentError that suggests the right key', async () => {
    const error = await daRag.build(CORPUS, context(), { chunkSzie: 600 } as object).catch((e) => e);
    expect(InvalidArgumentError.isInstance(error)).toBe(true);
    expect(error.message).toContain('da-rag build: unknown option "chunkSzie"; did you mean "chunkSize"?');
  });

  it('accepts every documented build and retrieve option', async () => {
    const index = await daRag.build(CORPUS.slice(0, 3), context(), {
      ...DA_RAG_DEFAULTS,
      chunking: 'fixed',
      similarityLayer: false,
      reports: false,
      concurrency: 2,
    });
    // Every query option of the README, by hand.
    const r = await daRag.retrieve(index, 'Who founded the Kessler Shipyard?', {
      chunkLayer: true,
      similarityLayer: false,
      acs: true,
      kMin: 3,
      kMax: null,
      candidatesPerLayer: 3,
      kSpacing: 'geometric',
      anchor: 'best',
      scoring: 'auto',
      reports: false,
      communityText: 'report+members',
      communityTokens: 4000,
      oneHopSeeds: 5,
      budgetTokens: 2000,
      topK: 3,
      signal: new AbortController().signal,
    });
    expect(r.items.length).toBeGreaterThan(0);
    await expect(daRag.retrieve(index, 'Who?', { kmin: 2 } as object)).rejects.toThrow(
      /da-rag retrieve: unknown option "kmin"; did you mean "kMin"\?/,
    );
  });
});
