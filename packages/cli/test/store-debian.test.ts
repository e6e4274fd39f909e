/**
 * `--store` on Debian's PostgreSQL server (the `postgresql` package), started by this file: a round
 * trip through the CLI, wrong credentials in one line, and the one line a missing pgvector gives;
 * TLS with libpq's sslmode semantics on a server with a self-signed certificate (the real `grag`
 * process, so `pg`'s warnings would show on its stderr). Skipped, with the reason in its name,
 * where `initdb` is not installed.
 */
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { pgVectorIndexFactory } from '@grag/postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type DebianServer,
  debianPostgresBin,
  selfSignedCertificate,
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

/** `grag args` as its own process (`tsx src/bin.ts`), with its exit code and both streams. */
function gragProcess(cwd: string, args: string[]): Promise<{ code: number; out: string; err: string }> {
  const bin = fileURLToPath(new URL('../src/bin.ts', import.meta.url));
  const tsx = fileURLToPath(new URL('../../../node_modules/.bin/tsx', import.meta.url));
  const tsconfig = fileURLToPath(new URL('../../../tsconfig.json', import.meta.url));
  const env = { ...process.env };
  for (const name of Object.keys(env)) if (/^(OPENAI|GRAG|PGSSL)/.test(name)) delete env[name];
  return new Promise((resolve) => {
    execFile(
      tsx,
      ['--tsconfig', tsconfig, bin, ...args],
      { cwd, env, timeout: 120_000 },
      (error, out, err) => {
        const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
        resolve({ code, out, err });
      },
    );
  });
}

describe.skipIf(bin === undefined)(`${reason}: TLS with a self-signed certificate`, () => {
  let server: DebianServer;
  let root: string;
  let corpus: string;
  let wrongCa: string;
  beforeAll(async () => {
    server = await startDebianServer(bin!, { tls: true });
    root = await mkdtemp(join(tmpdir(), 'grag-cli-tls-'));
    corpus = join(root, 'corpus');
    await mkdir(corpus);
    await writeFile(join(corpus, 'oslo.txt'), 'Oslo is the capital of Norway. The Munch Museum is in Oslo.');
    wrongCa = (await selfSignedCertificate(root, 'other')).cert;
  }, 120_000);
  afterAll(async () => {
    await server?.stop();
    if (root) await rm(root, { recursive: true, force: true });
  }, 60_000);

  it('sslmode=require builds and queries, with nothing on stderr (no pg warning), as psql connects', async () => {
    const url = `${server.url}?sslmode=require`;
    const built = await gragProcess(root, [
      'index',
      corpus,
      '--method',
      'bm25',
      '--out',
      'docs',
      '-q',
      '--store',
      url,
    ]);
    expect(built, built.err).toMatchObject({ code: 0, err: '' });
    const query = await gragProcess(root, [
      'query',
      'docs',
      'Munch Museum',
      '--no-answer',
      '--json',
      '--store',
      url,
    ]);
    expect(query, query.err).toMatchObject({ code: 0, err: '' });
    expect(query.out).toContain('oslo.txt');
  }, 120_000);

  it('verify-full with the wrong CA fails in one line naming the store URL (no password) and what to do', async () => {
    const url = `${server.url}?sslmode=verify-full&sslrootcert=${encodeURIComponent(wrongCa)}`;
    const r = await gragProcess(root, ['query', 'docs', 'Munch Museum', '--no-answer', '--store', url]);
    expect(r.code).toBe(1);
    expect(r.err).toMatch(
      /^grag: @grag\/postgres: the TLS certificate of PostgreSQL at postgres:\/\/grag_test@127\.0\.0\.1:\d+\/postgres\?sslmode=verify-full&sslrootcert=\S+ is not signed by a trusted CA \(self-signed certificate\); put the CA that signed the server's certificate in the URL as sslrootcert=\/path\/to\/root\.crt, or use sslmode=require to encrypt without checking the certificate \(as psql does\)\.\n$/,
    );
    expect(r.err).not.toMatch(/horse|SECURITY WARNING|unexpected error/);
  }, 120_000);
});
