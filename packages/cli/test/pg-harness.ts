/**
 * PostgreSQL servers for the CLI's `--store` tests: `@grag/postgres`'s test PGlite served over the
 * wire on 127.0.0.1 (with pgvector only when asked), reached by the CLI with the same `pg` client
 * users run, with a password the output must never show; and a port where nothing listens.
 */
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
