import { InvalidArgumentError } from '@grag/core';
import { expectRetrieveOptionKeys } from '@grag/core/test/vitest';
import { describe, expect, it } from 'vitest';
import { createNodeRag, NODERAG_DEFAULTS, NODERAG_RETRIEVE_DEFAULTS, nodeRag } from '../src/index.js';
import { resolveNodeRagOptions, resolveRetrieveOptions, savedNodeRagOptions } from '../src/options.js';
import { DOCS, scriptedContext } from './fixtures.js';

describe('option keys', () => {
  it('a misspelled build option is an InvalidArgumentError that suggests the right key', async () => {
    const { ctx, chat } = scriptedContext();
    const error = await nodeRag.build(DOCS, ctx, { chunkSzie: 600 } as object).catch((e) => e);
    expect(InvalidArgumentError.isInstance(error)).toBe(true);
    expect(error.message).toContain('noderag build: unknown option "chunkSzie"; did you mean "chunkSize"?');
    expect(chat.calls).toHaveLength(0);
  });

  it('refuses a retrieval setting given to build, saying to give it to retrieve', async () => {
    const { ctx, chat } = scriptedContext();
    const error = await nodeRag.build(DOCS, ctx, { graphSearch: false } as object).catch((e) => e);
    expect(InvalidArgumentError.isInstance(error)).toBe(true);
    expect(error.message).toMatch(/^noderag build: "graphSearch" is a retrieve option.*`retrieve`/);
    expect(chat.calls).toHaveLength(0);
    expect(nodeRag.optionKeys?.build).not.toContain('graphSearch');
    expect(nodeRag.optionKeys?.retrieve).toEqual(
      expect.arrayContaining(['budgetTokens', 'topK', 'signal', ...Object.keys(NODERAG_RETRIEVE_DEFAULTS)]),
    );
  });

  it('accepts every documented build and retrieve option', async () => {
    const { ctx } = scriptedContext();
    const index = await nodeRag.build(DOCS, ctx, {
      ...NODERAG_DEFAULTS,
      chunking: 'document',
      concurrency: 2,
    });
    await expectRetrieveOptionKeys(
      nodeRag,
      index,
      'Who founded the Kessler Shipyard?',
      {
        ...NODERAG_RETRIEVE_DEFAULTS,
        topK: 5,
      },
      ['teleprot', 'teleport', 0.3],
    );
  });

  it('checks every retrieve option value, naming the option', async () => {
    const index = await nodeRag.build(DOCS, scriptedContext().ctx, { chunking: 'document' });
    for (const [key, value] of [
      ['entryPoints', 'sideways'],
      ['teleport', 1.5],
      ['vectorTopK', -1],
      ['topK', 0],
      ['graphSearch', 'no'],
      ['crossNodeSelection', 'buckets'],
    ] as const) {
      const error = await nodeRag.retrieve(index, 'Orsa', { [key]: value }).catch((e) => e);
      expect(InvalidArgumentError.isInstance(error), key).toBe(true);
      expect(error.message).toContain(`noderag retrieve: ${key} must be`);
    }
  });

  it('takes retrieval defaults from its settings; a retrieve call overrides them', async () => {
    const plain = createNodeRag({ retrieveDefaults: { graphSearch: false, topK: 2 } });
    const index = await plain.build(DOCS, scriptedContext().ctx, { chunking: 'document' });
    const byDefault = await plain.retrieve(index, 'Who founded the Kessler Shipyard?');
    expect(byDefault.trace).toMatchObject({ mode: 'vector-only', topK: 2 });
    expect(byDefault.items).toHaveLength(2);
    const overridden = await plain.retrieve(index, 'Who founded the Kessler Shipyard?', {
      graphSearch: true,
    });
    expect(overridden.trace.mode).toBe('graph');
    // An `undefined` value leaves the default beneath it.
    const kept = await plain.retrieve(index, 'Who founded the Kessler Shipyard?', { graphSearch: undefined });
    expect(kept.trace.mode).toBe('vector-only');
  });
});

describe('settings presets', () => {
  it('defaults to the paper: names merged as written, dense entries weighed alike, query entities as phrases', async () => {
    expect(resolveNodeRagOptions('t')).toMatchObject({ preset: 'paper', entityLinking: false });
    expect(resolveRetrieveOptions('t', undefined, {})).toMatchObject({
      entryPoints: 'dense',
      entryWeighting: 'uniform',
      queryEntityMatch: 'phrase',
      crossNodes: 10,
    });
  });

  it("the offline preset sets grag's measured values at build and at every query of the index; explicit options win", () => {
    expect(resolveNodeRagOptions('t', { preset: 'offline' })).toMatchObject({
      preset: 'offline',
      entityLinking: true,
    });
    expect(resolveNodeRagOptions('t', { preset: 'offline', entityLinking: false }).entityLinking).toBe(false);
    expect(resolveRetrieveOptions('t', undefined, {}, 'offline')).toMatchObject({
      entryPoints: 'hybrid',
      entryWeighting: 'rank',
      queryEntityMatch: 'vocabulary',
      crossNodes: 30,
    });
    expect(resolveRetrieveOptions('t', undefined, { entryPoints: 'lexical' }, 'offline').entryPoints).toBe(
      'lexical',
    );
    expect(() => resolveNodeRagOptions('noderag build', { preset: 'book' as never })).toThrow(
      'noderag build: preset must be one of paper, offline (got "book").',
    );
  });

  it('an index saved before presets existed reads as the offline preset it was built and queried with', () => {
    expect(savedNodeRagOptions('t', { entityLinking: true, chunking: 'document' })).toMatchObject({
      preset: 'offline',
      entityLinking: true,
    });
    expect(savedNodeRagOptions('t', { preset: 'paper' })).toMatchObject({
      preset: 'paper',
      entityLinking: false,
    });
  });
});
