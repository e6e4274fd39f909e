/**
 * `POST /v1/query` with per-request method options and `topK` as the number of items returned:
 * options reach the method's `retrieve` (checked against its declared keys, with its own messages),
 * and `topK: k` returns exactly k items, their context and an answer read from them, streamed or not.
 */
import type { Retrieval } from '@grag/core';
import { getTokenizer } from '@grag/core/kit';
import { bm25Rag } from '@grag/naive-rag';
import { type NodeRagIndex, nodeRag } from '@grag/noderag';
import type { Hono } from 'hono';
import { beforeAll, describe, expect, it } from 'vitest';
import { createGragServer } from '../src/index.js';
import { buildIndexes, DOCS, offlineContext, parseEvents, streamingChat } from './helpers.js';

const QUESTION = 'Who owns the research vessel Aurora?';

let app: Hono;
let bm25: Awaited<ReturnType<typeof buildIndexes>>['bm25'];
let noderag: NodeRagIndex;
const chat = streamingChat(['The Lindqvist Institute ', 'owns it.']);

beforeAll(async () => {
  ({ bm25 } = await buildIndexes());
  noderag = await nodeRag.build(DOCS, offlineContext());
  app = createGragServer({
    indexes: [
      { method: bm25Rag, index: bm25 },
      { method: nodeRag, index: noderag },
      { name: 'noderag-chat', method: nodeRag, index: noderag, answer: chat },
    ],
    explorerDir: false,
  });
});

// biome-ignore lint/suspicious/noExplicitAny: response bodies are checked field by field
async function query(body: unknown): Promise<{ status: number; body: any }> {
  const res = await app.request('/v1/query', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  return {
    status: res.status,
    body: res.headers.get('content-type')?.includes('json') ? JSON.parse(text) : text,
  };
}

/** The message `method.retrieve` throws for `options`: what `grag query --set` prints. */
async function methodMessage(run: () => Promise<Retrieval>): Promise<string> {
  try {
    await run();
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error('expected the method to refuse the options');
}

const ids = (retrieval: { items: { id: string }[] }) => retrieval.items.map((item) => item.id);

describe('"options": the method retrieve options of one request', () => {
  it('reach the method: a NodeRAG option changes the retrieval as it does when called directly', async () => {
    const plain = await query({ question: QUESTION, method: 'noderag' });
    const vectorOnly = await query({
      question: QUESTION,
      method: 'noderag',
      options: { graphSearch: false, topK: 2 },
    });
    expect(plain.status).toBe(200);
    expect(vectorOnly.status).toBe(200);
    const direct = await nodeRag.retrieve(noderag, QUESTION, { graphSearch: false, topK: 2 });
    expect(ids(vectorOnly.body.retrieval)).toEqual(ids(direct));
    expect(vectorOnly.body.retrieval.trace.mode).toBe('vector-only');
    expect(plain.body.retrieval.trace.mode).not.toBe('vector-only');
    expect(ids(vectorOnly.body.retrieval).length).toBeLessThan(ids(plain.body.retrieval).length);
  });

  it("pass the method's ranking depth as options.topK (BM25 ranks one unit, not three)", async () => {
    const all = await query({ question: 'research vessel Aurora', method: 'bm25' });
    const one = await query({ question: 'research vessel Aurora', method: 'bm25', options: { topK: 1 } });
    expect(ids(all.body.retrieval)).toHaveLength(3);
    expect(ids(one.body.retrieval)).toEqual(ids(all.body.retrieval).slice(0, 1));
  });

  it('refuse a key the method does not declare with 400 and the message grag query --set gives', async () => {
    const res = await query({ question: QUESTION, method: 'noderag', options: { telport: 0.3 } });
    const cli = await methodMessage(() =>
      nodeRag.retrieve(noderag, QUESTION, { telport: 0.3 } as Parameters<typeof nodeRag.retrieve>[2]),
    );
    expect(res).toEqual({ status: 400, body: { error: { code: 'bad_request', message: cli } } });
    expect(cli).toMatch(
      /^noderag retrieve: unknown option "telport"; did you mean "teleport"\? Valid options: /,
    );
    const topk = await query({ question: QUESTION, method: 'bm25', options: { topk: 1 } });
    expect(topk.status).toBe(400);
    expect(topk.body.error.message).toMatch(/^bm25 retrieve: unknown option "topk"; did you mean "topK"\?/);
  });

  it("refuse a bad value with 400 and the method's own message", async () => {
    const res = await query({ question: QUESTION, method: 'noderag', options: { teleport: 2 } });
    const cli = await methodMessage(() => nodeRag.retrieve(noderag, QUESTION, { teleport: 2 }));
    expect(res).toEqual({ status: 400, body: { error: { code: 'bad_request', message: cli } } });
    expect(cli).toBe('noderag retrieve: teleport must be a number in [0, 1] (got 2).');
    const depth = await query({ question: QUESTION, method: 'bm25', options: { topK: 'many' } });
    expect(depth.status).toBe(400);
    expect(depth.body.error.message).toContain('topK must be a positive integer');
  });

  it('refuse signal and budgetTokens, which a request gives otherwise', async () => {
    expect(await query({ question: QUESTION, options: { signal: true } })).toEqual({
      status: 400,
      body: {
        error: {
          code: 'bad_request',
          message: '"options.signal" cannot be sent: a query stops when its client closes the connection.',
        },
      },
    });
    expect((await query({ question: QUESTION, options: { budgetTokens: 50 } })).body.error.message).toBe(
      '"options.budgetTokens" is the request\'s "budget": send {"budget": <tokens>}.',
    );
  });
});

describe('"topK": the number of items returned', () => {
  it('returns exactly k items of a graph method that packs many per ranked unit, with their context', async () => {
    const whole = await nodeRag.retrieve(noderag, QUESTION);
    expect(whole.items.length).toBeGreaterThan(5);
    for (const k of [1, 3, 5]) {
      const res = await query({ question: QUESTION, method: 'noderag', topK: k });
      const retrieval = res.body.retrieval;
      expect(ids(retrieval)).toEqual(ids(whole).slice(0, k));
      // The context is those k items and nothing else, counted.
      for (const item of whole.items) {
        expect(retrieval.context.includes(`[${item.id}] `), item.id).toBe(ids(retrieval).includes(item.id));
      }
      expect(retrieval.tokens).toBe(getTokenizer().count(retrieval.context));
      expect(retrieval.trace.firstItems).toEqual({ k, retrieved: whole.items.length });
    }
  });

  it("cuts the method's retrieval at options.topK's depth to k items", async () => {
    const res = await query({
      question: QUESTION,
      method: 'noderag',
      topK: 2,
      options: { graphSearch: false, topK: 4 },
    });
    const direct = await nodeRag.retrieve(noderag, QUESTION, { graphSearch: false, topK: 4 });
    expect(direct.items.length).toBeGreaterThan(2);
    expect(ids(res.body.retrieval)).toEqual(ids(direct).slice(0, 2));
  });

  it('answers from the k items alone', async () => {
    const k = 3;
    const res = await query({ question: QUESTION, method: 'noderag', topK: k, answer: true });
    const items = res.body.retrieval.items as { id: string; text: string }[];
    expect(items).toHaveLength(k);
    const expected = await noderag.providers.tasks.answer(
      QUESTION,
      items.map((item) => ({ id: item.id, text: item.text })),
    );
    expect(res.body.answer.text).toBe(expected.answer);
    expect(res.body.answer.citations).toEqual(expected.citations);
  });

  it('streams the k items, and the model is asked with those items alone', async () => {
    const whole = await nodeRag.retrieve(noderag, QUESTION);
    chat.calls.length = 0;
    const res = await query({
      question: QUESTION,
      method: 'noderag-chat',
      topK: 2,
      answer: true,
      stream: true,
    });
    expect(res.status).toBe(200);
    const events = parseEvents(res.body as string);
    expect(events.map((e) => e.event)).toEqual(['retrieval', 'delta', 'delta', 'answer', 'done']);
    const retrieval = (events[0]!.data as { retrieval: { items: { id: string }[] } }).retrieval;
    expect(ids(retrieval)).toEqual(ids(whole).slice(0, 2));
    expect(chat.calls).toHaveLength(1);
    const prompt = chat.calls[0]!.messages.map((m) => m.content).join('\n');
    for (const item of whole.items) {
      expect(prompt.includes(`[${item.id}]`), item.id).toBe(ids(retrieval).includes(item.id));
    }
  });

  it('leaves a retrieval of at most k items as the method returned it', async () => {
    const res = await query({ question: 'research vessel Aurora', method: 'bm25', topK: 10 });
    const direct = await bm25Rag.retrieve(bm25, 'research vessel Aurora');
    expect(res.body.retrieval.context).toBe(direct.context);
    expect(ids(res.body.retrieval)).toEqual(ids(direct));
    expect(res.body.retrieval.trace.firstItems).toBeUndefined();
  });
});
