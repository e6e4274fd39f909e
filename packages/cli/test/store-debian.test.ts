/**
 * `--store` on Debian's PostgreSQL server (the `postgresql` package), started by this file: a round
 * trip through the CLI, wrong credentials in one line, and the one line a missing pgvector gives.
 * Skipped, with the reason in its name, where `initdb` is not installed.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pgVectorIndexFactory } from '@grag/postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type DebianServer,
  debianPostgresBin,
  startDebianServer,
} from '../../postgres/test/debian-server.js';
import { formatError } from '../src/index.js';
import { runGrag } from './helpers.js';

const bin = debianPostgresBin();
const reason = bin
  ? `grag --store on Debian PostgreSQL (${bin})`
  : 'SKIPPED: no Debian PostgreSQL server (/usr/lib/postgresql/*/bin/initdb); apt-get install -y postgresql to run it';

describe.skipIf(bin === undefined)(reason, () => {
  let server: DebianServer;
  let root: string;
  let corpus: string;
  /** The server's URL as grag prints it (no password). */
  let shown: string;
  beforeAll(async () => {
    server = await startDebianServer(bin!);
    shown = server.wrongPasswordUrl.replace(':wrong@', '@');
    root = await mkdtemp(join(tmpdir(), 'grag-cli-debian-'));
    corpus = join(root, 'corpus');
    await mkdir(corpus);
    await writeFile(join(corpus, 'oslo.txt'), 'Oslo is the capital of Norway. The Munch Museum is in Oslo.');
    await writeFile(join(corpus, 'lyon.txt'), 'Lyon is a city in France. The Rhone meets the Saone in Lyon.');
  }, 120_000);
  afterAll(async () => {
    await server?.stop();
    if (root) await rm(root, { recursive: true, force: true });
  }, 60_000);

  const grag = (args: string[], env: NodeJS.ProcessEnv = {}) => runGrag(root, args, env);

  it('builds into the server and queries it by index name', async () => {
    const built = await grag(['index', corpus, '--method', 'bm25', '--out', 'docs', '-q'], {
      GRAG_STORE: server.url,
    });
    expect(built.code, built.err).toBe(0);
    const query = await grag([
      'query',
      'docs',
      'Munch Museum',
      '--json',
      '--no-answer',
      '--store',
      server.url,
    ]);
    expect(query.code, query.err).toBe(0);
    const result = JSON.parse(query.out) as { retrieval: { items: { source: { docIds: string[] } }[] } };
    expect(result.retrieval.items[0]!.source.docIds).toEqual(['oslo.txt']);
  });

  it('refuses wrong credentials in one line that names the database, not the password', async () => {
    for (const args of [
      ['query', 'docs', 'Munch Museum', '--store', server.wrongPasswordUrl],
      ['index', corpus, '--method', 'bm25', '--out', 'docs', '--store', server.wrongPasswordUrl],
    ]) {
      const r = await grag(args);
      expect(r.code).toBe(1);
      expect(r.err).toMatch(
        new RegExp(
          `^grag: @grag/postgres: PostgreSQL at ${shown.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} refused the credentials \\(28P01: [^\\n]*\\); check the user and password in the URL\\.\\n$`,
        ),
      );
      expect(r.err).not.toContain('wrong');
    }
  });

  it('prints a missing pgvector as its one line (the CLI itself never asks for a vector collection)', async () => {
    const vectors = pgVectorIndexFactory({ url: server.url, index: 'vec', collection: 'chunks' });
    try {
      const error = await vectors.create({ dimensions: 4 }).catch((e: unknown) => e);
      const { text, exitCode } = formatError(error, {});
      expect(exitCode).toBe(1);
      expect(text).toMatch(
        new RegExp(
          `^grag: pgvector is not installed in ${shown.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}; install it \\(CREATE EXTENSION vector[^\\n]*\\) or use the directory store\\.\\n$`,
        ),
      );
    } finally {
      await vectors.close();
    }
  });
});
