import {
  type ChatCallOptions,
  type ChatModel,
  type ChatResult,
  type ChatStreamPart,
  InvalidArgumentError,
} from '@grag/core';
import type OpenAI from 'openai';
import { parseChatCompletion } from './chat-response.js';
import { assertModelId, type CallTarget, PROVIDER, type RequestRuntime, sendWithRetry } from './request.js';
import { streamChatCompletion } from './stream.js';

/** Settings of one chat model (`provider.chat(modelId, settings)`). Defaults in {@link OPENAI_CHAT_DEFAULTS}. */
export interface OpenAIChatSettings {
  /**
   * Send `response_format: { type: 'json_object' }` when a call asks for `responseFormat: 'json'`.
   * Turn off for servers that reject the parameter; prompts should ask for JSON anyway.
   * @default true
   */
  jsonResponseFormat?: boolean;
  /**
   * Request field for `maxOutputTokens`. `max_tokens` is understood by every OpenAI-compatible
   * server; OpenAI's reasoning models (o1, o3, …) require `max_completion_tokens`.
   * @default 'max_tokens'
   */
  maxTokensParam?: 'max_tokens' | 'max_completion_tokens';
  /**
   * Ask a streamed call (`doStream`) for its token usage with `stream_options: { include_usage: true }`,
   * so the final `finish` part carries it. Turn off for servers that reject `stream_options`.
   * @default true
   */
  streamUsage?: boolean;
}

/** Defaults of {@link OpenAIChatSettings}. */
export const OPENAI_CHAT_DEFAULTS = {
  jsonResponseFormat: true,
  maxTokensParam: 'max_tokens',
  streamUsage: true,
} as const satisfies Required<OpenAIChatSettings>;

type ChatParams = OpenAI.Chat.ChatCompletionCreateParamsNonStreaming;

/**
 * {@link ChatModel} on an OpenAI-compatible `/chat/completions` endpoint. Create it with
 * `createOpenAI(settings).chat(modelId)`; retries, timeout and concurrency come from the provider.
 */
export class OpenAIChatModel implements ChatModel {
  readonly specificationVersion = 'v1' as const;
  readonly provider = PROVIDER;
  readonly modelId: string;
  /** Settings merged with {@link OPENAI_CHAT_DEFAULTS}. */
  readonly settings: Readonly<Required<OpenAIChatSettings>>;
  readonly #runtime: RequestRuntime;

  /** @internal Use `createOpenAI().chat(modelId)`. */
  constructor(modelId: string, settings: OpenAIChatSettings | undefined, runtime: RequestRuntime) {
    assertModelId(modelId, 'chat');
    this.modelId = modelId;
    this.settings = {
      jsonResponseFormat: settings?.jsonResponseFormat ?? OPENAI_CHAT_DEFAULTS.jsonResponseFormat,
      maxTokensParam: settings?.maxTokensParam ?? OPENAI_CHAT_DEFAULTS.maxTokensParam,
      streamUsage: settings?.streamUsage ?? OPENAI_CHAT_DEFAULTS.streamUsage,
    };
    this.#runtime = runtime;
  }

  /** The request body sent for `options` (without the abort signal). */
  requestBody(options: ChatCallOptions): ChatParams {
    const body: ChatParams = {
      model: this.modelId,
      messages: options.messages.map((m) => ({ role: m.role, content: m.content })),
    };
    if (options.temperature !== undefined) body.temperature = options.temperature;
    if (options.maxOutputTokens !== undefined) body[this.settings.maxTokensParam] = options.maxOutputTokens;
    if (options.stop !== undefined && options.stop.length > 0) body.stop = options.stop;
    if (options.seed !== undefined) body.seed = options.seed;
    if (options.responseFormat === 'json' && this.settings.jsonResponseFormat) {
      body.response_format = { type: 'json_object' };
    }
    return body;
  }

  /**
   * Send one chat completion request (retried per the provider's policy) and return the first
   * choice. Throws `ProviderError`, `AbortError` or `InvalidArgumentError` (empty `messages`).
   */
  async doGenerate(options: ChatCallOptions): Promise<ChatResult> {
    this.#checkMessages(options, 'doGenerate');
    const target: CallTarget = { kind: 'chat', modelId: this.modelId };
    const body = this.requestBody(options);
    return sendWithRetry(
      this.#runtime,
      target,
      (client, request) => client.chat.completions.create(body, request).asResponse(),
      options.abortSignal,
      (raw) => parseChatCompletion(target, raw),
    );
  }

  /**
   * The same call streamed (`stream: true`): `text-delta` parts as the server sends them, then a
   * `finish` part with the usage (see {@link OpenAIChatSettings.streamUsage}) and finish reason.
   * Retried per the provider's policy until the response starts; a failure after that throws
   * `ProviderError` mid-stream. The request holds one permit of the provider's concurrency limit
   * until the stream ends or the caller stops iterating (which ends the request).
   */
  async *doStream(options: ChatCallOptions): AsyncGenerator<ChatStreamPart> {
    this.#checkMessages(options, 'doStream');
    const target: CallTarget = { kind: 'chat', modelId: this.modelId };
    const body: OpenAI.Chat.ChatCompletionCreateParamsStreaming = {
      ...this.requestBody(options),
      stream: true,
      ...(this.settings.streamUsage ? { stream_options: { include_usage: true } } : {}),
    };
    yield* streamChatCompletion(this.#runtime, target, body, options.abortSignal);
  }

  #checkMessages(options: ChatCallOptions, call: string): void {
    if (!Array.isArray(options.messages) || options.messages.length === 0) {
      throw new InvalidArgumentError(
        'messages',
        `@grag/openai: ${call} on '${this.modelId}': messages must be a non-empty array.`,
      );
    }
  }
}
