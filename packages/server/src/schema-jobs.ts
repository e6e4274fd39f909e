/**
 * The JSON shapes of the write routes and their jobs (`POST /v1/indexes`, `POST` and `DELETE
 * /v1/indexes/{name}/documents`, `DELETE /v1/indexes/{name}`, `GET /v1/jobs/{id}` and its event
 * stream), as JSON Schema built with TypeBox like the rest of the API (schema.ts).
 */
import { type Static, type TSchema, Type } from '@sinclair/typebox';

/** A document sent as JSON text. */
export const DocumentInputSchema = Type.Object(
  {
    id: Type.String({
      minLength: 1,
      maxLength: 500,
      description: 'Unique in the index; an indexed id is replaced.',
    }),
    text: Type.String({ pattern: '\\S', description: 'The text, not blank.' }),
    title: Type.Optional(Type.String()),
  },
  { title: 'DocumentInput', description: 'A document sent as JSON text.', additionalProperties: false },
);
/** A document sent as JSON text. */
export type DocumentInput = Static<typeof DocumentInputSchema>;

/** The JSON body of `POST /v1/indexes/{name}/documents`. */
export const UploadDocumentsRequestSchema = Type.Object(
  {
    documents: Type.Array(DocumentInputSchema, {
      minItems: 1,
      description: 'The documents to add; one whose id the index holds replaces it.',
    }),
  },
  {
    title: 'UploadDocumentsRequest',
    description: 'Documents to add to an index, as JSON text.',
    additionalProperties: false,
  },
);
/** The JSON body of `POST /v1/indexes/{name}/documents`. */
export type UploadDocumentsRequest = Static<typeof UploadDocumentsRequestSchema>;

/** The body of `POST /v1/indexes`. */
export const CreateIndexRequestSchema = Type.Object(
  {
    name: Type.String({
      pattern: '^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$',
      description:
        "The new index's name: letters, digits, '.', '_', '-' (not first), at most 100 characters.",
    }),
    method: Type.String({ description: 'The method to build it with, e.g. bm25 (one the server knows).' }),
    options: Type.Optional(
      Type.Unsafe<Record<string, unknown>>({
        type: 'object',
        description: "The method's build options (as grag index --set gives them); unknown keys are refused.",
      }),
    ),
    documents: Type.Array(DocumentInputSchema, { minItems: 1, description: 'The documents to index.' }),
  },
  { title: 'CreateIndexRequest', description: 'A new index to build.', additionalProperties: false },
);
/** The body of `POST /v1/indexes`. */
export type CreateIndexRequest = Static<typeof CreateIndexRequestSchema>;

const nullable = <T extends TSchema>(schema: T, description: string) =>
  Type.Union([schema, Type.Null()], { description });

/** A write to an index, run in the background (`GET /v1/jobs/{id}`). */
export const JobSchema = Type.Object(
  {
    id: Type.String({ description: 'The job id (GET /v1/jobs/{id}).' }),
    kind: Type.Union(
      [
        Type.Literal('create-index'),
        Type.Literal('add-documents'),
        Type.Literal('remove-documents'),
        Type.Literal('delete-index'),
      ],
      { description: 'What the job does.' },
    ),
    index: Type.String({ description: 'The name of the index it writes.' }),
    status: Type.Union(
      [Type.Literal('queued'), Type.Literal('running'), Type.Literal('done'), Type.Literal('failed')],
      {
        description:
          'queued (waiting for the writes before it to the same index), running, done or failed; done and failed are final.',
      },
    ),
    progress: nullable(
      Type.Object(
        {
          stage: Type.String({ description: 'The stage running, e.g. chunk, embed, save.' }),
          done: Type.Integer({ minimum: 0 }),
          total: Type.Integer({ minimum: 0 }),
        },
        { additionalProperties: false },
      ),
      'The last progress the method reported, or null before the first.',
    ),
    baseVersion: nullable(
      Type.String(),
      'The version of the index the job started from (null until it runs, or for a new index).',
    ),
    version: nullable(
      Type.String(),
      'The version the job swapped in (done), or null; a deleted index has none.',
    ),
    documents: nullable(
      Type.Object(
        {
          added: Type.Array(Type.String()),
          replaced: Type.Array(Type.String()),
          removed: Type.Array(Type.String()),
        },
        { additionalProperties: false },
      ),
      'The document ids the job added, replaced and removed (done), or null.',
    ),
    error: nullable(
      Type.Object({ code: Type.String(), message: Type.String() }, { additionalProperties: false }),
      'Why it failed (failed), or null.',
    ),
    createdAt: Type.String({ description: 'ISO time it was submitted.' }),
    startedAt: nullable(Type.String(), 'ISO time it started running.'),
    finishedAt: nullable(Type.String(), 'ISO time it finished.'),
  },
  { title: 'Job', description: 'A write to an index and how it is going.', additionalProperties: false },
);
/** A write to an index, run in the background. */
export type Job = Static<typeof JobSchema>;

/** One event of `GET /v1/jobs/{id}/events`: the job as it is now. */
export const JobEventSchema = Type.Object(
  {
    event: Type.Union([Type.Literal('job'), Type.Literal('end')], {
      description: 'job: the job changed (status or progress); end: the job is done or failed, last event.',
    }),
    data: JobSchema,
  },
  {
    title: 'JobEvent',
    description:
      'One Server-Sent Event of a job\'s stream, sent as "event: <event>" and "data: <the job as JSON>": the job at once, again on every change, and "end" when it is done or failed.',
    additionalProperties: false,
  },
);
/** One event of a job's event stream. */
export type JobEvent = Static<typeof JobEventSchema>;

/** The body of `GET /v1/indexes/{name}/documents`: a page of the index's document ids and titles. */
export const DocumentListSchema = Type.Object(
  {
    index: Type.String({ description: 'The name of the index.' }),
    version: Type.String({ description: 'The version listed (the one served now).' }),
    total: Type.Integer({ minimum: 0, description: 'How many documents the version holds.' }),
    offset: Type.Integer({ minimum: 0, description: 'The position of the first document listed.' }),
    documents: Type.Array(
      Type.Object(
        { id: Type.String(), title: Type.Optional(Type.String()) },
        { additionalProperties: false },
      ),
      { description: 'At most limit documents from offset, in the order the index holds them.' },
    ),
  },
  { title: 'DocumentList', description: "A page of an index's documents.", additionalProperties: false },
);
/** The body of `GET /v1/indexes/{name}/documents`. */
export type DocumentList = Static<typeof DocumentListSchema>;

/** The named schemas of the write routes. */
export const JOB_SCHEMAS: readonly TSchema[] = [
  DocumentInputSchema,
  UploadDocumentsRequestSchema,
  CreateIndexRequestSchema,
  JobSchema,
  JobEventSchema,
  DocumentListSchema,
];
