import { embedAll, InvalidArgumentError, modelFingerprint, ProviderError } from '@grag/core';
import { describe, expect, it } from 'vitest';
import { KNOWN_EMBEDDING_DIMENSIONS } from '../src/index.js';
import { type FakeOpenAIServer, rejection, useFakeServer } from './fake-server.js';

let server: FakeOpenAIServer;
const provider = useFakeServer((fresh) => {
  server = fresh;
});

/** The number at the end of `input-17`. */
const numberOf = (input: string) => Number(input.slice(input.lastIndexOf('-') + 1));

describe('OpenAIEmbedder settings', () => {
  it('knows the output size of OpenAI models and reports the contract fields', () => {
    const p = provider();
    expect(KNOWN_EMBEDDING_DIMENSIONS).toEqual({
      'text-embedding-3-small': 1536,
      'text-embedding-3-large': 3072,
      'text-embedding-ada-002': 1536,
    });
    const small = p.embedding('text-embedding-3-small');
    expect([
      small.specificationVersion,
      small.provider,
      small.modelId,
      small.dimensions,
      small.maxBatchSize,
    ]).toEqual(['v1', 'openai', 'text-embedding-3-small', 1536, 256]);
    expect(p.embedding('text-embedding-3-large').dimensions).toBe(3072);
    expect(p.embedding('text-embedding-ada-002').dimensions).toBe(1536);
    expect(modelFingerprint(p.embedding('text-embedding-3-small', { dimensions: 256 }))).toBe(
      'openai:text-embedding-3-small:256',
    );
  });

  it('throws InvalidArgumentError asking for dimensions when the model is unknown', () => {
    let error: unknown;
    try {
      provider().embedding('nomic-embed-text');
    } catch (e) {
      error = e;
    }
    expect(InvalidArgumentError.isInstance(error) && error.argument).toBe('dimensions');
    expect((error as Error).message).toContain("embedding('nomic-embed-text', { dimensions:");
  });

  it('rejects a batch size or dimensions that is not a positive integer', () => {
    expect(() => provider().embedding('x', { dimensions: 0 })).toThrow(
      /dimensions must be a positive integer/,
    );
    expect(() => provider().embedding('x', { dimensions: 3, batchSize: 1.5 })).toThrow(/batchSize/);
  });
});

describe('OpenAIEmbedder requests', () => {
  it('sends model, input, float encoding and dimensions for text-embedding-3 models', async () => {
    server.embed = () => Array.from({ length: 8 }, (_, i) => i / 8);
    const embedder = provider().embedding('text-embedding-3-small', { dimensions: 8 });
    const result = await embedder.doEmbed({ values: ['alpha', 'beta'] });
    const [request] = server.requestsTo('embeddings');
    expect(request?.path).toBe('/v1/embeddings');
    expect(request?.body).toEqual({
      model: 'text-embedding-3-small',
      input: ['alpha', 'beta'],
      encoding_format: 'float',
      dimensions: 8,
    });
    expect(result.embeddings).toHaveLength(2);
    expect(result.embeddings[0]).toBeInstanceOf(Float32Array);
    expect(Array.from(result.embeddings[1]!)).toEqual([0, 0.125, 0.25, 0.375, 0.5, 0.625, 0.75, 0.875]);
    expect(result.usage).toEqual({ tokens: 4 });
  });

  it('leaves dimensions out for other models unless sendDimensions is on', async () => {
    await provider()
      .embedding('nomic-embed-text', { dimensions: 3 })
      .doEmbed({ values: ['a'] });
    await provider().embedding('text-embedding-ada-002').doEmbed({ values: [] });
    await provider()
      .embedding('my-model', { dimensions: 3, sendDimensions: true })
      .doEmbed({ values: ['b'] });
    const bodies = server.requestsTo('embeddings').map((r) => r.body);
    expect(bodies).toEqual([
      { model: 'nomic-embed-text', input: ['a'], encoding_format: 'float' },
      { model: 'my-model', input: ['b'], encoding_format: 'float', dimensions: 3 },
    ]);
  });

  it('answers an empty call without a request', async () => {
    const result = await provider().embedding('e', { dimensions: 3 }).doEmbed({ values: [] });
    expect(result.embeddings).toEqual([]);
    expect(server.requests).toHaveLength(0);
  });

  it('returns vectors in input order when the server lists them out of order', async () => {
    server.script('embeddings', {
      json: {
        data: [
          { index: 2, embedding: [2, 2, 2] },
          { index: 0, embedding: [0, 0, 0] },
          { index: 1, embedding: [1, 1, 1] },
        ],
        usage: { prompt_tokens: 9, total_tokens: 9 },
      },
    });
    const result = await provider()
      .embedding('e', { dimensions: 3 })
      .doEmbed({ values: ['x', 'y', 'z'] });
    expect(result.embeddings.map((v) => Array.from(v))).toEqual([
      [0, 0, 0],
      [1, 1, 1],
      [2, 2, 2],
    ]);
    expect(result.usage).toEqual({ tokens: 9 });
  });

  it('splits 600 inputs into requests of 256, 256 and 88 and keeps input order', async () => {
    server.embed = (input) => [numberOf(input), 0, 1];
    const values = Array.from({ length: 600 }, (_, i) => `input-${i}`);
    const embedder = provider().embedding('e', { dimensions: 3, batchSize: 256 });
    const result = await embedder.doEmbed({ values });
    const sizes = server.requestsTo('embeddings').map((r) => r.body.input.length);
    expect(sizes.sort((a, b) => b - a)).toEqual([256, 256, 88]);
    const sent = server.requestsTo('embeddings').flatMap((r) => r.body.input as string[]);
    expect(new Set(sent)).toEqual(new Set(values));
    expect(result.embeddings.map((v) => v[0])).toEqual(values.map((_, i) => i));
    expect(result.usage).toEqual({ tokens: 1200 });
  });

  it('runs the batches of one call within the provider concurrency limit', async () => {
    server.embed = (input) => [numberOf(input), 0, 0];
    const slow = Array.from({ length: 5 }, (_, b) => ({
      delayMs: 40,
      json: { data: [0, 1].map((i) => ({ index: i, embedding: [b * 2 + i, 0, 0] })) },
    }));
    server.script('embeddings', ...slow);
    const embedder = provider({ concurrency: 2 }).embedding('e', { dimensions: 3, batchSize: 2 });
    await embedder.doEmbed({ values: Array.from({ length: 10 }, (_, i) => `v-${i}`) });
    expect(server.requestsTo('embeddings')).toHaveLength(5);
    expect(server.maxInFlight).toBe(2);
  });

  it('works with embedAll from core, which splits by maxBatchSize', async () => {
    server.embed = (input) => [numberOf(input), 0, 0];
    const values = Array.from({ length: 7 }, (_, i) => `t-${i}`);
    const vectors = await embedAll(provider().embedding('e', { dimensions: 3, batchSize: 3 }), values);
    expect(server.requestsTo('embeddings').map((r) => r.body.input.length)).toEqual([3, 3, 1]);
    expect(vectors.map((v) => v[0])).toEqual([0, 1, 2, 3, 4, 5, 6]);
  });

  it('decodes base64 vectors from servers that send them anyway', async () => {
    const floats = new Float32Array([0.5, -1.25, 3]);
    const base64 = Buffer.from(floats.buffer).toString('base64');
    server.script('embeddings', { json: { data: [{ index: 0, embedding: base64 }] } });
    const result = await provider()
      .embedding('e', { dimensions: 3 })
      .doEmbed({ values: ['x'] });
    expect(Array.from(result.embeddings[0]!)).toEqual([0.5, -1.25, 3]);
    expect(result.usage).toBeUndefined();
  });
});

describe('OpenAIEmbedder errors', () => {
  it('names the expected and received length when a vector has the wrong size', async () => {
    server.embed = () => [1, 2];
    const error = await rejection(
      provider()
        .embedding('e', { dimensions: 3 })
        .doEmbed({ values: ['x'] }),
    );
    expect(ProviderError.isInstance(error)).toBe(true);
    const e = error as ProviderError;
    expect(e.retryable).toBe(false);
    expect(e.message).toContain('length 2');
    expect(e.message).toContain('expected 3');
  });

  it('rejects a response with fewer vectors than inputs', async () => {
    server.script('embeddings', { json: { data: [{ index: 0, embedding: [1, 2, 3] }] } });
    const error = await rejection(
      provider()
        .embedding('e', { dimensions: 3 })
        .doEmbed({ values: ['x', 'y'] }),
    );
    expect(ProviderError.isInstance(error) && error.message).toContain('1 embeddings for 2 inputs');
  });

  it('rejects duplicate or out-of-range indices', async () => {
    server.script(
      'embeddings',
      {
        json: {
          data: [
            { index: 0, embedding: [1, 2, 3] },
            { index: 0, embedding: [1, 2, 3] },
          ],
        },
      },
      { json: { data: [{ index: 4, embedding: [1, 2, 3] }] } },
    );
    const embedder = provider().embedding('e', { dimensions: 3 });
    const duplicate = await rejection(embedder.doEmbed({ values: ['x', 'y'] }));
    const outOfRange = await rejection(embedder.doEmbed({ values: ['x'] }));
    expect((duplicate as Error).message).toContain('index 0 appears twice');
    expect((outOfRange as Error).message).toContain('out of range');
  });

  it('rejects a body without data', async () => {
    server.script('embeddings', { json: { object: 'list' } });
    const error = await rejection(
      provider()
        .embedding('e', { dimensions: 3 })
        .doEmbed({ values: ['x'] }),
    );
    expect(ProviderError.isInstance(error) && error.message).toContain('no `data` array');
  });

  it('fails the whole call with the error of a failing batch', async () => {
    server.script(
      'embeddings',
      { json: { data: [{ index: 0, embedding: [0, 0, 0] }] } },
      { status: 401, json: { error: { message: 'bad key' } } },
    );
    const embedder = provider({ concurrency: 1 }).embedding('e', { dimensions: 3, batchSize: 1 });
    const error = await rejection(embedder.doEmbed({ values: ['a', 'b', 'c'] }));
    expect(ProviderError.isInstance(error)).toBe(true);
    expect((error as ProviderError).status).toBe(401);
    expect((error as ProviderError).message).toContain('embedding request');
    // The third batch is cancelled, not sent.
    expect(server.requestsTo('embeddings')).toHaveLength(2);
  });

  it('retries an embedding batch after a 429 with Retry-After', async () => {
    server.embed = (input) => [numberOf(input), 0, 0];
    server.script('embeddings', {
      status: 429,
      headers: { 'retry-after': '0.2' },
      json: { error: { message: 'x' } },
    });
    const result = await provider()
      .embedding('e', { dimensions: 3 })
      .doEmbed({ values: ['q-5'] });
    expect(result.embeddings[0]?.[0]).toBe(5);
    const [first, second] = server.requestsTo('embeddings');
    expect(second!.receivedAt - first!.receivedAt).toBeGreaterThanOrEqual(195);
  });
});
