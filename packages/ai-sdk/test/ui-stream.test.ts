/**
 * `gragUIMessageStream`: a grag answer as an AI SDK UI message stream, read back with the AI SDK's
 * own `readUIMessageStream` (what `useChat` builds its messages with) and sent through
 * `createUIMessageStreamResponse`.
 */
import type { ChatCallOptions, ChatModel, ChatStreamPart, RetrievedItem, TaskSuite } from '@grag/core';
import { createUIMessageStreamResponse, readUIMessageStream, type UIMessage, type UIMessageChunk } from 'ai';
import { describe, expect, it } from 'vitest';
import { gragUIMessageStream } from '../src/index.js';

const QUESTION = 'Who founded the Kessler Shipyard?';

const ITEMS: RetrievedItem[] = [
  {
    id: 'c1',
    kind: 'chunk',
    text: 'The Kessler Shipyard in Port Halvard was founded in 1881 by Anton Kessler.',
    score: 2,
    source: { chunkIds: ['c1'], docIds: ['history'], locations: [{ path: 'history.pdf', page: 3 }] },
  },
  {
    id: 'c2',
    kind: 'chunk',
    text: 'Merrow Falls lies upriver from Port Halvard.',
    score: 1,
    source: { chunkIds: ['c2'], docIds: ['falls'] },
  },
  {
    id: 'c3',
    kind: 'chunk',
    text: 'Anton Kessler was born in Merrow Falls.',
    score: 0.5,
    source: { chunkIds: ['c3'], docIds: ['people'], locations: [{ path: 'people.csv', row: 12 }] },
  },
];

/** A chat model that streams `pieces` and records what it was asked. */
function streamingModel(pieces: string[], failAfter?: number): ChatModel & { calls: ChatCallOptions[] } {
  const model = {
    specificationVersion: 'v1' as const,
    provider: 'scripted',
    modelId: 'streaming',
    calls: [] as ChatCallOptions[],
    async doGenerate(call: ChatCallOptions) {
      model.calls.push(call);
      return { text: pieces.join('') };
    },
    async *doStream(call: ChatCallOptions): AsyncGenerator<ChatStreamPart> {
      model.calls.push(call);
      for (const [i, text] of pieces.entries()) {
        if (i === failAfter) throw new Error('the model went away');
        yield { type: 'text-delta', text };
      }
      yield { type: 'finish', finishReason: 'stop' };
    },
  };
  return model;
}

/** Every chunk of a stream, and the last state of the message `readUIMessageStream` builds from it. */
async function read(
  stream: ReadableStream<UIMessageChunk>,
): Promise<{ chunks: UIMessageChunk[]; message: UIMessage }> {
  const [forChunks, forMessages] = stream.tee();
  const chunks: UIMessageChunk[] = [];
  const reader = forChunks.getReader();
  const collected = (async () => {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      chunks.push(value);
    }
  })();
  let message: UIMessage | undefined;
  for await (const state of readUIMessageStream({ stream: forMessages })) message = state;
  await collected;
  return { chunks, message: message! };
}

describe('gragUIMessageStream', () => {
  it('streams the answer as one text part and each citation as a source part, in citation order', async () => {
    const model = streamingModel(['Anton Kessler ', 'founded it in 1881 [c1], ', 'in Port Halvard [c3].']);
    const { chunks, message } = await read(
      gragUIMessageStream({ question: QUESTION, retrieval: { items: ITEMS }, answer: model }),
    );
    // The model read the retrieved items.
    expect(model.calls).toHaveLength(1);
    const prompt = model.calls[0]!.messages.map((m) => m.content).join('\n');
    for (const item of ITEMS) expect(prompt).toContain(item.text);

    expect(chunks.map((c) => c.type)).toEqual([
      'start',
      'text-start',
      'text-delta',
      'text-delta',
      'text-delta',
      'text-end',
      'source-document',
      'source-document',
      'finish',
    ]);
    expect(message.role).toBe('assistant');
    const text = message.parts.filter((p) => p.type === 'text');
    expect(text).toEqual([
      expect.objectContaining({ text: 'Anton Kessler founded it in 1881 [c1], in Port Halvard [c3].' }),
    ]);
    const sources = message.parts.filter((p) => p.type === 'source-document');
    expect(sources).toEqual([
      {
        type: 'source-document',
        sourceId: 'c1',
        mediaType: 'text/plain',
        title: 'history.pdf p. 3',
        filename: 'history.pdf',
        providerMetadata: {
          grag: { itemId: 'c1', docIds: ['history'], locations: [{ path: 'history.pdf', page: 3 }] },
        },
      },
      {
        type: 'source-document',
        sourceId: 'c3',
        mediaType: 'text/plain',
        title: 'people.csv row 12',
        filename: 'people.csv',
        providerMetadata: {
          grag: { itemId: 'c3', docIds: ['people'], locations: [{ path: 'people.csv', row: 12 }] },
        },
      },
    ]);
  });

  it("answers in one piece from a task suite that does not stream, and gives a citation without a place its documents' label", async () => {
    const tasks = {
      id: 'extractive',
      answer: async () => ({
        answer: 'Upriver from Port Halvard [c2].',
        citations: ['c2', 'nowhere'],
        issues: [],
      }),
    } as unknown as TaskSuite;
    const { message } = await read(
      gragUIMessageStream({ question: 'Where is Merrow Falls?', retrieval: { items: ITEMS }, answer: tasks }),
    );
    expect(message.parts.filter((p) => p.type === 'text')).toEqual([
      expect.objectContaining({ text: 'Upriver from Port Halvard [c2].' }),
    ]);
    // 'nowhere' is no retrieved item: nothing to show for it.
    expect(message.parts.filter((p) => p.type === 'source-document')).toEqual([
      expect.objectContaining({ sourceId: 'c2', title: 'falls' }),
    ]);
  });

  it('sends source-url parts with sourceUrl, through createUIMessageStreamResponse as Server-Sent Events', async () => {
    const model = streamingModel(['Anton Kessler [c1].']);
    const response = createUIMessageStreamResponse({
      stream: gragUIMessageStream({
        question: QUESTION,
        retrieval: { items: ITEMS },
        answer: model,
        sourceUrl: (source) => `/documents/${source.docIds[0]}`,
      }),
    });
    expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const events = (await response.text())
      .split('\n\n')
      .filter((block) => block.startsWith('data: ') && block !== 'data: [DONE]')
      .map((block) => JSON.parse(block.slice(6)) as UIMessageChunk);
    expect(events.filter((e) => e.type === 'source-url')).toEqual([
      {
        type: 'source-url',
        sourceId: 'c1',
        url: '/documents/history',
        title: 'history.pdf p. 3',
        providerMetadata: {
          grag: { itemId: 'c1', docIds: ['history'], locations: [{ path: 'history.pdf', page: 3 }] },
        },
      },
    ]);
  });

  it('leaves out start and finish for a stream merged into another, and ends with an error chunk when the model fails', async () => {
    const merged = await read(
      gragUIMessageStream({
        question: QUESTION,
        retrieval: { items: ITEMS },
        answer: streamingModel(['Anton [c1].']),
        sendStart: false,
        sendFinish: false,
      }),
    );
    expect(merged.chunks.map((c) => c.type)).not.toContain('start');
    expect(merged.chunks.map((c) => c.type)).not.toContain('finish');

    const failed: UIMessageChunk[] = [];
    const reader = gragUIMessageStream({
      question: QUESTION,
      retrieval: { items: ITEMS },
      answer: streamingModel(['Anton ', 'Kessler'], 1),
      onError: (error) => `grag: ${(error as Error).message}`,
    }).getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      failed.push(value);
    }
    expect(failed.map((c) => c.type)).toEqual(['start', 'text-start', 'text-delta', 'error']);
    expect(failed.at(-1)).toEqual({ type: 'error', errorText: 'grag: the model went away' });
  });
});
