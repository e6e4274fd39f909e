/**
 * `buildOptions`: the options a new index is built with, from those `POST /v1/indexes` gives — how
 * `grag serve` adds the settings preset its providers choose, as `grag index` does.
 */
import { describe, expect, it } from 'vitest';
import { servedFolder, write } from './writes-fixture.js';

const TOKEN = 'build-options-token';
const auth = { authorization: `Bearer ${TOKEN}` };
const calls: { method: string; options: Record<string, unknown> }[] = [];
const served = servedFolder({
  token: TOKEN,
  buildOptions: (method, options) => {
    calls.push({ method: method.name, options: { ...options } });
    // A name the method does not take: the build must refuse it, so what the hook returns is what
    // the build received.
    return options.chunkSize === 7 ? { ...options, notAnOption: 1 } : { ...options };
  },
});

describe('the build options of a new index', () => {
  it('are what buildOptions makes of the request options, for the method created', async () => {
    const ok = await write(
      served.server.url,
      'POST',
      '/v1/indexes',
      { name: 'harbour-notes', method: 'bm25', documents: [{ id: 'a', text: 'The ferry leaves at nine.' }] },
      auth,
    );
    expect(ok.status).toBe('done');
    const refused = await write(
      served.server.url,
      'POST',
      '/v1/indexes',
      {
        name: 'harbour-odd',
        method: 'bm25',
        options: { chunkSize: 7 },
        documents: [{ id: 'b', text: 'The gig club rows on Sundays.' }],
      },
      auth,
    );
    expect(refused.status).toBe('failed');
    expect(JSON.stringify(refused)).toContain('notAnOption');
    expect(calls).toEqual([
      { method: 'bm25', options: {} },
      { method: 'bm25', options: { chunkSize: 7 } },
    ]);
  });
});
