/**
 * {@link streamAnswer}: the answer task streamed, from a prompt task suite, a chat model or any
 * other task suite, ending with the parsed answer and its citations.
 */
import { InvalidArgumentError, throwIfAborted } from '../contracts/errors.js';
import type { ChatCallOptions, ChatModel, ChatResult } from '../contracts/models.js';
import { type AnswerStreamPart, canStream, finishResult, streamChat } from '../contracts/streaming.js';
import type { ContextItem, TaskSuite } from '../contracts/tasks.js';
import { parseAnswer } from './parsers/answer.js';
import { PromptTasks } from './prompt-tasks.js';
import { answerPrompt } from './prompts.js';

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
