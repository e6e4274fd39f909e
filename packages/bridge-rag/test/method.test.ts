import { InvalidArgumentError } from '@grag/core';
import { createBuildContext } from '@grag/core/kit';
import { createOfflineProviders } from '@grag/offline';
import { beforeAll, describe, expect, test } from 'vitest';
import { type BridgeRagIndex, bridgeRag, createBridgeRag } from '../src/index.js';
import { DOCS, dictionary, QUESTION } from './fixtures.js';

const method = createBridgeRag({ extractor: dictionary });
const ctx = () => createBuildContext(createOfflineProviders());
const ids = (r: { items: { id: string }[] }) => r.items.map((i) => i.id);

let index: BridgeRagIndex;
beforeAll(async () => {
  index = await method.build(DOCS, ctx(), { entryPoints: 'lexical' });
});

describe('bridge-rag', () => {
  test('links the corpus: titles are entities, each document its home chunk', () => {
    expect(index.stats).toMatchObject({ documents: 6, chunks: 6, titleEntities: 6 });
    expect(index.homes).toEqual([
      'Nordlys',
      'Lindqvist Institute',
      'Harbour families',
      'Sable Gull',
      'Kessler Shipyard',
      'Merrow Falls',
    ]);
    const nordlys = [...index.graph.entitiesOf(0).entities].map((e) => index.graph.entities[e]);
    expect(nordlys).toEqual(expect.arrayContaining(['Nordlys', 'Lindqvist Institute', 'Edda Varn']));
  });

  test('without bridges the entry passages alone: BM25 finds the vessel, never the institute', async () => {
    const r = await method.retrieve(index, QUESTION, { bridges: 0 });
    expect(ids(r)[0]).toBe('nordlys#0');
    // The institute's passage shares no content word with the question: BM25 does not return it.
    expect(ids(r)).not.toContain('institute#0');
    expect(r.trace.bridges).toEqual([]);
  });

  test('places the title bridge, then the mention bridge, right behind the passage that names them', async () => {
    const r = await method.retrieve(index, QUESTION, { bridgeSeeds: 1 });
    expect(ids(r).slice(0, 3)).toEqual(['nordlys#0', 'institute#0', 'varn#0']);
    expect(r.trace.bridges).toEqual([
      { from: 'nordlys#0', entity: 'Lindqvist Institute', chunk: 'institute#0' },
      // The captain has no passage: her birth passage only mentions her, and matches "born", the
      // question's term the vessel's passage lacks.
      { from: 'nordlys#0', entity: 'Edda Varn', chunk: 'varn#0' },
    ]);
    expect(r.items.map((i) => i.score).slice(0, 3)).toEqual([1, 1 / 2, 1 / 3]);
    expect(r.context.startsWith('[nordlys#0] Nordlys\nNordlys is a research vessel')).toBe(true);
  });

  test('mentionBridges: 0 keeps the title bridge only; topK caps the passages', async () => {
    const r = await method.retrieve(index, QUESTION, { bridgeSeeds: 1, mentionBridges: 0, topK: 2 });
    expect(ids(r)).toEqual(['nordlys#0', 'institute#0']);
  });

  test('by default the passages after the 25th fill the budget; topK 25 stops there', async () => {
    // Forty short log entries, each naming the vessel the question asks about: every one fits in
    // the default 12,000-token budget, so all forty are packed; 25 of them with the old default.
    const logs = Array.from({ length: 40 }, (_, i) => ({
      id: `log${i}`,
      title: `Harbour log ${i + 1}`,
      text: `The vessel Nordlys called at Port Halvard on day ${i + 1} and took on water.`,
    }));
    const built = await method.build(logs, ctx(), { entryPoints: 'lexical' });
    const all = await method.retrieve(built, 'When did Nordlys call at Port Halvard?');
    expect(new Set(ids(all))).toEqual(new Set(logs.map((d) => `${d.id}#0`)));
    expect(all.trace.packed).toBe(40);
    expect(
      ids(await method.retrieve(built, 'When did Nordlys call at Port Halvard?', { topK: 25 })),
    ).toHaveLength(25);
    // The budget still bounds them: 120 tokens hold a few entries, not forty.
    const small = await method.retrieve(built, 'When did Nordlys call at Port Halvard?', {
      budgetTokens: 120,
    });
    expect(small.items.length).toBeGreaterThan(0);
    expect(small.items.length).toBeLessThan(10);
  });

  test('hybrid entry points (the default) reach the same bridges', async () => {
    const hybrid = await method.build(DOCS, ctx());
    const r = await method.retrieve(hybrid, QUESTION, { bridgeSeeds: 1 });
    expect(ids(r)[0]).toBe('nordlys#0');
    expect(ids(r).slice(1, 3)).toEqual(['institute#0', 'varn#0']);
    expect(r.trace.entryPoints).toBe('hybrid');
  });

  test('refuses an empty query, an unknown option and a context without a text analyzer, saying what to do', async () => {
    await expect(method.retrieve(index, '  ')).rejects.toThrow(/query is empty/);
    await expect(method.retrieve(index, QUESTION, { bridgeSeedz: 1 } as never)).rejects.toThrow(
      /bridgeSeeds/,
    );
    await expect(method.build(DOCS, ctx(), { bridges: -1 })).rejects.toThrow(InvalidArgumentError);
    const { textAnalyzer: _, ...bare } = createOfflineProviders();
    await expect(bridgeRag.build(DOCS, createBuildContext(bare))).rejects.toThrow(/text analyzer/);
    await expect(method.build([], ctx())).rejects.toThrow(/corpus is empty/);
  });

  test('reads entities with the context text analyzer by default (the offline wink analyzer)', async () => {
    const built = await bridgeRag.build(DOCS, ctx());
    expect(built.extractor.id).toMatch(/^wink/);
    // One seed: in a corpus this small every passage is among the first five, and a later seed is
    // never moved up as a bridge.
    const r = await bridgeRag.retrieve(built, QUESTION, { bridgeSeeds: 1 });
    expect(ids(r)[0]).toBe('nordlys#0');
    expect(r.trace.bridges).toContainEqual({
      from: 'nordlys#0',
      entity: 'Lindqvist Institute',
      chunk: 'institute#0',
    });
  });
});
