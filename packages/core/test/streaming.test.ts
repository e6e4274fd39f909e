import { describe, expect, it } from 'vitest';
import {
  AbortError,
  type AnswerStreamPart,
  type ChatModel,
  type ChatStreamPart,
  canStream,
  collectChatStream,
  InvalidArgumentError,
  streamChat,
  type TaskSuite,
} from '../src/index.js';
import { createPromptTasks, streamAnswer } from '../src/tasks/index.js';
import { createScriptedChatModel } from '../src/test/index.js';

async function all<T>(parts: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const part of parts) out.push(part);
  return out;
}

/** A model whose stream is `parts` as given (to check normalization), recording its calls. */
function streaming(
  parts: ChatStreamPart[],
  text = 'whole',
): ChatModel & { streamed: number; generated: number } {
  const model = {
    specificationVersion: 'v1' as const,
    provider: 'test',
    modelId: 'stream',
    streamed: 0,
    generated: 0,
    async doGenerate() {
      model.generated++;
      return { text };
    },
    async *doStream() {
      model.streamed++;
      yield* parts;
    },
  };
  return model;
}

const messages = [{ role: 'user' as const, content: 'q' }];

describe('streamChat', () => {
  it('answers a model without doStream through doGenerate as one delta and a finish part', async () => {
    const model = createScriptedChatModel(['the whole answer']);
    expect(canStream(model)).toBe(false);
    expect(await all(streamChat(model, { messages }))).toEqual([
      { type: 'text-delta', text: 'the whole answer' },
      { type: 'finish', finishReason: 'stop' },
    ]);
  });

  it('drops empty deltas, stops at the first finish part and adds one when the stream has none', async () => {
    const model = streaming([
      { type: 'text-delta', text: '' },
      { type: 'text-delta', text: 'a' },
      { type: 'finish', usage: { inputTokens: 2, outputTokens: 1 }, finishReason: 'stop' },
      { type: 'text-delta', text: 'after the end' },
    ]);
    expect(canStream(model)).toBe(true);
    expect(await all(streamChat(model, { messages }))).toEqual([
      { type: 'text-delta', text: 'a' },
      { type: 'finish', usage: { inputTokens: 2, outputTokens: 1 }, finishReason: 'stop' },
    ]);
    expect(model.generated).toBe(0);
    const open = streaming([{ type: 'text-delta', text: 'x' }]);
    expect(await all(streamChat(open, { messages }))).toEqual([
      { type: 'text-delta', text: 'x' },
      { type: 'finish' },
    ]);
  });

  it('collects a stream into the ChatResult doGenerate would give', async () => {
    const model = streaming([
      { type: 'text-delta', text: 'he' },
      { type: 'text-delta', text: 'llo' },
      { type: 'finish', finishReason: 'length' },
    ]);
    expect(await collectChatStream(streamChat(model, { messages }))).toEqual({
      text: 'hello',
      finishReason: 'length',
    });
  });

  it('throws AbortError before calling the model when the signal is already aborted', async () => {
    const model = streaming([{ type: 'finish' }]);
    const controller = new AbortController();
    controller.abort();
    await expect(all(streamChat(model, { messages, abortSignal: controller.signal }))).rejects.toSatisfy(
      AbortError.isInstance,
    );
    expect(model.streamed + model.generated).toBe(0);
  });
});

const context = [
  { id: 'c1', text: 'Kessler Shipyard was founded in 1881.' },
  { id: 'c2', text: 'Orsa is an island.' },
];

describe('streamAnswer', () => {
  it('streams the answer prompt of a prompt task suite and ends with what answer() returns', async () => {
    const model = streaming([
      { type: 'text-delta', text: 'It was founded ' },
      { type: 'text-delta', text: 'in 1881 [c1].' },
      { type: 'finish', usage: { inputTokens: 50, outputTokens: 8 }, finishReason: 'stop' },
    ]);
    const tasks = createPromptTasks(model);
    const parts = await all(streamAnswer(tasks, 'When was the shipyard founded?', context));
    expect(parts).toEqual([
      { type: 'text-delta', text: 'It was founded ' },
      { type: 'text-delta', text: 'in 1881 [c1].' },
      {
        type: 'answer',
        answer: { answer: 'It was founded in 1881 [c1].', citations: ['c1'], issues: [] },
        usage: { inputTokens: 50, outputTokens: 8 },
      },
    ]);
    // The same answer as the task itself, from the same text.
    const whole = await createPromptTasks(createScriptedChatModel(['It was founded in 1881 [c1].'])).answer(
      'When was the shipyard founded?',
      context,
    );
    expect((parts.at(-1) as Extract<AnswerStreamPart, { type: 'answer' }>).answer).toEqual(whole);
  });

  it('sends the prompt the answer task sends', async () => {
    const streamed = streaming([{ type: 'finish' }]);
    const seen: unknown[] = [];
    streamed.doStream = async function* (options) {
      seen.push(options);
      yield { type: 'text-delta', text: '[c2]' };
      yield { type: 'finish' };
    };
    await all(streamAnswer(createPromptTasks(streamed, { temperature: 0.2 }), 'What is Orsa?', context));
    const scripted = createScriptedChatModel(['[c2]']);
    await createPromptTasks(scripted, { temperature: 0.2 }).answer('What is Orsa?', context);
    expect(seen).toEqual(scripted.calls);
  });

  it('reports an answer cut at the output-token limit as truncated', async () => {
    const model = streaming([
      { type: 'text-delta', text: 'Orsa is [c2' },
      { type: 'finish', finishReason: 'length' },
    ]);
    const last = (await all(streamAnswer(model, 'What is Orsa?', context))).at(-1) as Extract<
      AnswerStreamPart,
      { type: 'answer' }
    >;
    expect(last.answer.issues.map((i) => i.kind)).toContain('truncated');
  });

  it('answers through answer() as one delta for a suite that cannot stream', async () => {
    const calls: unknown[][] = [];
    const tasks = {
      id: 'heuristic',
      async answer(...args: unknown[]) {
        calls.push(args);
        return { answer: 'Orsa [c2]', citations: ['c2'], issues: [] };
      },
    } as unknown as TaskSuite;
    expect(await all(streamAnswer(tasks, 'What is Orsa?', context))).toEqual([
      { type: 'text-delta', text: 'Orsa [c2]' },
      { type: 'answer', answer: { answer: 'Orsa [c2]', citations: ['c2'], issues: [] } },
    ]);
    expect(calls[0]?.[1]).toEqual(context);
    // A prompt suite on a model that cannot stream answers through answer() too.
    const scripted = createScriptedChatModel(['Orsa is an island [c2].']);
    const parts = await all(streamAnswer(createPromptTasks(scripted), 'What is Orsa?', context));
    expect(parts.map((p) => p.type)).toEqual(['text-delta', 'answer']);
    expect(scripted.calls).toHaveLength(1);
  });

  it('refuses a blank query', async () => {
    await expect(all(streamAnswer(streaming([]), '  ', context))).rejects.toSatisfy(
      InvalidArgumentError.isInstance,
    );
  });
});
