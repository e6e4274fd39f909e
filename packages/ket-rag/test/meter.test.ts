import type { Document } from '@grag/core';
import { createBuildContext, getTokenizer, Meter, meteredChat } from '@grag/core/kit';
import { createPromptTasks } from '@grag/core/tasks';
import { createScriptedChatModel, createScriptedEmbedder } from '@grag/core/test';
import { describe, expect, it } from 'vitest';
import { createKetRag, type KetRagVariant } from '../src/index.js';

const tokenizer = getTokenizer();
const NAMES = ['Ada', 'Bram', 'Cleo', 'Dirk', 'Edda', 'Finn', 'Gala', 'Hugo', 'Ines', 'Jorn'];
// Ten passages of the same shape: the same number of tokens give or take one.
const DOCS: Document[] = NAMES.map((name, i) => ({
  id: `d${i}`,
  text: `${name} met ${NAMES[(i + 1) % 10]} in the harbour town. ${name} and ${NAMES[(i + 3) % 10]} built a boat together.`,
}));

/** A chat model that extracts capitalised words as entities and links consecutive ones. */
function extractingModel() {
  return createScriptedChatModel((call) => {
    const user = call.messages.at(-1)!.content;
    const text = /<<<\n([\s\S]*?)\n>>>/.exec(user)?.[1] ?? '';
    if (user.includes('describe the same entity'))
      return text.split('\n').filter((l) => !/^\[\d+\]$/.test(l))[0] ?? '';
    const names = [...new Set(text.match(/\b[A-Z][a-z]+\b/g) ?? [])].filter((n) => n !== 'The');
    const records = names.map((n) => `("entity"<|>${n.toUpperCase()}<|>person<|>${n} is in the text)`);
    for (let i = 1; i < names.length; i++) {
      records.push(
        `("relationship"<|>${names[i - 1]!.toUpperCase()}<|>${names[i]!.toUpperCase()}<|>they meet<|>5)`,
      );
    }
    return `${records.join('##')}<|COMPLETE|>`;
  });
}

async function indexCost(variant: KetRagVariant, beta?: number) {
  const meter = new Meter();
  const model = extractingModel();
  const chat = meteredChat(model, meter, tokenizer);
  const ctx = createBuildContext({
    embedder: createScriptedEmbedder(),
    tasks: createPromptTasks(chat, { gleanings: 0 }),
    chat,
    meter,
  });
  const index = await createKetRag({ variant }).build(DOCS, ctx, {
    chunking: 'document',
    ...(beta !== undefined ? { beta } : {}),
  });
  const stages = meter.snapshot().stages;
  return { index, model, extract: stages.extract, summarize: stages.summarize };
}

describe('indexing cost', () => {
  it('sends one extraction call per core chunk, so the Meter’s extraction tokens scale with β', async () => {
    const full = await indexCost('ms-graph-rag');
    expect(full.extract!.chatCalls).toBe(10);
    const costs: number[] = [];
    for (const beta of [0.2, 0.4, 0.6, 0.8]) {
      const { extract, index, model } = await indexCost('ket-rag-p', beta);
      expect(extract!.chatCalls).toBe(Math.floor(10 * beta));
      // Exactly the core chunks were sent, and the Meter counted the tokens of those prompts.
      const sent = model.calls
        .map((c) => /<<<\n([\s\S]*?)\n>>>/.exec(c.messages.at(-1)!.content)?.[1])
        .filter((t) => t !== undefined && DOCS.some((d) => d.text === t));
      expect(new Set(sent)).toEqual(new Set(index.core.map((id) => DOCS.find((d) => d.id === id)!.text)));
      const promptTokens = model.calls
        .filter((c) => c.messages.at(-1)!.content.startsWith('Find in the text below'))
        .reduce((n, c) => n + c.messages.reduce((m, msg) => m + tokenizer.count(msg.content), 0), 0);
      expect(extract!.inputTokens).toBe(promptTokens);
      costs.push(extract!.inputTokens / full.extract!.inputTokens);
    }
    // Equal-sized passages: the cost ratio is β (±2 points for the token or two between passages).
    costs.forEach((ratio, i) => {
      expect(ratio).toBeGreaterThan([0.2, 0.4, 0.6, 0.8][i]! - 0.02);
      expect(ratio).toBeLessThan([0.2, 0.4, 0.6, 0.8][i]! + 0.02);
    });
  });

  it('makes Skeleton-RAG at β = 0.8 about 20% cheaper than the full graph, and Keyword-RAG free of chat calls', async () => {
    const full = await indexCost('ms-graph-rag');
    const skeleton = await indexCost('skeleton-rag');
    const saving = 1 - skeleton.extract!.inputTokens / full.extract!.inputTokens;
    expect(saving).toBeGreaterThan(0.18);
    expect(saving).toBeLessThan(0.22);
    const keyword = await indexCost('keyword-rag');
    expect(keyword.model.calls).toHaveLength(0);
    expect(keyword.extract).toBeUndefined();
  });

  it('counts the texts sent to extraction in the index stats, for providers that report no usage', async () => {
    const { index } = await indexCost('skeleton-rag');
    expect(index.stats.extraction.calls).toBe(8);
    expect(index.stats.extraction.inputTokens).toBe(
      index.core.reduce((n, id) => n + tokenizer.count(DOCS.find((d) => d.id === id)!.text), 0),
    );
    expect(index.stats.entities).toBeGreaterThan(0);
    expect(index.stats.relationships).toBeGreaterThan(0);
  });
});
