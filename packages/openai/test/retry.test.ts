import { AbortError, ProviderError } from '@grag/core';
import { describe, expect, it } from 'vitest';
import {
  backoffDelay,
  createOpenAI,
  isRetryableStatus,
  OPENAI_DEFAULTS,
  parseRetryAfter,
} from '../src/index.js';
import { type FakeOpenAIServer, rejection, startFakeServer, useFakeServer } from './fake-server.js';

let server: FakeOpenAIServer;
const provider = useFakeServer((fresh) => {
  server = fresh;
});

const messages = [{ role: 'user' as const, content: 'hi' }];

/** Milliseconds between the arrival of request `i` and request `i + 1`. */
function gap(i: number): number {
  const a = server.requests[i];
  const b = server.requests[i + 1];
  if (!a || !b) throw new Error(`no requests ${i} and ${i + 1}`);
  return b.receivedAt - a.receivedAt;
}

describe('retry policy helpers', () => {
  it('documents the defaults of the brief', () => {
    expect(OPENAI_DEFAULTS).toEqual({
      timeoutMs: 60_000,
      maxRetries: 5,
      retryBaseDelayMs: 500,
      retryMaxDelayMs: 30_000,
      concurrency: 8,
    });
  });

  it('retries 408, 409, 429 and 5xx only', () => {
    const retryable = [400, 401, 403, 404, 408, 409, 413, 422, 429, 500, 502, 503, 504].filter(
      isRetryableStatus,
    );
    expect(retryable).toEqual([408, 409, 429, 500, 502, 503, 504]);
  });

  it('reads Retry-After as seconds or an HTTP date, and prefers retry-after-ms', () => {
    const now = Date.parse('2024-05-01T12:00:00Z');
    expect(parseRetryAfter(new Headers({ 'retry-after': '2' }), now)).toBe(2000);
    expect(parseRetryAfter(new Headers({ 'retry-after': '0.25' }), now)).toBe(250);
    expect(parseRetryAfter(new Headers({ 'retry-after': 'Wed, 01 May 2024 12:00:03 GMT' }), now)).toBe(3000);
    expect(parseRetryAfter(new Headers({ 'retry-after': 'Wed, 01 May 2024 11:59:00 GMT' }), now)).toBe(0);
    expect(parseRetryAfter(new Headers({ 'retry-after': '3', 'retry-after-ms': '120' }), now)).toBe(120);
    expect(parseRetryAfter(new Headers({ 'retry-after': 'soon' }), now)).toBeUndefined();
    expect(parseRetryAfter(new Headers(), now)).toBeUndefined();
    expect(parseRetryAfter(undefined, now)).toBeUndefined();
  });

  it('draws backoff delays from [0, min(max, base * 2^retry)) (full jitter)', () => {
    const policy = { maxRetries: 5, baseDelayMs: 100, maxDelayMs: 1000 };
    const top = () => 0.999;
    expect([0, 1, 2, 3, 4, 5].map((r) => backoffDelay(r, policy, top))).toEqual(
      [100, 200, 400, 800, 1000, 1000].map((cap) => cap * 0.999),
    );
    expect(backoffDelay(3, policy, () => 0)).toBe(0);
    expect(backoffDelay(1, policy, () => 0.5)).toBe(100);
  });
});

describe('retries against the server', () => {
  it.each([
    [
      'waits the Retry-After of a 429 before retrying, then succeeds',
      { 'retry-after': '0.2' },
      'slow down',
      195,
    ],
    ['waits retry-after-ms when the server sends it', { 'retry-after-ms': '150' }, 'x', 145],
  ])('%s', async (_title, headers, message, leastGapMs) => {
    server.script('chat', { status: 429, headers, json: { error: { message } } });
    const result = await provider().chat('m').doGenerate({ messages });
    expect(result.text).toBe('echo: hi');
    expect(server.requests).toHaveLength(2);
    expect(gap(0)).toBeGreaterThanOrEqual(leastGapMs);
  });

  it('caps a long Retry-After at retryMaxDelayMs', async () => {
    server.script('chat', {
      status: 429,
      headers: { 'retry-after': '30' },
      json: { error: { message: 'x' } },
    });
    const started = performance.now();
    await provider({ retryMaxDelayMs: 50 }).chat('m').doGenerate({ messages });
    expect(server.requests).toHaveLength(2);
    expect(performance.now() - started).toBeLessThan(2000);
  });

  it('retries a 429 without Retry-After with backoff and succeeds', async () => {
    server.script('chat', { status: 429, json: { error: { message: 'rate limited' } } });
    const result = await provider().chat('m').doGenerate({ messages });
    expect(result.text).toBe('echo: hi');
    expect(server.requests).toHaveLength(2);
  });

  it('retries a 500 and succeeds', async () => {
    server.script('chat', { status: 500, json: { error: { message: 'boom' } } });
    const result = await provider().chat('m').doGenerate({ messages });
    expect(result.text).toBe('echo: hi');
    expect(server.requests).toHaveLength(2);
  });

  it('gives up after maxRetries + 1 attempts on a 503 with a retryable ProviderError', async () => {
    const unavailable = { status: 503, json: { error: { message: 'overloaded' } } };
    server.script('chat', unavailable, unavailable, unavailable, unavailable);
    const error = await rejection(provider({ maxRetries: 2 }).chat('gpt-x').doGenerate({ messages }));
    expect(ProviderError.isInstance(error)).toBe(true);
    const e = error as ProviderError;
    expect([e.provider, e.status, e.retryable]).toEqual(['openai', 503, true]);
    expect(e.message).toContain('3 attempts');
    expect(e.message).toContain('HTTP 503');
    expect(e.message).toContain("'gpt-x'");
    expect(server.requests).toHaveLength(3);
  });

  it('retries with exponential backoff whose waits stay under the caps', async () => {
    const failing = { status: 502, json: { error: { message: 'bad gateway' } } };
    server.script('chat', failing, failing, failing);
    await provider({ retryBaseDelayMs: 20, retryMaxDelayMs: 40 }).chat('m').doGenerate({ messages });
    expect(server.requests).toHaveLength(4);
    // Caps: 20, 40, 40 ms (plus scheduling slack).
    expect([gap(0), gap(1), gap(2)].every((g, i) => g < [20, 40, 40][i]! + 150)).toBe(true);
  });

  it('times out a response that never comes, retries, then fails retryable', async () => {
    server.script('chat', { stall: 'headers' }, { stall: 'headers' });
    const started = performance.now();
    const error = await rejection(
      provider({ timeoutMs: 150, maxRetries: 1 }).chat('m').doGenerate({ messages }),
    );
    const elapsed = performance.now() - started;
    expect(ProviderError.isInstance(error)).toBe(true);
    const e = error as ProviderError;
    expect(e.retryable).toBe(true);
    expect(e.status).toBeUndefined();
    expect(e.message).toContain('timed out after 150 ms');
    expect(e.message).toContain('2 attempts');
    // Two attempts, each cut at 150 ms. The server runs in this process: on a loaded machine the
    // second attempt can be cut before the server has read its body, so it may have logged only one.
    expect(elapsed).toBeGreaterThanOrEqual(290);
    expect(server.requests.length).toBeGreaterThanOrEqual(1);
    expect(server.requests.length).toBeLessThanOrEqual(2);
  });

  it('times out a body that stops halfway, and a retry can succeed', async () => {
    server.script('chat', { stall: 'body' });
    const started = performance.now();
    const result = await provider({ timeoutMs: 150 }).chat('m').doGenerate({ messages });
    expect(result.text).toBe('echo: hi');
    expect(server.requests).toHaveLength(2);
    // Measured by the client: the server sees the first request some time after the timer started.
    expect(performance.now() - started).toBeGreaterThanOrEqual(145);
  });

  it('retries connection errors and reports them after the last attempt', async () => {
    const closed = await startFakeServer();
    const baseURL = closed.baseURL;
    await closed.close();
    const error = await rejection(
      createOpenAI({ baseURL, apiKey: 'k', maxRetries: 1, retryBaseDelayMs: 1 })
        .chat('m')
        .doGenerate({ messages }),
    );
    expect(ProviderError.isInstance(error)).toBe(true);
    const e = error as ProviderError;
    expect(e.retryable).toBe(true);
    expect(e.message).toContain('could not connect');
    expect(e.message).toContain('2 attempts');
  });
});

describe('abort', () => {
  it('rejects with AbortError when the signal aborts during a request, without retrying', async () => {
    server.script('chat', { stall: 'headers' });
    const controller = new AbortController();
    const pending = rejection(
      provider({ timeoutMs: 5000 }).chat('m').doGenerate({ messages, abortSignal: controller.signal }),
    );
    // Abort once the request is at the server (a fixed delay may fire before it got there on a busy machine).
    await expect.poll(() => server.requests.length).toBe(1);
    controller.abort();
    const error = await pending;
    expect(AbortError.isInstance(error)).toBe(true);
    expect(ProviderError.isInstance(error)).toBe(false);
    expect(server.requests).toHaveLength(1);
  });

  it('rejects with AbortError when the signal aborts during a backoff wait', async () => {
    server.script('chat', {
      status: 429,
      headers: { 'retry-after': '5' },
      json: { error: { message: 'x' } },
    });
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 80);
    const started = performance.now();
    const error = await rejection(
      provider().chat('m').doGenerate({ messages, abortSignal: controller.signal }),
    );
    expect(AbortError.isInstance(error)).toBe(true);
    expect(performance.now() - started).toBeLessThan(2000);
    expect(server.requests).toHaveLength(1);
  });

  it('sends nothing when the signal is already aborted', async () => {
    const controller = new AbortController();
    controller.abort();
    const chat = provider().chat('m');
    const embedder = provider().embedding('e', { dimensions: 3 });
    expect(
      AbortError.isInstance(await rejection(chat.doGenerate({ messages, abortSignal: controller.signal }))),
    ).toBe(true);
    expect(
      AbortError.isInstance(
        await rejection(embedder.doEmbed({ values: ['a'], abortSignal: controller.signal })),
      ),
    ).toBe(true);
    expect(server.requests).toHaveLength(0);
  });
});

describe('concurrency', () => {
  it('keeps at most `concurrency` chat requests in flight', async () => {
    server.script('chat', ...Array.from({ length: 6 }, () => ({ delayMs: 60, json: chatReply('slow') })));
    const chat = provider({ concurrency: 2 }).chat('m');
    const results = await Promise.all(Array.from({ length: 6 }, () => chat.doGenerate({ messages })));
    expect(results.map((r) => r.text)).toEqual(Array(6).fill('slow'));
    expect(server.requests).toHaveLength(6);
    expect(server.maxInFlight).toBe(2);
  });

  it('shares the limit between chat and embedding models of one provider', async () => {
    server.script('chat', ...Array.from({ length: 3 }, () => ({ delayMs: 60, json: chatReply('c') })));
    server.embed = (input) => [input.length, 0, 0];
    const p = provider({ concurrency: 3 });
    const chat = p.chat('m');
    const embedder = p.embedding('e', { dimensions: 3 });
    const slowEmbeddings = Array.from({ length: 3 }, (_, i) => ({
      delayMs: 60,
      json: { data: [{ index: 0, embedding: [i, 0, 0] }] },
    }));
    server.script('embeddings', ...slowEmbeddings);
    await Promise.all([
      ...Array.from({ length: 3 }, () => chat.doGenerate({ messages })),
      ...Array.from({ length: 3 }, (_, i) => embedder.doEmbed({ values: [`v${i}`] })),
    ]);
    expect(server.requests).toHaveLength(6);
    expect(server.maxInFlight).toBe(3);
  });

  it('does not share the limit between two provider instances', async () => {
    server.script('chat', ...Array.from({ length: 4 }, () => ({ delayMs: 80, json: chatReply('x') })));
    const a = provider({ concurrency: 1 }).chat('m');
    const b = provider({ concurrency: 1 }).chat('m');
    await Promise.all([a.doGenerate({ messages }), b.doGenerate({ messages })]);
    expect(server.maxInFlight).toBe(2);
  });
});

function chatReply(text: string) {
  return { choices: [{ index: 0, message: { role: 'assistant', content: text }, finish_reason: 'stop' }] };
}
