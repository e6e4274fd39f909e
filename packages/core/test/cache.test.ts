import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { embedAll, generateText } from '../src/index.js';
import {
  cachedChat,
  cachedEmbedder,
  callCacheKey,
  FileCallCache,
  MemoryCallCache,
  Meter,
} from '../src/kit.js';
import { createPromptTasks } from '../src/tasks/index.js';
import { createScriptedChatModel, createScriptedEmbedder } from '../src/test/index.js';

describe('callCacheKey', () => {
  it('ignores key order and separates different calls', () => {
    expect(callCacheKey({ a: 1, b: [1, 2] })).toBe(callCacheKey({ b: [1, 2], a: 1 }));
    expect(callCacheKey({ a: 1 })).not.toBe(callCacheKey({ a: 2 }));
    expect(callCacheKey({ a: 1 })).toMatch(/^[0-9a-f]{64}$/);
  });
});

describe('cachedChat', () => {
  it('answers a repeated extraction from the cache: zero model calls the second time', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'grag-cache-'));
    const answer = '("entity"<|>ADA<|>person<|>Mathematician)<|COMPLETE|>';
    const first = createScriptedChatModel(() => answer);
    const meter = new Meter();
    const tasks1 = createPromptTasks(cachedChat(first, new FileCallCache(dir), meter));
    const r1 = await meter.stage('extract', () => tasks1.extractGraph('Ada was a mathematician.'));
    expect(first.calls.length).toBe(2); // first pass + one gleaning

    // A new process would see the same files: a fresh cache object over the same directory.
    const second = createScriptedChatModel(() => {
      throw new Error('no model call expected');
    });
    const tasks2 = createPromptTasks(cachedChat(second, new FileCallCache(dir), meter));
    const r2 = await meter.stage('extract', () => tasks2.extractGraph('Ada was a mathematician.'));
    expect(second.calls.length).toBe(0);
    expect(r2).toEqual(r1);
    expect(meter.snapshot().stages.extract).toMatchObject({ cacheHits: 2, cacheMisses: 2 });
  });

  it('treats a different prompt or temperature as a different call', async () => {
    const model = createScriptedChatModel((call) => `echo ${call.messages.at(-1)!.content}`);
    const chat = cachedChat(model, new MemoryCallCache());
    await generateText(chat, { user: 'a' });
    await generateText(chat, { user: 'a' });
    await generateText(chat, { user: 'b' });
    await generateText(chat, { user: 'a' }, { temperature: 0.7 });
    expect(model.calls.length).toBe(3);
  });
});

describe('cachedChat in flight', () => {
  it('identical calls made at the same time reach the model once', async () => {
    const model = createScriptedChatModel(async () => {
      await new Promise((resolve) => setTimeout(resolve, 10));
      return 'answer';
    });
    const chat = cachedChat(model, new MemoryCallCache());
    const answers = await Promise.all(
      Array.from({ length: 5 }, () => generateText(chat, { user: 'same question' })),
    );
    expect(answers.map((a) => a.text)).toEqual(Array(5).fill('answer'));
    expect(model.calls).toHaveLength(1);
  });
});

describe('cachedEmbedder', () => {
  it('sends only the values it has not embedded before, and returns identical vectors', async () => {
    const base = createScriptedEmbedder({ dimensions: 8 });
    const meter = new Meter();
    const embedder = cachedEmbedder(base, new MemoryCallCache(), meter);
    const a = await embedAll(embedder, ['one', 'two']);
    const b = await embedAll(embedder, ['two', 'three', 'one']);
    expect(base.calls.map((c) => c.values)).toEqual([['one', 'two'], ['three']]);
    expect(Array.from(b[0]!)).toEqual(Array.from(a[1]!));
    expect(Array.from(b[2]!)).toEqual(Array.from(a[0]!));
    expect(meter.snapshot().total).toMatchObject({ cacheHits: 2, cacheMisses: 3 });
  });
});

describe('cachedEmbedder storage', () => {
  it('stores float32 bytes (exact round trip) and still reads entries written as number arrays', async () => {
    const cache = new MemoryCallCache();
    const model = createScriptedEmbedder({ dimensions: 3, embed: () => [0.1, -2.5e-8, 3.4028235e38] });
    const embedder = cachedEmbedder(model, cache);
    const [first] = (await embedder.doEmbed({ values: ['x'] })).embeddings;
    const [again] = (await embedder.doEmbed({ values: ['x'] })).embeddings;
    expect(model.calls).toHaveLength(1);
    expect(again).toEqual(first);
    expect(Array.from(again!)).toEqual(Array.from(Float32Array.from([0.1, -2.5e-8, 3.4028235e38])));
    // An entry in the older layout: a plain array of numbers.
    const key = callCacheKey({
      kind: 'embed',
      provider: 'scripted',
      modelId: 'scripted-embedder',
      dimensions: 3,
      value: 'y',
    });
    await cache.set(key, [1, 2, 3]);
    expect((await embedder.doEmbed({ values: ['y'] })).embeddings[0]).toEqual(Float32Array.from([1, 2, 3]));
    expect(model.calls).toHaveLength(1);
  });
});

describe('FileCallCache', () => {
  it('writes again after its directory was removed', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'grag-cache-'));
    const cache = new FileCallCache(join(dir, 'calls'));
    await cache.set('ab01', { n: 1 });
    await rm(join(dir, 'calls'), { recursive: true });
    await cache.set('ab02', { n: 2 });
    expect(await cache.get('ab02')).toEqual({ n: 2 });
    expect(await cache.get('ab01')).toBeUndefined();
  });

  it('keeps whole entries under concurrent writers of the same key and leaves no temporary files', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'grag-cache-'));
    const caches = [new FileCallCache(dir), new FileCallCache(dir)];
    const value = { text: 'x'.repeat(100_000) };
    await Promise.all(Array.from({ length: 40 }, (_, i) => caches[i % 2]!.set('ab12', value)));
    expect(await caches[0]!.get('ab12')).toEqual(value);
    expect(await readdir(join(dir, 'ab'))).toEqual(['ab12.json']);
    expect(await caches[1]!.get('cd34')).toBeUndefined();
  });
});
