import { chunkDocument, createBuildContext } from '@grag/core/kit';
import { createPromptTasks } from '@grag/core/tasks';
import { createScriptedChatModel, createScriptedEmbedder } from '@grag/core/test';
import { describe, expect, test } from 'vitest';
import { createE2GraphRag, entityExtractorFromFunction } from '../src/index.js';
import { build, CORPUS_A, CORPUS_B, capitalized, context, docs, method, PAPER } from './fixtures.js';

describe('the method', () => {
  test('merges consecutive chunks of a group into one item, overlap removed', async () => {
    const filler = (n: number) => Array.from({ length: n }, (_, i) => `word${i}`).join(' ');
    const text = `${filler(30)} ${'Ada met Bob. '.repeat(15)}${filler(40)} Ada and Bob left. ${filler(40)}.`;
    const fixed = createE2GraphRag({
      extractor: capitalized,
      defaults: { ...PAPER, chunkSize: 40, overlap: 10 },
    });
    const index = await fixed.build([{ id: 'doc', text }], context());
    const chunks = chunkDocument({ id: 'doc', text }, { chunkSize: 40, overlap: 10 });
    const holding = chunks.filter((c) => /Ada/.test(c.text) && /Bob/.test(c.text)).map((c) => c.order);
    expect(holding.length).toBeGreaterThan(1);
    const r = await fixed.retrieve(index, 'Ada and Bob?');
    // Runs of consecutive chunks holding both names become single items.
    const runs: number[][] = [];
    for (const o of holding) {
      const last = runs.at(-1);
      if (last && last.at(-1) === o - 1) last.push(o);
      else runs.push([o]);
    }
    expect(runs.some((run) => run.length > 1)).toBe(true);
    expect(r.items.map((i) => i.text)).toEqual(
      runs.map((run) => text.slice(chunks[run[0]!]!.start, chunks[run.at(-1)!]!.end)),
    );
    expect(r.items.map((i) => i.id)).toEqual(
      runs.map((run) => (run.length === 1 ? `doc#${run[0]}` : `doc#${run[0]}..doc#${run.at(-1)}`)),
    );
  });

  test('extracts entities while the tree is being summarized', async () => {
    const events: string[] = [];
    const tasks = createPromptTasks(
      createScriptedChatModel(async () => {
        events.push('summary');
        await new Promise((resolve) => setTimeout(resolve, 5));
        return 'overview';
      }),
    );
    const extractor = entityExtractorFromFunction((s) => {
      events.push('extract');
      return s.match(/\b[A-Z][a-z]+\b/g) ?? [];
    });
    const m = createE2GraphRag({ extractor, defaults: { ...PAPER, chunking: 'document', concurrency: 1 } });
    const texts = Array.from({ length: 60 }, (_, i) => `Doc ${i} names Ada.`);
    await m.build(docs(texts), createBuildContext({ embedder: createScriptedEmbedder(), tasks }));
    const firstExtract = events.indexOf('extract');
    const lastSummary = events.lastIndexOf('summary');
    expect(events.filter((e) => e === 'summary')).toHaveLength(15); // levels of 12 and 3
    expect(firstExtract).toBeLessThan(lastSummary);
  });

  test('packs the evidence into the budget', async () => {
    const index = await build(CORPUS_B, 'b');
    const r = await method.retrieve(index, 'Xavier, Yara and Zeno?', { hops: 2, budgetTokens: 20 });
    expect(r.tokens).toBeLessThanOrEqual(20);
    expect(r.context.startsWith('[b0] Xavier-Yara: Xavier saw Yara.')).toBe(true);
    expect(r.items.length).toBeLessThan(5);
  });

  test('rejects an empty corpus and an empty query', async () => {
    await expect(method.build([], context())).rejects.toThrow(/corpus is empty/);
    const index = await build(CORPUS_A);
    await expect(method.retrieve(index, '  ')).rejects.toThrow(/query is empty/);
    await expect(method.retrieve(index, 'Alice and Bob?', { topK: 0 })).rejects.toThrow(/topK/);
  });
});
