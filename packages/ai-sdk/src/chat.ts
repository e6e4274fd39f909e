import {
  AbortError,
  type ChatCallOptions,
  type ChatMessage,
  type ChatModel,
  type ChatResult,
  type ChatStreamPart,
  InvalidArgumentError,
} from '@grag/core';
import { generateText, type LanguageModel, type ModelMessage, wrapLanguageModel } from 'ai';
import { type CallTarget, label, mapAiSdkError, PACKAGE } from './errors.js';
import { streamCall } from './stream.js';
import { mapFinishReason, mapUsage } from './usage.js';
import { assertModel, checkMaxRetries } from './validate.js';

/**
 * An AI SDK language model object: what a provider function returns, e.g. `openai('gpt-4o-mini')`,
 * `anthropic('claude-sonnet-4-5')`, `ollama('llama3.1')`, or a mock model from `ai/test`. (A
 * model id string for the AI Gateway is not accepted: pass `gateway('…')`.)
 */
export type AiSdkLanguageModel = Exclude<LanguageModel, string>;

/** Provider-specific options the AI SDK passes through to the provider (`providerOptions`). */
export type AiSdkProviderOptions = NonNullable<Parameters<typeof generateText>[0]['providerOptions']>;

/** Options of {@link fromAiSdk}. Defaults in {@link AI_SDK_CHAT_DEFAULTS}. */
export interface AiSdkChatOptions {
  /**
   * Retries after the first attempt, passed to the AI SDK as `maxRetries`: it retries what its
   * provider marks retryable (429, 5xx, connection errors), honouring `Retry-After`.
   * @default the AI SDK's own default (2)
   */
  maxRetries?: number;
  /**
   * Ask the provider for JSON mode (`responseFormat: { type: 'json' }`, e.g. OpenAI's
   * `response_format: json_object`) on calls with `responseFormat: 'json'`. Turn off for a model
   * that rejects it; grag's prompts ask for JSON anyway.
   * @default true
   */
  jsonResponseFormat?: boolean;
  /** Provider-specific options sent with every call, e.g. `{ openai: { reasoningEffort: 'low' } }`. */
  providerOptions?: AiSdkProviderOptions;
  /** Extra HTTP headers sent with every call (for HTTP-based providers). */
  headers?: Record<string, string>;
}

/** Defaults of {@link AiSdkChatOptions}. */
export const AI_SDK_CHAT_DEFAULTS: Readonly<{ jsonResponseFormat: boolean }> = {
  jsonResponseFormat: true,
};

const ROLES = new Set(['system', 'user', 'assistant']);

/**
 * grag's {@link ChatModel} on an AI SDK language model. Create it with {@link fromAiSdk}. Every
 * call goes through the AI SDK's `generateText`, which handles every model specification version
 * and retries per `maxRetries`.
 */
export class AiSdkChatModel implements ChatModel {
  readonly specificationVersion = 'v1' as const;
  /** The AI SDK model's provider id, e.g. `'openai.chat'`. */
  readonly provider: string;
  readonly modelId: string;
  /** The wrapped AI SDK model. */
  readonly model: AiSdkLanguageModel;
  /** Options merged with {@link AI_SDK_CHAT_DEFAULTS}. */
  readonly options: Readonly<AiSdkChatOptions & { jsonResponseFormat: boolean }>;
  #jsonModel: AiSdkLanguageModel | undefined;

  /** @internal Use {@link fromAiSdk}. */
  constructor(model: AiSdkLanguageModel, options: AiSdkChatOptions = {}) {
    assertModel(model, 'fromAiSdk', 'doGenerate');
    const maxRetries = checkMaxRetries(options.maxRetries, 'fromAiSdk(model, options)');
    this.model = model;
    this.provider = model.provider;
    this.modelId = model.modelId;
    this.options = {
      ...options,
      ...(maxRetries !== undefined ? { maxRetries } : {}),
      jsonResponseFormat: options.jsonResponseFormat ?? AI_SDK_CHAT_DEFAULTS.jsonResponseFormat,
    };
  }

  /** The model with JSON mode on: a middleware sets `responseFormat: { type: 'json' }` on each call. */
  #json(): AiSdkLanguageModel {
    this.#jsonModel ??= wrapLanguageModel({
      model: this.model,
      middleware: {
        transformParams: async ({ params }) => ({ ...params, responseFormat: { type: 'json' } }),
      },
    });
    return this.#jsonModel;
  }

  /** What a call sends to the AI SDK (`generateText` / `streamText` settings). */
  #callSettings(options: ChatCallOptions) {
    checkMessages(options.messages, this.modelId);
    const json = options.responseFormat === 'json' && this.options.jsonResponseFormat;
    return {
      model: json ? this.#json() : this.model,
      messages: options.messages.map(
        (m): ModelMessage => ({ role: m.role, content: m.content }) as ModelMessage,
      ),
      // grag's messages may carry system prompts anywhere; AI SDK 7 accepts them only when told.
      allowSystemInMessages: true,
      ...(options.temperature !== undefined ? { temperature: options.temperature } : {}),
      ...(options.maxOutputTokens !== undefined ? { maxOutputTokens: options.maxOutputTokens } : {}),
      ...(options.stop !== undefined && options.stop.length > 0 ? { stopSequences: options.stop } : {}),
      ...(options.seed !== undefined ? { seed: options.seed } : {}),
      ...(this.options.maxRetries !== undefined ? { maxRetries: this.options.maxRetries } : {}),
      ...(this.options.headers !== undefined ? { headers: this.options.headers } : {}),
      ...(this.options.providerOptions !== undefined
        ? { providerOptions: this.options.providerOptions }
        : {}),
      ...(options.abortSignal !== undefined ? { abortSignal: options.abortSignal } : {}),
    };
  }

  /** Names this model's calls in error messages. */
  get #target(): CallTarget {
    return { kind: 'chat', provider: this.provider, modelId: this.modelId };
  }

  /**
   * Generate one answer with the AI SDK's `generateText`. Returns its text, `usage` (input and
   * output tokens, when the provider reports them) and finish reason. Throws `ProviderError`,
   * `AbortError` or `InvalidArgumentError` (see {@link mapAiSdkError}).
   */
  async doGenerate(options: ChatCallOptions): Promise<ChatResult> {
    const signal = options.abortSignal;
    if (signal?.aborted)
      throw new AbortError(`${label(this.#target)} was aborted.`, { cause: signal.reason });
    const settings = this.#callSettings(options);
    let result: Awaited<ReturnType<typeof generateText>>;
    try {
      result = await generateText(settings);
    } catch (error) {
      throw mapAiSdkError(error, this.#target, signal);
    }
    const out: ChatResult = { text: result.text };
    const usage = mapUsage(result.totalUsage ?? result.usage);
    if (usage) out.usage = usage;
    const finishReason = mapFinishReason(result.finishReason);
    if (finishReason) out.finishReason = finishReason;
    return out;
  }

  /**
   * The same call streamed with the AI SDK's `streamText`: `text-delta` parts as the text arrives,
   * then one `finish` part with usage and finish reason. Throws from the iteration what
   * `doGenerate` throws, also mid-stream; stopping the iteration early aborts the request.
   */
  doStream(options: ChatCallOptions): AsyncIterable<ChatStreamPart> {
    // Checked now, so a bad call fails where it is made rather than at the first read.
    const settings = this.#callSettings(options);
    const { abortSignal, ...rest } = settings;
    return streamCall(rest, this.#target, abortSignal);
  }
}

function checkMessages(messages: unknown, modelId: string): asserts messages is ChatMessage[] {
  const bad = (what: string) =>
    new InvalidArgumentError('messages', `${PACKAGE}: doGenerate on '${modelId}': ${what}.`);
  if (!Array.isArray(messages) || messages.length === 0) throw bad('messages must be a non-empty array');
  messages.forEach((m: unknown, i) => {
    const message = m as Partial<ChatMessage> | null;
    if (typeof message !== 'object' || message === null || !ROLES.has(String(message.role))) {
      throw bad(`messages[${i}].role must be 'system', 'user' or 'assistant'`);
    }
    if (typeof message.content !== 'string') throw bad(`messages[${i}].content must be a string`);
  });
}

/**
 * grag's {@link ChatModel} on any Vercel AI SDK language model (OpenAI, Anthropic, Google, Ollama,
 * Mistral, Bedrock, … or a mock from `ai/test`), so it drives every grag method and the prompt
 * task suite. A call's `temperature`, `maxOutputTokens`, `stop` (as `stopSequences`), `seed` and
 * `abortSignal` are passed to `generateText`; `responseFormat: 'json'` turns on the provider's
 * JSON mode (see {@link AiSdkChatOptions.jsonResponseFormat}). Usage is returned in the result,
 * so a metered wrapper (`meteredChat`, every build context) counts it.
 *
 * Throws `InvalidArgumentError` (`argument: 'model'` or `'maxRetries'`) for a value that is not an
 * AI SDK model object or an invalid option.
 *
 * @example
 * ```ts
 * import { openai } from '@ai-sdk/openai';
 * const chat = fromAiSdk(openai('gpt-4o-mini'), { maxRetries: 4 });
 * ```
 */
export function fromAiSdk(model: AiSdkLanguageModel, options: AiSdkChatOptions = {}): AiSdkChatModel {
  return new AiSdkChatModel(model, options);
}
