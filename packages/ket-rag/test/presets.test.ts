import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { InvalidArgumentError } from '@grag/core';
import { createBuildContext, readManifest } from '@grag/core/kit';
import { editedIndexCopy } from '@grag/core/test';
import { expectIdenticalRetrievals } from '@grag/core/test/vitest';
import { createOfflineProviders } from '@grag/offline';
import { beforeAll, describe, expect, it } from 'vitest';
import { createKetRag, type KetRagIndex, ketRag, resolveKetRagOptions } from '../src/index.js';
import { CORPUS } from './corpus.js';

const QUESTION = 'Who founded the Orsa Marine Institute?';
const context = () => {
  const { tasks, embedder } = createOfflineProviders();
  return createBuildContext({ embedder, tasks });
};

/** The values of the paper (§5, §6.1, Table 5, Algorithm 4), written out by hand. */
const PAPER_VALUES = {
  entryPoints: 'dense',
  entityLinking: false,
  titleUnits: false,
  unitsPerEntity: 0,
  entitySeeds: 'query',
  lexicalK: 2,
  semanticK: 2,
  collectFactor: 1,
  budgetSplit: 'fixed',
};

describe('settings presets', () => {
  it('the default (paper) preset sets the paper’s values; the offline preset keeps the official code’s k, collection and split', () => {
    expect(resolveKetRagOptions({ preset: 'paper' })).toMatchObject({ preset: 'paper', ...PAPER_VALUES });
    expect(resolveKetRagOptions()).toMatchObject({ preset: 'paper', ...PAPER_VALUES });
    expect(resolveKetRagOptions({ preset: 'offline' })).toMatchObject({
      preset: 'offline',
      entryPoints: 'hybrid',
      entityLinking: true,
      lexicalK: 1,
      semanticK: 1,
      collectFactor: 2,
      budgetSplit: 'rest',
    });
  });

  it('combines with any variant, and explicit options override it', () => {
    expect(resolveKetRagOptions({ variant: 'ms-graph-rag', preset: 'paper' })).toMatchObject({
      beta: 1,
      lambda: 1,
      textChannel: 'none',
      lexicalK: 2,
      entryPoints: 'dense',
    });
    expect(resolveKetRagOptions({ preset: 'paper', lexicalK: 1, budgetSplit: 'rest' })).toMatchObject({
      lexicalK: 1,
      semanticK: 2,
      budgetSplit: 'rest',
      collectFactor: 1,
    });
    // The last layer that names a preset wins; options of earlier layers still apply over it.
    expect(resolveKetRagOptions({ preset: 'paper', collectFactor: 3 }, { preset: 'offline' })).toMatchObject({
      preset: 'offline',
      collectFactor: 3,
      lexicalK: 1,
      entryPoints: 'hybrid',
    });
  });

  it('refuses an unknown preset, naming the presets', () => {
    expect(() => resolveKetRagOptions({ preset: 'official' as never })).toThrow(InvalidArgumentError);
    expect(() => resolveKetRagOptions({ preset: 'official' as never })).toThrow(
      'ket-rag: preset must be one of offline, paper (got "official").',
    );
    expect(() => resolveKetRagOptions({ budgetSplit: 'half' as never })).toThrow(/budgetSplit/);
  });
});

describe('the paper preset at build and retrieval', () => {
  let paper: KetRagIndex;
  let offline: KetRagIndex;
  beforeAll(async () => {
    paper = await ketRag.build(CORPUS, context(), {
      chunking: 'document',
      subChunkSize: 24,
      preset: 'paper',
    });
    offline = await ketRag.build(CORPUS, context(), {
      chunking: 'document',
      subChunkSize: 24,
      preset: 'offline',
    });
  });

  it('builds the KNN graph with k = 2: every chunk has at least two neighbours', () => {
    const degree = (index: KetRagIndex) => {
      const d = new Array<number>(index.chunks.length).fill(0);
      for (const e of index.knn!.edges) {
        d[e.source]! += 1;
        d[e.target]! += 1;
      }
      return d;
    };
    expect(paper.options).toMatchObject({ lexicalK: 2, semanticK: 2 });
    expect(Math.min(...degree(paper))).toBeGreaterThanOrEqual(2);
    expect(paper.knn!.edges.length).toBeGreaterThan(offline.knn!.edges.length);
  });

  it('gives the text channel (1 − λ)·L whatever the graph channel leaves unused', async () => {
    const fixed = await ketRag.retrieve(paper, QUESTION, { budgetTokens: 500 });
    expect(fixed.trace.budgetSplit).toBe('fixed');
    expect(fixed.trace.budgets).toEqual({ graph: 250, text: 250 });
    // The tiny skeleton does not fill its 250 tokens: the unused part is not given to the text.
    expect(fixed.trace.graphTokens as number).toBeLessThan(250);
    expect(fixed.trace.textTokens as number).toBeLessThanOrEqual(250);
    const quarter = await ketRag.retrieve(paper, QUESTION, { budgetTokens: 500, lambda: 0.25 });
    expect(quarter.trace.budgets).toEqual({ graph: 125, text: 375 });

    // 'rest' (the offline preset's, here as a retrieve option): the text gets what the graph left.
    const rest = await ketRag.retrieve(paper, QUESTION, { budgetTokens: 500, budgetSplit: 'rest' });
    const restBudgets = rest.trace.budgets as { graph: number; text: number };
    expect(restBudgets.graph).toBe(250);
    expect(restBudgets.text).toBeGreaterThan(250);
    expect(restBudgets.text).toBeLessThanOrEqual(500 - (rest.trace.graphTokens as number));
    expect(rest.tokens).toBeGreaterThan(fixed.tokens);
    await expect(ketRag.retrieve(paper, QUESTION, { budgetSplit: 'half' as never })).rejects.toThrow(
      InvalidArgumentError,
    );
  });

  it('is stored with the index and comes back at load', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'ket-rag-preset-'));
    try {
      await ketRag.save(paper, join(dir, 'index'));
      expect((await readManifest(join(dir, 'index'))).params).toMatchObject({
        preset: 'paper',
        ...PAPER_VALUES,
      });
      const loaded = await createKetRag().load(join(dir, 'index'), context());
      expect(loaded.options).toEqual(paper.options);
      const again = await ketRag.retrieve(loaded, QUESTION, { budgetTokens: 500 });
      expect(again.trace.budgets).toEqual({ graph: 250, text: 250 });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('loads an index saved when the offline preset was the default (params without a preset or some later option) as it was built', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'ket-rag-preset-'));
    try {
      await ketRag.save(offline, join(dir, 'saved'));
      const old = await editedIndexCopy(join(dir, 'saved'), join(dir, 'old'), 'manifest.json', (m) => {
        delete m.params.preset;
        // An option the offline defaults of its day filled in when it was not yet saved.
        delete m.params.collectFactor;
      });
      const loaded = await createKetRag().load(old, context());
      expect(loaded.options).toEqual(offline.options);
      expectIdenticalRetrievals(
        [await ketRag.retrieve(loaded, QUESTION, { budgetTokens: 500 })],
        [await ketRag.retrieve(offline, QUESTION, { budgetTokens: 500 })],
      );
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
