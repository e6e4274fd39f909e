import type { LanguageModelV3CallOptions } from '@ai-sdk/provider';
import { AbortError, generateText, InvalidArgumentError, ProviderError } from '@grag/core';
import { getTokenizer, Meter, meteredChat } from '@grag/core/kit';
import { createPromptTasks } from '@grag/core/tasks';
import { MockLanguageModelV3, MockLanguageModelV4 } from 'ai/test';
import { describe, expect, it } from 'vitest';
import { fromAiSdk } from '../src/index.js';
import { textResult, untilAborted } from './mocks.js';

/** The text of each message the mock model was sent, as `role: text`. */
function sent(call: LanguageModelV3CallOptions | undefined): string[] {
  return (call?.prompt ?? []).map((m) => {
    const content =
      typeof m.content === 'string'
        ? m.content
        : m.content.map((part) => ('text' in part ? part.text : `<${part.type}>`)).join('');
    return `${m.role}: ${content}`;
  });
}

describe('fromAiSdk', () => {
  it('answers with the model’s text, usage and finish reason, under the model’s provider and id', async () => {
    const model = new MockLanguageModelV3({
      provider: 'acme.chat',
      modelId: 'acme-1',
      doGenerate: textResult('Paris.', { input: 31, output: 2 }, 'length'),
    });
    const chat = fromAiSdk(model);
    expect([chat.specificationVersion, chat.provider, chat.modelId]).toEqual(['v1', 'acme.chat', 'acme-1']);
    const result = await chat.doGenerate({
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'Capital of France?' },
        { role: 'assistant', content: 'Paris?' },
        { role: 'system', content: 'Answer in one word.' },
        { role: 'user', content: 'Sure?' },
      ],
    });
    expect(result).toEqual({
      text: 'Paris.',
      usage: { inputTokens: 31, outputTokens: 2 },
      finishReason: 'length',
    });
    // Every message reaches the model in order, a system message after the first turn included.
    expect(sent(model.doGenerateCalls[0])).toEqual([
      'system: Be brief.',
      'user: Capital of France?',
      'assistant: Paris?',
      'system: Answer in one word.',
      'user: Sure?',
    ]);
  });

  it('drives a V4 model the same way', async () => {
    const model = new MockLanguageModelV4({ doGenerate: textResult('ok', { input: 3, output: 1 }) });
    expect(await fromAiSdk(model).doGenerate({ messages: [{ role: 'user', content: 'hi' }] })).toEqual({
      text: 'ok',
      usage: { inputTokens: 3, outputTokens: 1 },
      finishReason: 'stop',
    });
  });

  it('passes temperature, maxOutputTokens, stop sequences and seed to the model, and leaves out what the call leaves out', async () => {
    const model = new MockLanguageModelV3({ doGenerate: async () => textResult('x') });
    const chat = fromAiSdk(model);
    await chat.doGenerate({
      messages: [{ role: 'user', content: 'go' }],
      temperature: 0.3,
      maxOutputTokens: 77,
      stop: ['END', '###'],
      seed: 42,
    });
    await chat.doGenerate({ messages: [{ role: 'user', content: 'go' }], stop: [] });
    const [full, bare] = model.doGenerateCalls;
    expect(full).toMatchObject({
      temperature: 0.3,
      maxOutputTokens: 77,
      stopSequences: ['END', '###'],
      seed: 42,
    });
    for (const key of ['temperature', 'maxOutputTokens', 'stopSequences', 'seed'] as const) {
      expect(bare?.[key]).toBeUndefined();
    }
  });

  it('turns on the provider’s JSON mode for JSON calls, unless jsonResponseFormat is false', async () => {
    const model = new MockLanguageModelV3({ doGenerate: async () => textResult('{"a": 1') });
    const json = await fromAiSdk(model).doGenerate({
      messages: [{ role: 'user', content: 'json please' }],
      responseFormat: 'json',
    });
    // The text comes back as the model wrote it, even when it is not valid JSON (grag's parsers repair it).
    expect(json.text).toBe('{"a": 1');
    await fromAiSdk(model).doGenerate({ messages: [{ role: 'user', content: 'text please' }] });
    await fromAiSdk(model, { jsonResponseFormat: false }).doGenerate({
      messages: [{ role: 'user', content: 'json please' }],
      responseFormat: 'json',
    });
    expect(model.doGenerateCalls.map((c) => c.responseFormat?.type)).toEqual(['json', undefined, undefined]);
    expect(model.doGenerateCalls[0]?.responseFormat).toEqual({ type: 'json' });
  });

  it('passes headers and provider options of the factory with every call', async () => {
    const model = new MockLanguageModelV3({ doGenerate: async () => textResult('x') });
    await fromAiSdk(model, {
      headers: { 'x-team': 'search' },
      providerOptions: { acme: { reasoning: 'low' } },
    }).doGenerate({ messages: [{ role: 'user', content: 'go' }] });
    expect(model.doGenerateCalls[0]?.headers).toMatchObject({ 'x-team': 'search' });
    expect(model.doGenerateCalls[0]?.providerOptions).toEqual({ acme: { reasoning: 'low' } });
  });

  it('reports the model’s tokens to the Meter through meteredChat, per stage and model', async () => {
    const model = new MockLanguageModelV3({
      doGenerate: [textResult('one', { input: 10, output: 4 }), textResult('two', { input: 7, output: 9 })],
    });
    const meter = new Meter();
    const chat = meteredChat(fromAiSdk(model), meter, getTokenizer());
    await meter.stage('extract', () => generateText(chat, { user: 'first' }));
    await meter.stage('answer', () => generateText(chat, { user: 'second' }));
    const { stages, total } = meter.snapshot();
    expect([stages.extract?.inputTokens, stages.extract?.outputTokens]).toEqual([10, 4]);
    expect([stages.answer?.inputTokens, stages.answer?.outputTokens]).toEqual([7, 9]);
    expect(total.chatCalls).toBe(2);
    expect(total.models).toEqual({
      'mock-provider:mock-model-id': { calls: 2, inputTokens: 17, outputTokens: 13 },
    });
  });

  it('leaves usage out when the provider reports no token counts, so the Meter counts them itself', async () => {
    const model = new MockLanguageModelV3({ doGenerate: textResult('four words right here', null) });
    const result = await fromAiSdk(model).doGenerate({ messages: [{ role: 'user', content: 'count me' }] });
    expect(result.usage).toBeUndefined();
    const meter = new Meter();
    const tokenizer = getTokenizer();
    await meteredChat(fromAiSdk(model), meter, tokenizer).doGenerate({
      messages: [{ role: 'user', content: 'count me' }],
    });
    expect(meter.snapshot().total).toMatchObject({
      inputTokens: tokenizer.count('count me'),
      outputTokens: tokenizer.count('four words right here'),
    });
  });

  it('runs grag’s prompt task suite: a JSON task and the cited answer', async () => {
    const model = new MockLanguageModelV3({
      doGenerate: [
        textResult('{"title": "Harbour town", "description": "Ada meets Bram by the sea."}'),
        textResult('Ada met Bram in the harbour town [c2].'),
      ],
    });
    const tasks = createPromptTasks(fromAiSdk(model));
    expect(tasks.id).toBe('prompt:mock-provider:mock-model-id');
    const titled = await tasks.titleAndDescription('Ada met Bram in the harbour town.');
    expect([titled.title, titled.description]).toEqual(['Harbour town', 'Ada meets Bram by the sea.']);
    const answer = await tasks.answer('Where did Ada meet Bram?', [
      { id: 'c1', text: 'Bram sails.' },
      { id: 'c2', text: 'Ada met Bram in the harbour town.' },
    ]);
    expect(answer.citations).toEqual(['c2']);
    expect(answer.answer).toBe('Ada met Bram in the harbour town [c2].');
    expect(model.doGenerateCalls.map((c) => [c.responseFormat?.type, c.temperature])).toEqual([
      ['json', 0],
      [undefined, 0],
    ]);
    expect(sent(model.doGenerateCalls[1]).at(-1)).toContain('Question: Where did Ada meet Bram?');
  });

  it('aborts a call in flight with AbortError and passes the signal to the model', async () => {
    const model = new MockLanguageModelV3({ doGenerate: (options) => untilAborted(options.abortSignal) });
    const controller = new AbortController();
    const call = fromAiSdk(model).doGenerate({
      messages: [{ role: 'user', content: 'slow' }],
      abortSignal: controller.signal,
    });
    setTimeout(() => controller.abort(new Error('user left')), 5);
    const error = await call.catch((e: unknown) => e);
    expect(AbortError.isInstance(error)).toBe(true);
    expect((error as Error).message).toBe(
      "@grag/ai-sdk: chat call to mock-provider model 'mock-model-id' was aborted.",
    );
    expect(model.doGenerateCalls).toHaveLength(1);
  });

  it('does not call the model when the signal is already aborted', async () => {
    const model = new MockLanguageModelV3({ doGenerate: textResult('x') });
    const call = fromAiSdk(model).doGenerate({
      messages: [{ role: 'user', content: 'go' }],
      abortSignal: AbortSignal.abort(),
    });
    await expect(call).rejects.toSatisfy(AbortError.isInstance);
    expect(model.doGenerateCalls).toHaveLength(0);
  });

  it('refuses what is not an AI SDK model, a bad maxRetries and empty messages, naming the argument', async () => {
    const argumentOf = (fn: () => unknown) => {
      try {
        fn();
      } catch (error) {
        expect(InvalidArgumentError.isInstance(error)).toBe(true);
        return [(error as InvalidArgumentError).argument, (error as Error).message];
      }
      throw new Error('did not throw');
    };
    expect(argumentOf(() => fromAiSdk('openai/gpt-4o' as never))).toEqual([
      'model',
      "@grag/ai-sdk: fromAiSdk(model): pass an AI SDK model object such as openai('gpt-4o-mini'), not the id string 'openai/gpt-4o'.",
    ]);
    expect(argumentOf(() => fromAiSdk({} as never))[0]).toBe('model');
    expect(argumentOf(() => fromAiSdk(new MockLanguageModelV3(), { maxRetries: -1 }))).toEqual([
      'maxRetries',
      '@grag/ai-sdk: fromAiSdk(model, options): maxRetries must be a non-negative integer, got -1.',
    ]);
    const chat = fromAiSdk(new MockLanguageModelV3({ doGenerate: textResult('x') }));
    const empty = await chat.doGenerate({ messages: [] }).catch((e: unknown) => e);
    expect((empty as InvalidArgumentError).argument).toBe('messages');
    const badRole = await chat
      .doGenerate({ messages: [{ role: 'tool' as never, content: 'x' }] })
      .catch((e: unknown) => e);
    expect((badRole as Error).message).toBe(
      "@grag/ai-sdk: doGenerate on 'mock-model-id': messages[0].role must be 'system', 'user' or 'assistant'.",
    );
    expect(ProviderError.isInstance(badRole)).toBe(false);
  });
});
