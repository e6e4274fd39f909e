/**
 * `serve({ processes })`: the server on several processes behind one port (`node:cluster`: the
 * primary accepts the connections and hands them to its replicas in turn). The primary owns the
 * writes, the jobs and their journal: it runs the server's app on a private loopback port, guarded
 * by a random secret, and every replica forwards each route that is not a read there (the job
 * routes and their event streams too). Each replica loads the indexes from their directories with
 * a setup module (as a retrieval worker does) and answers the reads; when a write swaps in a new
 * version, the primary tells every replica, each loads it whole and swaps it in, and the job ends
 * once all serve it. A replica that exits unexpectedly is reported and started again.
 */
import cluster from 'node:cluster';
import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { Server } from 'node:http';
import { createServer } from 'node:net';
import { availableParallelism } from 'node:os';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { InvalidArgumentError } from '@grag/core';
import { serve as serveNode } from '@hono/node-server';
import type { Hono } from 'hono';
import { closeWorkers, createGragServer } from './app.js';
import { BINDING, type Binding } from './guard.js';
import type { WorkerOptions } from './pool.js';
import { APP_PARTS, PROCESS_ROLES, type PublishedChange } from './process-roles.js';
import { Replicas } from './replicas.js';
import type { RunningServer } from './serve.js';
import type { GragServerOptions } from './types.js';

/** Options of `serve`'s `processes`: how many processes answer, and how each loads the indexes. */
export interface ProcessOptions {
  /** How many replica processes serve the port. @default os.availableParallelism() */
  count?: number;
  /**
   * The module each replica imports (file URL or path), whose default export, called with `data`,
   * returns what `loadIndex` takes (`{ methods, context(manifest, dir) }`), as `WorkerOptions`'s
   * `setup`. @default `workers.setup`
   */
  setup?: string | URL;
  /** What the setup module is called with (plain data). @default `workers.data` */
  data?: unknown;
}

/** The header that carries the primary's secret on a forwarded request. */
export const SECRET_HEADER = 'x-grag-replica-secret';

/** What the primary sends a replica to start it. */
export interface ReplicaConfig {
  host: string;
  port: number;
  setup: string;
  data: unknown;
  /** The server's options that are plain data (tokens, workspaces, limits, Host and CORS lists, workers). */
  options: Record<string, unknown>;
  /** The indexes served now, each with the directory it is saved in. */
  indexes: { name: string; target: string }[];
  /** Where the routes that are not reads go. */
  forward: { port: number; secret: string };
}

/** Messages between the primary and a replica. */
export type ToReplica =
  | { grag: 'config'; config: ReplicaConfig }
  | { grag: 'change'; id: number; change: PublishedChange }
  | { grag: 'close' };
export type FromReplica =
  | { grag: 'ready' }
  | { grag: 'listening'; url: string }
  | { grag: 'failed'; message: string; argument?: string }
  | { grag: 'ack'; id: number }
  | { grag: 'error'; where: string; message: string };

/** The options of `serve` that `processes` needs. */
export interface ProcessServeOptions extends GragServerOptions {
  processes?: number | ProcessOptions;
}

/** How many processes `processes` asks for (1: the server runs in this process, as without it). */
export function processCount(processes: ProcessServeOptions['processes']): number {
  if (processes === undefined) return 1;
  const count = typeof processes === 'number' ? processes : (processes.count ?? availableParallelism());
  if (!Number.isInteger(count) || count < 1 || count > 256) {
    throw new InvalidArgumentError(
      'processes',
      `serve: processes must be an integer from 1 to 256, got ${count}.`,
    );
  }
  return count;
}

/** Refuse what replicas cannot serve; the setup module and its data. */
function checkProcessOptions(options: ProcessServeOptions): { setup: string; data: unknown } {
  const given = typeof options.processes === 'object' ? options.processes : {};
  const setup = given.setup ?? options.workers?.setup;
  if (setup === undefined) {
    throw new InvalidArgumentError(
      'processes',
      'serve: processes > 1 needs a setup module each process loads the indexes with: give processes.setup (or workers.setup).',
    );
  }
  if (!cluster.isPrimary) {
    throw new InvalidArgumentError('processes', 'serve: processes > 1 starts only from a cluster primary.');
  }
  const held = [...(options.indexes ?? []), ...(options.folder?.indexes ?? [])];
  const stored = held.find((ix) => typeof ix.target !== 'string');
  if (stored !== undefined || (options.createTarget !== undefined && options.folder === undefined)) {
    throw new InvalidArgumentError(
      'processes',
      `serve: processes > 1 serves only indexes saved in directories${stored ? ` ("${stored.name ?? stored.method.name}" is ${stored.target === undefined ? 'kept in memory' : 'in a store such as PostgreSQL'})` : ' (createTarget saves new ones elsewhere, e.g. in PostgreSQL)'}; serve it with one process.`,
    );
  }
  if (options.answer !== undefined && options.answer !== false) {
    throw new InvalidArgumentError(
      'processes',
      "serve: with processes > 1 each index answers with its own task suite (the setup module's context); the answer option can only be false.",
    );
  }
  const href =
    setup instanceof URL || /^[a-z][a-z0-9+.-]*:/i.test(String(setup))
      ? String(setup)
      : pathToFileURL(String(setup)).href;
  return { setup: href, data: given.data ?? options.workers?.data };
}

/** The plain-data options every replica is made with. */
function plainOptions(options: ProcessServeOptions, workspaces: Record<string, string[]>) {
  const workers: WorkerOptions | undefined = options.workers && {
    ...options.workers,
    setup: String(options.workers.setup),
  };
  const explorerDir =
    options.explorerDir instanceof URL ? fileURLToPath(options.explorerDir) : options.explorerDir;
  const plain = {
    token: options.token,
    tokens: options.tokens,
    workspaces,
    allowedHosts: options.allowedHosts,
    cors: options.cors,
    bodyLimitBytes: options.bodyLimitBytes,
    maxQuestionChars: options.maxQuestionChars,
    uploadLimitBytes: options.uploadLimitBytes,
    explorerDir,
    answer: options.answer,
    workers,
  };
  return Object.fromEntries(Object.entries(plain).filter(([, v]) => v !== undefined));
}

/** The one line for a port `serve` cannot listen on (in use, not allowed…). */
export function portError(host: string, port: number, error: NodeJS.ErrnoException): InvalidArgumentError {
  return new InvalidArgumentError(
    'port',
    `serve: cannot listen on ${host}:${port} (${error.code ?? error.message})${
      error.code === 'EADDRINUSE' ? '; choose another --port or stop what uses it' : ''
    }.`,
    { cause: error },
  );
}

/**
 * Check that `port` on `host` is free (`0`: pick a free one), rejecting as `serve` does when it is
 * not. The replicas' listen goes through the cluster's handles, which another server of this
 * process on the same port would share instead of failing.
 */
function probePort(host: string, port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', (error: NodeJS.ErrnoException) => reject(portError(host, port, error)));
    probe.listen(port, host, () => {
      const port = (probe.address() as { port: number }).port;
      probe.close(() => resolve(port));
    });
  });
}

/** Whether `given` is the secret, compared in constant time. */
function sameSecret(given: string | null, secret: string): boolean {
  const a = Buffer.from(given ?? '');
  const b = Buffer.from(secret);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** Start the primary's app on a private loopback port that answers only requests with the secret. */
function privateServer(
  app: Hono,
  binding: Binding,
  secret: string,
): Promise<{ port: number; server: Server }> {
  return new Promise((resolve) => {
    const server = serveNode(
      {
        fetch: (request: Request, env: unknown) =>
          sameSecret(request.headers.get(SECRET_HEADER), secret)
            ? app.fetch(request, { ...(env as object), [BINDING]: binding })
            : new Response('Forbidden\n', { status: 403 }),
        port: 0,
        hostname: '127.0.0.1',
        overrideGlobalObjects: false,
      },
      (info) => resolve({ port: info.port, server: server as Server }),
    );
  });
}

/**
 * Serve `options` on `binding` with `count` replica processes (see the module's comment). Resolves
 * once every replica listens; `close()` stops them all, then the primary's private server.
 */
export async function serveProcesses(
  options: ProcessServeOptions,
  binding: Binding,
  count: number,
): Promise<RunningServer> {
  const { setup, data } = checkProcessOptions(options);
  const port = await probePort(binding.host, binding.port);
  binding.port = port;
  const { processes: _processes, workers: _workers, ...rest } = options;
  const onError = options.onError ?? logError;
  const replicas = new Replicas(onError);
  // The primary's app: the writes and jobs of every process (its reads are the replicas').
  const writerOptions: GragServerOptions = { ...rest, onError };
  PROCESS_ROLES.set(writerOptions, { publish: (change) => replicas.publish(change) });
  const writer = createGragServer(writerOptions);
  const parts = APP_PARTS.get(writer);
  if (!parts) throw new Error('serve: the primary app has no registry.');
  const secret = randomBytes(32).toString('hex');
  const hidden = await privateServer(writer, binding, secret);
  const closePrivate = () =>
    new Promise<void>((done) => {
      hidden.server.close(() => done());
      hidden.server.closeAllConnections();
    });
  // Each replica starts from the indexes served when it starts (a restarted one too).
  replicas.configure(() => ({
    host: binding.host,
    port,
    setup,
    data,
    options: plainOptions(options, parts.workspaces.byWorkspace()),
    indexes: parts.registry.list().map((ix) => ({ name: ix.name, target: ix.input.target as string })),
    forward: { port: hidden.port, secret },
  }));
  let url: string;
  try {
    url = await replicas.start(count);
  } catch (error) {
    await replicas.close();
    await closePrivate();
    throw error;
  }
  let closing: Promise<void> | undefined;
  return {
    url,
    close() {
      closing ??= replicas
        .close()
        .then(closePrivate)
        .then(() => closeWorkers(writer));
      return closing;
    },
  };
}

/** The default `onError`: one line on stderr. */
function logError(error: unknown, where: string): void {
  const message = error instanceof Error ? error.message : String(error);
  process.stderr.write(`grag serve: ${where}: ${message.split('\n')[0]}\n`);
}
