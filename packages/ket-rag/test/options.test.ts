import { InvalidArgumentError } from '@grag/core';
import { createBuildContext } from '@grag/core/kit';
import { createOfflineProviders } from '@grag/offline';
import { describe, expect, it } from 'vitest';
import { KET_RAG_DEFAULTS, ketRag } from '../src/index.js';
import { CORPUS } from './corpus.js';

const context = () => {
  const { tasks, embedder } = createOfflineProviders();
  return createBuildContext({ embedder, tasks });
};

describe('option keys', () => {
  it('a misspelled build option is an InvalidArgumentError that suggests the right key', async () => {
    const error = await ketRag.build(CORPUS, context(), { chunkSzie: 600 } as object).catch((e) => e);
    expect(InvalidArgumentError.isInstance(error)).toBe(true);
    expect(error.message).toContain('ket-rag build: unknown option "chunkSzie"; did you mean "chunkSize"?');
    await expect(ketRag.build(CORPUS, context(), { varaint: 'keyword-rag' } as object)).rejects.toThrow(
      /unknown option "varaint"; did you mean "variant"\?/,
    );
  });

  it('accepts every documented option, variant and those without a default included', async () => {
    const index = await ketRag.build(CORPUS, context(), {
      ...KET_RAG_DEFAULTS,
      chunking: 'document',
      variant: 'ket-rag-p',
      halvings: undefined,
      entityTypes: ['person', 'organization'],
      gleanings: 0,
      concurrency: 2,
    });
    const r = await ketRag.retrieve(index, 'Who founded the Orsa Marine Institute?', {
      budgetTokens: 2000,
      topK: 5,
      lambda: 0.4,
      signal: new AbortController().signal,
    });
    expect(r.items.length).toBeGreaterThan(0);
    await expect(ketRag.retrieve(index, 'Who?', { lamda: 0.3 } as object)).rejects.toThrow(
      /ket-rag retrieve: unknown option "lamda"; did you mean "lambda"\?/,
    );
    await expect(ketRag.retrieve(index, 'Who?', { topK: 'x' } as object)).rejects.toThrow(
      'ket-rag retrieve: topK must be a positive integer (got "x").',
    );
  });
});
