/**
 * The pieces the OpenAPI path modules (openapi.ts, openapi-writes.ts) write their operations with:
 * references to the named schemas, parameters, the JSON request body, and the query and chat
 * answers that the routes by index name share with `/v1/query` and `/v1/chat`.
 */
import type { TSchema } from '@sinclair/typebox';
import { QueryResponseSchema, QueryStreamEventSchema } from './schema.js';
import { ChatStreamChunkSchema } from './schema-chat.js';

/** A `$ref` to the component of a named schema. */
export const ref = (schema: TSchema) => ({ $ref: `#/components/schemas/${schema.title as string}` });

/** A JSON content of a named schema. */
export const json = (schema: TSchema) => ({ 'application/json': { schema: ref(schema) } });

/** A parameter of the path (required) or of the query string (optional). */
export function parameter(where: 'path' | 'query', name: string, description: string, schema: object) {
  return { name, in: where, required: where === 'path', description, schema };
}

/** A required request body of `schema`, JSON only. */
export function jsonBody(schema: TSchema) {
  return {
    required: true,
    description: 'JSON only (415 for any other Content-Type); unknown fields are refused.',
    content: json(schema),
  };
}

/** The 200 of a query: the response as JSON, or its events as `text/event-stream`. */
export function queryAnswered(description: string) {
  return {
    200: {
      description,
      content: {
        'application/json': { schema: ref(QueryResponseSchema) },
        'text/event-stream': { schema: ref(QueryStreamEventSchema) },
      },
    },
  };
}

/** The 200 of a chat: the answer as an AI SDK UI message stream. */
export function chatStreamed(description: string) {
  return {
    200: {
      description,
      headers: {
        'x-vercel-ai-ui-message-stream': {
          description: 'The version of the UI message stream protocol.',
          schema: { type: 'string', const: 'v1' },
        },
      },
      content: { 'text/event-stream': { schema: ref(ChatStreamChunkSchema) } },
    },
  };
}
