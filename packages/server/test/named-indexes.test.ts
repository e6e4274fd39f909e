/**
 * Indexes as named resources: a folder of indexes served by name (two of one method), the routes
 * that address an index by name, and the old routes still answering for the first index.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { call, docIdsOf, HARBOUR, ORCHARD, servedFolder } from './writes-fixture.js';

// A folder that is no index, and a file: neither is served.
const served = servedFolder({}, async (dir) => {
  await mkdir(join(dir, 'notes'));
  await writeFile(join(dir, 'notes', 'todo.txt'), 'not an index');
  await writeFile(join(dir, 'README.txt'), 'a file of the user');
});

describe('a folder of indexes', () => {
  it('serves every index subfolder under its folder name, two of one method side by side', async () => {
    const res = await call(served.server.url, 'GET', '/v1/indexes');
    const body = await res.json();
    expect(body.indexes.map((ix: { name: string; method: string }) => [ix.name, ix.method])).toEqual([
      ['harbour', 'bm25'],
      ['orchard', 'bm25'],
    ]);
    expect(body.indexes[0].version).toMatch(/^[0-9a-f]{12}$/);
    expect(body.indexes[0].writable).toBe(true);
    expect(served.skipped).toEqual([
      { path: join(served.dir, 'notes'), reason: 'no manifest.json: not a grag index' },
    ]);
  });

  it('answers a query by name from that index alone, naming its version', async () => {
    for (const [name, docs] of [
      ['harbour', HARBOUR],
      ['orchard', ORCHARD],
    ] as const) {
      const res = await call(served.server.url, 'POST', `/v1/indexes/${name}/query`, {
        question: 'Brannock harbour lamp',
      });
      expect(res.status).toBe(200);
      const body = await res.json();
      expect(body.index).toBe(name);
      const info = await (await call(served.server.url, 'GET', `/v1/indexes/${name}`)).json();
      expect(body.version).toBe(info.version);
      expect(docIdsOf(body).length).toBeGreaterThan(0);
      for (const id of docIdsOf(body)) expect(docs.map((d) => d.id)).toContain(id);
    }
  });

  it('keeps the old routes: /v1/query asks the first index, or the one "method" names', async () => {
    const first = await (
      await call(served.server.url, 'POST', '/v1/query', { question: 'pilot ferry' })
    ).json();
    expect(first.index).toBe('harbour');
    const named = await (
      await call(served.server.url, 'POST', '/v1/query', { question: 'quince', method: 'orchard' })
    ).json();
    expect(named.index).toBe('orchard');
    const doc = await (await call(served.server.url, 'GET', '/v1/documents/o-cider?method=orchard')).json();
    expect(doc).toMatchObject({ id: 'o-cider', index: 'orchard', text: ORCHARD[1]!.text });
  });

  it('lists the documents of an index by name, a page at a time', async () => {
    const all = await (await call(served.server.url, 'GET', '/v1/indexes/harbour/documents')).json();
    expect(all).toEqual({
      index: 'harbour',
      version: expect.stringMatching(/^[0-9a-f]{12}$/),
      total: 3,
      offset: 0,
      documents: HARBOUR.map((d) => ({ id: d.id })),
    });
    const page = await (
      await call(served.server.url, 'GET', '/v1/indexes/harbour/documents?offset=2&limit=5')
    ).json();
    expect(page.documents).toEqual([{ id: 'h-lamp' }]);
    const bad = await call(served.server.url, 'GET', '/v1/indexes/harbour/documents?limit=-1');
    expect(bad.status).toBe(400);
    expect((await bad.json()).error.message).toBe('"limit" must be an integer from 0 to 1000, got "-1".');
  });

  it('reads a document by index name', async () => {
    const res = await call(served.server.url, 'GET', '/v1/indexes/harbour/documents/h-lamp');
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ id: 'h-lamp', index: 'harbour', text: HARBOUR[2]!.text });
    // A document of the other index is not in this one.
    expect((await call(served.server.url, 'GET', '/v1/indexes/harbour/documents/o-cider')).status).toBe(404);
  });

  it('answers an unknown index with 404 unknown_index and one line naming the ones there are', async () => {
    for (const [method, path, body] of [
      ['GET', '/v1/indexes/nowhere', undefined],
      ['POST', '/v1/indexes/nowhere/query', { question: 'anything' }],
      ['GET', '/v1/indexes/nowhere/documents/h-lamp', undefined],
      ['POST', '/v1/indexes/nowhere/documents', { documents: [{ id: 'x', text: 'x' }] }],
      ['DELETE', '/v1/indexes/nowhere/documents/h-lamp', undefined],
      ['DELETE', '/v1/indexes/nowhere', undefined],
      ['POST', '/v1/query', { question: 'anything', method: 'nowhere' }],
    ] as const) {
      const res = await call(served.server.url, method, path, body);
      expect(res.status, `${method} ${path}`).toBe(404);
      expect(await res.json()).toEqual({
        error: { code: 'unknown_index', message: 'No index named "nowhere"; available: harbour, orchard.' },
      });
    }
  });

  it('refuses to create an index over a folder that is not one of its indexes', async () => {
    const res = await call(served.server.url, 'POST', '/v1/indexes', {
      name: 'notes',
      method: 'bm25',
      documents: [{ id: 'a', text: 'some text' }],
    });
    expect(res.status).toBe(409);
    expect((await res.json()).error.message).toBe(
      'The served folder holds "notes" already (not an index it serves); choose another name or move it away.',
    );
  });

  it('refuses a body whose "method" names another index than the path', async () => {
    const res = await call(served.server.url, 'POST', '/v1/indexes/harbour/query', {
      question: 'q',
      method: 'orchard',
    });
    expect(res.status).toBe(400);
    expect((await res.json()).error.message).toBe(
      '"method" names the index "orchard" but the path names "harbour"; leave "method" out.',
    );
  });
});
