/**
 * `POST /v1/chat`, the route for the AI SDK UI's `useChat`, on a real HTTP connection: sent and read
 * by the AI SDK's own `DefaultChatTransport` and `readUIMessageStream` (what `useChat` runs in the
 * browser), compared with `POST /v1/query` for the same question, and its refusals.
 */
import { bm25Rag } from '@grag/naive-rag';
import { DefaultChatTransport, readUIMessageStream, type UIMessage, type UIMessageChunk } from 'ai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningServer, serve } from '../src/index.js';
import { demoIndexes, QUESTION } from './explorer-fixture.js';
import {
  buildIndexes,
  get,
  postQuery,
  readUntil,
  scriptedGraph,
  scriptedIndex,
  serveForTests,
  streamingChat,
} from './helpers.js';

const errors: string[] = [];
const chat = streamingChat(['Ilse Marren ', 'directs the ', 'institute [lindqvist].']);
const recording = streamingChat(['Founded in 1881 [kessler].']);
const broken = streamingChat(['It is ', 'never finished'], { failAfter: 1 });
const slow = streamingChat(['one ', 'two ', 'three ', 'four ', 'five '], { delayMs: 150 });
const graph = { calls: [] as string[] };

const served = serveForTests(async () => {
  const { bm25 } = await buildIndexes();
  return {
    indexes: [
      ...(await demoIndexes()),
      { method: scriptedGraph, index: graph, answer: chat },
      { name: 'bm25-chat', method: bm25Rag, index: bm25, answer: recording },
      scriptedIndex(broken, 'broken'),
      scriptedIndex(slow, 'slow'),
    ],
    maxQuestionChars: 200,
    onError: (error, where) => errors.push(`${where}: ${(error as Error).message}`),
  };
}, 60_000);

function userMessage(text: string, id = 'u1'): UIMessage {
  return { id, role: 'user', parts: [{ type: 'text', text }] };
}

/** Send `messages` as `useChat` does, with `body` in the transport; every chunk, and the message they build. */
async function ask(
  messages: UIMessage[],
  body: Record<string, unknown> = {},
): Promise<{ chunks: UIMessageChunk[]; message: UIMessage }> {
  const transport = new DefaultChatTransport<UIMessage>({ api: `${served().url}/v1/chat`, body });
  const stream = await transport.sendMessages({
    chatId: 'chat-1',
    messages,
    trigger: 'submit-message',
    messageId: undefined,
    abortSignal: undefined,
  });
  const [forChunks, forMessage] = stream.tee();
  const chunks: UIMessageChunk[] = [];
  const collected = (async () => {
    for await (const chunk of forChunks) chunks.push(chunk);
  })();
  let message: UIMessage | undefined;
  for await (const state of readUIMessageStream({ stream: forMessage })) message = state;
  await collected;
  return { chunks, message: message! };
}

const textOf = (message: UIMessage) =>
  message.parts.map((part) => (part.type === 'text' ? part.text : '')).join('');
const sourcesOf = (message: UIMessage) =>
  message.parts.flatMap((part) => (part.type === 'source-document' ? [part] : []));

describe('POST /v1/chat', () => {
  it("answers useChat's request with the query route's answer: its text streamed, then a source per citation", async () => {
    for (const method of ['e2graphrag', 'bm25']) {
      const { chunks, message } = await ask([userMessage(QUESTION)], { method });
      const query = await (
        await postQuery(served().url, { question: QUESTION, method, answer: true })
      ).json();
      expect(query.answer.citations.length).toBeGreaterThan(0);

      expect(message.role).toBe('assistant');
      expect(textOf(message)).toBe(query.answer.text);
      expect(sourcesOf(message)).toEqual(
        query.answer.sources.map(
          (source: { id: string; docIds: string[]; locations: object[]; label: string }) => ({
            type: 'source-document',
            sourceId: source.id,
            mediaType: 'text/plain',
            title: source.label,
            filename: (source.locations[0] as { path: string }).path,
            providerMetadata: {
              grag: { itemId: source.id, docIds: source.docIds, locations: source.locations },
            },
          }),
        ),
      );
      // The offline answer task writes its answer in one piece.
      expect(chunks.map((c) => c.type)).toEqual([
        'start',
        'text-start',
        'text-delta',
        'text-end',
        ...query.answer.citations.map(() => 'source-document'),
        'finish',
      ]);
    }
  });

  it('streams a model that streams piece by piece, as the AI SDK UI message stream protocol (v1) over SSE', async () => {
    const res = await fetch(`${served().url}/v1/chat`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        messages: [userMessage('Who directs the institute on Orsa?')],
        method: 'scripted-graph',
      }),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(res.headers.get('x-vercel-ai-ui-message-stream')).toBe('v1');
    const body = await res.text();
    const data = body
      .split('\n\n')
      .filter((block) => block !== '')
      .map((block) => block.replace(/^data: /, ''));
    expect(data.at(-1)).toBe('[DONE]');
    const chunks = data.slice(0, -1).map((d) => JSON.parse(d) as UIMessageChunk);
    const id = (chunks[1] as { id: string }).id;
    expect(chunks).toEqual([
      { type: 'start', messageId: expect.any(String) },
      { type: 'text-start', id },
      { type: 'text-delta', id, delta: 'Ilse Marren ' },
      { type: 'text-delta', id, delta: 'directs the ' },
      { type: 'text-delta', id, delta: 'institute [lindqvist].' },
      { type: 'text-end', id },
      {
        type: 'source-document',
        sourceId: 'lindqvist',
        mediaType: 'text/plain',
        title: 'lindqvist',
        providerMetadata: { grag: { itemId: 'lindqvist', docIds: ['lindqvist'] } },
      },
      { type: 'finish' },
    ]);
    expect(graph.calls.at(-1)).toBe('Who directs the institute on Orsa?');
  });

  it('asks the last message alone, its text parts joined, whatever came before it', async () => {
    const history: UIMessage[] = [
      { id: 's', role: 'system', parts: [{ type: 'text', text: 'Be brief.' }] },
      userMessage('Where is Orsa?', 'u0'),
      {
        id: 'a0',
        role: 'assistant',
        parts: [
          { type: 'text', text: 'Across the Veskan Strait [orsa].' },
          { type: 'source-document', sourceId: 'orsa', mediaType: 'text/plain', title: 'orsa' },
        ],
      },
      {
        id: 'u1',
        role: 'user',
        parts: [
          { type: 'text', text: 'Who directs' },
          { type: 'file', mediaType: 'text/plain', url: 'data:text/plain;base64,eA==' },
          { type: 'text', text: 'the institute?' },
        ],
      },
    ];
    const { message } = await ask(history, { method: 'scripted-graph' });
    expect(graph.calls.at(-1)).toBe('Who directs\nthe institute?');
    expect(textOf(message)).toBe('Ilse Marren directs the institute [lindqvist].');
  });

  it("takes the question alone, as the README's prepareSendMessagesRequest sends it", async () => {
    const history = [userMessage('Where is Orsa?', 'u0'), userMessage('Who directs the institute?', 'u1')];
    const sent: unknown[] = [];
    const transport = new DefaultChatTransport<UIMessage>({
      api: `${served().url}/v1/chat`,
      body: { method: 'scripted-graph' },
      fetch: (url, init) => {
        sent.push(JSON.parse(init?.body as string));
        return fetch(url, init);
      },
      prepareSendMessagesRequest: ({ messages, body }) => ({
        body: { ...body, messages: messages.slice(-1) },
      }),
    });
    const stream = await transport.sendMessages({
      chatId: 'chat-2',
      messages: history,
      trigger: 'submit-message',
      messageId: undefined,
      abortSignal: undefined,
    });
    let message: UIMessage | undefined;
    for await (const state of readUIMessageStream({ stream })) message = state;
    expect(textOf(message!)).toBe('Ilse Marren directs the institute [lindqvist].');
    expect(graph.calls.at(-1)).toBe('Who directs the institute?');
    expect(sent).toEqual([{ method: 'scripted-graph', messages: [history[1]] }]);
  });

  it("passes method, topK and options to the retrieval as POST /v1/query does, and the model reads that query's items", async () => {
    const question = 'Who founded the Kessler Shipyard in 1881?';
    const fields = { method: 'bm25-chat', topK: 1, options: { topK: 2 } };
    const query = await (await postQuery(served().url, { question, ...fields })).json();
    expect(query.retrieval.items).toHaveLength(1);
    const { message } = await ask([userMessage(question)], fields);
    expect(textOf(message)).toBe('Founded in 1881 [kessler].');
    const prompt = recording.calls
      .at(-1)!
      .messages.map((m) => m.content)
      .join('\n');
    expect(prompt).toContain(query.retrieval.items[0].text);
    // The other documents are not in its context.
    expect(prompt).not.toContain('Lindqvist Institute is a marine research institute');
    expect(prompt).not.toContain('Orsa is an island');
  });

  it('ends with an error chunk naming no internals when the model fails mid-stream, and tells onError', async () => {
    const { chunks, message } = await ask([userMessage('q')], { method: 'broken' });
    expect(chunks.at(-1)).toEqual({
      type: 'error',
      errorText: 'The server failed to answer this request; see the server log.',
    });
    expect(textOf(message)).toBe('It is ');
    expect(JSON.stringify(chunks)).not.toContain('/srv/secret');
    expect(errors.at(-1)).toBe(
      'chat answer of broken: model crashed\n    at scripted (/srv/secret/model.ts:1:1)',
    );
  });

  it('stops the model when the client goes away', async () => {
    const controller = new AbortController();
    const res = await fetch(`${served().url}/v1/chat`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ messages: [userMessage('q')], method: 'slow' }),
      signal: controller.signal,
    });
    await readUntil(res, '"text-delta"');
    controller.abort();
    await expect.poll(() => slow.aborted, { timeout: 3000 }).toBe(1);
    expect(slow.calls).toHaveLength(1);
    expect(errors.some((e) => e.startsWith('chat answer of slow'))).toBe(false);
  });
});

describe('POST /v1/chat refuses a bad request with one JSON error, before any retrieval', () => {
  const example = '{"messages": [{"role": "user", "parts": [{"type": "text", "text": "<your question>"}]}]}';
  const user = (text: unknown) => ({ role: 'user', parts: [{ type: 'text', text }] });
  const cases: [string, unknown, number, string, string][] = [
    ['an array', [], 400, 'bad_request', `The body must be a JSON object like ${example}, got an array.`],
    ['no messages', { method: 'bm25' }, 400, 'bad_request', `Missing "messages": send ${example}.`],
    [
      'no message',
      { messages: [] },
      400,
      'bad_request',
      '"messages" must be a non-empty array of UI messages, got an array.',
    ],
    [
      'a string as a message',
      { messages: ['hi'] },
      400,
      'bad_request',
      '"messages[0]" must be a UI message, {"role": ..., "parts": [...]}, got a string.',
    ],
    [
      'an unknown role',
      { messages: [{ role: 'tool', parts: [] }, user('q')] },
      400,
      'bad_request',
      '"messages[0].role" must be "system", "user" or "assistant", got "tool".',
    ],
    [
      'content instead of parts',
      { messages: [{ role: 'user', content: 'q' }] },
      400,
      'bad_request',
      '"messages[0].parts" must be an array of parts, got undefined.',
    ],
    [
      'a part without a type',
      { messages: [{ role: 'user', parts: [{ text: 'q' }] }] },
      400,
      'bad_request',
      '"messages[0].parts[0].type" must be a string, e.g. "text", got undefined.',
    ],
    [
      'a string as a part',
      { messages: [{ role: 'user', parts: ['q'] }] },
      400,
      'bad_request',
      '"messages[0].parts[0]" must be a part, an object like {"type": "text", "text": "..."}, got a string.',
    ],
    [
      'a text part whose text is a number',
      { messages: [user(7)] },
      400,
      'bad_request',
      '"messages[0].parts[0].text" must be a string, got a number.',
    ],
    [
      'an assistant message last',
      { messages: [user('q'), { role: 'assistant', parts: [{ type: 'text', text: 'a' }] }] },
      400,
      'bad_request',
      'The last message must be the user\'s question (role "user"), got role "assistant".',
    ],
    [
      'a last message without text',
      { messages: [user('  \n ')] },
      400,
      'bad_request',
      'The last message has no text: send the question as a text part, {"type": "text", "text": "<your question>"}.',
    ],
    [
      'a question over maxQuestionChars',
      { messages: [user('x'.repeat(201))] },
      400,
      'bad_request',
      'The last message has 201 characters; the limit is 200.',
    ],
    [
      'an unknown field',
      { messages: [user('q')], question: 'q' },
      400,
      'bad_request',
      'Unknown field "question"; a chat request takes messages, id, trigger, messageId, method, budget, topK, options.',
    ],
    [
      'an unknown trigger',
      { messages: [user('q')], trigger: 'resume-stream' },
      400,
      'bad_request',
      '"trigger" must be "submit-message" or "regenerate-message", got "resume-stream".',
    ],
    [
      'a number as the chat id',
      { messages: [user('q')], id: 3 },
      400,
      'bad_request',
      '"id" must be a string, got a number.',
    ],
    [
      'a bad topK',
      { messages: [user('q')], topK: 0 },
      400,
      'bad_request',
      '"topK" must be a positive integer, got 0.',
    ],
    [
      'an option the method does not take',
      { messages: [user('q')], method: 'bm25', options: { topk: 3 } },
      400,
      'bad_request',
      'bm25 retrieve: unknown option "topk"; did you mean "topK"? Valid options: budgetTokens, topK, signal.',
    ],
    [
      'an unknown index',
      { messages: [user('q')], method: 'nope' },
      404,
      'unknown_index',
      'No index named "nope"; available: e2graphrag, bm25, scripted-graph, bm25-chat, broken, slow.',
    ],
  ];

  it.each(cases)('%s', async (_name, body, status, code, message) => {
    const before = graph.calls.length + recording.calls.length;
    const res = await fetch(`${served().url}/v1/chat`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    expect(res.status).toBe(status);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(await res.json()).toEqual({ error: { code, message } });
    expect(graph.calls.length + recording.calls.length).toBe(before);
  });

  it('refuses a body that is not JSON, not sent as JSON, missing or too large, as /v1/query does', async () => {
    const post = (body: string | undefined, type = 'application/json') =>
      get(served().url, '/v1/chat', {
        method: 'POST',
        headers: { 'content-type': type },
        ...(body !== undefined ? { body } : {}),
      });
    const notJson = await post('{"messages": [');
    expect([notJson.status, await notJson.json()]).toEqual([
      400,
      { error: { code: 'bad_request', message: `The body is not valid JSON; send ${example}.` } },
    ]);
    const none = await post(undefined);
    expect([none.status, await none.json()]).toEqual([
      400,
      { error: { code: 'bad_request', message: `The request has no body; send ${example} as JSON.` } },
    ]);
    const plain = await post(JSON.stringify({ messages: [user('q')] }), 'text/plain');
    expect(plain.status).toBe(415);
    expect((await plain.json()).error.code).toBe('unsupported_media_type');
    const large = await post(JSON.stringify({ messages: [user('x'.repeat(70_000))] }));
    expect(large.status).toBe(413);
    expect((await large.json()).error.code).toBe('payload_too_large');
  });
});

describe('POST /v1/chat behind the token and the browser guard', () => {
  let guarded: RunningServer;
  const TOKEN = 'chat-token';
  const APP = 'http://127.0.0.1:5173';

  beforeAll(async () => {
    guarded = await serve({
      indexes: [scriptedIndex(chat)],
      token: TOKEN,
      cors: [APP],
      explorerDir: false,
      port: 0,
    });
  });

  afterAll(async () => {
    await guarded?.close();
  });

  const post = (headers: Record<string, string>) =>
    get(guarded.url, '/v1/chat', {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify({ messages: [userMessage('q')] }),
    });

  it('needs the bearer token, and answers a page of an allowed origin with CORS headers', async () => {
    const anonymous = await post({});
    expect(anonymous.status).toBe(401);
    expect((await anonymous.json()).error.code).toBe('unauthorized');
    const allowed = await post({ authorization: `Bearer ${TOKEN}`, origin: APP });
    expect(allowed.status).toBe(200);
    expect(allowed.headers.get('access-control-allow-origin')).toBe(APP);
    expect(await allowed.text()).toContain('"type":"source-document"');
  });

  it("answers the preflight of an allowed origin's useChat, and refuses any other origin", async () => {
    const preflight = await get(guarded.url, '/v1/chat', {
      method: 'OPTIONS',
      headers: {
        origin: APP,
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'authorization,content-type',
      },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-headers')).toContain('authorization');
    const foreign = await post({ authorization: `Bearer ${TOKEN}`, origin: 'https://evil.example' });
    expect(foreign.status).toBe(403);
    expect((await foreign.json()).error.code).toBe('forbidden_origin');
  });

  it('refuses a chat on a server that gives no answers, pointing at /v1/query', async () => {
    const quiet = await serve({
      indexes: [scriptedIndex()],
      answer: false,
      explorerDir: false,
      port: 0,
    });
    try {
      const res = await get(quiet.url, '/v1/chat', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ messages: [userMessage('q')] }),
      });
      expect(res.status).toBe(400);
      expect(await res.json()).toEqual({
        error: {
          code: 'answer_unavailable',
          message:
            'This server gives no answers for index "scripted-graph"; read its retrieval with POST /v1/query.',
        },
      });
    } finally {
      await quiet.close();
    }
  });
});
