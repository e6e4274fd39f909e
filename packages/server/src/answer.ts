/** Answers of `POST /v1/query`: whole, or streamed as Server-Sent Events. */
import type { AnswerWithCitations, ContextItem, RetrievedItem } from '@grag/core';
import { citedSources } from '@grag/core/kit';
import { streamAnswer } from '@grag/core/tasks';
import type { Context } from 'hono';
import { streamSSE } from 'hono/streaming';
import { errorBody, toHttpError } from './errors.js';
import { nextTurn } from './turns.js';
import type { AnswerJson, AnswerSource, QueryResponse, QueryStreamEvent } from './types.js';

function isTaskSuite(source: AnswerSource): source is Extract<AnswerSource, { answer: unknown }> {
  return typeof (source as { answer?: unknown }).answer === 'function';
}

/** What the model wrote to the context items, with what each citation points at. */
function answerJson(
  answer: Pick<AnswerWithCitations, 'answer' | 'citations'>,
  items: readonly RetrievedItem[],
): AnswerJson {
  return { text: answer.answer, citations: answer.citations, sources: citedSources(answer.citations, items) };
}

/** The model's context: each item's id (what it cites) and text. */
export function contextOf(items: readonly RetrievedItem[]): ContextItem[] {
  return items.map((item) => ({ id: item.id, text: item.text }));
}

/**
 * The answer with citations and their sources, whole: the task suite's `answer`, or the answer
 * prompt on a chat model, asked with the retrieved `items`.
 */
export async function answerOf(
  source: AnswerSource,
  question: string,
  items: readonly RetrievedItem[],
  signal: AbortSignal,
): Promise<AnswerJson> {
  const context = contextOf(items);
  if (isTaskSuite(source)) {
    return answerJson(await source.answer(question, context, { abortSignal: signal }), items);
  }
  for await (const part of streamAnswer(source, question, context, { abortSignal: signal })) {
    if (part.type === 'answer') return answerJson(part.answer, items);
  }
  /* c8 ignore next */
  throw new Error('streamAnswer ended without an answer');
}

/**
 * The answer streamed as Server-Sent Events: `retrieval` (the response so far), a `delta` per piece
 * of answer text as the model writes it, `answer` (text, citations and their sources), `done`. A
 * failure after the stream started is an `error` event with the usual error body, and the stream
 * ends. The model call is aborted when the client goes away.
 */
export function streamQuery(
  c: Context,
  response: QueryResponse,
  source: AnswerSource,
  question: string,
  onError: (error: unknown, where: string) => void,
): Response {
  const items = response.retrieval.items;
  const context = contextOf(items);
  c.header('X-Accel-Buffering', 'no');
  return streamSSE(c, async (stream) => {
    const controller = new AbortController();
    stream.onAbort(() => controller.abort());
    // Every event is one of the API's QueryStreamEvent (schema.ts), as the OpenAPI document says.
    const send = ({ event, data }: QueryStreamEvent) =>
      stream.writeSSE({ event, data: JSON.stringify(data) });
    try {
      await send({ event: 'retrieval', data: response });
      await nextTurn();
      for await (const part of streamAnswer(source, question, context, { abortSignal: controller.signal })) {
        if (part.type === 'text-delta') await send({ event: 'delta', data: { text: part.text } });
        else await send({ event: 'answer', data: answerJson(part.answer, items) });
      }
      await send({ event: 'done', data: {} });
    } catch (error) {
      if (controller.signal.aborted) return;
      const http = toHttpError(error);
      onError(error, `streamed answer of ${response.index}`);
      await send({ event: 'error', data: errorBody(http) });
    }
  });
}
