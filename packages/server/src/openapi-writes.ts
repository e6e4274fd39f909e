/**
 * The OpenAPI paths of the routes that address an index by name (`/v1/indexes/{name}/…`) and of
 * the writes and their jobs; openapi.ts puts them in the document with the others.
 */
import type { Op } from './openapi.js';
import { chatStreamed, json, jsonBody, parameter, queryAnswered, ref } from './openapi-parts.js';
import { DocumentResponseSchema, IndexInfoSchema, QueryRequestSchema } from './schema.js';
import { ChatRequestSchema } from './schema-chat.js';
import {
  CreateIndexRequestSchema,
  DocumentListSchema,
  JobEventSchema,
  JobSchema,
  UploadDocumentsRequestSchema,
} from './schema-jobs.js';

const NAME = parameter('path', 'name', 'The name of the index (GET /v1/indexes).', {
  type: 'string',
  pattern: '^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$',
});
const DOC_ID = parameter('path', 'id', 'The document id, URL-encoded; it may contain /.', {
  type: 'string',
  minLength: 1,
});
const JOB_ID = parameter('path', 'id', 'The job id a write answered with.', { type: 'string', minLength: 1 });

/** A 202 answer: the job, and where to follow it. */
const ACCEPTED = {
  202: {
    description: 'The write is queued as a job; follow it at the Location (GET /v1/jobs/{id}).',
    headers: { Location: { description: 'The job: /v1/jobs/{id}.', schema: { type: 'string' } } },
    content: json(JobSchema),
  },
};

/** The read routes addressed by index name. */
export function namedIndexPaths(op: Op) {
  return {
    '/v1/indexes/{name}': {
      get: op({
        operationId: 'getIndex',
        summary: 'One served index',
        tags: ['indexes'],
        auth: true,
        parameters: [NAME],
        ok: {
          200: { description: 'The index, with the version served now.', content: json(IndexInfoSchema) },
        },
        errors: [404],
      }),
    },
    '/v1/indexes/{name}/documents/{id}': {
      get: op({
        operationId: 'getIndexDocument',
        summary: 'A source document of the named index',
        description: 'As GET /v1/documents/{id}, from the version served now.',
        tags: ['documents'],
        auth: true,
        parameters: [NAME, DOC_ID],
        ok: { 200: { description: 'The document.', content: json(DocumentResponseSchema) } },
        errors: [404],
      }),
    },
    '/v1/indexes/{name}/documents': {
      get: op({
        operationId: 'listDocuments',
        summary: "A page of the named index's documents",
        description:
          'The ids and titles of the documents of the version served now, in the order the index holds them.',
        tags: ['documents'],
        auth: true,
        parameters: [
          NAME,
          parameter('query', 'offset', 'Documents to skip; default 0.', { type: 'integer', minimum: 0 }),
          parameter('query', 'limit', 'At most this many; default 100.', {
            type: 'integer',
            minimum: 0,
            maximum: 1000,
          }),
        ],
        ok: { 200: { description: 'The page.', content: json(DocumentListSchema) } },
        errors: [400, 404],
      }),
    },
    '/v1/indexes/{name}/query': {
      post: op({
        operationId: 'queryIndex',
        summary: 'Retrieve from the named index, and answer',
        description:
          'As POST /v1/query on the index of the path ("method" may be left out; if given it must name the same index). The whole answer comes from one version of the index, named by version.',
        tags: ['query'],
        auth: true,
        parameters: [NAME],
        requestBody: jsonBody(QueryRequestSchema),
        ok: queryAnswered('The query answered, as POST /v1/query answers it.'),
        errors: [400, 404, 413, 415, 502],
      }),
    },
    '/v1/indexes/{name}/chat': {
      post: op({
        operationId: 'chatIndex',
        summary: "Answer a chat's last message from the named index",
        description: 'As POST /v1/chat on the index of the path.',
        tags: ['query'],
        auth: true,
        parameters: [NAME],
        requestBody: jsonBody(ChatRequestSchema),
        ok: chatStreamed('The answer as an AI SDK UI message stream.'),
        errors: [400, 404, 413, 415, 502],
      }),
    },
  };
}

/** The writes (each answered 202 with a job) and the job routes. */
export function writePaths(op: Op) {
  return {
    '/v1/indexes': {
      post: op({
        operationId: 'createIndex',
        summary: 'Create an index',
        description:
          'Builds a new index of a method the server knows from documents sent as JSON text, or from files as multipart/form-data (each read by the loader of its extension, with JSON documents beside them if given), saves it in the served folder (when there is one) and serves it under its name once the job is done.',
        tags: ['jobs'],
        auth: true,
        requestBody: {
          required: true,
          description:
            'JSON, or multipart/form-data: the text fields name, method, options (JSON) and documents (JSON, optional) and one file per file field (415 for any other Content-Type).',
          content: {
            'application/json': { schema: ref(CreateIndexRequestSchema) },
            'multipart/form-data': {
              schema: {
                type: 'object',
                required: ['name', 'method'],
                properties: {
                  name: { type: 'string', pattern: '^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$' },
                  method: { type: 'string' },
                  options: {
                    type: 'string',
                    contentMediaType: 'application/json',
                    description: "The method's build options, a JSON object.",
                  },
                  documents: {
                    type: 'string',
                    contentMediaType: 'application/json',
                    description: 'Documents as JSON text besides the files: [{"id", "text", "title"?}].',
                  },
                },
                additionalProperties: { type: 'string', contentMediaType: 'application/octet-stream' },
              },
            },
          },
        },
        ok: ACCEPTED,
        errors: [400, 409, 413, 415],
      }),
    },
    '/v1/indexes/{name}': {
      delete: op({
        operationId: 'deleteIndex',
        summary: 'Delete an index',
        description:
          'Stops serving the index once the writes queued before it are done. An index in the served folder has its folder removed, only the files grag wrote (a folder that holds other files is refused, and the index stays).',
        tags: ['jobs'],
        auth: true,
        parameters: [NAME],
        ok: ACCEPTED,
        errors: [404],
      }),
    },
    '/v1/indexes/{name}/documents': {
      post: op({
        operationId: 'uploadDocuments',
        summary: 'Add documents to an index',
        description:
          "Documents as JSON text, or files as multipart/form-data (each read by the loader of its extension: PDF, HTML, DOCX, CSV, JSON, JSONL, Markdown, text). The method's incremental update runs on a copy, the new version is saved and then swapped in: queries are answered by the previous version until then.",
        tags: ['jobs'],
        auth: true,
        parameters: [NAME],
        requestBody: {
          required: true,
          description:
            'JSON, or multipart/form-data with one file per field (415 for any other Content-Type).',
          content: {
            'application/json': { schema: ref(UploadDocumentsRequestSchema) },
            'multipart/form-data': {
              schema: {
                type: 'object',
                additionalProperties: { type: 'string', contentMediaType: 'application/octet-stream' },
              },
            },
          },
        },
        ok: ACCEPTED,
        errors: [400, 404, 409, 413, 415],
      }),
    },
    '/v1/indexes/{name}/documents/{id}': {
      delete: op({
        operationId: 'deleteDocument',
        summary: 'Remove a document from an index',
        description:
          "As an upload, through the method's incremental update; 404 when the version served now does not hold the document.",
        tags: ['jobs'],
        auth: true,
        parameters: [NAME, DOC_ID],
        ok: ACCEPTED,
        errors: [404, 409],
      }),
    },
    '/v1/jobs/{id}': {
      get: op({
        operationId: 'getJob',
        summary: 'How a write is going',
        tags: ['jobs'],
        auth: true,
        parameters: [JOB_ID],
        ok: { 200: { description: 'The job.', content: json(JobSchema) } },
        errors: [404],
      }),
    },
    '/v1/jobs/{id}/events': {
      get: op({
        operationId: 'jobEvents',
        summary: "A job's progress, as Server-Sent Events",
        description:
          'The job at once, again on every change of status or progress ("job" events), and "end" with the final job, after which the stream ends.',
        tags: ['jobs'],
        auth: true,
        parameters: [JOB_ID],
        ok: {
          200: {
            description: 'text/event-stream of JobEvent.',
            content: { 'text/event-stream': { schema: ref(JobEventSchema) } },
          },
        },
        errors: [404],
      }),
    },
  };
}
