import {
  type ChatCallOptions,
  type ChatMessage,
  type ChatModel,
  type ChatResult,
  InvalidArgumentError,
  ProviderError,
  type TokenUsage,
} from '@grag/core';
import { AIMessage, type BaseMessage, HumanMessage, SystemMessage } from '@langchain/core/messages';
import { abortable, abortError, callFailure, describe, PROVIDER } from './errors.js';

/**
 * What {@link fromLangChainChat} accepts: a LangChain `BaseChatModel` (`ChatOpenAI`,
 * `ChatAnthropic`, `ChatOllama`, …) or any runnable made from one (`model.withConfig(...)`,
 * `model.withRetry()`, `model.withFallbacks(...)`) — anything whose `invoke(messages, options)`
 * resolves to an AI message.
 */
export interface LangChainChatModelLike {
  // biome-ignore lint/suspicious/noExplicitAny: LangChain's call options differ per model class.
  invoke(input: BaseMessage[], options?: any): Promise<unknown>;
}

/** Settings of {@link fromLangChainChat}. */
export interface LangChainChatSettings {
  /**
   * Model id for the meter, prices and call caches. @default the model's LangSmith model name
   * (`getLsParams().ls_model_name`, e.g. `'gpt-4o-mini'`), else its `model` / `modelName` field,
   * else its `_llmType()`.
   */
  modelId?: string;
  /** Provider name in fingerprints and the meter (`provider:modelId`). @default 'langchain' */
  provider?: string;
  /**
   * Extra LangChain call options for a grag call, merged over the ones the adapter sets (`stop`,
   * `signal`). LangChain has no portable per-call temperature, token limit, seed or JSON mode;
   * map them here for a model whose call options take them, e.g. for `ChatOpenAI`:
   * `(call) => (call.responseFormat === 'json' ? { response_format: { type: 'json_object' } } : {})`.
   * Callbacks, tags and metadata for LangChain tracing can be added here too.
   */
  callOptions?: (call: ChatCallOptions) => Record<string, unknown>;
}

/** grag message → LangChain message (`system` → SystemMessage, `user` → HumanMessage, `assistant` → AIMessage). */
export function toLangChainMessage(message: ChatMessage): BaseMessage {
  switch (message.role) {
    case 'system':
      return new SystemMessage(message.content);
    case 'user':
      return new HumanMessage(message.content);
    case 'assistant':
      return new AIMessage(message.content);
    default:
      throw new InvalidArgumentError(
        'messages',
        `@grag/langchain: chat message role must be 'system', 'user' or 'assistant' (got ${describe((message as { role?: unknown }).role)}).`,
      );
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The text of a message's content: a string as it is, the text parts of a content array joined. */
export function messageText(content: unknown): string | undefined {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return undefined;
  let text = '';
  for (const part of content) {
    if (typeof part === 'string') text += part;
    else if (
      isRecord(part) &&
      (part.type === 'text' || part.type === 'text_delta') &&
      typeof part.text === 'string'
    )
      text += part.text;
  }
  return text;
}

/** Token usage of an AI message: `usage_metadata`, else the older `response_metadata.tokenUsage`. */
export function messageUsage(message: Record<string, unknown>): TokenUsage | undefined {
  const usage = message.usage_metadata;
  if (isRecord(usage) && typeof usage.input_tokens === 'number' && typeof usage.output_tokens === 'number') {
    return { inputTokens: usage.input_tokens, outputTokens: usage.output_tokens };
  }
  const meta = message.response_metadata;
  const legacy = isRecord(meta) ? meta.tokenUsage : undefined;
  if (
    isRecord(legacy) &&
    typeof legacy.promptTokens === 'number' &&
    typeof legacy.completionTokens === 'number'
  ) {
    return { inputTokens: legacy.promptTokens, outputTokens: legacy.completionTokens };
  }
  return undefined;
}

/**
 * The finish reason of an AI message's `response_metadata` (`finish_reason` of OpenAI and Google,
 * `stop_reason` of Anthropic, `done_reason` of Ollama) on the contract's values.
 */
export function messageFinishReason(message: Record<string, unknown>): ChatResult['finishReason'] {
  const meta = message.response_metadata;
  if (!isRecord(meta)) return undefined;
  const raw = meta.finish_reason ?? meta.stop_reason ?? meta.done_reason ?? meta.finishReason;
  if (typeof raw !== 'string' || raw === '') return undefined;
  switch (raw.toLowerCase()) {
    case 'stop':
    case 'end_turn':
    case 'stop_sequence':
    case 'complete':
      return 'stop';
    case 'length':
    case 'max_tokens':
      return 'length';
    case 'content_filter':
    case 'safety':
      return 'content-filter';
    case 'error':
      return 'error';
    default:
      return 'other';
  }
}

/** A model's id from what LangChain exposes of it (see {@link LangChainChatSettings.modelId}). */
function inferModelId(model: object): string {
  const m = model as {
    getLsParams?: (options: object) => { ls_model_name?: unknown } | undefined;
    model?: unknown;
    modelName?: unknown;
    _llmType?: () => unknown;
    getName?: () => unknown;
  };
  const candidates: unknown[] = [];
  try {
    candidates.push(m.getLsParams?.({})?.ls_model_name);
  } catch {
    // A model whose getLsParams needs call options it did not get: fall through to its fields.
  }
  candidates.push(m.model, m.modelName);
  try {
    candidates.push(m._llmType?.(), m.getName?.());
  } catch {
    // Not a BaseChatModel: fall through.
  }
  return candidates.find((c): c is string => typeof c === 'string' && c.length > 0) ?? 'unknown';
}

/**
 * A grag {@link ChatModel} on a LangChain.js chat model. Create it with {@link fromLangChainChat}.
 */
export class LangChainChatModel implements ChatModel {
  readonly specificationVersion = 'v1' as const;
  readonly provider: string;
  readonly modelId: string;
  /** The LangChain model (or runnable) called. */
  readonly chatModel: LangChainChatModelLike;
  readonly #callOptions: LangChainChatSettings['callOptions'];

  constructor(chatModel: LangChainChatModelLike, settings: LangChainChatSettings = {}) {
    if (!isRecord(chatModel) || typeof (chatModel as { invoke?: unknown }).invoke !== 'function') {
      throw new InvalidArgumentError(
        'chatModel',
        `@grag/langchain: fromLangChainChat needs a LangChain chat model (e.g. \`new ChatOpenAI({ model: 'gpt-4o-mini', temperature: 0 })\`), got ${describe(chatModel)}.`,
      );
    }
    this.chatModel = chatModel;
    this.provider = settings.provider ?? PROVIDER;
    this.modelId = settings.modelId ?? inferModelId(chatModel);
    this.#callOptions = settings.callOptions;
  }

  /** The LangChain call options sent for `options`: `stop`, `signal`, then `settings.callOptions(options)`. */
  callOptionsFor(options: ChatCallOptions): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    if (options.stop !== undefined && options.stop.length > 0) out.stop = options.stop;
    if (options.abortSignal) out.signal = options.abortSignal;
    return { ...out, ...this.#callOptions?.(options) };
  }

  /**
   * One `invoke` of the LangChain model with the messages mapped to LangChain messages; returns its
   * text, usage (`usage_metadata`) and finish reason. Throws `InvalidArgumentError` (empty
   * `messages`), `AbortError`, or `ProviderError` for any failure of the LangChain call.
   */
  async doGenerate(options: ChatCallOptions): Promise<ChatResult> {
    const what = `chat call to model '${this.modelId}'`;
    if (!Array.isArray(options?.messages) || options.messages.length === 0) {
      throw new InvalidArgumentError(
        'messages',
        `@grag/langchain: doGenerate on '${this.modelId}': messages must be a non-empty array.`,
      );
    }
    const messages = options.messages.map(toLangChainMessage);
    const signal = options.abortSignal;
    if (signal?.aborted) throw abortError(what, signal);
    let reply: unknown;
    try {
      reply = await abortable(this.chatModel.invoke(messages, this.callOptionsFor(options)), signal, what);
    } catch (error) {
      throw callFailure(what, error, signal);
    }
    if (signal?.aborted) throw abortError(what, signal);
    const text = isRecord(reply) ? messageText(reply.content) : undefined;
    if (!isRecord(reply) || text === undefined) {
      throw new ProviderError(
        this.provider,
        `@grag/langchain: ${what} answered ${describe(reply)}, not a message with text content — pass a chat model, not a chain with an output parser.`,
      );
    }
    const result: ChatResult = { text };
    const usage = messageUsage(reply);
    if (usage) result.usage = usage;
    const finishReason = messageFinishReason(reply);
    if (finishReason) result.finishReason = finishReason;
    return result;
  }
}

/**
 * A LangChain.js chat model as a grag {@link ChatModel}, so it drives every grag task and method
 * (`createPromptTasks(fromLangChainChat(model))`). grag messages map to `SystemMessage`,
 * `HumanMessage` and `AIMessage`; a call's `stop` and `abortSignal` are passed as LangChain call
 * options; the reply's `usage_metadata` becomes the result's `usage`, so a `meteredChat` wrapper
 * counts the provider's own token numbers. Temperature and token limits are settings of the
 * LangChain model (grag's tasks ask for temperature 0: construct it so), or mapped with
 * `settings.callOptions`.
 */
export function fromLangChainChat(
  chatModel: LangChainChatModelLike,
  settings: LangChainChatSettings = {},
): LangChainChatModel {
  return new LangChainChatModel(chatModel, settings);
}
