/**
 * The OpenAPI 3.1 document of the grag HTTP API (`GET /openapi.json`): every route the server
 * answers, with its parameters, request body, responses and errors, made of the JSON Schemas of
 * schema.ts — the same definitions the server's, the client's and the explorer's TypeScript types
 * are derived from.
 */

import { graphPaths } from './openapi-graph.js';
import { chatStreamed, json, jsonBody, parameter, queryAnswered } from './openapi-parts.js';
import { namedIndexPaths, writePaths } from './openapi-writes.js';
import {
  API_SCHEMAS,
  DocumentResponseSchema,
  ErrorBodySchema,
  HealthSchema,
  IndexListSchema,
  QueryRequestSchema,
} from './schema.js';
import { CHAT_SCHEMAS, ChatRequestSchema } from './schema-chat.js';
import { GRAPH_SCHEMAS } from './schema-graph.js';
import { JOB_SCHEMAS } from './schema-jobs.js';

/** An OpenAPI 3.1 document, as plain JSON. */
export type OpenApiDocument = { openapi: string; info: Record<string, unknown> } & Record<string, unknown>;

/** What the document says of the server it describes. */
export interface OpenApiOptions {
  /** Whether the `/v1/*` routes require `Authorization: Bearer <token>`. @default false */
  bearerAuth?: boolean;
  /** The server's `maxQuestionChars` (the question's `maxLength`). @default none (not stated) */
  maxQuestionChars?: number;
}

type Json = unknown;

/** `value` as plain JSON: TypeBox's symbol keys dropped, every object a copy. */
function plain<T>(value: T): T {
  return JSON.parse(JSON.stringify(value)) as T;
}

/** The components of the named schemas (each by its `title`), checked to be distinct. */
function namedSchemas(): Map<string, Json> {
  const named = new Map<string, Json>();
  for (const schema of [...API_SCHEMAS, ...CHAT_SCHEMAS, ...JOB_SCHEMAS, ...GRAPH_SCHEMAS]) {
    const title = schema.title;
    if (typeof title !== 'string' || named.has(title)) {
      throw new Error(`openapi: every API schema needs a title of its own (got ${JSON.stringify(title)}).`);
    }
    named.set(title, plain(schema));
  }
  return named;
}

/**
 * `schema` with every named schema inside it (a schema whose `title` is a component's) written as
 * a `$ref` to its component. A titled schema that differs from its component is an error: two
 * shapes under one name.
 */
function withRefs(schema: Json, named: Map<string, Json>, root = true): Json {
  if (Array.isArray(schema)) return schema.map((item) => withRefs(item, named, false));
  if (typeof schema !== 'object' || schema === null) return schema;
  const record = schema as Record<string, Json>;
  const title = record.title;
  if (!root && typeof title === 'string' && named.has(title)) {
    if (JSON.stringify(record) !== JSON.stringify(named.get(title))) {
      throw new Error(`openapi: the schema titled ${title} differs from the component of that name.`);
    }
    return { $ref: `#/components/schemas/${title}` };
  }
  const out: Record<string, Json> = {};
  for (const [key, value] of Object.entries(record)) {
    // `properties` maps names to schemas: none of its keys is a schema keyword like `title`.
    out[key] =
      key === 'properties' && typeof value === 'object' && value !== null
        ? Object.fromEntries(Object.entries(value).map(([k, v]) => [k, withRefs(v, named, false)]))
        : withRefs(value, named, false);
  }
  return out;
}

/** The error responses, by status, each `{"error": {code, message}}`. */
const ERRORS = {
  400: [
    'BadRequest',
    'bad_request: the request is not one the route takes (the message says what is wrong).',
  ],
  401: ['Unauthorized', 'unauthorized: missing or wrong bearer token.'],
  403: [
    'ForbiddenOrigin',
    "forbidden_origin: the request comes from a page of another origin (an Origin that is neither the server's own nor allowed with cors, or Sec-Fetch-Site cross-site/same-site without one); or forbidden: a write with a token that may only read its workspace.",
  ],
  404: [
    'NotFound',
    'not_found (no such route, document, job, graph node or asset), unknown_index (no index of that name; the message lists them) or no_graph (the index keeps no graph to browse).',
  ],
  409: [
    'Conflict',
    'conflict (an index of that name exists, or its folder holds files grag did not write) or not_writable (the index cannot be updated, or the server cannot create indexes).',
  ],
  413: ['PayloadTooLarge', "payload_too_large: the body is over the server's bodyLimitBytes."],
  415: [
    'UnsupportedMediaType',
    'unsupported_media_type: the body is not sent as Content-Type: application/json.',
  ],
  421: [
    'MisdirectedRequest',
    'misdirected_request: a Host the server does not answer to (a guard against DNS rebinding; allow it with allowedHosts).',
  ],
  500: [
    'InternalError',
    'internal_error: the server failed; the details are in its log, never in the answer.',
  ],
  502: [
    'ProviderError',
    'provider_error or model_output_error: the model provider failed, or its output could not be read.',
  ],
} as const;

/** An error status a route may answer with. */
export type ErrorStatus = keyof typeof ERRORS;

function errorResponse(status: ErrorStatus) {
  return { $ref: `#/components/responses/${ERRORS[status][0]}` };
}

/** One operation of the document, as the path functions write it. */
export interface OperationSpec {
  operationId: string;
  summary: string;
  description?: string;
  tags: string[];
  parameters?: Json[];
  requestBody?: Json;
  /** The success responses by status. */
  ok: Record<string, Json>;
  /** The error statuses of this route (the guard's 403 and 421 and a 500 are on every route). */
  errors?: ErrorStatus[];
  /** Whether the route needs the bearer token when the server has one (every `/v1/*` route). */
  auth?: boolean;
}

function operation(spec: OperationSpec, bearerAuth: boolean) {
  const needsToken = spec.auth === true && bearerAuth;
  const statuses = new Set<ErrorStatus>([...(spec.errors ?? []), 403, 421, 500]);
  if (needsToken) statuses.add(401);
  const responses: Record<string, Json> = { ...spec.ok };
  for (const status of [...statuses].sort((a, b) => a - b)) responses[String(status)] = errorResponse(status);
  return {
    operationId: spec.operationId,
    summary: spec.summary,
    ...(spec.description ? { description: spec.description } : {}),
    tags: spec.tags,
    ...(spec.parameters ? { parameters: spec.parameters } : {}),
    ...(spec.requestBody ? { requestBody: spec.requestBody } : {}),
    responses,
    ...(needsToken ? { security: [{ bearer: [] }] } : {}),
  };
}

/** Makes an operation of the document from its spec. */
export type Op = (spec: OperationSpec) => ReturnType<typeof operation>;

/** `/healthz` and this document. */
function serverPaths(op: Op) {
  return {
    '/healthz': {
      get: op({
        operationId: 'health',
        summary: 'Whether the server is up',
        description: 'Needs no token.',
        tags: ['server'],
        ok: { 200: { description: 'The server is up.', content: json(HealthSchema) } },
      }),
    },
    '/openapi.json': {
      get: op({
        operationId: 'openApi',
        summary: 'This document',
        description: 'The OpenAPI 3.1 document of this server. Needs no token.',
        tags: ['server'],
        ok: {
          200: {
            description: 'An OpenAPI 3.1 document.',
            content: { 'application/json': { schema: { type: 'object' } } },
          },
        },
      }),
    },
  };
}

/** The API proper: `/v1/*`, each behind the token when the server has one. */
function apiPaths(op: Op) {
  return {
    '/v1/indexes': {
      get: op({
        operationId: 'listIndexes',
        summary: 'The served indexes',
        tags: ['indexes'],
        auth: true,
        ok: { 200: { description: 'The served indexes, in order.', content: json(IndexListSchema) } },
      }),
    },
    '/v1/documents/{id}': {
      get: op({
        operationId: 'getDocument',
        summary: 'A source document of an index',
        description:
          'Documents are served from memory by id; nothing is read from a file (a ../ in an id is an unknown id).',
        tags: ['documents'],
        auth: true,
        parameters: [
          parameter('path', 'id', 'The document id (docIds of an item), URL-encoded; it may contain /.', {
            type: 'string',
            minLength: 1,
          }),
          parameter('query', 'method', 'The name of the index to read it from; default the first.', {
            type: 'string',
          }),
        ],
        ok: { 200: { description: 'The document.', content: json(DocumentResponseSchema) } },
        errors: [404],
      }),
    },
    '/v1/query': {
      post: op({
        operationId: 'query',
        summary: 'Retrieve from an index, and answer',
        description:
          'Runs the method of the index on the question and returns its retrieval (context, items with provenance, subgraph) and, with answer, an answer with citations. With answer and stream, the response is a Server-Sent Events stream (text/event-stream) of QueryStreamEvent: retrieval, a delta per piece of answer text, answer, done; a failure after the stream started is an error event, and the stream ends.',
        tags: ['query'],
        auth: true,
        requestBody: jsonBody(QueryRequestSchema),
        ok: queryAnswered(
          'The query answered: application/json, or text/event-stream when answer and stream are both true (each event an "event:" line with the event name and a "data:" line with the data as JSON; the schema describes one event).',
        ),
        errors: [400, 404, 413, 415, 502],
      }),
    },
    '/v1/chat': {
      post: op({
        operationId: 'chat',
        summary: "Answer a chat's last message, as an AI SDK UI message stream",
        description:
          "For the AI SDK UI's useChat (DefaultChatTransport with api /v1/chat; method, budget, topK and options in its body option). The last message is asked as a query of the index with an answer (the same checks, retrieval and answer as POST /v1/query); the answer is streamed in the AI SDK UI message stream protocol: its text as it is written, then a source-document per citation. The earlier messages are not read. A failure after the stream started is an error chunk, and the stream ends.",
        tags: ['query'],
        auth: true,
        requestBody: jsonBody(ChatRequestSchema),
        ok: chatStreamed(
          'The answer as an AI SDK UI message stream: text/event-stream, each event a "data:" line with one ChatStreamChunk as JSON, the last one "data: [DONE]".',
        ),
        errors: [400, 404, 413, 415, 502],
      }),
    },
  };
}

/** The explorer page and its files. */
function explorerPaths(op: Op) {
  return {
    '/': {
      get: op({
        operationId: 'explorerPage',
        summary: 'The explorer page',
        description:
          'The graph explorer page (needs no token; it sends the token of its #token= fragment). Without built assets, a page that says how to build them.',
        tags: ['explorer'],
        ok: {
          200: { description: 'The page.', content: { 'text/html': { schema: { type: 'string' } } } },
        },
        errors: [404],
      }),
    },
    '/assets/{name}': {
      get: op({
        operationId: 'explorerAsset',
        summary: "A file of the explorer page's bundle",
        description: 'Needs no token.',
        tags: ['explorer'],
        parameters: [
          parameter('path', 'name', 'A file name of the bundle, e.g. explorer.js.', {
            type: 'string',
            pattern: '^[A-Za-z0-9_-][A-Za-z0-9._-]*$',
          }),
        ],
        ok: {
          200: {
            description: 'The file, with its content type (text/javascript, text/css, …).',
            content: { '*/*': { schema: { type: 'string', contentEncoding: 'binary' } } },
          },
        },
        errors: [404],
      }),
    },
  };
}

/** Path items put together: the operations of one path from every part. */
function mergePaths(
  parts: readonly Record<string, Record<string, Json>>[],
): Record<string, Record<string, Json>> {
  const out: Record<string, Record<string, Json>> = {};
  for (const part of parts) {
    for (const [path, item] of Object.entries(part)) out[path] = { ...out[path], ...item };
  }
  return out;
}

/** The named schemas (the question's `maxLength` set), the error responses, the bearer scheme. */
function components(options: OpenApiOptions) {
  const named = namedSchemas();
  if (options.maxQuestionChars !== undefined) {
    const request = named.get(QueryRequestSchema.title as string) as {
      properties: { question: Record<string, Json> };
    };
    request.properties.question.maxLength = options.maxQuestionChars;
  }
  const schemas = Object.fromEntries([...named].map(([title, schema]) => [title, withRefs(schema, named)]));
  const responses = Object.fromEntries(
    Object.values(ERRORS).map(([name, description]) => [
      name,
      {
        description,
        ...(name === 'Unauthorized'
          ? { headers: { 'WWW-Authenticate': { description: 'Bearer', schema: { type: 'string' } } } }
          : {}),
        content: json(ErrorBodySchema),
      },
    ]),
  );
  return {
    schemas,
    responses,
    ...(options.bearerAuth === true
      ? {
          securitySchemes: {
            bearer: {
              type: 'http',
              scheme: 'bearer',
              description: 'The token the server was started with (grag serve --token, or GRAG_TOKEN).',
            },
          },
        }
      : {}),
  };
}

/**
 * The OpenAPI 3.1 document of the grag HTTP API, as `GET /openapi.json` serves it: every route
 * (`/healthz`, `/openapi.json`, the explorer's `/` and `/assets/{name}`, `GET /v1/indexes`,
 * `GET /v1/documents/{id}`, `POST /v1/query` with its JSON and its `text/event-stream` answers,
 * `POST /v1/chat` with its AI SDK UI message stream),
 * the error body and the error statuses of each route, and the bearer scheme when the server has a
 * token. Its schemas are the ones the API's TypeScript types are derived from.
 *
 * @example
 * ```ts
 * const doc = openApiDocument({ bearerAuth: true });
 * await writeFile('grag-openapi.json', JSON.stringify(doc, null, 2));
 * ```
 */
export function openApiDocument(options: OpenApiOptions = {}): OpenApiDocument {
  const op: Op = (spec) => operation(spec, options.bearerAuth === true);
  return {
    openapi: '3.1.0',
    info: {
      title: 'grag serve',
      version: '1',
      summary: 'Retrieval and cited answers over grag indexes.',
      description:
        'The HTTP API of @grag/server (grag serve). Every route first passes the server\'s browser guard: a Host it does not answer to gets 421, a request from a page of another origin 403. Request bodies are JSON only. Errors are {"error": {"code", "message"}} with the status.',
      license: { name: 'MIT', identifier: 'MIT' },
    },
    tags: [
      { name: 'server', description: 'Health and this document.' },
      { name: 'indexes', description: 'The served indexes.' },
      { name: 'query', description: 'Retrieval and answers.' },
      { name: 'documents', description: 'Source documents.' },
      { name: 'jobs', description: 'Writes to indexes, run in the background.' },
      { name: 'graph', description: "Browsing an index's whole graph, in bounded pages." },
      { name: 'explorer', description: 'The explorer page.' },
    ],
    paths: mergePaths([
      serverPaths(op),
      apiPaths(op),
      namedIndexPaths(op),
      writePaths(op),
      graphPaths(op),
      explorerPaths(op),
    ]),
    components: components(options),
  };
}
