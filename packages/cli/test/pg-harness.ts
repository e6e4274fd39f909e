/**
 * PostgreSQL servers for the CLI's `--store` tests: PGlite (with pgvector only when asked) served over the wire on
 * 127.0.0.1 through `@electric-sql/pglite-socket`, reached by the CLI with the same `pg` client
 * users run; and a port where nothing listens.
 */
import { createServer } from 'node:net';
import { PGlite } from '@electric-sql/pglite';
import { vector } from '@electric-sql/pglite-pgvector';
import { PGLiteSocketServer } from '@electric-sql/pglite-socket';

/** The password in every test URL: output must never show it. */
export const PASSWORD = 's3cret-pw';

/** A PGlite database served over TCP, with the URL a `pg` client connects to. */
export interface SocketDb {
  db: PGlite;
  /** `postgres://postgres:<PASSWORD>@127.0.0.1:<port>/postgres` */
  url: string;
  stop(): Promise<void>;
}

/** Serve a fresh in-memory PGlite database on 127.0.0.1 and a port the OS picks. */
export async function servePglite(
  maxConnections = 8,
  options: { pgvector?: boolean } = {},
): Promise<SocketDb> {
  const db = options.pgvector ? new PGlite({ extensions: { vector } }) : new PGlite();
  await db.waitReady;
  const server = new PGLiteSocketServer({ db, host: '127.0.0.1', port: 0, maxConnections });
  await server.start();
  return {
    db,
    url: `postgres://postgres:${PASSWORD}@${server.getServerConn()}/postgres`,
    async stop() {
      await server.stop();
      await db.close();
    },
  };
}

/** A port on 127.0.0.1 nobody listens on right now (bound, then closed). */
export async function closedPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}
