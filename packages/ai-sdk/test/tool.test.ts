/**
 * `gragTool`: a grag index as an AI SDK tool. An agent (`generateText` with tools and `stopWhen`)
 * on `@ai-sdk/openai-compatible` against an OpenAI-compatible server on 127.0.0.1 calls the tool,
 * and the cited items come back to the model in its next request.
 */
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { InvalidArgumentError } from '@grag/core';
import { sourceLabel } from '@grag/core/kit';
import { refusalOf } from '@grag/core/test/vitest';
import { type Bm25RagIndex, bm25Rag } from '@grag/naive-rag';
import { generateText, stepCountIs } from 'ai';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { GRAG_TOOL_DESCRIPTION, type GragToolOutput, gragTool } from '../src/index.js';
import { buildHarbourIndex } from './harbour.js';
import { type ChatRequest, startServer, type TestServer } from './server.js';

const QUESTION = 'Who founded the Kessler Shipyard?';

let index: Bm25RagIndex;
let server: TestServer;

beforeAll(async () => {
  index = await buildHarbourIndex();
});

beforeEach(async () => {
  server = await startServer();
});

afterEach(async () => {
  await server.close();
});

/** The "model": call the tool first; once a tool result is in the conversation, answer from it. */
function agentModel(request: ChatRequest) {
  const result = request.messages.find((m) => m.role === 'tool');
  if (!result) {
    return { toolCalls: [{ id: 'call_1', name: 'searchDocuments', arguments: { query: QUESTION } }] };
  }
  const { items } = JSON.parse(result.content ?? '{}') as GragToolOutput;
  return `Anton Kessler founded it in 1881 [${items[0]?.id}].`;
}

describe('an AI SDK agent with gragTool over HTTP', () => {
  it('calls the tool, and its next request carries the cited items', async () => {
    server.chat = agentModel;
    const provider = createOpenAICompatible({ baseURL: server.baseURL, name: 'local', apiKey: 'test' });
    const result = await generateText({
      model: provider.chatModel('test-model'),
      tools: { searchDocuments: gragTool({ index, method: bm25Rag, k: 2 }) },
      stopWhen: stepCountIs(3),
      prompt: QUESTION,
    });

    const requests = server.seen('/v1/chat/completions');
    expect(requests).toHaveLength(2);
    // The tool as the model sees it: its description and the JSON schema of its input.
    const [declared] = requests[0]!.body.tools;
    expect(declared.function.name).toBe('searchDocuments');
    expect(declared.function.description).toBe(GRAG_TOOL_DESCRIPTION);
    expect(declared.function.parameters).toMatchObject({
      type: 'object',
      properties: { query: { type: 'string' } },
      required: ['query'],
    });

    // The second request: the tool's result, the first k items of the retrieval with their sources.
    const direct = await bm25Rag.retrieve(index, QUESTION);
    expect(direct.items.length).toBeGreaterThan(2);
    const toolMessage = (requests[1]!.body as ChatRequest).messages.find((m) => m.role === 'tool');
    expect(toolMessage?.tool_call_id).toBe('call_1');
    const output = JSON.parse(toolMessage!.content!) as GragToolOutput;
    expect(output.items).toEqual(
      direct.items.slice(0, 2).map((item) => ({
        id: item.id,
        kind: 'chunk',
        text: item.text,
        score: item.score,
        source: sourceLabel(item.source),
        docIds: item.source.docIds,
        ...(item.source.locations ? { locations: item.source.locations } : {}),
      })),
    );
    expect(output.items[0]).toMatchObject({
      source: 'history.pdf p. 3',
      docIds: ['kessler'],
      locations: [{ path: 'history.pdf', page: 3 }],
    });
    expect(output.items[1]).toMatchObject({ source: 'falls', docIds: ['falls'] });

    // BM25's scores, best first: the passage that names the founder ranks above the others.
    expect(output.items[0]!.score).toBeGreaterThan(output.items[1]!.score);
    expect(output.items[1]!.score).toBeGreaterThan(0);
    // What the tool received: the model's call, as the stub server sent it.
    expect(result.steps[0]!.toolCalls.map((call) => [call.toolName, call.input])).toEqual([
      ['searchDocuments', { query: QUESTION }],
    ]);

    expect(result.text).toBe(`Anton Kessler founded it in 1881 [${output.items[0]!.id}].`);
    expect(result.steps[0]!.toolResults[0]!.output).toEqual(output);
  });
});

describe('gragTool', () => {
  const execute = async (t: ReturnType<typeof gragTool>, query: string, abortSignal?: AbortSignal) =>
    (await t.execute!({ query }, {
      toolCallId: 'c',
      messages: [],
      context: {},
      ...(abortSignal ? { abortSignal } : {}),
    } as never)) as GragToolOutput;

  it('passes retrieveOptions to the method', async () => {
    const one = await execute(gragTool({ index, method: bm25Rag, retrieveOptions: { topK: 1 } }), QUESTION);
    expect(one.items.map((item) => item.docIds)).toEqual([['kessler']]);
    const all = await execute(gragTool({ index, method: bm25Rag }), QUESTION);
    expect(all.items).toHaveLength(3);
  });

  it('returns topK items when retrieveOptions gives topK and no k, though the method packs more', async () => {
    // A graph method packs several items per ranked unit: topK 2 gives 6 items here.
    const seen: unknown[] = [];
    const packing = {
      ...bm25Rag,
      name: 'packing',
      async retrieve(_index: Bm25RagIndex, _query: string, options: { topK?: number } = {}) {
        seen.push(options.topK);
        const items = Array.from({ length: (options.topK ?? 4) * 3 }, (_, i) => ({
          id: `n${i}`,
          kind: 'entity',
          text: `node ${i}`,
          score: 1 / (i + 1),
          source: { chunkIds: ['kessler'], docIds: ['kessler'] },
        }));
        return { context: '', items, tokens: 0, trace: {} };
      },
    } as unknown as typeof bm25Rag;
    const two = await execute(gragTool({ index, method: packing, retrieveOptions: { topK: 2 } }), QUESTION);
    expect(seen).toEqual([2]);
    expect(two.items.map((item) => item.id)).toEqual(['n0', 'n1']);
    // k wins over topK; without either, every item.
    const five = await execute(
      gragTool({ index, method: packing, retrieveOptions: { topK: 2 }, k: 5 }),
      QUESTION,
    );
    expect(five.items).toHaveLength(5);
    expect((await execute(gragTool({ index, method: packing }), QUESTION)).items).toHaveLength(12);
  });

  it('stops the retrieval when the call is aborted', async () => {
    const controller = new AbortController();
    controller.abort();
    await expect(execute(gragTool({ index, method: bm25Rag }), QUESTION, controller.signal)).rejects.toThrow(
      /abort/i,
    );
  });

  it('refuses a bad method, index, k or retrieveOptions with one line naming what to do', () => {
    const refusal = (fn: () => unknown): string => refusalOf(fn, InvalidArgumentError).message;
    expect(refusal(() => gragTool({ index, method: {} as typeof bm25Rag }))).toBe(
      '@grag/ai-sdk: gragTool needs `method`, a grag Method such as `bm25Rag` from @grag/naive-rag (got an object), or `retrieve`, a function.',
    );
    expect(
      refusal(() => gragTool({ index: undefined as unknown as Bm25RagIndex, method: bm25Rag })),
    ).toContain("gragTool needs `index`, an index of method 'bm25'");
    expect(refusal(() => gragTool({ index, method: bm25Rag, k: 0 }))).toBe(
      '@grag/ai-sdk: gragTool k must be a positive integer, got number 0.',
    );
    expect(
      refusal(() =>
        gragTool({ index, method: bm25Rag, retrieveOptions: { topk: 3 } as unknown as { topK: number } }),
      ),
    ).toBe(
      'bm25 retrieve: unknown option "topk"; did you mean "topK"? Valid options: budgetTokens, topK, signal.',
    );
    expect(
      refusal(() =>
        gragTool({
          index,
          method: bm25Rag,
          retrieveOptions: { signal: AbortSignal.timeout(1) } as unknown as { topK: number },
        }),
      ),
    ).toContain('takes no `signal` in retrieveOptions');
  });

  it('runs a given retrieve function with the query and the call signal, and cites what it returns', async () => {
    const direct = await bm25Rag.retrieve(index, QUESTION);
    const calls: { query: string; signal: AbortSignal | undefined }[] = [];
    const t = gragTool({
      k: 2,
      // As a served index answers through the typed client: a retrieval's JSON, items and all.
      retrieve: async (query, { signal }) => {
        calls.push({ query, signal });
        return JSON.parse(JSON.stringify(direct)) as typeof direct;
      },
    });
    const controller = new AbortController();
    const out = await execute(t, QUESTION, controller.signal);
    expect(calls).toEqual([{ query: QUESTION, signal: controller.signal }]);
    expect(out.items.map((item) => [item.id, item.score, item.source])).toEqual(
      direct.items.slice(0, 2).map((item) => [item.id, item.score, sourceLabel(item.source)]),
    );
    expect(out.items[0]!.source).toBe('history.pdf p. 3');

    const bad = gragTool({ retrieve: async () => ({ hits: [] }) as never });
    await expect(execute(bad, QUESTION)).rejects.toThrow(
      "@grag/ai-sdk: gragTool's retrieve must return { items: RetrievedItem[] } (a grag Retrieval), got an object.",
    );
  });

  it('refuses a retrieve that is not a function, or one given with an index', () => {
    expect(() => gragTool({ retrieve: 'http://127.0.0.1:8787' as never })).toThrow(
      '@grag/ai-sdk: gragTool retrieve must be a function (query, { signal }) => Promise<{ items }>, got the string "http://127.0.0.1:8787".',
    );
    expect(() =>
      gragTool({ retrieve: async () => ({ items: [] }), index, method: bm25Rag } as never),
    ).toThrow(
      '@grag/ai-sdk: gragTool takes either `retrieve` or `index` and `method`, not both (got index, method with retrieve).',
    );
  });

  it('validates the input the model sends against its schema', async () => {
    const t = gragTool({ index, method: bm25Rag });
    const schema = t.inputSchema as { validate?: (value: unknown) => Promise<{ success: boolean }> };
    expect((await schema.validate!({ query: QUESTION })).success).toBe(true);
    expect((await schema.validate!({ query: '  ' })).success).toBe(false);
    expect((await schema.validate!({ q: QUESTION })).success).toBe(false);
  });
});
