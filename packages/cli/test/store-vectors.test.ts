/**
 * `--store-vectors`: naive-dense built into PostgreSQL keeps its chunk vectors as a pgvector
 * collection searched in the database (PGlite with pgvector, over the wire); updates keep it; bad
 * use is one line on stderr.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runGrag, serveInProcess } from './helpers.js';
import { type SocketDb, usePgCorpus } from './pg-harness.js';

let db: SocketDb;
let root: string;
let corpus: string;

usePgCorpus(
  'grag-cli-store-vectors-',
  {
    'lyon.md': '# Lyon\n\nLyon is a city in France. The Rhone and the Saone meet in Lyon.',
    'oslo.txt': 'Oslo is the capital of Norway. The Munch Museum is in Oslo.',
  },
  { pgvector: true },
  (setup) => {
    ({ db, root, corpus } = setup);
  },
);

const grag = (args: string[], env: NodeJS.ProcessEnv = {}) => runGrag(root, args, env);

/** `grag index` of the corpus with naive-dense into the store as `name`, its vectors in pgvector. */
const indexDense = (name: string, flags: string[] = []) =>
  grag([
    'index',
    corpus,
    '--method',
    'naive-dense',
    '--store',
    db.url,
    '--store-vectors',
    '--out',
    name,
    ...flags,
  ]);

/** The collections of each version of index `name`, oldest first. */
async function collections(name: string): Promise<{ version: number; name: string; size: number }[]> {
  const rows = await db.db.query<{ version: number; name: string; size: number }>(
    `SELECT version, name, size FROM grag_${name}.version_collections ORDER BY version`,
  );
  return rows.rows;
}

describe('grag with --store-vectors', () => {
  it('keeps naive-dense vectors in pgvector; query searches them there and add keeps them', async () => {
    const built = await indexDense('dense');
    expect(built.code, built.err).toBe(0);
    expect((await collections('dense')).map((c) => [c.name, c.size])).toEqual([['chunks', 2]]);
    const artifacts = await db.db.query<{ name: string }>(
      'SELECT name FROM grag_dense.artifacts ORDER BY name',
    );
    expect(artifacts.rows.map((r) => r.name)).not.toContain('vectors.bin');

    const query = await grag(
      ['query', 'dense', 'Munch Museum in Norway', '--json', '--no-answer', '--top-k', '1'],
      {
        GRAG_STORE: db.url,
      },
    );
    expect(query.code, query.err).toBe(0);
    const result = JSON.parse(query.out) as { retrieval: { items: { source: { docIds: string[] } }[] } };
    expect(result.retrieval.items.map((i) => i.source.docIds)).toEqual([['oslo.txt']]);

    const extra = join(root, 'berlin.txt');
    await writeFile(extra, 'Berlin is the capital of Germany. The Spree flows through Berlin.');
    const added = await grag(['add', 'dense', extra, '--store', db.url]);
    expect(added.code, added.err).toBe(0);
    // The new version has its own collection of three vectors; the previous one is kept for its readers.
    expect((await collections('dense')).map((c) => [c.name, c.size])).toEqual([
      ['chunks', 2],
      ['chunks', 3],
    ]);
  });

  it('serves an index whose vectors are in the database, searching them while it serves', async () => {
    const built = await indexDense('served', ['-q']);
    expect(built.code, built.err).toBe(0);
    const { url, io, stop } = await serveInProcess(root, { GRAG_STORE: db.url }, ['served']);
    const response = await fetch(`${url}/v1/query`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ question: 'Munch Museum in Norway', answer: false, topK: 1 }),
    });
    expect(response.status, await response.clone().text()).toBe(200);
    const body = (await response.json()) as { retrieval: { items: { source: { docIds: string[] } }[] } };
    expect(body.retrieval.items[0]!.source.docIds).toEqual(['oslo.txt']);
    expect(await stop(), io.err()).toBe(0);
  });

  it('refuses --store-vectors without a store, and on a command that writes no index, in one line', async () => {
    const noStore = await grag(['index', corpus, '--method', 'naive-dense', '--store-vectors', '--out', 'x']);
    expect(noStore.code).not.toBe(0);
    expect(noStore.err).toMatch(
      /^grag: --store-vectors keeps vectors in PostgreSQL: give --store <postgres-url> \(or set GRAG_STORE\) too\.\n$/,
    );
    const onQuery = await grag(['query', 'dense', 'Oslo', '--store-vectors'], { GRAG_STORE: db.url });
    expect(onQuery.code).not.toBe(0);
    expect(onQuery.err.trim().split('\n')).toHaveLength(1);
    expect(onQuery.err).toMatch(/--store-vectors is an option of index and eval/);
  });
});
