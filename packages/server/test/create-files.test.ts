/**
 * `POST /v1/indexes` with files: one multipart/form-data request names the index, its method and
 * build options, and carries files in every format the loaders read (and JSON documents beside
 * them); the job builds the index from all of them. Its refusals, the guards, the typed client.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { createGragClient } from '../src/client.js';
import { writesSettled } from '../src/index.js';
import type { JsonResponse } from './helpers.js';
import { call, docIdsOf, jobEvents, servedFolder } from './writes-fixture.js';

const TOKEN = 'create-files-token';
const auth = { authorization: `Bearer ${TOKEN}` };
const served = servedFolder({ token: TOKEN });
const mixed = fileURLToPath(new URL('../../../examples/mixed-files/', import.meta.url));

/** A multipart `POST /v1/indexes` with the token and `headers`. */
const create = (form: FormData, headers: Record<string, string> = {}): Promise<JsonResponse> =>
  fetch(new URL('/v1/indexes', served.server.url), {
    method: 'POST',
    headers: { ...auth, ...headers },
    body: form,
  });

/** A form with the text fields given and the files `[name, contents]`. */
function form(fields: Record<string, string>, files: [string, Blob | string][] = []): FormData {
  const body = new FormData();
  for (const [field, value] of Object.entries(fields)) body.append(field, value);
  for (const [name, contents] of files) body.append('file', new Blob([contents]), name);
  return body;
}

const ask = async (name: string, question: string) =>
  (await call(served.server.url, 'POST', `/v1/indexes/${name}/query`, { question }, auth)).json();

describe('creating an index from files (multipart/form-data)', () => {
  it('builds it from a file of every format the loaders read and JSON documents, in one request', async () => {
    const bytes = async (file: string) => new Blob([await readFile(join(mixed, file))]);
    const files: [string, Blob | string][] = [
      ['harbour-guide.md', await bytes('harbour-guide.md')],
      ['ferry-timetable.html', await bytes('ferry-timetable.html')],
      ['annual-report.pdf', await bytes('annual-report.pdf')],
      ['board-minutes.docx', await bytes('board-minutes.docx')],
      ['crew.csv', await bytes('crew.csv')],
      ['berths.tsv', 'berth\tvessel\nB1\tSable Gull\nB2\tAurora Tern II\n'],
      ['cargo.json', JSON.stringify([{ id: 'cargo-salt', text: 'Salt from Orsa, 40 tonnes.' }])],
      ['log.jsonl', `${JSON.stringify({ id: 'log-fog', text: 'Fog held the pilot boat at the quay.' })}\n`],
      ['notes.txt', 'The lighthouse keeper of Veldt writes the weather down at dawn.\n'],
    ];
    const documents = [{ id: 'memo', text: 'The harbour master moved the ferry berth in spring.' }];
    const res = await create(
      form(
        {
          name: 'port-files',
          method: 'bm25',
          options: JSON.stringify({ chunking: 'document' }),
          documents: JSON.stringify(documents),
        },
        files,
      ),
    );
    expect(res.status).toBe(202);
    const accepted = await res.json();
    expect(accepted).toMatchObject({ kind: 'create-index', index: 'port-files', status: 'queued' });
    const job = (await jobEvents(served.server.url, accepted.id, auth)).at(-1)!.data;
    expect(job.status).toBe('done');
    // One document per file, but per record of the tables and record files (their ids as the loaders document them).
    expect(job.documents?.added.sort()).toEqual(
      [
        'memo',
        'harbour-guide.md',
        'ferry-timetable.html',
        'annual-report.pdf',
        'board-minutes.docx',
        'crew.csv#row2',
        'crew.csv#row3',
        'crew.csv#row4',
        'berths.tsv#row2',
        'berths.tsv#row3',
        'cargo-salt',
        'log-fog',
        'notes.txt',
      ].sort(),
    );
    const info = await (
      await call(served.server.url, 'GET', '/v1/indexes/port-files', undefined, auth)
    ).json();
    expect(info).toMatchObject({ method: 'bm25', version: job.version, documents: 13 });
    expect(docIdsOf(await ask('port-files', 'lighthouse keeper weather dawn'))).toContain('notes.txt');
    expect(docIdsOf(await ask('port-files', 'harbour master ferry berth spring'))).toContain('memo');
  });

  it('builds from the typed client: files, options and documents in one call', async () => {
    const grag = createGragClient({ baseUrl: served.server.url, token: TOKEN });
    const queued = await grag.createIndex({
      name: 'quay',
      method: 'bm25',
      options: { chunking: 'document' },
      documents: [{ id: 'quay-crane', text: 'The quay crane was painted red in 1970.' }],
      files: [
        { name: 'bollards.md', data: new Blob(['# Bollards\n\nIron bollards line the Veldt quay.\n']) },
        new File(['Gulls nest on the quay sheds.\n'], 'gulls.txt'),
      ],
    });
    expect(queued).toMatchObject({ kind: 'create-index', index: 'quay', status: 'queued' });
    const done = await grag.waitForJob(queued.id);
    expect(done.documents?.added.sort()).toEqual(['bollards.md', 'gulls.txt', 'quay-crane']);
    expect((await grag.documents('quay')).total).toBe(3);
  });

  it('refuses a form it cannot build from, each in one line, and queues nothing', async () => {
    const file: [string, string][] = [['a.txt', 'Some text about the quay.']];
    const cases: [FormData, string][] = [
      [form({ method: 'bm25' }, file), 'Missing the form field "name"; send it as text beside the files.'],
      [
        form({ name: 'x1', method: 'bm25', colour: 'red' }, file),
        'Unknown form field "colour"; creating an index takes the text fields name, method, options, documents and files.',
      ],
      [
        form({ name: 'x2', method: 'bm25', options: '{chunking:' }, file),
        'The form field "options" is not valid JSON; send it as JSON text.',
      ],
      [
        form({ name: 'x3', method: 'bm25', options: '[1]' }, file),
        '"options" must be an object of the method\'s build options, got an array.',
      ],
      [
        form({ name: 'x4', method: 'bm25' }),
        'The new index has no document: send files, or a "documents" field with JSON text.',
      ],
      [
        form(
          { name: 'x5', method: 'bm25', documents: JSON.stringify([{ id: 'a.txt', text: 'twice' }]) },
          file,
        ),
        'Two uploaded documents have the id "a.txt"; give the files distinct names.',
      ],
      [
        form({ name: 'x6', method: 'bm25' }, [['tide.bin', new Blob([new Uint8Array([0, 1, 2])])]]),
        'tide.bin: no loader for .bin files',
      ],
      [
        form({ name: 'x7', method: 'nope' }, file),
        '"method" "nope" is not a method this server knows; use one of: bm25, naive-dense.',
      ],
      [
        form({ name: 'harbour', method: 'bm25' }, file),
        'An index named "harbour" exists already; choose another name or delete it first.',
      ],
    ];
    const twice = form({ name: 'x8', method: 'bm25' }, file);
    twice.append('name', 'x9');
    cases.push([twice, 'The form field "name" is given twice; give it once.']);
    for (const [body, message] of cases) {
      const res = await create(body);
      expect(res.status, message).toBe(message.startsWith('An index named') ? 409 : 400);
      expect((await res.json()).error.message.startsWith(message), message).toBe(true);
    }
    await writesSettled(served.app);
    const names = (
      await (await call(served.server.url, 'GET', '/v1/indexes', undefined, auth)).json()
    ).indexes.map((ix: { name: string }) => ix.name);
    expect(names.filter((n: string) => /^x\d$/.test(n))).toEqual([]);
  });

  it("keeps the guards: another origin's page, no token, a read-only type (415) are refused", async () => {
    const body = () => form({ name: 'evil', method: 'bm25' }, [['evil.txt', 'Evil text.']]);
    const foreign: Record<string, string>[] = [
      { origin: 'https://evil.example' },
      { 'sec-fetch-site': 'cross-site' },
    ];
    for (const headers of foreign) {
      const res = await create(body(), headers);
      expect(res.status).toBe(403);
      expect((await res.json()).error.code).toBe('forbidden_origin');
    }
    const anonymous: JsonResponse = await fetch(new URL('/v1/indexes', served.server.url), {
      method: 'POST',
      body: body(),
    });
    expect(anonymous.status).toBe(401);
    const text: JsonResponse = await fetch(new URL('/v1/indexes', served.server.url), {
      method: 'POST',
      headers: { ...auth, 'content-type': 'text/plain' },
      body: 'name=evil',
    });
    expect(text.status).toBe(415);
    expect((await text.json()).error.message).toBe(
      'Send the body as JSON with Content-Type: application/json (got "text/plain"); or upload files as multipart/form-data.',
    );
    await writesSettled(served.app);
    expect((await call(served.server.url, 'GET', '/v1/indexes/evil', undefined, auth)).status).toBe(404);
  });
});
