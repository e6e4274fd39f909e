/**
 * `grag index --estimate` against what a real build sends: the estimate runs in the CLI without a
 * model; the real build runs the same method on the demo corpus with a counting chat model and a
 * counting embedder, which tally the tokens of every message and text they receive.
 */
import type { ChatModel, Embedder, MeterSnapshot } from '@grag/core';
import { createBuildContext, getTokenizer } from '@grag/core/kit';
import { createPromptTasks, createSimulatedChat } from '@grag/core/tasks';
import { createOfflineEmbedder, createOfflineTasks, createWinkTextAnalyzer } from '@grag/offline';
import { describe, expect, it } from 'vitest';
import { readCorpus } from '../src/corpus.js';
import { demoCorpusPath, run } from '../src/index.js';
import { findMethod } from '../src/registry.js';
import { createSimulatedEmbedder } from '../src/simulate.js';
import { captureIO } from './helpers.js';

interface Tally {
  chatCalls: number;
  inputTokens: number;
  embeddedValues: number;
  embedTokens: number;
}

/** A chat model and an embedder that count what they are sent, per stage of the build. */
function countingModels(stageOf: () => string) {
  const tokenizer = getTokenizer('cl100k_base');
  const tally = new Map<string, Tally>();
  const at = (stage: string) => {
    let t = tally.get(stage);
    if (!t) {
      t = { chatCalls: 0, inputTokens: 0, embeddedValues: 0, embedTokens: 0 };
      tally.set(stage, t);
    }
    return t;
  };
  // Answers come from the offline heuristics, as the estimate's stand-in does.
  const answerer = createSimulatedChat(createOfflineTasks({ embedder: createOfflineEmbedder('tfidf') }));
  const chat: ChatModel = {
    specificationVersion: 'v1',
    provider: 'counting',
    modelId: 'gpt-4o-mini',
    async doGenerate(call) {
      const t = at(stageOf());
      t.chatCalls += 1;
      for (const message of call.messages) t.inputTokens += tokenizer.count(message.content);
      return answerer.doGenerate(call);
    },
  };
  const vectors = createSimulatedEmbedder({
    provider: 'counting',
    modelId: 'text-embedding-3-small',
    dimensions: 1536,
  });
  const embedder: Embedder = {
    ...vectors,
    async doEmbed(options) {
      const t = at(stageOf());
      t.embeddedValues += options.values.length;
      for (const value of options.values) t.embedTokens += tokenizer.count(value);
      return vectors.doEmbed(options);
    },
  };
  return { chat, embedder, tally };
}

const METHODS = ['ket-rag', 'e2graphrag', 'noderag', 'da-rag'];

describe('grag index --estimate', () => {
  it.each(METHODS)(
    '%s: calls and tokens per stage are within five percent of a real build with a counting model',
    async (name) => {
      const io = captureIO(process.cwd());
      const code = await run(['index', demoCorpusPath(), '--method', name, '--estimate', '--json', '-q'], io);
      expect(code, io.err()).toBe(0);
      const estimate = JSON.parse(io.out()) as MeterSnapshot & { mode: string };
      expect(estimate.mode).toBe('estimate');

      const entry = findMethod(name)!;
      const { documents } = await readCorpus(demoCorpusPath());
      let ctxRef: { meter: { currentStage: string } } | undefined;
      const models = countingModels(() => ctxRef?.meter.currentStage ?? 'other');
      const ctx = createBuildContext({
        embedder: models.embedder,
        tasks: createPromptTasks(models.chat),
        chat: models.chat,
        // as `grag index` makes a context: E2GraphRAG reads its entities with wink
        textAnalyzer: createWinkTextAnalyzer(),
      });
      ctxRef = ctx;
      await entry.method.build(documents, ctx, {});

      const stages = new Set([...models.tally.keys(), ...Object.keys(estimate.stages)]);
      let chatCalls = 0;
      for (const stage of stages) {
        const real = models.tally.get(stage) ?? {
          chatCalls: 0,
          inputTokens: 0,
          embeddedValues: 0,
          embedTokens: 0,
        };
        const est = estimate.stages[stage];
        chatCalls += real.chatCalls;
        expect(est?.chatCalls ?? 0, `${name} ${stage} chat calls`).toBe(real.chatCalls);
        expect(est?.embeddedValues ?? 0, `${name} ${stage} embedded texts`).toBe(real.embeddedValues);
        const within = (a: number, b: number) => Math.abs(a - b) <= 0.05 * Math.max(a, b);
        expect(within(est?.inputTokens ?? 0, real.inputTokens), `${name} ${stage} input tokens`).toBe(true);
        expect(within(est?.embedTokens ?? 0, real.embedTokens), `${name} ${stage} embedding tokens`).toBe(
          true,
        );
      }
      expect(chatCalls).toBeGreaterThan(0);
      // The estimate is priced: gpt-4o-mini and text-embedding-3-small have default prices.
      expect(estimate.total.usd).toBeGreaterThan(0);
    },
    60_000,
  );

  it('prints a table of calls, tokens and cost per stage and makes no model call', async () => {
    const io = captureIO(process.cwd(), { OPENAI_BASE_URL: 'http://127.0.0.1:9/v1', OPENAI_API_KEY: 'k' });
    const code = await run(['index', demoCorpusPath(), '--method', 'ket-rag', '--estimate', '-q'], io);
    expect(code, io.err()).toBe(0);
    const lines = io.out().trim().split('\n');
    expect(lines[0]).toMatch(
      /^stage\s+chat calls\s+input tok\s+output tok\s+embedded\s+embed tok\s+cached\s+USD$/,
    );
    expect(lines).toContainEqual(
      expect.stringMatching(/^extract\s+12\s+[\d,]+\s+[\d,]+\s+0\s+0\s+0\s+0\.\d{4}$/),
    );
    expect(lines.at(-2)).toMatch(/^total\s+\d+/);
    // Then the text the loaders extracted from the eight demo files, in tokens.
    expect(lines.at(-1)).toMatch(/^input: [\d,]+ tokens of text in 8 documents from 8 files$/);
  });
});
