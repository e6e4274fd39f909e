/** Answers of `POST /v1/query`: whole, or streamed as Server-Sent Events. */
import { type ContextItem, streamAnswer } from '@grag/core';
import type { Context } from 'hono';
import { streamSSE } from 'hono/streaming';
import { errorBody, toHttpError } from './errors.js';
import { nextTurn } from './turns.js';
import type { AnswerJson, AnswerSource, QueryResponse } from './types.js';

function isTaskSuite(source: AnswerSource): source is Extract<AnswerSource, { answer: unknown }> {
  return typeof (source as { answer?: unknown }).answer === 'function';
}

/** The answer with citations, whole: the task suite's `answer`, or the answer prompt on a chat model. */
export async function answerOf(
  source: AnswerSource,
  question: string,
  context: ContextItem[],
  signal: AbortSignal,
): Promise<AnswerJson> {
  if (isTaskSuite(source)) {
    const answer = await source.answer(question, context, { abortSignal: signal });
    return { text: answer.answer, citations: answer.citations };
  }
  for await (const part of streamAnswer(source, question, context, { abortSignal: signal })) {
    if (part.type === 'answer') return { text: part.answer.answer, citations: part.answer.citations };
  }
  /* c8 ignore next */
  throw new Error('streamAnswer ended without an answer');
}

/**
 * The answer streamed as Server-Sent Events: `retrieval` (the response so far), a `delta` per piece
 * of answer text as the model writes it, `answer` (text and citations), `done`. A failure after the
 * stream started is an `error` event with the usual error body, and the stream ends. The model call
 * is aborted when the client goes away.
 */
export function streamQuery(
  c: Context,
  response: QueryResponse,
  source: AnswerSource,
  question: string,
  context: ContextItem[],
  onError: (error: unknown, where: string) => void,
): Response {
  c.header('X-Accel-Buffering', 'no');
  return streamSSE(c, async (stream) => {
    const controller = new AbortController();
    stream.onAbort(() => controller.abort());
    try {
      await stream.writeSSE({ event: 'retrieval', data: JSON.stringify(response) });
      await nextTurn();
      for await (const part of streamAnswer(source, question, context, { abortSignal: controller.signal })) {
        if (part.type === 'text-delta') {
          await stream.writeSSE({ event: 'delta', data: JSON.stringify({ text: part.text }) });
        } else {
          const answer: AnswerJson = { text: part.answer.answer, citations: part.answer.citations };
          await stream.writeSSE({ event: 'answer', data: JSON.stringify(answer) });
        }
      }
      await stream.writeSSE({ event: 'done', data: '{}' });
    } catch (error) {
      if (controller.signal.aborted) return;
      const http = toHttpError(error);
      onError(error, `streamed answer of ${response.index}`);
      await stream.writeSSE({ event: 'error', data: JSON.stringify(errorBody(http)) });
    }
  });
}
