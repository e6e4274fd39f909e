/**
 * The JSON shapes of `POST /v1/chat` (the route for the AI SDK UI's `useChat`), as JSON Schema
 * built with TypeBox like the rest of the API (schema.ts): the request `useChat` sends, and the
 * chunks of the AI SDK UI message stream the route answers with. The OpenAPI document is made of
 * them; the tests check live bodies and streams against them.
 */
import { type Static, type TSchema, Type } from '@sinclair/typebox';
import { QueryRequestSchema, SourceLocationSchema } from './schema.js';

/**
 * A part of a UI message: an object with a `type`; a `text` part has its `text`. Other parts
 * (files, tools, sources, reasoning, data) are passed over.
 */
const ChatPartSchema = Type.Unsafe<{ type: string; text?: string } & Record<string, unknown>>({
  type: 'object',
  properties: { type: { type: 'string' } },
  required: ['type'],
  if: { properties: { type: { const: 'text' } } },
  // biome-ignore lint/suspicious/noThenProperty: JSON Schema's if/then keyword.
  then: { properties: { text: { type: 'string' } }, required: ['text'] },
  description: 'A part: an object with a type; a text part ({"type": "text"}) has its text.',
});

/** An AI SDK UI message (`UIMessage`), as far as the server reads it. */
export const ChatMessageSchema = Type.Object(
  {
    id: Type.Optional(Type.String()),
    role: Type.Union([Type.Literal('system'), Type.Literal('user'), Type.Literal('assistant')]),
    parts: Type.Array(ChatPartSchema),
  },
  {
    title: 'ChatMessage',
    description:
      "An AI SDK UI message, as useChat keeps and sends it; other properties (metadata) are passed over, and of its parts only the text parts' text is read.",
  },
);
/** An AI SDK UI message, as far as the server reads it. */
export type ChatMessage = Static<typeof ChatMessageSchema>;

/**
 * The body of `POST /v1/chat`: what `useChat`'s `DefaultChatTransport` posts, plus the index
 * fields of a query (`method`, `budget`, `topK`, `options`: the same schemas as `QueryRequest`'s),
 * which the transport's `body` option adds.
 */
export const ChatRequestSchema = Type.Object(
  {
    messages: Type.Array(ChatMessageSchema, {
      minItems: 1,
      description:
        "The chat so far. The last message is the question: it must have role user and text (its text parts joined by newlines, not blank, at most the server's maxQuestionChars characters); grag answers it on its own, the earlier messages are not read.",
    }),
    id: Type.Optional(Type.String({ description: "The chat's id (useChat sends it; not read)." })),
    trigger: Type.Optional(
      Type.Union([Type.Literal('submit-message'), Type.Literal('regenerate-message')], {
        description: 'Why useChat sends the request; both answer the last message.',
      }),
    ),
    messageId: Type.Optional(
      Type.String({ description: 'The message to regenerate (useChat sends it; not read).' }),
    ),
    method: QueryRequestSchema.properties.method,
    budget: QueryRequestSchema.properties.budget,
    topK: QueryRequestSchema.properties.topK,
    options: QueryRequestSchema.properties.options,
  },
  {
    title: 'ChatRequest',
    description:
      "A chat request as the AI SDK UI's useChat sends it (DefaultChatTransport), with a query's index fields in its body option.",
    additionalProperties: false,
  },
);
/** The body of `POST /v1/chat`. */
export type ChatRequest = Static<typeof ChatRequestSchema>;

/** One chunk of the stream: its `type` and fields. */
function chunk<Name extends string, Fields extends Record<string, TSchema>>(
  type: Name,
  fields: Fields,
  description: string,
) {
  return Type.Object({ type: Type.Literal(type), ...fields }, { description, additionalProperties: false });
}

/** What a source part says of the cited item, under `providerMetadata.grag`. */
const GragSourceSchema = Type.Object(
  {
    itemId: Type.String({ description: 'The cited item id (what the text cites as [id]).' }),
    docIds: Type.Array(Type.String(), { description: 'Its documents.' }),
    locations: Type.Optional(
      Type.Array(SourceLocationSchema, { description: 'Its places in the source files, when known.' }),
    ),
  },
  { additionalProperties: false },
);

/**
 * One chunk of `POST /v1/chat`'s AI SDK UI message stream (`UIMessageChunk`), each of the kinds the
 * route sends.
 */
export const ChatStreamChunkSchema = Type.Union(
  [
    chunk('start', { messageId: Type.Optional(Type.String()) }, 'First: the assistant message starts.'),
    chunk('text-start', { id: Type.String() }, 'The answer text starts.'),
    chunk(
      'text-delta',
      { id: Type.String(), delta: Type.String() },
      'A piece of the answer text, as the model writes it.',
    ),
    chunk('text-end', { id: Type.String() }, 'The answer text is complete.'),
    chunk(
      'source-document',
      {
        sourceId: Type.String({ description: 'The cited item id.' }),
        mediaType: Type.Literal('text/plain'),
        title: Type.String({
          description:
            "What to show: the item's source label ('report.pdf p. 3', else its documents' ids), else its id.",
        }),
        filename: Type.Optional(Type.String({ description: 'The file of its first place, when known.' })),
        providerMetadata: Type.Object({ grag: GragSourceSchema }, { additionalProperties: false }),
      },
      'One per citation of the answer, in citation order, after the text.',
    ),
    chunk('finish', {}, 'Last: the message is complete.'),
    chunk(
      'error',
      { errorText: Type.String({ description: 'What failed, on one line.' }) },
      'A failure after the stream started; the stream ends.',
    ),
  ],
  {
    title: 'ChatStreamChunk',
    description:
      'One chunk of the AI SDK UI message stream (protocol v1, header x-vercel-ai-ui-message-stream: v1): start, text-start, a text-delta per piece of the answer, text-end, a source-document per citation, finish; or error, which ends the stream. Each is sent as a Server-Sent Event "data: <chunk as JSON>"; the stream ends with "data: [DONE]".',
  },
);
/** One chunk of `POST /v1/chat`'s UI message stream. */
export type ChatStreamChunk = Static<typeof ChatStreamChunkSchema>;

/** The named schemas of the chat route, for `#/components/schemas`. */
export const CHAT_SCHEMAS: readonly TSchema[] = [ChatMessageSchema, ChatRequestSchema, ChatStreamChunkSchema];
