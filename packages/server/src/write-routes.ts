/**
 * The write routes of `/v1`, each answered at once with 202 and a job (jobs.ts, writes.ts), and the
 * routes that tell how a job is going. Bodies are JSON, but for files (`multipart/form-data` on
 * `POST /v1/indexes/:name/documents` and `POST /v1/indexes`); the browser guard (guard.ts) runs
 * first for them all, so a page of another origin cannot post either kind.
 */
import { basename } from 'node:path';
import { type Document, GragError, type LoadedFile, type LoaderInput } from '@grag/core';
import type { Context, Hono } from 'hono';
import { streamSSE } from 'hono/streaming';
import { principalOf, readOnly } from './access.js';
import { readBytes, readJsonBody } from './body.js';
import { badRequest, HttpError, oneLine } from './errors.js';
import { unsupportedBody } from './guard.js';
import type { JobManager } from './jobs.js';
import { typeName } from './query.js';
import type { RouteDeps } from './routes.js';
import type { Job, JobEvent } from './schema-jobs.js';
import { type CreateIndex, submitChange, submitCreate, submitDelete, type Writes } from './writes.js';

/** What the write routes work on. */
export interface WriteRouteDeps extends RouteDeps {
  jobs: JobManager;
  writes: Writes;
  uploadLimitBytes: number;
  loadFile: ((input: LoaderInput) => Promise<LoadedFile>) | undefined;
}

const DOCUMENTS_EXAMPLE = '{"documents": [{"id": "a", "text": "..."}]}';
const CREATE_EXAMPLE = '{"name": "notes", "method": "bm25", "documents": [{"id": "a", "text": "..."}]}';
const DOC_FIELDS = ['id', 'text', 'title'];

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Check `value` as a non-empty array of documents with unique ids; `at` names it in messages. */
export function parseDocuments(value: unknown, at: string): Document[] {
  if (!Array.isArray(value) || value.length === 0) {
    throw badRequest(
      `"${at}" must be a non-empty array of {"id", "text", "title"?}, got ${typeName(value)}.`,
    );
  }
  const seen = new Set<string>();
  return value.map((doc, i) => {
    const where = `${at}[${i}]`;
    if (!isObject(doc))
      throw badRequest(`"${where}" must be an object {"id", "text", "title"?}, got ${typeName(doc)}.`);
    const unknown = Object.keys(doc).find((k) => !DOC_FIELDS.includes(k));
    if (unknown !== undefined) {
      throw badRequest(
        `Unknown field ${JSON.stringify(unknown)} in "${where}"; a document takes id, text, title.`,
      );
    }
    const { id, text, title } = doc;
    if (typeof id !== 'string' || id === '' || id.length > 500) {
      throw badRequest(
        `"${where}.id" must be a non-empty string of at most 500 characters, got ${typeName(id)}.`,
      );
    }
    if (seen.has(id))
      throw badRequest(`"${where}.id" ${JSON.stringify(id)} is given twice; give every document its own id.`);
    seen.add(id);
    if (typeof text !== 'string' || text.trim() === '') {
      throw badRequest(`"${where}.text" must be a non-blank string, got ${typeName(text)}.`);
    }
    if (title !== undefined && typeof title !== 'string') {
      throw badRequest(`"${where}.title" must be a string, got ${typeName(title)}.`);
    }
    return { id, text, ...(title !== undefined ? { title } : {}) };
  });
}

/** The JSON body of `POST /v1/indexes/:name/documents`, checked. */
function parseUpload(body: unknown): Document[] {
  if (!isObject(body))
    throw badRequest(`The body must be a JSON object like ${DOCUMENTS_EXAMPLE}, got ${typeName(body)}.`);
  const unknown = Object.keys(body).find((k) => k !== 'documents');
  if (unknown !== undefined) {
    throw badRequest(
      `Unknown field ${JSON.stringify(unknown)}; an upload takes documents (or files as multipart/form-data).`,
    );
  }
  return parseDocuments(body.documents, 'documents');
}

/** The body of `POST /v1/indexes`, checked (the name and method are checked against the server in writes.ts). */
function parseCreate(body: unknown): CreateIndex {
  if (!isObject(body))
    throw badRequest(`The body must be a JSON object like ${CREATE_EXAMPLE}, got ${typeName(body)}.`);
  const fields = ['name', 'method', 'options', 'documents'];
  const unknown = Object.keys(body).find((k) => !fields.includes(k));
  if (unknown !== undefined) {
    throw badRequest(
      `Unknown field ${JSON.stringify(unknown)}; creating an index takes ${fields.join(', ')}.`,
    );
  }
  for (const field of ['name', 'method'] as const) {
    if (typeof body[field] !== 'string')
      throw badRequest(`"${field}" must be a string, got ${typeName(body[field])}; send ${CREATE_EXAMPLE}.`);
  }
  if (body.options !== undefined && !isObject(body.options)) {
    throw badRequest(
      `"options" must be an object of the method's build options, got ${typeName(body.options)}.`,
    );
  }
  return {
    name: body.name as string,
    method: body.method as string,
    options: (body.options ?? {}) as Record<string, unknown>,
    documents: parseDocuments(body.documents, 'documents'),
  };
}

/** The reader of uploaded files: the server's, else `@grag/loaders`' `loadFile`. */
async function fileLoader(deps: WriteRouteDeps): Promise<(input: LoaderInput) => Promise<LoadedFile>> {
  if (deps.loadFile) return deps.loadFile;
  const loaders = await import('@grag/loaders');
  return (input) => loaders.loadFile(input);
}

/** A multipart/form-data body, read up to the upload limit and parsed. */
async function readForm(c: Context, deps: WriteRouteDeps): Promise<FormData> {
  const bytes = await readBytes(c, deps.uploadLimitBytes, 'files as multipart/form-data');
  try {
    return await new Response(bytes, {
      headers: { 'content-type': c.req.header('content-type') ?? '' },
    }).formData();
  } catch {
    throw badRequest(
      'The body is not valid multipart/form-data; send each file as a form field with a file name.',
    );
  }
}

/** Whether a request's body is multipart/form-data. */
function isMultipart(c: Context): boolean {
  return (c.req.header('content-type') ?? '').split(';')[0]?.trim().toLowerCase() === 'multipart/form-data';
}

/** Refuse two documents with one id (the files' and the JSON text's together). */
function assertDistinctIds(documents: readonly Document[]): void {
  const ids = new Set<string>();
  for (const doc of documents) {
    if (ids.has(doc.id))
      throw badRequest(
        `Two uploaded documents have the id ${JSON.stringify(doc.id)}; give the files distinct names.`,
      );
    ids.add(doc.id);
  }
}

/** The documents of the files of a form, each read by the loader of its extension. */
async function formFiles(files: readonly [string, File][], deps: WriteRouteDeps): Promise<Document[]> {
  if (files.length === 0) return [];
  const load = await fileLoader(deps);
  const documents: Document[] = [];
  for (const [field, value] of files) {
    const path = basename(value.name.replaceAll('\\', '/'));
    if (path === '' || path === '.' || path === '..') {
      throw badRequest(
        `The file of form field ${JSON.stringify(field.slice(0, 100))} has no name; send each file with its file name.`,
      );
    }
    let loaded: LoadedFile;
    try {
      loaded = await load({
        path,
        bytes: new Uint8Array(await value.arrayBuffer()),
      });
    } catch (error) {
      if (GragError.isInstance(error)) throw badRequest(oneLine((error as Error).message));
      throw error;
    }
    documents.push(...loaded.documents);
  }
  return documents;
}

/** A form's file fields, and its text fields by name (a text field given twice is refused). */
function splitForm(form: FormData): { files: [string, File][]; fields: Map<string, string> } {
  const files: [string, File][] = [];
  const fields = new Map<string, string>();
  for (const [field, value] of form.entries()) {
    if (typeof value !== 'string') files.push([field, value]);
    else if (fields.has(field))
      throw badRequest(`The form field ${JSON.stringify(field.slice(0, 100))} is given twice; give it once.`);
    else fields.set(field, value);
  }
  return { files, fields };
}

/** The documents of the files of a multipart upload, each read by the loader of its extension. */
async function parseMultipart(c: Context, deps: WriteRouteDeps): Promise<Document[]> {
  const { files, fields } = splitForm(await readForm(c, deps));
  const [text] = fields.keys();
  if (text !== undefined) {
    throw badRequest(
      `The form field ${JSON.stringify(text.slice(0, 100))} is not a file; an upload takes files only.`,
    );
  }
  const documents = await formFiles(files, deps);
  if (documents.length === 0) throw badRequest('The upload holds no document: send files with text.');
  assertDistinctIds(documents);
  return documents;
}

/** The text fields a multipart `POST /v1/indexes` takes besides its files. */
const CREATE_FORM_FIELDS = ['name', 'method', 'options', 'documents'];

/** A JSON form field of a multipart create (`options`, `documents`), parsed (400 naming it when it is not JSON). */
function jsonField(fields: Map<string, string>, field: string): unknown {
  const raw = fields.get(field);
  if (raw === undefined) return undefined;
  try {
    return JSON.parse(raw) as unknown;
  } catch {
    throw badRequest(`The form field "${field}" is not valid JSON; send it as JSON text.`);
  }
}

/**
 * A multipart `POST /v1/indexes`: the text fields `name`, `method`, `options` (JSON) and
 * `documents` (JSON, optional), and files (each read by the loader of its extension); the files'
 * documents and the JSON ones together, at least one.
 */
async function parseCreateForm(c: Context, deps: WriteRouteDeps): Promise<CreateIndex> {
  const { files, fields } = splitForm(await readForm(c, deps));
  const unknown = [...fields.keys()].find((k) => !CREATE_FORM_FIELDS.includes(k));
  if (unknown !== undefined) {
    throw badRequest(
      `Unknown form field ${JSON.stringify(unknown.slice(0, 100))}; creating an index takes the text fields ${CREATE_FORM_FIELDS.join(', ')} and files.`,
    );
  }
  for (const field of ['name', 'method'] as const) {
    if (!fields.has(field))
      throw badRequest(`Missing the form field "${field}"; send it as text beside the files.`);
  }
  const json = jsonField(fields, 'documents');
  const given = json === undefined ? [] : parseDocuments(json, 'documents');
  const documents = [...given, ...(await formFiles(files, deps))];
  if (documents.length === 0) {
    throw badRequest('The new index has no document: send files, or a "documents" field with JSON text.');
  }
  assertDistinctIds(documents);
  const options = jsonField(fields, 'options');
  if (options !== undefined && !isObject(options)) {
    throw badRequest(`"options" must be an object of the method's build options, got ${typeName(options)}.`);
  }
  return {
    name: fields.get('name') as string,
    method: fields.get('method') as string,
    options: (options ?? {}) as Record<string, unknown>,
    documents,
  };
}

/** The documents of an upload: JSON, or files as multipart/form-data. */
async function uploadedDocuments(c: Context, deps: WriteRouteDeps): Promise<Document[]> {
  if (isMultipart(c)) return parseMultipart(c, deps);
  return parseUpload(await readJsonOrFiles(c, deps, DOCUMENTS_EXAMPLE));
}

/** A JSON body of a route that also takes files: its 415 says so. */
async function readJsonOrFiles(c: Context, deps: WriteRouteDeps, example: string): Promise<unknown> {
  const unsupported = unsupportedBody(c.req.header('content-type'));
  if (unsupported) {
    throw new HttpError(
      415,
      'unsupported_media_type',
      `${unsupported.message.replace(/\.$/, '')}; or upload files as multipart/form-data.`,
    );
  }
  return readJsonBody(c, deps.uploadLimitBytes, example);
}

/** The request of `POST /v1/indexes`: JSON, or its fields and files as multipart/form-data. */
async function createRequest(c: Context, deps: WriteRouteDeps): Promise<CreateIndex> {
  if (isMultipart(c)) return parseCreateForm(c, deps);
  return parseCreate(await readJsonOrFiles(c, deps, CREATE_EXAMPLE));
}

/** A job accepted: 202, where to follow it, and the job. */
function accepted(c: Context, job: Job): Response {
  c.header('Location', `/v1/jobs/${job.id}`);
  return c.json(job, 202);
}

/** The job `id` if the request's token may see its index, else the same 404 as an unknown job. */
function visibleJob(c: Context, deps: WriteRouteDeps): Job {
  const id = c.req.param('id') as string;
  const job = deps.jobs.get(id);
  if (!deps.workspaces.allows(principalOf(c.req.raw), job.index)) {
    throw new HttpError(404, 'not_found', `No job ${JSON.stringify(id.slice(0, 100))}.`);
  }
  return job;
}

/** `GET /v1/jobs/:id/events`: the job now, then on every change, `end` when it is final. */
function jobEvents(c: Context, deps: WriteRouteDeps): Response {
  const jobs = deps.jobs;
  const first = visibleJob(c, deps);
  const id = first.id;
  c.header('X-Accel-Buffering', 'no');
  c.header('Cache-Control', 'no-store');
  return streamSSE(c, async (stream) => {
    const send = ({ event, data }: JobEvent) => stream.writeSSE({ event, data: JSON.stringify(data) });
    const final = (job: Job) => job.status === 'done' || job.status === 'failed';
    if (final(first)) {
      await send({ event: 'end', data: first });
      return;
    }
    // Changes queue up while a write is in flight, so none is lost and the order is kept.
    let chain: Promise<void> = Promise.resolve();
    let finished!: () => void;
    const ended = new Promise<void>((resolve) => {
      finished = resolve;
    });
    const stop = jobs.listen(id, (job, last) => {
      chain = chain.then(() => send({ event: last ? 'end' : 'job', data: job })).catch(() => {});
      if (last) void chain.then(finished);
    });
    stream.onAbort(() => {
      stop();
      finished();
    });
    const now = jobs.get(id);
    await send({ event: final(now) ? 'end' : 'job', data: now });
    if (final(now)) finished();
    await ended;
    stop();
  });
}

/** Add the write routes and the job routes to `app`. */
export function writeRoutes(app: Hono, deps: WriteRouteDeps): void {
  const { writes } = deps;
  const who = (c: Context) => principalOf(c.req.raw);
  app.post('/v1/indexes', async (c) => {
    if (!who(c).write) throw readOnly(who(c));
    return accepted(c, await submitCreate(writes, who(c), await createRequest(c, deps)));
  });
  app.post('/v1/indexes/:name/documents', async (c) => {
    const name = c.req.param('name');
    // The index and the token's right to write it are checked before the body is read.
    deps.view(c).pick(name);
    if (!who(c).write) throw readOnly(who(c));
    const documents = await uploadedDocuments(c, deps);
    return accepted(c, await submitChange(writes, deps.view(c), who(c), name, { add: documents }));
  });
  app.delete('/v1/indexes/:name/documents/:id{.+}', async (c) =>
    accepted(
      c,
      await submitChange(writes, deps.view(c), who(c), c.req.param('name'), { remove: [c.req.param('id')] }),
    ),
  );
  app.delete('/v1/indexes/:name', async (c) =>
    accepted(c, await submitDelete(writes, deps.view(c), who(c), c.req.param('name'))),
  );
  app.get('/v1/jobs/:id', (c) => c.json(visibleJob(c, deps)));
  app.get('/v1/jobs/:id/events', (c) => jobEvents(c, deps));
}
