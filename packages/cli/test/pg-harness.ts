/**
 * PostgreSQL servers for the CLI's `--store` tests: `@grag/postgres`'s test PGlite served over the
 * wire on 127.0.0.1 (with pgvector only when asked), reached by the CLI with the same `pg` client
 * users run, with a password the output must never show; and a port where nothing listens.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { type SocketDb, servePglite as serve } from '../../postgres/test/pglite.js';

/** A port on 127.0.0.1 nobody listens on right now (bound, then closed). */
export { freePort as closedPort } from '../../postgres/test/debian-server.js';
export type { SocketDb } from '../../postgres/test/pglite.js';

/** The password in every test URL: output must never show it. */
export const PASSWORD = 's3cret-pw';

/** Serve a fresh in-memory PGlite database (pgvector only with `pgvector: true`); its URL holds {@link PASSWORD}. */
export function servePglite(maxConnections = 8, options: { pgvector?: boolean } = {}): Promise<SocketDb> {
  return serve(maxConnections, { pgvector: options.pgvector ?? false, password: PASSWORD });
}

/** What {@link usePgCorpus} sets up for a test file. */
export interface PgCorpus {
  /** The served database. */
  db: SocketDb;
  /** A temporary folder the tests run grag in. */
  root: string;
  /** `root/corpus`, holding the files given. */
  corpus: string;
}

/**
 * For the whole test file: a served PGlite database (pgvector only with `pgvector: true`) and a
 * temporary folder named after `prefix` whose `corpus` folder holds `files` (name → text), handed
 * to `use` before the tests; the server is stopped and the folder removed after them.
 */
export function usePgCorpus(
  prefix: string,
  files: Readonly<Record<string, string>>,
  options: { pgvector?: boolean },
  use: (setup: PgCorpus) => void,
): void {
  let setup: PgCorpus | undefined;
  beforeAll(async () => {
    const db = await servePglite(8, options);
    const root = await mkdtemp(join(tmpdir(), prefix));
    const corpus = join(root, 'corpus');
    await mkdir(corpus);
    for (const [file, text] of Object.entries(files)) await writeFile(join(corpus, file), text);
    setup = { db, root, corpus };
    use(setup);
  }, 60_000);
  afterAll(async () => {
    await setup?.db.stop();
    if (setup) await rm(setup.root, { recursive: true, force: true });
  });
}
