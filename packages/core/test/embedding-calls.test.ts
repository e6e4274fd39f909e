import { describe, expect, it } from 'vitest';
import { InvalidArgumentError } from '../src/contracts/errors.js';
import {
  assertEmbedValues,
  embeddingBatches,
  embedInBatches,
  positiveIntegerSetting,
  probeVectorLength,
} from '../src/kit.js';

const vector = (x: number) => Float32Array.of(x);

describe('embedding provider helpers', () => {
  it('accepts a positive integer setting and refuses anything else, naming the setting', () => {
    expect(positiveIntegerSetting('batchSize', 3, '@grag/x: embedding(m)')).toBe(3);
    for (const bad of [0, -1, 1.5, '2', Number.NaN]) {
      expect(() => positiveIntegerSetting('batchSize', bad, '@grag/x: embedding(m)')).toThrow(
        `@grag/x: embedding(m): batchSize must be a positive integer, got ${String(bad)}.`,
      );
    }
  });

  it('refuses doEmbed values that are not an array of strings', () => {
    expect(() => assertEmbedValues(['a', 'b'], '@grag/x', 'm')).not.toThrow();
    const refuse = () => assertEmbedValues(['a', 1], '@grag/x', 'm');
    expect(refuse).toThrow(InvalidArgumentError);
    expect(refuse).toThrow("@grag/x: doEmbed on 'm': values must be an array of strings.");
  });

  it('splits values into consecutive batches', () => {
    expect(embeddingBatches(['a', 'b', 'c'], 2)).toEqual([['a', 'b'], ['c']]);
    expect(embeddingBatches(['a', 'b'], Number.POSITIVE_INFINITY)).toEqual([['a', 'b']]);
    expect(embeddingBatches([], 2)).toEqual([]);
  });

  it('embeds batch after batch in order and sums the usage only when every batch reports it', async () => {
    const starts: number[] = [];
    const embed = (usage: boolean) => async (batch: string[], start: number) => {
      starts.push(start);
      const embeddings = batch.map((_, i) => vector(start + i));
      return usage ? { embeddings, usage: { tokens: batch.length } } : { embeddings };
    };
    const aborted = () => new Error('aborted');
    const all = await embedInBatches(['a', 'b', 'c'], 2, embed(true), { aborted });
    expect(all.embeddings.map((v) => v[0])).toEqual([0, 1, 2]);
    expect(all.usage).toEqual({ tokens: 3 });
    expect(starts).toEqual([0, 2]);
    expect((await embedInBatches(['a', 'b', 'c'], 2, embed(false), { aborted })).usage).toBeUndefined();
    expect(await embedInBatches([], 2, embed(true), { aborted })).toEqual({
      embeddings: [],
      usage: { tokens: 0 },
    });
  });

  it('stops before the next batch once the signal aborts', async () => {
    const controller = new AbortController();
    let calls = 0;
    const run = embedInBatches(
      ['a', 'b', 'c'],
      1,
      async (batch) => {
        calls++;
        controller.abort();
        return { embeddings: batch.map(() => vector(0)) };
      },
      { abortSignal: controller.signal, aborted: () => new Error('stopped') },
    );
    await expect(run).rejects.toThrow('stopped');
    expect(calls).toBe(1);
  });

  it('probes the vector length, mapping a failure and refusing an answer without a vector', async () => {
    const options = {
      aborted: () => new Error('aborted'),
      failure: (error: unknown) => new Error(`failed: ${(error as Error).message}`),
      lengthOf: (answer: number[][]) => answer[0]?.length ?? 0,
      none: () => new Error('no vector'),
    };
    expect(await probeVectorLength(async () => [[1, 2, 3]], options)).toBe(3);
    await expect(probeVectorLength(async () => [], options)).rejects.toThrow('no vector');
    await expect(
      probeVectorLength(async () => {
        throw new Error('down');
      }, options),
    ).rejects.toThrow('failed: down');
    const controller = new AbortController();
    controller.abort();
    let called = false;
    const probe = probeVectorLength(
      async () => {
        called = true;
        return [[1]];
      },
      { ...options, abortSignal: controller.signal },
    );
    await expect(probe).rejects.toThrow('aborted');
    expect(called).toBe(false);
  });
});
