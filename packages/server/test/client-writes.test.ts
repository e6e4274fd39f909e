/**
 * The typed client's calls of the named-index and write routes, against a live server on a folder:
 * what each call returns is what its route answers.
 */
import { describe, expect, it } from 'vitest';
import { createGragClient, GragApiError } from '../src/client.js';
import { call, servedFolder } from './writes-fixture.js';

const served = servedFolder();

describe('createGragClient: named indexes and writes', () => {
  it('reads an index by name and queries it by name', async () => {
    const grag = createGragClient({ baseUrl: served.server.url });
    const info = await grag.index('orchard');
    expect(info).toEqual(await (await call(served.server.url, 'GET', '/v1/indexes/orchard')).json());
    const res = await grag.query({ question: 'quince trees' }, { index: 'orchard' });
    expect(res).toMatchObject({ index: 'orchard', version: info.version });
    const page = await grag.documents('orchard', { offset: 1, limit: 1 });
    expect(page).toEqual(
      await (await call(served.server.url, 'GET', '/v1/indexes/orchard/documents?offset=1&limit=1')).json(),
    );
    expect(page).toMatchObject({ total: 3, offset: 1, documents: [{ id: 'o-cider' }] });
  });

  it('uploads documents and files, follows the jobs to their end, and deletes', async () => {
    const grag = createGragClient({ baseUrl: served.server.url });
    const queued = await grag.uploadDocuments('orchard', {
      documents: [{ id: 'o-hive', text: 'Beehives stand between the Brannock plum rows.' }],
    });
    expect(queued).toMatchObject({ status: 'queued', kind: 'add-documents', index: 'orchard' });
    const statuses: string[] = [];
    for await (const job of grag.jobEvents(queued.id)) statuses.push(job.status);
    expect(statuses.at(-1)).toBe('done');
    const done = await grag.job(queued.id);
    expect((await grag.index('orchard')).version).toBe(done.version);

    const files = await grag.uploadDocuments('orchard', {
      files: [{ name: 'press.md', data: new Blob(['# Press\n\nThe Brannock cider press is oak.\n']) }],
    });
    expect((await grag.waitForJob(files.id)).documents?.added).toEqual(['press.md']);
    const removed = await grag.waitForJob((await grag.deleteDocument('orchard', 'o-hive')).id);
    expect(removed).toMatchObject({ status: 'done', documents: { removed: ['o-hive'] } });

    const created = await grag.waitForJob(
      (
        await grag.createIndex({
          name: 'cellar',
          method: 'bm25',
          documents: [{ id: 'c-1', text: 'Casks of Brannock cider age in the cellar.' }],
        })
      ).id,
    );
    expect(created.status).toBe('done');
    expect((await grag.waitForJob((await grag.deleteIndex('cellar')).id)).status).toBe('done');
  });

  it("throws the server's errors as GragApiError", async () => {
    const grag = createGragClient({ baseUrl: served.server.url });
    const error = await grag.deleteIndex('nowhere').catch((e: unknown) => e);
    expect(GragApiError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ status: 404, code: 'unknown_index' });
  });
});
