/** Streamed answers over Server-Sent Events, on a real HTTP connection. */
import { describe, expect, it } from 'vitest';
import {
  get,
  parseEvents,
  postQuery,
  readUntil,
  serveForTests,
  streamingChat,
  streamingIndexes,
  withoutMs,
} from './helpers.js';

const errors: string[] = [];
const chat = streamingChat(['Ilse Marren ', 'directs the ', 'institute [lindqvist].'], { delayMs: 40 });
const broken = streamingChat(['It is ', 'never finished'], { failAfter: 1 });
const slow = streamingChat(['one ', 'two ', 'three ', 'four ', 'five '], { delayMs: 150 });

const served = serveForTests(async () => {
  return {
    indexes: (await streamingIndexes({ chat, broken, slow })).served,
    onError: (error, where) => errors.push(`${where}: ${(error as Error).message}`),
  };
});

describe('POST /v1/query with "stream": true', () => {
  it('sends retrieval, each delta as the model writes it, the parsed answer, then done', async () => {
    const question = 'Who directs the institute on Orsa?';
    const res = await postQuery(served().url, {
      question,
      method: 'scripted-graph',
      answer: true,
      stream: true,
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    // Read the body as it comes: the first delta arrives before the model has finished.
    const reader = res.body!.getReader();
    const decoder = new TextDecoder();
    let text = '';
    const seenAt: Record<string, number> = {};
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      text += decoder.decode(value, { stream: true });
      for (const event of ['delta', 'answer']) {
        if (seenAt[event] === undefined && text.includes(`event: ${event}`))
          seenAt[event] = performance.now();
      }
    }
    const events = parseEvents(text);
    expect(events.map((e) => e.event)).toEqual(['retrieval', 'delta', 'delta', 'delta', 'answer', 'done']);
    // The retrieval event is the JSON response without the answer.
    const whole = await (await postQuery(served().url, { question, method: 'scripted-graph' })).json();
    expect(withoutMs(events[0]!.data)).toEqual(withoutMs(whole));
    expect(events.slice(1, 4).map((e) => e.data)).toEqual([
      { text: 'Ilse Marren ' },
      { text: 'directs the ' },
      { text: 'institute [lindqvist].' },
    ]);
    expect(events[4]!.data).toEqual({
      text: 'Ilse Marren directs the institute [lindqvist].',
      citations: ['lindqvist'],
      sources: [{ id: 'lindqvist', docIds: ['lindqvist'], label: 'lindqvist' }],
    });
    expect(events[5]!.data).toEqual({});
    // The model waits 40 ms before each piece: the first delta came well before the answer.
    expect(seenAt.answer! - seenAt.delta!).toBeGreaterThan(60);
    // The model's answer prompt names the retrieved items.
    expect(chat.calls.at(-1)?.messages.at(-1)?.content).toContain('[lindqvist] Its director is Ilse Marren.');
  });

  it('streams the offline answer task as one delta', async () => {
    const question = 'Who founded the Kessler Shipyard?';
    const res = await postQuery(served().url, { question, topK: 2, answer: true, stream: true });
    const events = parseEvents(await res.text());
    expect(events.map((e) => e.event)).toEqual(['retrieval', 'delta', 'answer', 'done']);
    const whole = await (await postQuery(served().url, { question, topK: 2, answer: true })).json();
    expect(events[1]!.data).toEqual({ text: whole.answer.text });
    expect(events[2]!.data).toEqual(whole.answer);
  });

  it('ends with an error event, the usual JSON and no stack, when the model fails mid-stream', async () => {
    const res = await postQuery(served().url, {
      question: 'q',
      method: 'broken',
      answer: true,
      stream: true,
    });
    expect(res.status).toBe(200);
    const body = await res.text();
    const events = parseEvents(body);
    expect(events.map((e) => e.event)).toEqual(['retrieval', 'delta', 'error']);
    expect(events[2]!.data).toEqual({
      error: {
        code: 'internal_error',
        message: 'The server failed to answer this request; see the server log.',
      },
    });
    expect(body).not.toContain('/srv/secret');
    expect(errors.at(-1)).toBe(
      'streamed answer of broken: model crashed\n    at scripted (/srv/secret/model.ts:1:1)',
    );
  });

  it('answers errors found before the stream starts with a status and JSON, not a stream', async () => {
    const res = await postQuery(served().url, { question: '', answer: true, stream: true });
    expect(res.status).toBe(400);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  });

  it('answers JSON when "stream" is asked without "answer"', async () => {
    const res = await postQuery(served().url, { question: 'q', method: 'scripted-graph', stream: true });
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect((await res.json()).answer).toBeUndefined();
  });

  it('stops the model when the client goes away', async () => {
    const controller = new AbortController();
    const res = await get(served().url, '/v1/query', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ question: 'q', method: 'slow', answer: true, stream: true }),
      signal: controller.signal,
    });
    await readUntil(res, 'event: delta');
    controller.abort();
    await expect.poll(() => slow.aborted, { timeout: 3000 }).toBe(1);
    expect(errors.some((e) => e.startsWith('streamed answer of slow'))).toBe(false);
  });
});
