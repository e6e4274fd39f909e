/**
 * End to end over HTTP: `@ai-sdk/openai-compatible` models, wrapped by this package, against an
 * OpenAI-compatible server on 127.0.0.1 — a whole KET-RAG build, retrieval and cited answer with
 * grag's prompt task suite, and the call options, errors and aborts as they travel the wire.
 */
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { AbortError, type Document, InvalidArgumentError, ProviderError } from '@grag/core';
import { createBuildContext, getTokenizer, Meter, meteredChat } from '@grag/core/kit';
import { createPromptTasks } from '@grag/core/tasks';
import { createKetRag } from '@grag/ket-rag';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { fromAiSdk, fromAiSdkEmbedding } from '../src/index.js';
import { type ChatRequest, type SeenRequest, startServer, type TestServer } from './server.js';

const DOCS: Document[] = [
  {
    id: 'yard',
    title: 'Kessler Shipyard',
    text: 'The Kessler Shipyard in Varnholm was founded in 1881 by Anton Kessler. It built ferries for the Veskan Strait.',
  },
  {
    id: 'orsa',
    title: 'Orsa',
    text: 'Orsa is an island across the Veskan Strait. Ferries from the Kessler Shipyard connect Orsa with Varnholm.',
  },
  {
    id: 'institute',
    title: 'Orsa Marine Institute',
    text: 'The Orsa Marine Institute was founded in 1923 by Mira Kessler, daughter of Anton Kessler, and the biologist Tomas Brandt.',
  },
  {
    id: 'regatta',
    title: 'Varnholm Regatta',
    text: 'The Varnholm Regatta is a sailing race held every August. Boats race from Varnholm to Orsa and back.',
  },
];
const QUESTION = 'Who founded the Orsa Marine Institute?';

const ENTITIES: [string, string][] = [
  ['ORSA MARINE INSTITUTE', 'organization'],
  ['KESSLER SHIPYARD', 'organization'],
  ['VARNHOLM REGATTA', 'event'],
  ['ANTON KESSLER', 'person'],
  ['MIRA KESSLER', 'person'],
  ['TOMAS BRANDT', 'person'],
  ['VESKAN STRAIT', 'geo'],
  ['VARNHOLM', 'geo'],
  ['ORSA', 'geo'],
];

/** What the "model" behind the server answers: grag's prompts, recognised by their wording. */
function graphModel(request: ChatRequest): string {
  const user = request.messages.at(-1)?.content ?? '';
  const fencedText = /<<<\n([\s\S]*?)\n>>>/.exec(user)?.[1] ?? '';
  if (user.startsWith('Find in the text below')) {
    const found = ENTITIES.filter(([name]) => fencedText.toUpperCase().includes(name));
    const records = found.map(
      ([name, type]) => `("entity"<|>${name}<|>${type}<|>${name} appears in the text)`,
    );
    for (let i = 1; i < found.length; i++) {
      records.push(`("relationship"<|>${found[i - 1]![0]}<|>${found[i]![0]}<|>named together<|>5)`);
    }
    return `${records.join('##')}<|COMPLETE|>`;
  }
  if (user.startsWith('Some entities or relationships')) return '<|COMPLETE|>';
  if (user.startsWith('Are there still')) return 'NO';
  if (user.includes('describe the same entity')) return fencedText.split('\n')[1] ?? '';
  if (user.includes('Question:')) {
    const item = fencedText.split('\n\n').find((entry) => entry.includes('Mira Kessler'));
    const id = item && /^\[([^\]]+)\]/.exec(item)?.[1];
    return id
      ? `Mira Kessler and Tomas Brandt founded it in 1923 [${id}].`
      : 'It cannot be determined from the context.';
  }
  return `unexpected prompt: ${user.slice(0, 40)}`;
}

/** A bag-of-words vector of 32 buckets, normalised. */
function bagOfWords(text: string): number[] {
  const v = new Array<number>(32).fill(0);
  for (const word of text.toLowerCase().match(/[a-z0-9]+/g) ?? []) {
    let h = 7;
    for (const ch of word) h = (h * 31 + ch.charCodeAt(0)) % 32;
    v[h]! += 1;
  }
  const norm = Math.hypot(...v) || 1;
  return v.map((x) => x / norm);
}

let server: TestServer;
beforeEach(async () => {
  server = await startServer();
});
afterEach(async () => {
  await server.close();
});

const local = () => createOpenAICompatible({ baseURL: server.baseURL, name: 'local', apiKey: 'test' });
const sum = (requests: SeenRequest[], i: 0 | 1) => requests.reduce((n, r) => n + (r.usage?.[i] ?? 0), 0);

describe('a grag method end to end on @ai-sdk/openai-compatible', () => {
  it('builds a KET-RAG index, retrieves and answers with citations, every call over HTTP and metered', async () => {
    server.chat = graphModel;
    server.embed = bagOfWords;
    const provider = local();
    const meter = new Meter();
    const chat = meteredChat(fromAiSdk(provider.chatModel('test-chat')), meter, getTokenizer());
    const embedder = fromAiSdkEmbedding(provider.embeddingModel('test-embed'), {
      dimensions: 32,
      batchSize: 4,
    });
    const ctx = createBuildContext({ embedder, tasks: createPromptTasks(chat), chat, meter });
    expect(ctx.tasks.id).toBe('prompt:local.chat:test-chat');

    const ketRag = createKetRag();
    const index = await ketRag.build(DOCS, ctx, { chunking: 'document' });
    const retrieval = await ketRag.retrieve(index, QUESTION, { budgetTokens: 4000 });
    const answer = await ctx.tasks.answer(
      QUESTION,
      retrieval.items.map((item) => ({ id: item.id, text: item.text })),
    );

    // The model's answer, citing the passage that says it.
    expect(answer.answer).toBe('Mira Kessler and Tomas Brandt founded it in 1923 [institute/0].');
    expect(answer.citations).toEqual(['institute/0']);
    expect(retrieval.items.some((i) => i.kind === 'chunk' && i.id === 'institute/0')).toBe(true);
    // The graph the model extracted is in the index and in the retrieval.
    expect(index.stats.extraction.calls).toBeGreaterThan(0);
    expect(index.stats.entities).toBeGreaterThan(0);
    expect(retrieval.items.find((i) => i.kind === 'entity')?.id).toBe('orsa marine institute');

    const chats = server.seen('/v1/chat/completions');
    const embeddings = server.seen('/v1/embeddings');
    // One extraction request per core chunk, then its gleaning turn with the whole conversation.
    const extraction = chats.filter((r) =>
      r.body.messages.at(-1).content.startsWith('Find in the text below'),
    );
    const gleaning = chats.filter((r) => r.body.messages.at(-1).content.startsWith('Some entities'));
    expect(extraction).toHaveLength(index.stats.extraction.calls);
    expect(gleaning).toHaveLength(index.stats.extraction.calls);
    expect(chats).toHaveLength(2 * index.stats.extraction.calls + 1); // + the answer
    expect(gleaning.map((r) => r.body.messages.map((m: { role: string }) => m.role))).toEqual(
      gleaning.map(() => ['system', 'user', 'assistant', 'user']),
    );
    for (const r of chats) {
      expect(r.headers.authorization).toBe('Bearer test');
      expect(r.body).toMatchObject({ model: 'test-chat', temperature: 0 });
    }
    // Embeddings in batches of at most 4 inputs.
    expect(embeddings.length).toBeGreaterThan(1);
    for (const r of embeddings) {
      expect(r.body.model).toBe('test-embed');
      expect(r.body.input.length).toBeLessThanOrEqual(4);
    }
    // The Meter counted exactly the usage the server reported.
    const { total } = meter.snapshot();
    expect(total.chatCalls).toBe(chats.length);
    expect(total.inputTokens).toBe(sum(chats, 0));
    expect(total.outputTokens).toBe(sum(chats, 1));
    expect(total.embedTokens).toBe(sum(embeddings, 0));
    expect(total.embeddedValues).toBe(embeddings.reduce((n, r) => n + r.body.input.length, 0));
  });
});

describe('calls over HTTP', () => {
  it('sends the call options as the OpenAI-compatible request fields, JSON mode as response_format', async () => {
    const messages = [
      { role: 'system' as const, content: 'Answer in JSON.' },
      { role: 'user' as const, content: 'Is it ok?' },
    ];
    server.chat = () => '{"ok": true}';
    const chat = fromAiSdk(local().chatModel('test-chat'), { headers: { 'x-team': 'search' } });
    const result = await chat.doGenerate({
      messages,
      temperature: 0.2,
      maxOutputTokens: 64,
      stop: ['END'],
      seed: 7,
      responseFormat: 'json',
    });
    expect(result).toEqual({
      text: '{"ok": true}',
      usage: { inputTokens: 6, outputTokens: 2 },
      finishReason: 'stop',
    });
    const [request] = server.seen('/v1/chat/completions');
    expect(request?.headers['x-team']).toBe('search');
    expect(request?.body).toMatchObject({
      model: 'test-chat',
      messages,
      temperature: 0.2,
      max_tokens: 64,
      stop: ['END'],
      seed: 7,
      response_format: { type: 'json_object' },
    });
  });

  it('maps an HTTP 401 to a ProviderError naming the provider, the model and the key to check', async () => {
    server.failures = [{ status: 401, message: 'Incorrect API key provided' }];
    const error = await fromAiSdk(local().chatModel('test-chat'))
      .doGenerate({ messages: [{ role: 'user', content: 'hi' }] })
      .catch((e: unknown) => e);
    expect(ProviderError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ provider: 'local.chat', status: 401, retryable: false });
    expect((error as Error).message).toMatch(
      /^@grag\/ai-sdk: chat call to local\.chat model 'test-chat' failed: HTTP 401: Incorrect API key provided — check the API key/,
    );
    expect(server.requests).toHaveLength(1);
  });

  it('retries a 429 per maxRetries, waiting what retry-after-ms says', async () => {
    server.failures = [{ status: 429, message: 'Rate limit reached', headers: { 'retry-after-ms': '5' } }];
    server.embed = () => [1, 0, 0];
    const embedder = fromAiSdkEmbedding(local().embeddingModel('test-embed'), {
      dimensions: 3,
      maxRetries: 1,
    });
    const { embeddings, usage } = await embedder.doEmbed({ values: ['one two', 'three'] });
    expect(embeddings.map((e) => [...e])).toEqual([
      [1, 0, 0],
      [1, 0, 0],
    ]);
    expect(usage).toEqual({ tokens: 3 });
    expect(server.requests).toHaveLength(2);
  });

  it('reports a server that is not there as a retryable ProviderError, in one line', async () => {
    const down = createOpenAICompatible({ baseURL: 'http://127.0.0.1:9/v1', name: 'local', apiKey: 'test' });
    const error = await fromAiSdk(down.chatModel('test-chat'), { maxRetries: 0 })
      .doGenerate({ messages: [{ role: 'user', content: 'hi' }] })
      .catch((e: unknown) => e);
    expect(ProviderError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ status: undefined, retryable: true });
    expect((error as Error).message).toMatch(
      /^@grag\/ai-sdk: chat call to local\.chat model 'test-chat' failed: could not reach the provider \(.*\) — check the provider's baseURL and the network\.$/,
    );
    expect((error as Error).message).not.toContain('\n');
  });

  it('aborts a request in flight with AbortError', async () => {
    server.delayMs = 2000;
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 30);
    const started = performance.now();
    const error = await fromAiSdk(local().chatModel('test-chat'))
      .doGenerate({ messages: [{ role: 'user', content: 'slow' }], abortSignal: controller.signal })
      .catch((e: unknown) => e);
    expect(AbortError.isInstance(error)).toBe(true);
    expect(performance.now() - started).toBeLessThan(1500);
  });

  it('refuses vectors of the wrong length from the server', async () => {
    server.embed = () => [1, 2];
    const embedder = fromAiSdkEmbedding(local().embeddingModel('test-embed'), { dimensions: 3 });
    const error = await embedder.doEmbed({ values: ['x'] }).catch((e: unknown) => e);
    expect(ProviderError.isInstance(error)).toBe(true);
    expect(InvalidArgumentError.isInstance(error)).toBe(false);
    expect((error as Error).message).toContain('returned a vector of length 2 for value 0, expected 3');
  });
});
