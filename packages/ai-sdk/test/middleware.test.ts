/**
 * `gragMiddleware`: the model reads the question with the index's items, and the items its answer
 * cites come back as the AI SDK's sources (generateText's `sources`, streamText's UI stream).
 */
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { InvalidArgumentError } from '@grag/core';
import { sourceLabel } from '@grag/core/kit';
import { type Bm25RagIndex, bm25Rag } from '@grag/naive-rag';
import {
  generateText,
  readUIMessageStream,
  simulateReadableStream,
  streamText,
  type UIMessage,
  wrapLanguageModel,
} from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import { beforeAll, describe, expect, it } from 'vitest';
import { GRAG_MIDDLEWARE_INSTRUCTIONS, gragMiddleware } from '../src/index.js';
import { buildHarbourIndex } from './harbour.js';
import { type ChatRequest, startServer } from './server.js';

const QUESTION = 'Who founded the Kessler Shipyard?';
const usage = {
  inputTokens: { total: 10, noCache: 10, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 5, text: 5, reasoning: undefined },
};
const finish = { unified: 'stop', raw: 'stop' } as const;

let index: Bm25RagIndex;

beforeAll(async () => {
  index = await buildHarbourIndex({ includeTitle: false });
});

/** A model that answers `text`, recording what it was asked. */
function answering(text: string) {
  return new MockLanguageModelV3({
    doGenerate: async () => ({
      content: [{ type: 'text', text }],
      finishReason: finish,
      usage,
      warnings: [],
    }),
  });
}

describe('gragMiddleware', () => {
  it('gives the model the first k items with the question, and returns the cited ones as sources', async () => {
    const model = answering('Anton Kessler founded it in 1881 [kessler].');
    const result = await generateText({
      model: wrapLanguageModel({ model, middleware: gragMiddleware({ index, method: bm25Rag, k: 2 }) }),
      system: 'Be brief.',
      prompt: QUESTION,
    });

    const direct = await bm25Rag.retrieve(index, QUESTION);
    expect(direct.items.length).toBeGreaterThan(2);
    const [first, second] = direct.items;
    const asked = model.doGenerateCalls[0]!.prompt;
    expect(asked[0]).toEqual({ role: 'system', content: 'Be brief.' });
    expect(asked[1]).toMatchObject({
      role: 'user',
      content: [
        { type: 'text', text: QUESTION },
        {
          type: 'text',
          text: `${GRAG_MIDDLEWARE_INSTRUCTIONS}\n\nSources:\n[${first!.id}] ${first!.text}\n[${second!.id}] ${second!.text}`,
        },
      ],
    });
    expect(first!.id).toBe('kessler');

    expect(result.text).toBe('Anton Kessler founded it in 1881 [kessler].');
    expect(result.sources).toEqual([
      expect.objectContaining({
        type: 'source',
        sourceType: 'document',
        id: 'kessler',
        title: 'history.pdf p. 3',
        mediaType: 'text/plain',
        filename: 'history.pdf',
        providerMetadata: {
          grag: { itemId: 'kessler', docIds: ['kessler'], locations: [{ path: 'history.pdf', page: 3 }] },
        },
      }),
    ]);
  });

  it('streams the answer and then its sources, which the UI message stream sends to useChat', async () => {
    const model = new MockLanguageModelV3({
      doStream: {
        stream: simulateReadableStream({
          chunks: [
            { type: 'text-start', id: 't' },
            { type: 'text-delta', id: 't', delta: 'Ferries cross to Orsa [strait]; ' },
            { type: 'text-delta', id: 't', delta: 'the yard dates from 1881 [kessler].' },
            { type: 'text-end', id: 't' },
            { type: 'finish', finishReason: finish, usage },
          ],
        }),
      },
    });
    const result = streamText({
      model: wrapLanguageModel({ model, middleware: gragMiddleware({ index, method: bm25Rag }) }),
      prompt: 'Where do the Kessler ferries go, and when was the shipyard founded?',
    });
    let message: UIMessage | undefined;
    for await (const state of readUIMessageStream({
      stream: result.toUIMessageStream({ sendSources: true }),
    })) {
      message = state;
    }
    const shown = message!.parts.flatMap((part): (string | string[])[] =>
      part.type === 'text'
        ? [part.text]
        : part.type === 'source-document'
          ? [[part.sourceId, part.title]]
          : [],
    );
    const items = (await bm25Rag.retrieve(index, 'Where do the Kessler ferries go?')).items;
    const label = (id: string) => sourceLabel(items.find((item) => item.id === id)!.source);
    expect(shown).toEqual([
      'Ferries cross to Orsa [strait]; the yard dates from 1881 [kessler].',
      ['strait', label('strait')],
      ['kessler', 'history.pdf p. 3'],
    ]);
  });

  it('searches with retrieve and the call signal, and leaves a call without a user question alone', async () => {
    const calls: { query: string; signal: AbortSignal | undefined }[] = [];
    const middleware = gragMiddleware({
      retrieve: async (query, { signal }) => {
        calls.push({ query, signal });
        return { items: (await bm25Rag.retrieve(index, query)).items };
      },
      instructions: 'Use these.',
      k: 1,
    });
    const controller = new AbortController();
    const model = answering('It was founded in 1881.');
    const result = await generateText({
      model: wrapLanguageModel({ model, middleware }),
      prompt: QUESTION,
      abortSignal: controller.signal,
    });
    expect(calls.map((call) => call.query)).toEqual([QUESTION]);
    expect(calls[0]!.signal).toBeInstanceOf(AbortSignal);
    expect(JSON.stringify(model.doGenerateCalls[0]!.prompt)).toContain(
      'Use these.\\n\\nSources:\\n[kessler] The Kessler Shipyard',
    );
    // No citation in the answer: no source.
    expect(result.sources).toEqual([]);

    const plain = answering('Hello.');
    await generateText({
      model: wrapLanguageModel({ model: plain, middleware }),
      messages: [
        {
          role: 'user',
          content: [{ type: 'file', data: new Uint8Array([1, 2, 3]), mediaType: 'image/png' }],
        },
      ],
    });
    expect(calls).toHaveLength(1);
    expect(plain.doGenerateCalls[0]!.prompt).toHaveLength(1);
  });

  it('refuses what gragTool refuses, naming gragMiddleware', () => {
    expect(() => gragMiddleware({ index, method: bm25Rag, k: 0 })).toThrow(
      '@grag/ai-sdk: gragMiddleware k must be a positive integer, got number 0.',
    );
    try {
      gragMiddleware({ index: undefined as unknown as Bm25RagIndex, method: bm25Rag });
      expect.unreachable();
    } catch (error) {
      expect(InvalidArgumentError.isInstance(error)).toBe(true);
      expect((error as Error).message).toContain("gragMiddleware needs `index`, an index of method 'bm25'");
    }
  });
});

describe('gragMiddleware over HTTP', () => {
  it('sends the sources to an OpenAI-compatible server and streams the cited ones back', async () => {
    const server = await startServer();
    try {
      server.chat = (request: ChatRequest) => {
        const user = JSON.stringify(request.messages.at(-1)?.content);
        return user.includes('[kessler] The Kessler Shipyard') ? 'Anton Kessler [kessler].' : 'No sources.';
      };
      const provider = createOpenAICompatible({ baseURL: server.baseURL, name: 'local', apiKey: 'test' });
      const model = wrapLanguageModel({
        model: provider.chatModel('test-model'),
        middleware: gragMiddleware({ index, method: bm25Rag, k: 1 }),
      });
      const result = streamText({ model, prompt: QUESTION });
      expect(await result.text).toBe('Anton Kessler [kessler].');
      expect((await result.sources).map((source) => [source.id, source.title])).toEqual([
        ['kessler', 'history.pdf p. 3'],
      ]);
      // One request; its user message holds the question and then the one item.
      const [request] = server.seen('/v1/chat/completions');
      expect(request!.body.stream).toBe(true);
      const content = (request!.body as ChatRequest).messages.at(-1)!.content as unknown;
      const texts = Array.isArray(content)
        ? (content as { text: string }[]).map((part) => part.text)
        : [String(content)];
      expect(texts.join('\n')).toContain(QUESTION);
      expect(texts.join('\n')).toContain(
        '[kessler] The Kessler Shipyard in Port Halvard was founded in 1881 by Anton Kessler.',
      );
      expect(texts.join('\n')).not.toContain('[falls]');
    } finally {
      await server.close();
    }
  });
});
