import { InvalidArgumentError } from '@grag/core';
import { describe, expect, it } from 'vitest';
import { NODERAG_DEFAULTS, NODERAG_RETRIEVE_DEFAULTS, nodeRag } from '../src/index.js';
import { DOCS, scriptedContext } from './fixtures.js';

describe('option keys', () => {
  it('a misspelled build option is an InvalidArgumentError that suggests the right key', async () => {
    const { ctx, chat } = scriptedContext();
    const error = await nodeRag.build(DOCS, ctx, { chunkSzie: 600 } as object).catch((e) => e);
    expect(InvalidArgumentError.isInstance(error)).toBe(true);
    expect(error.message).toContain('noderag build: unknown option "chunkSzie"; did you mean "chunkSize"?');
    expect(chat.calls).toHaveLength(0);
  });

  it('accepts every documented build and retrieve option', async () => {
    const { ctx } = scriptedContext();
    const index = await nodeRag.build(DOCS, ctx, {
      ...NODERAG_DEFAULTS,
      chunking: 'document',
      concurrency: 2,
    });
    const { plainTopK: _, ...retrieveDefaults } = NODERAG_RETRIEVE_DEFAULTS;
    const r = await nodeRag.retrieve(index, 'Who founded the Kessler Shipyard?', {
      ...retrieveDefaults,
      budgetTokens: 2000,
      topK: 5,
      signal: new AbortController().signal,
    });
    expect(r.items.length).toBeGreaterThan(0);
    await expect(nodeRag.retrieve(index, 'Who?', { teleprot: 0.3 } as object)).rejects.toThrow(
      /noderag retrieve: unknown option "teleprot"; did you mean "teleport"\?/,
    );
  });
});
