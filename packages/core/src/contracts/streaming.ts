/**
 * Streaming on the chat contract: {@link streamChat} streams any {@link ChatModel} (one delta from
 * `doGenerate` when the model cannot stream). `streamAnswer` in `@grag/core/tasks` streams the
 * answer task, ending with the parsed answer and its citations ({@link AnswerStreamPart}).
 */
import { throwIfAborted } from './errors.js';
import type { ChatCallOptions, ChatModel, ChatResult, ChatStreamPart, TokenUsage } from './models.js';
import type { AnswerWithCitations } from './tasks.js';

/** A chat model that implements the optional {@link ChatModel.doStream}. */
export type StreamingChatModel = ChatModel & Required<Pick<ChatModel, 'doStream'>>;

/** Whether `model` streams (implements {@link ChatModel.doStream}). */
export function canStream(model: ChatModel): model is StreamingChatModel {
  return typeof model.doStream === 'function';
}

/**
 * Stream one chat call. A model with `doStream` streams; any other answers through `doGenerate`
 * as one delta. Either way the parts are normalized: no empty deltas, and exactly one `finish`
 * part, last (one is added when a model's stream ends without it). Throws an `AbortError` before
 * the call when `options.abortSignal` is already aborted.
 *
 * @example
 * ```ts
 * let text = '';
 * for await (const part of streamChat(model, { messages: [{ role: 'user', content: 'Hi' }] })) {
 *   if (part.type === 'text-delta') text += part.text;
 * }
 * ```
 */
export async function* streamChat(
  model: ChatModel,
  options: ChatCallOptions,
): AsyncGenerator<ChatStreamPart> {
  throwIfAborted(options.abortSignal);
  if (!canStream(model)) {
    const result = await model.doGenerate(options);
    if (result.text !== '') yield { type: 'text-delta', text: result.text };
    yield finishPart(result.usage, result.finishReason);
    return;
  }
  for await (const part of model.doStream(options)) {
    if (part.type === 'text-delta') {
      if (part.text !== '') yield { type: 'text-delta', text: part.text };
    } else if (part.type === 'finish') {
      yield finishPart(part.usage, part.finishReason);
      return;
    }
  }
  yield { type: 'finish' };
}

function finishPart(usage: TokenUsage | undefined, finishReason: ChatResult['finishReason']): ChatStreamPart {
  return {
    type: 'finish',
    ...(usage !== undefined ? { usage } : {}),
    ...(finishReason !== undefined ? { finishReason } : {}),
  };
}

/** The {@link ChatResult} of a stream of parts: the deltas joined, the finish part's usage and reason. */
export async function collectChatStream(parts: AsyncIterable<ChatStreamPart>): Promise<ChatResult> {
  let text = '';
  let result: ChatResult = { text };
  for await (const part of parts) {
    if (part.type === 'text-delta') text += part.text;
    else result = finishResult(part);
  }
  return { ...result, text };
}

/** The {@link ChatResult} a stream's `finish` part stands for (its text is collected apart). */
export function finishResult(part: Extract<ChatStreamPart, { type: 'finish' }>): ChatResult {
  return {
    text: '',
    ...(part.usage !== undefined ? { usage: part.usage } : {}),
    ...(part.finishReason !== undefined ? { finishReason: part.finishReason } : {}),
  };
}

/** A part of a streamed answer (`streamAnswer` in `@grag/core/tasks`): text as it arrives, then the parsed answer. */
export type AnswerStreamPart =
  | { type: 'text-delta'; text: string }
  | {
      type: 'answer';
      /** What `TaskSuite.answer` returns for the same call: the text, the cited ids, parse issues. */
      answer: AnswerWithCitations;
      /** Token usage of the call, when the model reported it. */
      usage?: TokenUsage;
    };
