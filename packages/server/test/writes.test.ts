/**
 * Writes as jobs: uploads (JSON and multipart files), document and index deletion, index creation,
 * each answered 202 with a job that runs the method's update, saves the new version to the folder
 * and swaps it in; their errors; and the guards that stay (token, Origin, body limits, a user's
 * files).
 */
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { readManifest } from '@grag/core/kit';
import { describe, expect, it } from 'vitest';
import { writesSettled } from '../src/index.js';
import type { JsonResponse } from './helpers.js';
import { call, docIdsOf, jobEvents, servedFolder, write } from './writes-fixture.js';

const TOKEN = 'writes-test-token';
const auth = { authorization: `Bearer ${TOKEN}` };

const served = servedFolder({ token: TOKEN, uploadLimitBytes: 4096 });

/** A JSON request to the server, with the token. */
const authed = (method: string, path: string, body?: unknown) =>
  call(served.server.url, method, path, body, auth);

/** A write with the token, followed to the end of its job. */
const authedWrite = (method: string, path: string, body?: unknown) =>
  write(served.server.url, method, path, body, auth);

const version = async (name: string) =>
  (await (await authed('GET', `/v1/indexes/${name}`)).json()).version as string;

/** POST to the upload route of `harbour`. */
const upload = (init: RequestInit): Promise<JsonResponse> =>
  fetch(new URL('/v1/indexes/harbour/documents', served.server.url), init);

const query = async (name: string, question: string) =>
  (await authed('POST', `/v1/indexes/${name}/query`, { question })).json();

describe('uploading and deleting documents', () => {
  it('adds JSON documents through a job: 202 with the job, then done with the new version, saved and served', async () => {
    const before = await version('harbour');
    const res = await authed('POST', '/v1/indexes/harbour/documents', {
      documents: [
        { id: 'h-tug', text: 'The tugboat Corrin towed the grain barge Hesper into the Veldt harbour.' },
      ],
    });
    expect(res.status).toBe(202);
    const job = await res.json();
    expect(res.headers.get('location')).toBe(`/v1/jobs/${job.id}`);
    expect(job).toMatchObject({ kind: 'add-documents', index: 'harbour', status: 'queued', version: null });
    const events = await jobEvents(served.server.url, job.id, auth);
    const last = events.at(-1)!;
    expect(last.event).toBe('end');
    expect(last.data).toMatchObject({
      status: 'done',
      baseVersion: before,
      documents: { added: ['h-tug'], replaced: [], removed: [] },
      error: null,
    });
    const after = last.data.version as string;
    expect(after).not.toBe(before);
    // Served now, and saved: the folder's manifest is the version the job names.
    expect(await version('harbour')).toBe(after);
    const body = await query('harbour', 'tugboat Corrin grain barge');
    expect(body.version).toBe(after);
    expect(docIdsOf(body)).toContain('h-tug');
    expect((await readManifest(join(served.dir, 'harbour'))).stats).toMatchObject({ documents: 4 });
    // GET /v1/jobs/:id tells the same.
    expect(await (await authed('GET', `/v1/jobs/${job.id}`)).json()).toEqual(last.data);
  });

  it('removes a document through a job; it is gone from answers and from the documents', async () => {
    const job = await authedWrite('DELETE', '/v1/indexes/harbour/documents/h-tug');
    expect(job).toMatchObject({
      kind: 'remove-documents',
      status: 'done',
      documents: { removed: ['h-tug'] },
    });
    const body = await query('harbour', 'tugboat Corrin grain barge');
    expect(body.version).toBe(job.version);
    expect(docIdsOf(body)).not.toContain('h-tug');
    expect((await authed('GET', '/v1/indexes/harbour/documents/h-tug')).status).toBe(404);
  });

  it('answers 404 for a document the index does not hold, and queues nothing', async () => {
    const res = await authed('DELETE', '/v1/indexes/harbour/documents/h-nothing');
    expect(res.status).toBe(404);
    expect((await res.json()).error.message).toMatch(
      /^No document "h-nothing" in index "harbour" \(version [0-9a-f]{12}\); nothing was queued\.$/,
    );
  });

  it('reports a write the method refuses as a failed job, and keeps the version served', async () => {
    // Removing every document would leave the index empty: the method's update refuses it.
    const before = await version('orchard');
    for (const id of ['o-quince', 'o-cider']) {
      expect((await authedWrite('DELETE', `/v1/indexes/orchard/documents/${id}`)).status).toBe('done');
    }
    const mid = await version('orchard');
    expect(mid).not.toBe(before);
    const failed = await authedWrite('DELETE', '/v1/indexes/orchard/documents/o-frost');
    expect(failed.status).toBe('failed');
    expect(failed.error?.code).toBe('bad_request');
    expect(failed.error?.message).toMatch(/would leave the index without documents/);
    expect(failed.version).toBeNull();
    expect(await version('orchard')).toBe(mid);
  });

  it('reads uploaded files with the loaders (multipart/form-data), each file into documents', async () => {
    const form = new FormData();
    form.append(
      'file',
      new Blob(['# Breakwater\n\nThe Veldt breakwater was rebuilt of basalt in 1930.\n']),
      'breakwater.md',
    );
    form.append('file', new Blob(['Gulls nest on the roof of the Veldt customs house.\n']), 'gulls.txt');
    const res = await upload({ method: 'POST', headers: auth, body: form });
    expect(res.status).toBe(202);
    const job = (await jobEvents(served.server.url, (await res.json()).id, auth)).at(-1)!.data;
    expect(job.status).toBe('done');
    expect(job.documents?.added.sort()).toEqual(['breakwater.md', 'gulls.txt']);
    expect(docIdsOf(await query('harbour', 'breakwater basalt'))).toContain('breakwater.md');
  });

  it('refuses an upload in a format no loader reads, a form field that is no file, and other content types', async () => {
    const form = new FormData();
    form.append('file', new Blob([new Uint8Array([0, 1, 2])]), 'tide.bin');
    const bin = await upload({ method: 'POST', headers: auth, body: form });
    expect(bin.status).toBe(400);
    expect((await bin.json()).error.message).toMatch(/^tide\.bin: no loader for \.bin files/);
    const field = new FormData();
    field.append('note', 'just text');
    const notFile = await upload({ method: 'POST', headers: auth, body: field });
    expect(notFile.status).toBe(400);
    expect((await notFile.json()).error.message).toBe(
      'The form field "note" is not a file; an upload takes files only.',
    );
    const text = await upload({
      method: 'POST',
      headers: { ...auth, 'content-type': 'text/plain' },
      body: 'plain',
    });
    expect(text.status).toBe(415);
  });

  it('checks JSON documents field by field', async () => {
    const cases: [unknown, string][] = [
      [{ documents: [] }, '"documents" must be a non-empty array of {"id", "text", "title"?}, got an array.'],
      [{ documents: [{ id: 'a' }] }, '"documents[0].text" must be a non-blank string, got undefined.'],
      [
        {
          documents: [
            { id: 'a', text: 'x' },
            { id: 'a', text: 'y' },
          ],
        },
        '"documents[1].id" "a" is given twice; give every document its own id.',
      ],
      [{ docs: [] }, 'Unknown field "docs"; an upload takes documents (or files as multipart/form-data).'],
    ];
    for (const [body, message] of cases) {
      const res = await authed('POST', '/v1/indexes/harbour/documents', body);
      expect(res.status).toBe(400);
      expect((await res.json()).error.message).toBe(message);
    }
  });
});

describe('creating and deleting indexes', () => {
  it('creates an index of a method from JSON documents, saved in the folder and served by name', async () => {
    const job = await authedWrite('POST', '/v1/indexes', {
      name: 'mill',
      method: 'bm25',
      options: { chunking: 'document' },
      documents: [
        { id: 'm-wheel', text: 'The Oster mill wheel turns on the river Lenn.' },
        { id: 'm-flour', text: 'Oster flour was sold in Veldt every market day.' },
      ],
    });
    expect(job).toMatchObject({ kind: 'create-index', index: 'mill', status: 'done' });
    expect(await version('mill')).toBe(job.version);
    expect((await readManifest(join(served.dir, 'mill'))).method).toBe('bm25');
    expect(docIdsOf(await query('mill', 'mill wheel river'))).toContain('m-wheel');
  });

  it('refuses a taken name (409), an unknown method and a bad option (400)', async () => {
    const documents = [{ id: 'a', text: 'some text' }];
    const cases: [Record<string, unknown>, number, string | RegExp | null][] = [
      [
        { name: 'harbour', method: 'bm25' },
        409,
        'An index named "harbour" exists already; choose another name or delete it first.',
      ],
      [
        { name: 'x', method: 'nope' },
        400,
        '"method" "nope" is not a method this server knows; use one of: bm25, naive-dense.',
      ],
      [
        { name: 'x', method: 'bm25', options: { chunkin: 'document' } },
        400,
        /unknown option "chunkin"; did you mean "chunking"\?/,
      ],
      [{ name: '../up', method: 'bm25' }, 400, null],
    ];
    for (const [fields, status, message] of cases) {
      const res = await authed('POST', '/v1/indexes', { ...fields, documents });
      expect(res.status).toBe(status);
      const error: string = (await res.json()).error.message;
      if (typeof message === 'string') expect(error).toBe(message);
      else if (message) expect(error).toMatch(message);
    }
  });

  it('deletes an index: no longer served, and its folder removed', async () => {
    const job = await authedWrite('DELETE', '/v1/indexes/mill');
    expect(job).toMatchObject({ kind: 'delete-index', status: 'done', version: null });
    expect((await authed('GET', '/v1/indexes/mill')).status).toBe(404);
    expect((await readdir(served.dir)).filter((name) => name.includes('mill'))).toEqual([]);
  });

  it("never deletes a user's file: an index folder holding one is refused and stays served", async () => {
    await authedWrite('POST', '/v1/indexes', {
      name: 'kiln',
      method: 'bm25',
      documents: [{ id: 'k', text: 'The brick kiln of Oster fired roof tiles.' }],
    });
    await writeFile(join(served.dir, 'kiln', 'my-notes.txt'), 'mine');
    const job = await authedWrite('DELETE', '/v1/indexes/kiln');
    expect(job.status).toBe('failed');
    expect(job.error).toEqual({
      code: 'conflict',
      message:
        'The folder of index "kiln" holds files grag did not write (my-notes.txt); move them out, then delete the index again.',
    });
    expect(await readFile(join(served.dir, 'kiln', 'my-notes.txt'), 'utf8')).toBe('mine');
    expect((await authed('GET', '/v1/indexes/kiln')).status).toBe(200);
  });
});

describe('the guards stay on the write routes', () => {
  it('needs the bearer token for every write and job route', async () => {
    for (const [method, path] of [
      ['POST', '/v1/indexes'],
      ['POST', '/v1/indexes/harbour/documents'],
      ['DELETE', '/v1/indexes/harbour/documents/h-lamp'],
      ['DELETE', '/v1/indexes/harbour'],
      ['GET', '/v1/jobs/some-id'],
      ['GET', '/v1/jobs/some-id/events'],
    ] as const) {
      const res = await call(
        served.server.url,
        method,
        path,
        method === 'POST' ? { documents: [] } : undefined,
      );
      expect(res.status, `${method} ${path}`).toBe(401);
    }
  });

  it('refuses a multipart upload a page of another origin posts (a "simple" request), and queues nothing', async () => {
    const before = await version('harbour');
    const form = new FormData();
    form.append('file', new Blob(['Evil text.']), 'evil.txt');
    const foreign: Record<string, string>[] = [
      { origin: 'https://evil.example' },
      { 'sec-fetch-site': 'cross-site' },
    ];
    for (const headers of foreign) {
      const res = await upload({
        method: 'POST',
        headers: { ...auth, ...headers },
        body: form,
      });
      expect(res.status).toBe(403);
      expect((await res.json()).error.code).toBe('forbidden_origin');
    }
    await writesSettled(served.app);
    expect(await version('harbour')).toBe(before);
    expect((await authed('GET', '/v1/indexes/harbour/documents/evil.txt')).status).toBe(404);
  });

  it('refuses a body over the upload limit with 413, JSON or multipart', async () => {
    const big = 'x'.repeat(5000);
    const json = await authed('POST', '/v1/indexes/harbour/documents', {
      documents: [{ id: 'big', text: big }],
    });
    expect(json.status).toBe(413);
    const form = new FormData();
    form.append('file', new Blob([big]), 'big.txt');
    const multipart = await upload({ method: 'POST', headers: auth, body: form });
    expect(multipart.status).toBe(413);
  });

  it('answers 404 for an unknown job', async () => {
    const res = await authed('GET', '/v1/jobs/no-such-job');
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({ error: { code: 'not_found', message: 'No job "no-such-job".' } });
  });
});
