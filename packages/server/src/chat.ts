/**
 * `POST /v1/chat`: the request the AI SDK UI's `useChat` sends (its `DefaultChatTransport` posts
 * `{ id, messages, trigger, messageId }` plus the transport's `body`), answered as an AI SDK UI
 * message stream by `@grag/ai-sdk`'s `gragUIMessageStream`: the answer's text streamed as one text
 * part, then a source part per citation. The last message is the question; it is asked as a query
 * with an answer (the query route's checks, retrieval and answer sources: query.ts).
 */
import type { Retrieval } from '@grag/core';
import { badRequest, toHttpError } from './errors.js';
import type { ServedIndex } from './indexes.js';
import { type CheckedQuery, checkQuestionLength, INDEX_FIELDS, parseIndexFields, typeName } from './query.js';
import { nextTurn } from './turns.js';
import type { AnswerSource } from './types.js';

/** The body a chat request takes, as the messages of a bad one name it. */
export const CHAT_EXAMPLE =
  '{"messages": [{"role": "user", "parts": [{"type": "text", "text": "<your question>"}]}]}';

/** What `useChat` sends, and the index fields of a query (sent in the transport's `body`). */
const FIELDS = ['messages', 'id', 'trigger', 'messageId', ...INDEX_FIELDS];
const ROLES = ['system', 'user', 'assistant'];
const TRIGGERS = ['submit-message', 'regenerate-message'];

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function optionalString(b: Record<string, unknown>, field: 'id' | 'messageId'): void {
  if (b[field] !== undefined && typeof b[field] !== 'string') {
    throw badRequest(`"${field}" must be a string, got ${typeName(b[field])}.`);
  }
}

/** The text of a message's text parts, after checking its shape (`at`: where it is, for messages). */
function messageText(message: unknown, at: string): { role: string; text: string } {
  if (!isObject(message)) {
    throw badRequest(
      `"${at}" must be a UI message, {"role": ..., "parts": [...]}, got ${typeName(message)}.`,
    );
  }
  const { role, parts } = message;
  if (typeof role !== 'string' || !ROLES.includes(role)) {
    throw badRequest(`"${at}.role" must be "system", "user" or "assistant", got ${JSON.stringify(role)}.`);
  }
  if (message.id !== undefined && typeof message.id !== 'string') {
    throw badRequest(`"${at}.id" must be a string, got ${typeName(message.id)}.`);
  }
  if (!Array.isArray(parts))
    throw badRequest(`"${at}.parts" must be an array of parts, got ${typeName(parts)}.`);
  const texts: string[] = [];
  for (const [j, part] of parts.entries()) {
    if (!isObject(part)) {
      throw badRequest(
        `"${at}.parts[${j}]" must be a part, an object like {"type": "text", "text": "..."}, got ${typeName(part)}.`,
      );
    }
    if (typeof part.type !== 'string') {
      throw badRequest(`"${at}.parts[${j}].type" must be a string, e.g. "text", got ${typeName(part.type)}.`);
    }
    if (part.type !== 'text') continue;
    if (typeof part.text !== 'string') {
      throw badRequest(`"${at}.parts[${j}].text" must be a string, got ${typeName(part.text)}.`);
    }
    texts.push(part.text);
  }
  return { role, text: texts.join('\n') };
}

/**
 * Check a parsed chat request: an object with `messages`, a non-empty array of UI messages (each
 * `{ id?, role, parts }` with `role` `system`, `user` or `assistant` and `parts` objects with a
 * `type`, a `text` part's `text` a string; other parts and fields are passed over), the last one
 * the user's question (its text parts, joined by newlines: not blank, at most `maxQuestionChars`
 * characters); optional `id`, `messageId` (strings) and `trigger` (`submit-message` or
 * `regenerate-message`), which `useChat` sends; and the index fields of a query (`method`,
 * `budget`, `topK`, `options`); no other field. Throws a 400 naming what is wrong.
 *
 * grag answers the last message on its own: the earlier ones are not read (a follow-up question
 * must name what it asks about).
 */
export function parseChatRequest(body: unknown, maxQuestionChars: number): CheckedQuery {
  if (!isObject(body)) {
    throw badRequest(`The body must be a JSON object like ${CHAT_EXAMPLE}, got ${typeName(body)}.`);
  }
  const unknown = Object.keys(body).find((k) => !FIELDS.includes(k));
  if (unknown !== undefined) {
    throw badRequest(`Unknown field ${JSON.stringify(unknown)}; a chat request takes ${FIELDS.join(', ')}.`);
  }
  const { messages } = body;
  if (messages === undefined) throw badRequest(`Missing "messages": send ${CHAT_EXAMPLE}.`);
  if (!Array.isArray(messages) || messages.length === 0) {
    throw badRequest(`"messages" must be a non-empty array of UI messages, got ${typeName(messages)}.`);
  }
  const read = messages.map((message, i) => messageText(message, `messages[${i}]`));
  optionalString(body, 'id');
  optionalString(body, 'messageId');
  if (body.trigger !== undefined && !TRIGGERS.includes(body.trigger as string)) {
    throw badRequest(
      `"trigger" must be "submit-message" or "regenerate-message", got ${JSON.stringify(body.trigger)}.`,
    );
  }
  const fields = parseIndexFields(body);
  const last = read.at(-1)!;
  if (last.role !== 'user') {
    throw badRequest(
      `The last message must be the user's question (role "user"), got role ${JSON.stringify(last.role)}.`,
    );
  }
  if (last.text.trim() === '') {
    throw badRequest(
      'The last message has no text: send the question as a text part, {"type": "text", "text": "<your question>"}.',
    );
  }
  checkQuestionLength(last.text, maxQuestionChars, 'The last message');
  return { question: last.text, ...fields, answer: true, stream: true };
}

/** What {@link chatAnswerStream} answers from. */
export interface ChatAnswer {
  /** The index asked; its answer source answers (the route checked it has one). */
  served: ServedIndex;
  question: string;
  retrieval: Retrieval;
  /** The request's signal: a client that goes away stops the model call. */
  signal: AbortSignal;
  onError: (error: unknown, where: string) => void;
}

/**
 * The answer as an AI SDK UI message stream response (`text/event-stream`, each chunk a `data:`
 * line of JSON, then `data: [DONE]`; header `x-vercel-ai-ui-message-stream: v1`): `start`, the
 * answer text (`text-start`, `text-delta`…, `text-end`), a `source-document` per citation, `finish`.
 * A failure after the stream started is an `error` chunk with the error's one line (a 500 says only
 * that the server failed) and goes to `onError`; the stream ends.
 */
export async function chatAnswerStream(chat: ChatAnswer): Promise<Response> {
  const { served, question, retrieval, signal, onError } = chat;
  // Loaded on the first chat request, not with the server: `ai` (with the zod it imports) takes
  // 150-300 ms to load, which a server that is never asked to chat need not spend starting.
  const [{ gragUIMessageStream }, { createUIMessageStreamResponse }] = await Promise.all([
    import('@grag/ai-sdk'),
    import('ai'),
  ]);
  // The answer starts in a turn of its own, as a streamed query's does (turns.ts).
  await nextTurn();
  const stream = gragUIMessageStream({
    question,
    retrieval,
    answer: served.answer as AnswerSource,
    abortSignal: signal,
    onError: (error) => {
      if (!signal.aborted) onError(error, `chat answer of ${served.name}`);
      return toHttpError(error).message;
    },
  });
  return createUIMessageStreamResponse({ stream });
}
