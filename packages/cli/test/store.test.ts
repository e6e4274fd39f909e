/**
 * `--store` / `GRAG_STORE`: every command that reads or writes an index works on an index name in
 * PostgreSQL (PGlite served over the wire, reached with `pg` as users reach their server), never
 * prints the password, and every bad input is one line on stderr with a non-zero exit.
 */
import { execFile } from 'node:child_process';
import { readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { SCHEMA_VERSION } from '@grag/postgres';
import { describe, expect, it } from 'vitest';
import { runGrag, serveInProcess } from './helpers.js';
import { closedPort, PASSWORD, type SocketDb, usePgCorpus } from './pg-harness.js';

let db: SocketDb;
let root: string;
let corpus: string;
/** The URL as grag prints it: no password. */
let shown: string;

usePgCorpus(
  'grag-cli-store-',
  {
    'lyon.md':
      '# Lyon\n\nLyon is a city in France. The Rhone and the Saone meet in Lyon. Paul Bocuse cooked in Lyon.',
    'oslo.txt': 'Oslo is the capital of Norway. The Munch Museum is in Oslo.',
  },
  {},
  (setup) => {
    ({ db, root, corpus } = setup);
    shown = db.url.replace(`:${PASSWORD}@`, '@');
  },
);

/** Run grag in `root`; returns the exit code and what it printed. */
const grag = (args: string[], env: NodeJS.ProcessEnv = {}) => runGrag(root, args, env);

/** The document ids `grag query --json --no-answer` retrieves from the index `name` of the store. */
async function retrievedDocs(name: string, question: string): Promise<string[]> {
  const r = await grag(['query', name, question, '--json', '--no-answer', '--top-k', '10'], {
    GRAG_STORE: db.url,
  });
  expect(r.code, r.err).toBe(0);
  const result = JSON.parse(r.out) as { retrieval: { items: { source: { docIds: string[] } }[] } };
  return [...new Set(result.retrieval.items.flatMap((item) => item.source.docIds))].sort();
}

describe('grag on an index in PostgreSQL', () => {
  it('indexes, queries, adds and removes by index name, printing the URL without its password', async () => {
    const built = await grag(['index', corpus, '--method', 'bm25', '--store', db.url, '--out', 'docs']);
    expect(built.code, built.err).toBe(0);
    expect(built.err.split('\n')).toContainEqual(
      expect.stringMatching(/^grag: wrote .* \(\{"chunks":2,"documents":2\}\) in /),
    );
    expect(built.err).toContain(`grag: wrote ${shown}#docs (`);
    // The name is a name in the database, not a directory: only the cache is written here.
    expect((await readdir(root)).sort()).toEqual(['.grag-cache', 'corpus']);
    expect(await retrievedDocs('docs', 'Munch Museum Oslo')).toEqual(['oslo.txt']);

    const extra = join(root, 'berlin.txt');
    await writeFile(extra, 'Berlin is the capital of Germany. The Spree flows through Berlin.');
    const added = await grag(['add', 'docs', extra, '--store', db.url]);
    expect(added.code, added.err).toBe(0);
    expect(added.out).toBe(
      `grag: updated ${shown}#docs (bm25): 1 document added, 0 removed; chunks −0 +1 (3 now); 0 model calls, 0 texts embedded\n`,
    );
    expect(await retrievedDocs('docs', 'Spree Germany')).toEqual(['berlin.txt']);

    const removed = await grag(['remove', 'docs', 'oslo.txt', '--json'], { GRAG_STORE: db.url });
    expect(removed.code, removed.err).toBe(0);
    expect(JSON.parse(removed.out)).toMatchObject({
      index: `${shown}#docs`,
      method: 'bm25',
      report: { documents: { added: [], removed: ['oslo.txt'] } },
    });
    expect(await retrievedDocs('docs', 'Munch Museum Oslo Norway')).not.toContain('oslo.txt');

    // Three versions were written; the store keeps the current one and the one before.
    const versions = await db.db.query<{ documents: number; current: boolean }>(
      `SELECT (manifest->'stats'->>'documents')::int AS documents, current FROM grag_docs.versions ORDER BY id`,
    );
    expect(versions.rows).toEqual([
      { documents: 3, current: false },
      { documents: 2, current: true },
    ]);
    for (const r of [built, added, removed]) expect(r.out + r.err).not.toContain(PASSWORD);
  });

  it('serves an index of the database by name', async () => {
    const built = await grag([
      'index',
      corpus,
      '--method',
      'bm25',
      '--store',
      db.url,
      '--out',
      'served',
      '-q',
    ]);
    expect(built.code, built.err).toBe(0);
    const { url, io, stop } = await serveInProcess(root, { GRAG_STORE: db.url }, ['served']);
    const listing = (await (await fetch(`${url}/v1/indexes`)).json()) as {
      indexes: { name: string; documents: number }[];
    };
    expect(listing.indexes).toMatchObject([{ name: 'served', method: 'bm25', documents: 2 }]);
    expect(await stop(), io.err()).toBe(0);
  });

  it('estimates without touching the store, and ignores a blank GRAG_STORE', async () => {
    const port = await closedPort();
    const unreachable = `postgres://u:${PASSWORD}@127.0.0.1:${port}/db`;
    const estimate = await grag(['index', corpus, '--method', 'bm25', '--estimate', '--out', 'docs'], {
      GRAG_STORE: unreachable,
    });
    expect(estimate.code, estimate.err).toBe(0);
    const dir = join(root, 'plain-index');
    const plain = await grag(['index', corpus, '--method', 'bm25', '--out', dir, '-q'], { GRAG_STORE: ' ' });
    expect(plain.code, plain.err).toBe(0);
    expect(await readdir(dir)).toContain('manifest.json');
  });
});

describe('a directory user', () => {
  it('never loads the pg client; --store loads it', async () => {
    const dir = join(root, 'dir-index');
    const built = await grag(['index', corpus, '--method', 'bm25', '--out', dir, '-q']);
    expect(built.code, built.err).toBe(0);
    const repo = fileURLToPath(new URL('../../../', import.meta.url));
    const fixture = fileURLToPath(new URL('./fixtures/pg-loaded.ts', import.meta.url));
    const child = async (args: string[]) => {
      const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', fixture, ...args], {
        cwd: repo,
        env: { PATH: process.env.PATH, TSX_TSCONFIG_PATH: join(repo, 'tsconfig.json') },
      });
      return JSON.parse(stdout) as { code: number; pgModules: number; err: string };
    };
    const plain = await child(['query', dir, 'Munch Museum', '--no-answer']);
    expect(plain).toMatchObject({ code: 0, pgModules: 0 });
    const stored = await child(['query', 'docs', 'Munch Museum', '--no-answer', '--store', db.url]);
    expect(stored.code, stored.err).toBe(0);
    expect(stored.pgModules).toBeGreaterThan(0);
  }, 60_000);
});

describe('bad input with --store: one line on stderr and a non-zero exit', () => {
  /** Exactly one line on stderr, no stack, no password. */
  const oneLine = (r: { code: number; out: string; err: string }) => {
    expect(r.code).not.toBe(0);
    expect(r.err.split('\n')).toHaveLength(2);
    expect(r.err.endsWith('\n')).toBe(true);
    expect(r.err).not.toMatch(/\bat .*:\d+:\d+/);
    expect(r.err).not.toContain(PASSWORD);
    return r.err;
  };

  it('an unreachable database URL (a closed port), for query, index, add and serve', async () => {
    const port = await closedPort();
    const url = `postgres://u:${PASSWORD}@127.0.0.1:${port}/db`;
    const expected = `grag: @grag/postgres: cannot reach PostgreSQL at postgres://u@127.0.0.1:${port}/db (ECONNREFUSED); check the host and port in the URL and that the server is running.\n`;
    expect(oneLine(await grag(['query', 'docs', 'Where is Lyon?', '--store', url]))).toBe(expected);
    // Refused before the corpus is read or a model called.
    expect(oneLine(await grag(['index', corpus, '--method', 'bm25', '--store', url, '--out', 'docs']))).toBe(
      expected,
    );
    expect(oneLine(await grag(['add', 'docs', corpus], { GRAG_STORE: url }))).toBe(expected);
    expect(oneLine(await grag(['serve', 'docs', '--port', '0'], { GRAG_STORE: url }))).toBe(expected);
  });

  it('a query on an index name the database does not hold', async () => {
    expect(oneLine(await grag(['query', 'nope', 'Where is Lyon?', '--store', db.url]))).toBe(
      `grag: No index named "nope" in ${shown}; build it with grag index <corpus> --method <name> --store <url> --out nope.\n`,
    );
    expect(oneLine(await grag(['remove', 'nope', 'a.txt', '--store', db.url]))).toContain(
      'No index named "nope"',
    );
  });

  it('a schema written by a newer format version, refused for reading and for writing', async () => {
    await db.db.exec(`CREATE SCHEMA grag_future;
      CREATE TABLE grag_future.grag_meta (key text PRIMARY KEY, value text NOT NULL);
      INSERT INTO grag_future.grag_meta VALUES ('schema_version', '99');`);
    const expected = `grag: ${shown}#future: schema grag_future has layout version 99, but this @grag/postgres reads up to version ${SCHEMA_VERSION}; upgrade @grag/postgres.\n`;
    expect(oneLine(await grag(['query', 'future', 'Where is Lyon?', '--store', db.url]))).toBe(expected);
    expect(
      oneLine(await grag(['index', corpus, '--method', 'bm25', '--store', db.url, '--out', 'future'])),
    ).toBe(expected);
    // Nothing was written into it.
    const tables = await db.db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM pg_tables WHERE schemaname = 'grag_future'`,
    );
    expect(tables.rows[0]!.n).toBe(1);
  });

  it('an index name the database cannot hold, a URL that is not postgres://, and --store where no index is stored', async () => {
    expect(
      oneLine(await grag(['index', corpus, '--method', 'bm25', '--store', db.url, '--out', './my-index'])),
    ).toBe(
      `grag: With --store, index "./my-index" is not a valid index name; use lower-case letters, digits and _ (starting with a letter, at most 58 characters), e.g. 'docs'.\n`,
    );
    expect(oneLine(await grag(['query', 'docs', 'Lyon?', '--store', 'mysql://u@host/db']))).toBe(
      'grag: --store: mysql://u@host/db is not a postgres:// URL; use postgres://user:password@host:5432/database.\n',
    );
    expect(oneLine(await grag(['query', 'docs', 'Lyon?', '--store', '']))).toMatch(
      /^grag: --store is empty;/,
    );
    const demoRun = await grag(['demo', '--store', db.url]);
    expect(oneLine(demoRun)).toBe(
      'grag: --store is an option of index, query, add, remove, serve, eval; grag demo keeps its indexes in directories. Run `grag --help`.\n',
    );
    expect(demoRun.code).toBe(2);
  });
});
