/**
 * Streaming on the chat contract: {@link streamChat} streams any {@link ChatModel} (one delta from
 * `doGenerate` when the model cannot stream), and {@link streamAnswer} streams the answer task,
 * ending with the parsed answer and its citations.
 */
import { InvalidArgumentError, throwIfAborted } from './errors.js';
import type { ChatCallOptions, ChatModel, ChatResult, ChatStreamPart, TokenUsage } from './models.js';
import { parseAnswer } from './tasks/parsers/answer.js';
import { PromptTasks } from './tasks/prompt-tasks.js';
import { answerPrompt } from './tasks/prompts.js';
import type { AnswerWithCitations, ContextItem, TaskSuite } from './tasks/types.js';

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

function finishResult(part: Extract<ChatStreamPart, { type: 'finish' }>): ChatResult {
  return {
    text: '',
    ...(part.usage !== undefined ? { usage: part.usage } : {}),
    ...(part.finishReason !== undefined ? { finishReason: part.finishReason } : {}),
  };
}

/** A part of a streamed answer ({@link streamAnswer}): text as it arrives, then the parsed answer. */
export type AnswerStreamPart =
  | { type: 'text-delta'; text: string }
  | {
      type: 'answer';
      /** What `TaskSuite.answer` returns for the same call: the text, the cited ids, parse issues. */
      answer: AnswerWithCitations;
      /** Token usage of the call, when the model reported it. */
      usage?: TokenUsage;
    };

/**
 * Answer `query` from `context` with citations, streamed: `text-delta` parts as the model writes
 * the answer, then one `answer` part with what the answer task returns (the text, the ids of the
 * context items it cites, parse issues).
 *
 * `source` is where the answer comes from:
 * - a prompt task suite (`createPromptTasks(model)`) whose model streams: the answer prompt is
 *   streamed with the suite's settings and parsed as `answer()` parses it;
 * - a {@link ChatModel}: the same prompt at temperature 0, streamed when the model can stream,
 *   else one delta;
 * - any other {@link TaskSuite} (e.g. `@grag/offline`'s heuristics): its `answer()`, as one delta.
 *
 * Throws `InvalidArgumentError` for a blank query, and what the model throws (also mid-stream).
 */
export async function* streamAnswer(
  source: TaskSuite | ChatModel,
  query: string,
  context: readonly ContextItem[],
  options: { abortSignal?: AbortSignal } = {},
): AsyncGenerator<AnswerStreamPart> {
  if (typeof query !== 'string' || !query.trim()) {
    throw new InvalidArgumentError('query', "streamAnswer: the query is blank; pass the user's question.");
  }
  const items = context.map((c) => ({ id: c.id, text: c.text }));
  const prompted = promptedModel(source);
  if (!prompted) {
    throwIfAborted(options.abortSignal);
    const answer = await (source as TaskSuite).answer(query, items, options);
    if (answer.answer !== '') yield { type: 'text-delta', text: answer.answer };
    yield { type: 'answer', answer };
    return;
  }
  const prompt = answerPrompt(query, items);
  const call: ChatCallOptions = {
    messages: [
      ...(prompt.system ? [{ role: 'system' as const, content: prompt.system }] : []),
      { role: 'user', content: prompt.user },
    ],
    temperature: prompted.temperature,
    responseFormat: 'text',
    task: { name: 'answer', args: [query, items] },
    ...(prompted.maxOutputTokens !== undefined ? { maxOutputTokens: prompted.maxOutputTokens } : {}),
    ...(options.abortSignal ? { abortSignal: options.abortSignal } : {}),
  };
  let text = '';
  let finish: ChatResult = { text: '' };
  for await (const part of streamChat(prompted.model, call)) {
    if (part.type === 'text-delta') {
      text += part.text;
      yield part;
    } else finish = finishResult(part);
  }
  const answer = parseAnswer(
    text,
    items.map((c) => c.id),
  );
  if (finish.finishReason === 'length' && !answer.issues.some((i) => i.kind === 'truncated')) {
    answer.issues.push({
      kind: 'truncated',
      reason: 'the model stopped at its output-token limit; raise maxOutputTokens or shorten the input',
      raw: text,
    });
  }
  if (answer.issues.length > 0) prompted.onIssues?.('answer', answer.issues);
  yield { type: 'answer', answer, ...(finish.usage ? { usage: finish.usage } : {}) };
}

/** The model and call settings the answer prompt is sent with, or undefined to call `answer()`. */
function promptedModel(source: TaskSuite | ChatModel):
  | {
      model: ChatModel;
      temperature: number;
      maxOutputTokens?: number;
      onIssues?: PromptTasks['settings']['onIssues'];
    }
  | undefined {
  if (source instanceof PromptTasks) {
    // A suite whose model cannot stream answers through answer() itself: the same call, one delta.
    if (!canStream(source.model)) return undefined;
    const { temperature, maxOutputTokens, onIssues } = source.settings;
    return {
      model: source.model,
      temperature,
      ...(maxOutputTokens !== undefined ? { maxOutputTokens } : {}),
      ...(onIssues ? { onIssues } : {}),
    };
  }
  if (isChatModel(source)) return { model: source, temperature: 0 };
  return undefined;
}

function isChatModel(value: TaskSuite | ChatModel): value is ChatModel {
  return (
    typeof (value as Partial<ChatModel>).doGenerate === 'function' &&
    (value as Partial<ChatModel>).specificationVersion === 'v1'
  );
}
