import { InvalidArgumentError } from '@grag/core';
import { expectRetrieveOptionKeys } from '@grag/core/test/vitest';
import { describe, expect, it } from 'vitest';
import { DA_RAG_DEFAULTS, DA_RAG_QUERY_DEFAULTS, daRag, type LayerTrace } from '../src/index.js';
import { resolveDaRagOptions, savedDaRagOptions } from '../src/options.js';
import { CORPUS } from './corpus.js';
import { offlineContext } from './offline-context.js';

describe('option keys', () => {
  it('a misspelled build option is an InvalidArgumentError that suggests the right key', async () => {
    const error = await daRag.build(CORPUS, offlineContext(), { chunkSzie: 600 } as object).catch((e) => e);
    expect(InvalidArgumentError.isInstance(error)).toBe(true);
    expect(error.message).toContain('da-rag build: unknown option "chunkSzie"; did you mean "chunkSize"?');
  });

  it('accepts every documented build and retrieve option', async () => {
    const index = await daRag.build(CORPUS.slice(0, 3), offlineContext(), {
      ...DA_RAG_DEFAULTS,
      chunking: 'fixed',
      similarityLayer: false,
      reports: false,
      concurrency: 2,
    });
    // Every query option of the README, by hand.
    await expectRetrieveOptionKeys(
      daRag,
      index,
      'Who founded the Kessler Shipyard?',
      {
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
        topK: 3,
      },
      ['kmin', 'kMin', 2],
    );
  });

  it('lists every option as a build key and every query option as a retrieve key too', () => {
    expect([...daRag.optionKeys!.build].sort()).toEqual(
      [...Object.keys(DA_RAG_DEFAULTS), 'concurrency'].sort(),
    );
    expect(daRag.optionKeys!.retrieve).toEqual(
      expect.arrayContaining(['budgetTokens', 'topK', 'signal', ...Object.keys(DA_RAG_QUERY_DEFAULTS)]),
    );
    expect(daRag.optionKeys!.retrieve).not.toContain('chunkSize');
  });

  it('takes query options at build time as the defaults of every query, which retrieve overrides', async () => {
    const query = 'Who founded the Kessler Shipyard?';
    const index = await daRag.build(CORPUS, offlineContext(), {
      chunking: 'fixed',
      entryPointsOnly: true,
      kMax: 3,
    });
    expect((await daRag.retrieve(index, query)).trace.retrieval).toBe('entry-points');
    const graph = await daRag.retrieve(index, query, { entryPointsOnly: false });
    expect(graph.trace.retrieval).toBe('eacs');
    const layers = Object.values(graph.trace.layers as Record<string, LayerTrace>);
    expect(layers.every((l) => l.kValues.every((k) => k <= 3))).toBe(true);
    // `null` is a value: no cap on k. `undefined` leaves the index's.
    const uncapped = await daRag.retrieve(index, query, { entryPointsOnly: false, kMax: null });
    const feasible = Object.values(uncapped.trace.layers as Record<string, LayerTrace>);
    expect(
      feasible.some((l) => l.feasibleK !== null && l.feasibleK[1] > 3 && l.kValues.at(-1) === l.feasibleK[1]),
    ).toBe(true);
    expect((await daRag.retrieve(index, query, { entryPointsOnly: undefined })).trace.retrieval).toBe(
      'entry-points',
    );
  });

  it('checks options with their rules, naming the caller, the option and the value', async () => {
    await expect(
      daRag.build(CORPUS, offlineContext(), { maxCommunityNodes: 'null' as never }),
    ).rejects.toThrow('da-rag build: maxCommunityNodes must be a positive integer or null (got "null").');
    await expect(daRag.build(CORPUS, offlineContext(), { searchRegion: 0 })).rejects.toThrow(
      'da-rag build: searchRegion must be a positive integer or null (got 0).',
    );
    await expect(daRag.build(CORPUS, offlineContext(), { chunkSize: 100, overlap: 100 })).rejects.toThrow(
      'da-rag build: overlap (100) must be below chunkSize (100).',
    );
  });
});

describe('presets', () => {
  /** The options the presets differ in, in a fixed order. */
  const presetFields = (o: ReturnType<typeof resolveDaRagOptions>) => [
    o.entityLinking,
    o.relevance,
    o.maxCommunityNodes,
    o.querySeeds,
    o.communitySearch,
    o.anchors,
    o.memberOrder,
    o.reports,
    o.fillBudget,
  ];

  it("defaults to the paper's configuration", () => {
    const o = resolveDaRagOptions('t');
    expect(o.preset).toBe('paper');
    // DA-RAG §3–5: name merging, cosine relevance (Eq. 1), no size bound, no query vertex (Q-Peel),
    // one anchor, a report per community and the packed communities alone (§5.1).
    expect(presetFields(o)).toEqual([false, 'dense', null, 0, 'q-peel', 1, 'relevance', true, false]);
  });
  it("the offline preset sets grag's measured settings, and explicit options win over it", () => {
    const o = resolveDaRagOptions('t', { preset: 'offline' }, { anchors: 3 });
    expect(presetFields(o)).toEqual([true, 'hybrid', 10, 1, 'local', 3, 'linked', false, true]);
    expect(() => resolveDaRagOptions('t', { preset: 'fast' })).toThrow(
      /preset must be one of paper, offline/,
    );
  });
  it('an index saved before presets takes the offline settings it was built with', async () => {
    const saved = { ...resolveDaRagOptions('t', { preset: 'offline' }) } as Record<string, unknown>;
    delete saved.preset;
    delete saved.memberOrder;
    const o = savedDaRagOptions('t', saved);
    expect(o.preset).toBe('offline');
    expect(o.memberOrder).toBe('linked');
    expect(savedDaRagOptions('t', { ...saved, preset: 'paper' }).memberOrder).toBe('relevance');
  });
});
