/**
 * A replica process of `serve({ processes })` (processes.ts): started with its configuration by the
 * primary, it loads the indexes from their directories with the setup module, serves the reads on
 * the shared port and forwards every other route to the primary (the writes, the jobs and their
 * event streams, the method list) with the primary's secret. When the primary says a version was
 * swapped in, it loads that version whole, then swaps it in, and says so; queries meanwhile are
 * answered from the previous version. It exits when the primary closes it or goes away.
 */
import { Agent as HttpAgent, type IncomingMessage, request, type ServerResponse } from 'node:http';
import { Readable } from 'node:stream';
import type { Context, Next } from 'hono';
import { createGragServer } from './app.js';
import { manifestVersion, servedIndex } from './indexes.js';
import { type LoadIndexesOptions, loadSettledIndex } from './load.js';
import { APP_PARTS, type AppParts, PROCESS_ROLES, type PublishedChange } from './process-roles.js';
import { type FromReplica, type ReplicaConfig, SECRET_HEADER, type ToReplica } from './processes.js';
import { type RunningServer, serve } from './serve.js';
import type { GragServerOptions } from './types.js';

/** The routes a replica answers itself: reads, and the queries and chats (which only read). */
const ANSWERED = /^\/v1\/(?:indexes\/[^/]+\/)?(?:query|chat)$/;

/** Whether a replica answers `method path` itself (else the primary does). */
export function answeredByReplica(method: string, path: string): boolean {
  if (path === '/v1/jobs' || path.startsWith('/v1/jobs/') || path === '/v1/methods') return false;
  if (method === 'GET' || method === 'HEAD' || method === 'OPTIONS') return true;
  return method === 'POST' && ANSWERED.test(path);
}

/** Headers of one connection only, not passed on. */
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'transfer-encoding',
  'upgrade',
  'te',
  'trailer',
]);

/** Tell the primary, while it can hear (what it can no longer hear it does not need). */
function send(message: FromReplica): void {
  if (process.connected) process.send?.(message, undefined, {}, () => {});
}

/** The request of `c` sent to the primary as it came (head and body streamed), its response streamed back. */
function forwardTo(c: Context, to: ReplicaConfig['forward'], agent: HttpAgent): Promise<Response> {
  const env = c.env as { incoming?: IncomingMessage; outgoing?: ServerResponse };
  const incoming = env.incoming as IncomingMessage;
  const headers: Record<string, string | string[] | undefined> = {
    ...incoming.headers,
    [SECRET_HEADER]: to.secret,
  };
  for (const name of ['connection', 'keep-alive', 'proxy-connection', 'upgrade']) delete headers[name];
  return new Promise((resolve, reject) => {
    let ended = false;
    const upstream = request(
      { host: '127.0.0.1', port: to.port, method: incoming.method, path: incoming.url, headers, agent },
      (res) => {
        res.once('end', () => {
          ended = true;
        });
        const out = new Headers();
        for (const [name, value] of Object.entries(res.headers)) {
          if (value === undefined || HOP_BY_HOP.has(name)) continue;
          for (const v of Array.isArray(value) ? value : [value]) out.append(name, v);
        }
        const status = res.statusCode ?? 502;
        const empty = incoming.method === 'HEAD' || status === 204 || status === 304;
        if (empty) res.resume();
        const body = empty ? null : (Readable.toWeb(res) as unknown as ReadableStream<Uint8Array>);
        resolve(new Response(body, { status, headers: out }));
      },
    );
    upstream.once('error', reject);
    // A client that goes away ends the primary's request too (an event stream it was reading).
    env.outgoing?.once('close', () => {
      if (!ended) upstream.destroy();
    });
    incoming.pipe(upstream);
  });
}

/** The middleware that forwards the routes the primary answers. */
function forwarder(to: ReplicaConfig['forward']) {
  // A new connection per forwarded request. A kept-alive one can be reused just as the primary
  // closes it for idleness (its keepAliveTimeout) while this replica's loop is busy answering
  // queries and has not yet read the close: the request then fails with ECONNRESET, a 500 to the
  // client. The routes forwarded (writes, jobs, their event streams) are few; a loopback connect
  // costs far less than any of them.
  const agent = new HttpAgent({ keepAlive: false });
  return async (c: Context, next: Next): Promise<Response | undefined> => {
    if (answeredByReplica(c.req.method, c.req.path)) {
      await next();
      return undefined;
    }
    return forwardTo(c, to, agent);
  };
}

async function importSetup(setup: string, data: unknown): Promise<LoadIndexesOptions> {
  const module = (await import(setup)) as { default?: unknown };
  if (typeof module.default !== 'function') {
    throw new Error(
      `@grag/server replica: ${setup} has no default export (a function returning { methods, context }).`,
    );
  }
  return (await module.default(data)) as LoadIndexesOptions;
}

/** Apply one change of the primary's indexes: a version loaded whole before it is swapped in. */
async function apply(parts: AppParts, load: LoadIndexesOptions, answer: unknown, change: PublishedChange) {
  if (change.kind === 'delete') {
    parts.registry.delete(change.name);
    return;
  }
  const loaded = await loadSettledIndex(change.target, load);
  // Its workspace first: the index is never seen outside it.
  await parts.workspaces.assign(change.name, change.workspace);
  const version = manifestVersion(loaded.manifest);
  const answerOption = answer === false ? false : undefined;
  parts.registry.swap(servedIndex({ ...loaded, name: change.name }, answerOption, version));
}

/** The server of this replica, once it listens. */
let running: RunningServer | undefined;

/** Start serving from `config`; resolves with what applies the primary's changes, in order. */
async function start(config: ReplicaConfig): Promise<(change: PublishedChange) => Promise<void>> {
  const load = await importSetup(config.setup, config.data);
  const indexes = await Promise.all(
    config.indexes.map(async ({ name, target }) => ({ ...(await loadSettledIndex(target, load)), name })),
  );
  const options = {
    ...(config.options as Partial<GragServerOptions>),
    indexes,
    onError: (error: unknown, where: string) =>
      send({ grag: 'error', where, message: error instanceof Error ? error.message : String(error) }),
  } as GragServerOptions;
  PROCESS_ROLES.set(options, { forward: forwarder(config.forward) });
  const app = createGragServer(options);
  const parts = APP_PARTS.get(app) as AppParts;
  const server = await serve(app, { host: config.host, port: config.port });
  running = server;
  send({ grag: 'listening', url: server.url });
  return (change) => apply(parts, load, config.options.answer, change);
}

/**
 * Run this process as a replica: wait for the primary's configuration, start, and apply its
 * changes one after the other (a change that arrives while starting waits for the start).
 */
export function runReplica(): void {
  let applying: Promise<((change: PublishedChange) => Promise<void>) | undefined> = new Promise(() => {});
  process.on('disconnect', () => process.exit(0));
  process.on('message', (message: ToReplica) => {
    if (message?.grag === 'config') {
      applying = start(message.config).catch((error: unknown) => {
        const argument = (error as { argument?: unknown }).argument;
        send({
          grag: 'failed',
          message: error instanceof Error ? error.message : String(error),
          ...(typeof argument === 'string' ? { argument } : {}),
        });
        process.exitCode = 1;
        process.disconnect?.();
        return undefined;
      });
    } else if (message?.grag === 'close') {
      // Its connections are ended at once; the process exits once its server has closed, or after
      // a second at most. Closed while starting, there is nothing to close yet.
      const stopped = running?.close() ?? Promise.resolve();
      void Promise.race([stopped, new Promise((r) => setTimeout(r, 1000))]).finally(() => process.exit(0));
    } else if (message?.grag === 'change') {
      const { id, change } = message;
      applying = applying.then(async (applyChange) => {
        if (!applyChange) return applyChange;
        try {
          await applyChange(change);
          send({ grag: 'ack', id });
        } catch (error) {
          // A version it cannot load: it exits, and the primary starts another from what is served.
          send({
            grag: 'error',
            where: `replica ${process.pid}: loading "${change.name}"`,
            message: String(error),
          });
          process.exit(1);
        }
        return applyChange;
      });
    }
  });
  // Listening now: the primary sends the configuration (a message sent before would be lost).
  send({ grag: 'ready' });
}
