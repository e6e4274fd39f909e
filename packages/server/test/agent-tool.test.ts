/**
 * A served index as an AI SDK agent's tool: `gragTool` from `@grag/ai-sdk` with `retrieve` calling
 * `grag serve` through the typed client (`@grag/server/client`). The agent (`generateText` with
 * `stopWhen`, the AI SDK's mock model scripted to call the tool and then answer) gets the served
 * index's items with their ids, scores and sources, as `POST /v1/query` returns them.
 */
import { gragTool } from '@grag/ai-sdk';
import type { RetrievedItem } from '@grag/core';
import { sourceLabel } from '@grag/core/kit';
import { bm25Rag } from '@grag/naive-rag';
import { createGragClient } from '@grag/server/client';
import { generateText, stepCountIs } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import { expect, it } from 'vitest';
import { buildIndexes, serveForTests } from './helpers.js';

const TOKEN = 'agent-tool-token';
const QUESTION = 'Who is the director of the Lindqvist Institute?';
const usage = {
  inputTokens: { total: 10, noCache: 10, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 5, text: 5, reasoning: undefined },
};

const served = serveForTests(async () => {
  const { bm25 } = await buildIndexes();
  return {
    indexes: [{ name: 'islands', method: bm25Rag, index: bm25 }],
    token: TOKEN,
    onError: () => {},
  };
});

it("gives an agent the served index's cited items through the typed client", async () => {
  const grag = createGragClient({ baseUrl: served().url, token: TOKEN });
  const asked: string[] = [];
  const searchDocuments = gragTool({
    k: 1,
    retrieve: async (query, { signal }) => {
      asked.push(query);
      const response = await grag.query(
        { question: query },
        { index: 'islands', ...(signal ? { signal } : {}) },
      );
      return response.retrieval;
    },
  });
  const model = new MockLanguageModelV3({
    doGenerate: [
      {
        content: [
          {
            type: 'tool-call',
            toolCallId: 'call-1',
            toolName: 'searchDocuments',
            input: JSON.stringify({ query: QUESTION }),
          },
        ],
        finishReason: { unified: 'tool-calls', raw: 'tool_calls' },
        usage,
        warnings: [],
      },
      {
        content: [{ type: 'text', text: 'Ilse Marren directs it [lindqvist].' }],
        finishReason: { unified: 'stop', raw: 'stop' },
        usage,
        warnings: [],
      },
    ],
  });

  const result = await generateText({
    model,
    tools: { searchDocuments },
    stopWhen: stepCountIs(3),
    prompt: QUESTION,
  });

  expect(asked).toEqual([QUESTION]);
  // What the route answers for the same question, read without the client.
  const direct = (await (
    await fetch(`${served().url}/v1/indexes/islands/query`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ question: QUESTION }),
    })
  ).json()) as { retrieval: { items: RetrievedItem[] } };
  expect(direct.retrieval.items.length).toBeGreaterThan(1);
  const [call] = result.steps[0]!.toolResults;
  expect(call?.input).toEqual({ query: QUESTION });
  const output = call?.output as { items: { id: string; score: number; text: string; source: string }[] };
  expect(output.items.map((item) => [item.id, item.score, item.text, item.source])).toEqual(
    direct.retrieval.items
      .slice(0, 1)
      .map((item) => [item.id, item.score, item.text, sourceLabel(item.source)]),
  );
  // The passage that names the director ranks first (its words: director, Lindqvist, institute twice).
  expect(output.items[0]!.id).toBe('lindqvist');
  // The model's second call read the tool's result.
  const toolMessage = model.doGenerateCalls[1]?.prompt.find((message) => message.role === 'tool');
  expect(JSON.stringify(toolMessage)).toContain('lindqvist');
  expect(result.text).toBe('Ilse Marren directs it [lindqvist].');
});
