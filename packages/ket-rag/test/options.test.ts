import { InvalidArgumentError } from '@grag/core';
import { createBuildContext } from '@grag/core/kit';
import { expectRetrieveOptionKeys } from '@grag/core/test/vitest';
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
    await expectRetrieveOptionKeys(
      ketRag,
      index,
      'Who founded the Orsa Marine Institute?',
      { topK: 5, lambda: 0.4 },
      ['lamda', 'lambda', 0.3],
    );
    await expect(ketRag.retrieve(index, 'Who?', { topK: 'x' } as object)).rejects.toThrow(
      'ket-rag retrieve: topK must be a positive integer (got "x").',
    );
  });
});
