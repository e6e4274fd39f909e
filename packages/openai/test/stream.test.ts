import {
  AbortError,
  type ChatStreamPart,
  collectChatStream,
  InvalidArgumentError,
  ProviderError,
  streamChat,
} from '@grag/core';
import { streamAnswer } from '@grag/core/tasks';
import { describe, expect, it } from 'vitest';
import { SseReader } from '../src/stream.js';
import { chunkEvents, type FakeOpenAIServer, useFakeServer } from './fake-server.js';

let server: FakeOpenAIServer;
const provider = useFakeServer((fresh) => {
  server = fresh;
});

const messages = [{ role: 'user' as const, content: 'hello there' }];

async function collect(parts: AsyncIterable<ChatStreamPart>): Promise<ChatStreamPart[]> {
  const out: ChatStreamPart[] = [];
  for await (const part of parts) out.push(part);
  return out;
}

async function failure(parts: AsyncIterable<ChatStreamPart>, seen: ChatStreamPart[] = []): Promise<unknown> {
  try {
    for await (const part of parts) seen.push(part);
  } catch (error) {
    return error;
  }
  throw new Error('expected the stream to fail');
}

describe('OpenAIChatModel.doStream', () => {
  it('sends stream: true with include_usage and yields each delta, then usage and finish reason', async () => {
    const model = provider().chat('gpt-4o-mini');
    const parts = await collect(model.doStream({ messages, temperature: 0, maxOutputTokens: 20 }));
    expect(parts).toEqual([
      { type: 'text-delta', text: 'echo: ' },
      { type: 'text-delta', text: 'hello ' },
      { type: 'text-delta', text: 'there' },
      { type: 'finish', usage: { inputTokens: 11, outputTokens: 7 }, finishReason: 'stop' },
    ]);
    expect(server.requestsTo('chat')[0]?.body).toEqual({
      model: 'gpt-4o-mini',
      messages,
      temperature: 0,
      max_tokens: 20,
      stream: true,
      stream_options: { include_usage: true },
    });
  });

  it('joins to what doGenerate returns for the same answer', async () => {
    const model = provider().chat('gpt-4o-mini');
    const streamed = await collectChatStream(model.doStream({ messages }));
    const whole = await model.doGenerate({ messages });
    expect(streamed).toEqual(whole);
  });

  it('leaves stream_options out with streamUsage: false and reports no usage then', async () => {
    const model = provider().chat('local', { streamUsage: false });
    const parts = await collect(model.doStream({ messages }));
    expect(server.requestsTo('chat')[0]?.body.stream_options).toBeUndefined();
    expect(parts.at(-1)).toEqual({ type: 'finish', finishReason: 'stop' });
  });

  it('yields each delta as it arrives, before the server has finished', async () => {
    server.script('chat', { sse: { events: chunkEvents(['a', 'b', 'c']), delayMs: 150 } });
    const model = provider().chat('m');
    const arrivals: number[] = [];
    const start = performance.now();
    for await (const part of model.doStream({ messages })) {
      if (part.type === 'text-delta') arrivals.push(performance.now() - start);
    }
    expect(arrivals).toHaveLength(3);
    // One event every 150 ms (role chunk first): the first delta long before the last.
    expect(arrivals[2]! - arrivals[0]!).toBeGreaterThan(200);
  });

  it('maps finish_reason length and reads multi-line SSE data', async () => {
    server.script('chat', { sse: { events: chunkEvents(['cut sh'], { finishReason: 'length' }) } });
    const parts = await collect(provider().chat('m').doStream({ messages }));
    expect(parts).toEqual([
      { type: 'text-delta', text: 'cut sh' },
      { type: 'finish', finishReason: 'length' },
    ]);
    const reader = new SseReader();
    expect(reader.push('data: {"a":\r\ndata: 1}\r\n\r\n: comment\n\nevent: x\ndata: [DONE]', true)).toEqual([
      '{"a":\n1}',
      '[DONE]',
    ]);
  });

  it('retries a 503 before the stream starts, then streams', async () => {
    server.script('chat', { status: 503, json: { error: { message: 'overloaded' } } });
    const parts = await collect(provider().chat('m').doStream({ messages }));
    expect(server.requestsTo('chat')).toHaveLength(2);
    expect(
      parts
        .filter((p) => p.type === 'text-delta')
        .map((p) => (p as { text: string }).text)
        .join(''),
    ).toBe('echo: hello there');
  });

  it('throws a one-line ProviderError when the connection drops mid-stream, after the deltas that came', async () => {
    server.script('chat', { sse: { events: chunkEvents(['one ', 'two ']).slice(0, 3), end: 'cut' } });
    const seen: ChatStreamPart[] = [];
    const error = await failure(provider().chat('m').doStream({ messages }), seen);
    expect(seen).toEqual([
      { type: 'text-delta', text: 'one ' },
      { type: 'text-delta', text: 'two ' },
    ]);
    expect(ProviderError.isInstance(error)).toBe(true);
    expect((error as Error).message).toMatch(
      /^@grag\/openai: chat request for model 'm' lost the connection while streaming the response/,
    );
    expect((error as Error).message).not.toContain('\n');
    // Not retried: the text already given out cannot be taken back.
    expect(server.requestsTo('chat')).toHaveLength(1);
  });

  it('throws the server error event sent mid-stream', async () => {
    server.script('chat', {
      sse: {
        events: [...chunkEvents(['partial']).slice(0, 2), { error: { message: 'upstream model crashed' } }],
      },
    });
    const seen: ChatStreamPart[] = [];
    const error = await failure(provider().chat('m').doStream({ messages }), seen);
    expect(seen).toEqual([{ type: 'text-delta', text: 'partial' }]);
    expect((error as ProviderError).retryable).toBe(false);
    expect((error as Error).message).toContain('failed while streaming: upstream model crashed');
  });

  it('refuses a stream that ends with neither [DONE] nor a finish reason', async () => {
    server.script('chat', { sse: { events: chunkEvents(['x']).slice(0, 2), end: 'end' } });
    const error = await failure(provider().chat('m').doStream({ messages }));
    expect((error as Error).message).toContain('the stream ended before the response was complete');
  });

  it('times out a stream that stops sending', async () => {
    server.script('chat', { sse: { events: chunkEvents(['x']).slice(0, 2), end: 'hang' } });
    const seen: ChatStreamPart[] = [];
    const error = await failure(provider({ timeoutMs: 300 }).chat('m').doStream({ messages }), seen);
    expect(seen).toEqual([{ type: 'text-delta', text: 'x' }]);
    expect((error as Error).message).toContain('timed out: no data for 300 ms while streaming the response');
  });

  it('throws AbortError when the caller aborts mid-stream, and the server sees the request end', async () => {
    server.script('chat', { sse: { events: chunkEvents(['a', 'b', 'c', 'd']), delayMs: 100 } });
    const controller = new AbortController();
    const seen: ChatStreamPart[] = [];
    const stream = provider().chat('m').doStream({ messages, abortSignal: controller.signal });
    const error = await (async () => {
      try {
        for await (const part of stream) {
          seen.push(part);
          if (part.type === 'text-delta') controller.abort();
        }
      } catch (e) {
        return e;
      }
      return undefined;
    })();
    expect(AbortError.isInstance(error)).toBe(true);
    expect(seen).toEqual([{ type: 'text-delta', text: 'a' }]);
    await expect.poll(() => server.inFlight).toBe(0);
  });

  it('gives its concurrency permit back when the caller stops reading early', async () => {
    server.script('chat', { sse: { events: chunkEvents(['a', 'b', 'c']), delayMs: 50, end: 'hang' } });
    const model = provider({ concurrency: 1 }).chat('m');
    for await (const part of model.doStream({ messages })) {
      if (part.type === 'text-delta') break;
    }
    // With one permit, this call only starts when the first stream let its permit go.
    const result = await model.doGenerate({ messages });
    expect(result.text).toBe('echo: hello there');
    await expect.poll(() => server.inFlight).toBe(0);
  });

  it('reads a server that ignores stream: true and answers with JSON as one delta', async () => {
    server.script('chat', {
      json: {
        choices: [{ index: 0, message: { role: 'assistant', content: 'whole' }, finish_reason: 'stop' }],
        usage: { prompt_tokens: 3, completion_tokens: 1 },
      },
    });
    expect(await collect(provider().chat('m').doStream({ messages }))).toEqual([
      { type: 'text-delta', text: 'whole' },
      { type: 'finish', usage: { inputTokens: 3, outputTokens: 1 }, finishReason: 'stop' },
    ]);
  });

  it('refuses empty messages before any request', async () => {
    const error = await failure(provider().chat('m').doStream({ messages: [] }));
    expect(InvalidArgumentError.isInstance(error)).toBe(true);
    expect(server.requests).toHaveLength(0);
  });
});

describe('core streaming helpers on @grag/openai', () => {
  it('streamChat passes the model stream through', async () => {
    const parts = await collect(streamChat(provider().chat('m'), { messages }));
    expect(parts.map((p) => p.type)).toEqual(['text-delta', 'text-delta', 'text-delta', 'finish']);
  });

  it('streamAnswer streams the answer prompt and parses its citations', async () => {
    server.script('chat', {
      sse: {
        events: chunkEvents(['Orsa is an ', 'island [c2].'], {
          usage: { prompt_tokens: 40, completion_tokens: 6 },
        }),
      },
    });
    const context = [
      { id: 'c1', text: 'The shipyard was founded in 1881.' },
      { id: 'c2', text: 'Orsa is an island.' },
    ];
    const parts = [];
    for await (const part of streamAnswer(provider().chat('m'), 'What is Orsa?', context)) parts.push(part);
    expect(parts).toEqual([
      { type: 'text-delta', text: 'Orsa is an ' },
      { type: 'text-delta', text: 'island [c2].' },
      {
        type: 'answer',
        answer: { answer: 'Orsa is an island [c2].', citations: ['c2'], issues: [] },
        usage: { inputTokens: 40, outputTokens: 6 },
      },
    ]);
    const body = server.requestsTo('chat')[0]?.body;
    expect(body.temperature).toBe(0);
    expect(body.messages[1].content).toContain('[c2] Orsa is an island.');
  });
});
