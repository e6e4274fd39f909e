/**
 * A throw-away Debian PostgreSQL server for tests: `initdb` into a temporary directory (as the
 * `postgres` user when the tests run as root, since the server refuses to run as root), password
 * authentication (scram-sha-256) on 127.0.0.1 and a free port, started and stopped with `pg_ctl`;
 * with `{ tls: true }`, `ssl=on` with a self-signed certificate made by `openssl req -x509`.
 */
import { execFile } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { chmod, chown, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** The `bin` directory of the newest installed Debian PostgreSQL, or `undefined`. */
export function debianPostgresBin(): string | undefined {
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return undefined;
  const versions = readdirSync(root)
    .filter((v) => existsSync(join(root, v, 'bin', 'initdb')))
    .sort((a, b) => Number(b) - Number(a));
  return versions[0] === undefined ? undefined : join(root, versions[0], 'bin');
}

/** A port nobody listens on right now. */
export async function freePort(): Promise<number> {
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

/** A running server: `url` connects as the test user with its password. */
export interface DebianServer {
  url: string;
  /** The same server with a wrong password. */
  wrongPasswordUrl: string;
  /** With `{ tls: true }`: the server's self-signed certificate (PEM file), its own CA. */
  certFile?: string;
  stop(): Promise<void>;
}

/** How {@link startDebianServer} sets up the server. */
export interface DebianServerOptions {
  /**
   * `ssl=on` with a self-signed certificate for `localhost` and `127.0.0.1`; the server also
   * listens on 127.0.0.2, a name the certificate does not list.
   */
  tls?: boolean;
}

/**
 * A self-signed certificate and its key in `dir` (`<name>.crt`, `<name>.key`), for `localhost` and
 * `127.0.0.1`.
 */
export async function selfSignedCertificate(
  dir: string,
  name: string,
): Promise<{ cert: string; key: string }> {
  const cert = join(dir, `${name}.crt`);
  const key = join(dir, `${name}.key`);
  await run('openssl', [
    'req',
    '-x509',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-days',
    '2',
    '-subj',
    '/CN=localhost',
    '-addext',
    'subjectAltName=DNS:localhost,IP:127.0.0.1',
    '-keyout',
    key,
    '-out',
    cert,
  ]);
  return { cert, key };
}

export const USER = 'grag_test';
const PASSWORD = 'correct horse';

/** Start a fresh server from the binaries in `bin`. */
export async function startDebianServer(
  bin: string,
  options: DebianServerOptions = {},
): Promise<DebianServer> {
  const dir = await mkdtemp(join(tmpdir(), 'grag-pg-'));
  const data = join(dir, 'data');
  const asRoot = process.getuid?.() === 0;
  const as = async (command: string, args: string[]) => {
    const file = join(bin, command);
    return asRoot ? run('runuser', ['-u', 'postgres', '--', file, ...args]) : run(file, args);
  };
  if (asRoot) {
    const { uid, gid } = await postgresIds();
    await chown(dir, uid, gid);
  }
  await chmod(dir, 0o700);
  const pwfile = join(dir, 'pw');
  await writeFile(pwfile, `${PASSWORD}\n`);
  if (asRoot) {
    const { uid, gid } = await postgresIds();
    await chown(pwfile, uid, gid);
  }
  await as('initdb', [
    '-D',
    data,
    '-U',
    USER,
    `--pwfile=${pwfile}`,
    '--auth=scram-sha-256',
    '-E',
    'UTF8',
    '--no-sync',
  ]);
  let serverOptions = '';
  let listen = '127.0.0.1';
  let certFile: string | undefined;
  if (options.tls) {
    const { cert, key } = await selfSignedCertificate(data, 'server');
    await chmod(key, 0o600);
    if (asRoot) {
      const { uid, gid } = await postgresIds();
      await chown(cert, uid, gid);
      await chown(key, uid, gid);
    }
    certFile = cert;
    serverOptions = ` -c ssl=on -c ssl_cert_file=${cert} -c ssl_key_file=${key}`;
    listen = '127.0.0.1,127.0.0.2';
  }
  const port = await freePort();
  const pgOptions = `-p ${port} -k ${dir} -c listen_addresses=${listen} -c fsync=off${serverOptions}`;
  await as('pg_ctl', ['-D', data, '-o', pgOptions, '-l', join(dir, 'log'), '-w', '-t', '60', 'start']);
  const password = encodeURIComponent(PASSWORD);
  return {
    url: `postgres://${USER}:${password}@127.0.0.1:${port}/postgres`,
    wrongPasswordUrl: `postgres://${USER}:wrong@127.0.0.1:${port}/postgres`,
    ...(certFile !== undefined ? { certFile } : {}),
    async stop() {
      try {
        await as('pg_ctl', ['-D', data, '-m', 'fast', '-w', 'stop']);
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    },
  };
}

async function postgresIds(): Promise<{ uid: number; gid: number }> {
  const { stdout } = await run('id', ['postgres']);
  const uid = Number(/uid=(\d+)/.exec(stdout)?.[1]);
  const gid = Number(/gid=(\d+)/.exec(stdout)?.[1]);
  return { uid, gid };
}
