import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import type { LanguageModelV3StreamPart } from '@ai-sdk/provider';
import { AbortError, type ChatStreamPart, canStream, collectChatStream, ProviderError } from '@grag/core';
import { createPromptTasks, streamAnswer } from '@grag/core/tasks';
import { convertArrayToReadableStream, MockLanguageModelV3 } from 'ai/test';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { fromAiSdk } from '../src/index.js';
import { httpError, stalledModel, v3Usage } from './mocks.js';
import { startServer, type TestServer, words } from './server.js';

const ask = { messages: [{ role: 'user' as const, content: 'go' }] };

/** V3 stream parts writing `pieces`, then a finish part (with usage unless `null`). */
function streamParts(
  pieces: string[],
  usage: { input: number; output: number } | null = { input: 9, output: pieces.length },
): LanguageModelV3StreamPart[] {
  return [
    { type: 'stream-start', warnings: [] },
    { type: 'text-start', id: 't1' },
    ...pieces.map((delta): LanguageModelV3StreamPart => ({ type: 'text-delta', id: 't1', delta })),
    { type: 'text-end', id: 't1' },
    {
      type: 'finish',
      finishReason: { unified: 'stop', raw: 'stop' },
      usage: v3Usage(usage),
    },
  ];
}

function streaming(parts: LanguageModelV3StreamPart[]) {
  return new MockLanguageModelV3({
    doStream: async () => ({ stream: convertArrayToReadableStream(parts) }),
  });
}

async function collect(parts: AsyncIterable<ChatStreamPart>): Promise<ChatStreamPart[]> {
  const out: ChatStreamPart[] = [];
  for await (const part of parts) out.push(part);
  return out;
}

describe('doStream', () => {
  it('streams the text as it arrives, then one finish part with usage and finish reason', async () => {
    const chat = fromAiSdk(streaming(streamParts(['Ada ', 'met ', '', 'Bram.'])));
    expect(canStream(chat)).toBe(true);
    expect(await collect(chat.doStream(ask))).toEqual([
      { type: 'text-delta', text: 'Ada ' },
      { type: 'text-delta', text: 'met ' },
      { type: 'text-delta', text: 'Bram.' },
      { type: 'finish', usage: { inputTokens: 9, outputTokens: 4 }, finishReason: 'stop' },
    ]);
    expect(
      await collectChatStream(fromAiSdk(streaming(streamParts(['x', 'y'], null))).doStream(ask)),
    ).toEqual({
      text: 'xy',
      finishReason: 'stop',
    });
  });

  it('sends the call options as doGenerate does', async () => {
    const model = streaming(streamParts(['{}']));
    await collect(
      fromAiSdk(model).doStream({
        ...ask,
        temperature: 0,
        maxOutputTokens: 20,
        stop: ['##'],
        seed: 3,
        responseFormat: 'json',
      }),
    );
    expect(model.doStreamCalls[0]).toMatchObject({
      temperature: 0,
      maxOutputTokens: 20,
      stopSequences: ['##'],
      seed: 3,
      responseFormat: { type: 'json' },
    });
  });

  it('throws a ProviderError from the iteration when the call fails, and after the text so far when the stream fails', async () => {
    const refused = new MockLanguageModelV3({
      doStream: async () => {
        throw httpError(401, 'Incorrect API key provided');
      },
    });
    const error = await collect(fromAiSdk(refused).doStream(ask)).catch((e: unknown) => e);
    expect(ProviderError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ status: 401, retryable: false });

    const parts = streamParts(['half ', 'an answer']).slice(0, 4);
    parts.push({ type: 'error', error: httpError(500, 'stream broke') });
    const seen: ChatStreamPart[] = [];
    const broken = await (async () => {
      for await (const part of fromAiSdk(streaming(parts)).doStream(ask)) seen.push(part);
    })().catch((e: unknown) => e);
    expect(seen).toEqual([
      { type: 'text-delta', text: 'half ' },
      { type: 'text-delta', text: 'an answer' },
    ]);
    expect(ProviderError.isInstance(broken)).toBe(true);
    expect((broken as Error).message).toBe(
      "@grag/ai-sdk: chat call to mock-provider model 'mock-model-id' failed: HTTP 500: stream broke — the provider is overloaded or failing; try again later or raise maxRetries.",
    );
  });

  it('throws AbortError when the caller aborts mid-stream', async () => {
    const controller = new AbortController();
    const model = stalledModel('first ', (c, reason) => c.error(reason));
    const seen: string[] = [];
    const error = await (async () => {
      for await (const part of fromAiSdk(model).doStream({ ...ask, abortSignal: controller.signal })) {
        if (part.type === 'text-delta') {
          seen.push(part.text);
          controller.abort();
        }
      }
    })().catch((e: unknown) => e);
    expect(seen).toEqual(['first ']);
    expect(AbortError.isInstance(error)).toBe(true);
  });

  it('aborts the request when the consumer stops reading early', async () => {
    const model = stalledModel('enough', (c) => c.close());
    for await (const part of fromAiSdk(model).doStream(ask)) {
      if (part.type === 'text-delta') break;
    }
    expect(model.doStreamCalls[0]?.abortSignal?.aborted).toBe(true);
  });

  it('streams grag’s cited answer through streamAnswer', async () => {
    const model = streaming(streamParts(['Ada met Bram ', 'in the harbour [c2].']));
    const parts = [];
    for await (const part of streamAnswer(createPromptTasks(fromAiSdk(model)), 'Where did Ada meet Bram?', [
      { id: 'c1', text: 'Bram sails.' },
      { id: 'c2', text: 'Ada met Bram in the harbour.' },
    ]))
      parts.push(part);
    expect(parts.slice(0, 2)).toEqual([
      { type: 'text-delta', text: 'Ada met Bram ' },
      { type: 'text-delta', text: 'in the harbour [c2].' },
    ]);
    expect(parts[2]).toMatchObject({
      type: 'answer',
      answer: { answer: 'Ada met Bram in the harbour [c2].', citations: ['c2'] },
      usage: { inputTokens: 9, outputTokens: 2 },
    });
  });
});

describe('doStream over HTTP (@ai-sdk/openai-compatible)', () => {
  let server: TestServer;
  beforeEach(async () => {
    server = await startServer();
  });
  afterEach(async () => {
    await server.close();
  });

  it('streams Server-Sent Events from the server with the usage it reports', async () => {
    server.chat = () => 'Graph RAG retrieves a subgraph.';
    const local = createOpenAICompatible({
      baseURL: server.baseURL,
      name: 'local',
      apiKey: 'test',
      includeUsage: true,
    });
    const parts = await collect(
      fromAiSdk(local.chatModel('test-chat')).doStream({
        messages: [{ role: 'user', content: 'What is graph RAG?' }],
        temperature: 0,
      }),
    );
    const deltas = parts.filter((p) => p.type === 'text-delta').map((p) => p.text);
    expect(deltas).toEqual(['Graph ', 'RAG ', 'retrieves ', 'a ', 'subgraph.']);
    expect(parts.at(-1)).toEqual({
      type: 'finish',
      usage: { inputTokens: words('What is graph RAG?'), outputTokens: 5 },
      finishReason: 'stop',
    });
    expect(server.requests[0]?.body).toMatchObject({ model: 'test-chat', stream: true, temperature: 0 });
  });
});
