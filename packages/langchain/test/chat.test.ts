import { AbortError, generateText, InvalidArgumentError, ProviderError } from '@grag/core';
import { Meter, meteredChat } from '@grag/core/kit';
import { createPromptTasks } from '@grag/core/tasks';
import { fromLangChainChat } from '@grag/langchain';
import { BaseCallbackHandler } from '@langchain/core/callbacks/base';
import { AIMessage, type BaseMessage } from '@langchain/core/messages';
import type { ChatResult } from '@langchain/core/outputs';
import { FakeChatModel, FakeListChatModel } from '@langchain/core/utils/testing';
import { describe, expect, it } from 'vitest';
import { FAKE_USAGE, UsageFakeChat } from './fixtures.js';

/** A fake model whose single reply is the given AI message. */
class ReplyChat extends FakeChatModel {
  constructor(private readonly reply: AIMessage) {
    super({});
  }
  override async _generate(): Promise<ChatResult> {
    return { generations: [{ message: this.reply, text: '' }] };
  }
}

describe('fromLangChainChat', () => {
  it('maps grag roles to LangChain messages, in order', async () => {
    const model = new UsageFakeChat({ responses: ['ok'] });
    await fromLangChainChat(model).doGenerate({
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'Q1' },
        { role: 'assistant', content: 'A1' },
        { role: 'user', content: 'Q2' },
      ],
    });
    expect(model.received).toHaveLength(1);
    expect(model.received[0]!.map((m: BaseMessage) => [m.type, m.content])).toEqual([
      ['system', 'Be brief.'],
      ['human', 'Q1'],
      ['ai', 'A1'],
      ['human', 'Q2'],
    ]);
  });

  it("returns the reply's text, usage_metadata as usage and its finish reason", async () => {
    const model = new UsageFakeChat({ responses: ['Graph RAG retrieves over a graph.'] });
    const result = await generateText(fromLangChainChat(model), { user: 'What is graph RAG?' });
    expect(result).toEqual({
      text: 'Graph RAG retrieves over a graph.',
      usage: { inputTokens: 42, outputTokens: 7 },
      finishReason: 'stop',
    });
    model.finishReason = 'max_tokens'; // Anthropic's spelling
    expect((await generateText(fromLangChainChat(model), { user: 'again' })).finishReason).toBe('length');
  });

  it('leaves usage out when the model reports none, so the meter counts with its tokenizer', async () => {
    const result = await generateText(fromLangChainChat(new FakeListChatModel({ responses: ['plain'] })), {
      user: 'hi',
    });
    expect(result).toEqual({ text: 'plain' });
  });

  it('passes stop sequences as the LangChain stop option', async () => {
    // FakeListChatModel answers stop[0] when it is given stop sequences.
    const model = fromLangChainChat(new FakeListChatModel({ responses: ['unused'] }));
    const result = await model.doGenerate({ messages: [{ role: 'user', content: 'hi' }], stop: ['END'] });
    expect(result.text).toBe('END');
  });

  it('joins the text parts of a content array', async () => {
    const reply = new AIMessage({
      content: [
        { type: 'text', text: 'Orsa ' },
        { type: 'image_url', image_url: 'x' },
        { type: 'text', text: 'is an island.' },
      ],
    });
    const result = await fromLangChainChat(new ReplyChat(reply)).doGenerate({
      messages: [{ role: 'user', content: 'q' }],
    });
    expect(result.text).toBe('Orsa is an island.');
  });

  it('flows the reported usage into a Meter', async () => {
    const meter = new Meter({ prices: { 'fake-list': { input: 1_000_000, output: 2_000_000 } } });
    const chat = meteredChat(fromLangChainChat(new UsageFakeChat({ responses: ['a', 'b'] })), meter);
    await meter.stage('answer', () => generateText(chat, { user: 'one' }));
    await meter.stage('answer', () => generateText(chat, { user: 'two' }));
    const { stages, total } = meter.snapshot();
    expect(stages.answer).toMatchObject({
      chatCalls: 2,
      inputTokens: 2 * FAKE_USAGE.input_tokens,
      outputTokens: 2 * FAKE_USAGE.output_tokens,
      models: { 'langchain:fake-list': { calls: 2, inputTokens: 84, outputTokens: 14 } },
    });
    // 84 input tokens at $1 each and 14 output tokens at $2 each (prices are per million tokens).
    expect(total.usd).toBe(84 + 28);
  });

  it('drives the prompt task suite', async () => {
    const model = new UsageFakeChat({ responses: ['Anton and Jakob Kessler founded it [kessler].'] });
    const tasks = createPromptTasks(fromLangChainChat(model));
    const answer = await tasks.answer('Who founded the Kessler Shipyard?', [
      { id: 'kessler', text: 'The Kessler Shipyard was founded in 1881 by Anton and Jakob Kessler.' },
      { id: 'orsa', text: 'Orsa is an island.' },
    ]);
    expect(answer).toMatchObject({
      answer: 'Anton and Jakob Kessler founded it [kessler].',
      citations: ['kessler'],
    });
    const [system, user] = model.received[0]!;
    expect(system!.type).toBe('system');
    expect(user!.content).toContain('[kessler] The Kessler Shipyard was founded');
  });
});

describe('fromLangChainChat model ids and call options', () => {
  it("takes the model id from LangChain's LangSmith params, else the model type", () => {
    class NamedChat extends FakeListChatModel {
      override getLsParams(options: this['ParsedCallOptions']) {
        return { ...super.getLsParams(options), ls_model_name: 'gpt-4o-mini' };
      }
    }
    expect(fromLangChainChat(new NamedChat({ responses: [] })).modelId).toBe('gpt-4o-mini');
    const plain = fromLangChainChat(new FakeListChatModel({ responses: [] }));
    expect([plain.provider, plain.modelId]).toEqual(['langchain', 'fake-list']);
    const named = fromLangChainChat(new FakeListChatModel({ responses: [] }), {
      modelId: 'm',
      provider: 'p',
    });
    expect([named.provider, named.modelId]).toEqual(['p', 'm']);
  });

  it('merges callOptions into the LangChain call (here: callbacks that see the chat run)', async () => {
    const runs: string[] = [];
    const handler = BaseCallbackHandler.fromMethods({
      handleChatModelStart: () => {
        runs.push('start');
      },
      handleLLMEnd: () => {
        runs.push('end');
      },
    });
    const seen: unknown[] = [];
    const model = fromLangChainChat(new UsageFakeChat({ responses: ['x'] }), {
      callOptions: (call) => {
        seen.push(call.temperature);
        return { callbacks: [handler] };
      },
    });
    await generateText(model, { user: 'hi' });
    expect(seen).toEqual([0]);
    expect(runs).toEqual(['start', 'end']);
    const signal = new AbortController().signal;
    expect(model.callOptionsFor({ messages: [], stop: ['a'], abortSignal: signal })).toEqual({
      stop: ['a'],
      signal,
      callbacks: [handler],
    });
  });
});

describe('fromLangChainChat errors', () => {
  it('turns a failed LangChain call into a one-line ProviderError', async () => {
    const model = fromLangChainChat(new FakeListChatModel({ responses: ['x'] }), {
      callOptions: () => ({ thrownErrorString: 'Incorrect API key provided\n    at somewhere' }),
    });
    const error = await generateText(model, { user: 'hi' }).catch((e: unknown) => e);
    expect(ProviderError.isInstance(error)).toBe(true);
    expect((error as ProviderError).message).toBe(
      "@grag/langchain: chat call to model 'fake-list' failed: Incorrect API key provided — check the LangChain model's settings (API key, model name, endpoint); its own retries (maxRetries) are spent.",
    );
    expect((error as ProviderError).retryable).toBe(false);
  });

  it('keeps the HTTP status of an SDK error and marks 429 and 5xx retryable', async () => {
    class Failing extends FakeChatModel {
      constructor(private readonly status: number) {
        super({ maxRetries: 0 });
      }
      override async _generate(): Promise<ChatResult> {
        throw Object.assign(new Error('Rate limit reached'), { status: this.status });
      }
    }
    const limited = await generateText(fromLangChainChat(new Failing(429)), { user: 'hi' }).catch((e) => e);
    expect([limited.status, limited.retryable]).toEqual([429, true]);
    expect(limited.message).toMatch(
      /^@grag\/langchain: chat call to model 'fake' failed \(HTTP 429\): Rate limit/,
    );
    const refused = await generateText(fromLangChainChat(new Failing(401)), { user: 'hi' }).catch((e) => e);
    expect([refused.status, refused.retryable]).toEqual([401, false]);
  });

  it('rejects with AbortError when the call is aborted, without waiting for the model', async () => {
    const model = fromLangChainChat(new FakeListChatModel({ responses: ['slow'], sleep: 5_000 }));
    const controller = new AbortController();
    const started = performance.now();
    const pending = model.doGenerate({
      messages: [{ role: 'user', content: 'hi' }],
      abortSignal: controller.signal,
    });
    setTimeout(() => controller.abort(), 20);
    const error = await pending.catch((e: unknown) => e);
    expect(AbortError.isInstance(error)).toBe(true);
    expect((error as Error).message).toBe("@grag/langchain: chat call to model 'fake-list' was aborted.");
    expect(performance.now() - started).toBeLessThan(2_000);
  });

  it('does not call the model when the signal is already aborted', async () => {
    const model = new UsageFakeChat({ responses: ['x'] });
    const call = fromLangChainChat(model).doGenerate({
      messages: [{ role: 'user', content: 'hi' }],
      abortSignal: AbortSignal.abort(),
    });
    await expect(call).rejects.toSatisfy(AbortError.isInstance);
    expect(model.received).toEqual([]);
  });

  it('refuses empty messages, an unknown role and a non-model', async () => {
    const model = fromLangChainChat(new FakeListChatModel({ responses: ['x'] }));
    await expect(model.doGenerate({ messages: [] })).rejects.toSatisfy(InvalidArgumentError.isInstance);
    await expect(model.doGenerate({ messages: [{ role: 'tool' as never, content: 'x' }] })).rejects.toThrow(
      "@grag/langchain: chat message role must be 'system', 'user' or 'assistant' (got \"tool\").",
    );
    expect(() => fromLangChainChat({} as never)).toThrow(
      /^@grag\/langchain: fromLangChainChat needs a LangChain chat model/,
    );
  });

  it('refuses a reply that is not a message', async () => {
    const parsed = { invoke: async () => 'already a string' };
    const error = await fromLangChainChat(parsed, { modelId: 'chain' })
      .doGenerate({ messages: [{ role: 'user', content: 'q' }] })
      .catch((e: unknown) => e);
    expect(ProviderError.isInstance(error)).toBe(true);
    expect((error as Error).message).toMatch(/not a message with text content — pass a chat model/);
  });
});
