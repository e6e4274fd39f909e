/** `serve`: the grag HTTP API on Node's HTTP server, through `@hono/node-server`. */
import type { AddressInfo } from 'node:net';
import { InvalidArgumentError } from '@grag/core';
import { serve as serveNode } from '@hono/node-server';
import type { Hono } from 'hono';
import { closeWorkers, createGragServer, madeHere } from './app.js';
import { BINDING, type Binding, isLoopbackHost } from './guard.js';
import { type ProcessOptions, portError, processCount, serveProcesses } from './processes.js';
import type { GragServerOptions } from './types.js';

/** Where {@link serve} listens. */
export interface ListenOptions {
  /**
   * Interface to bind. Anything but loopback exposes the indexes to the network, so it needs a
   * server with a `token` (see {@link serve}). @default '127.0.0.1'
   */
  host?: string;
  /** Port; `0` picks a free one (read it from the returned `url`). @default 8787 */
  port?: number;
}

/** Options of {@link serve}: the server's, where to listen, and on how many processes. */
export interface ServeOptions extends GragServerOptions, ListenOptions {
  /**
   * Serve the port from this many processes (or `{ count, setup, data }`, see `ProcessOptions`),
   * one per core for the most throughput: each replica process loads the indexes from their
   * directories with the setup module (default `workers.setup`) and answers the reads; the
   * writes, the jobs and their journal stay in this process, which the replicas forward them to.
   * Every index must be saved in a directory (a folder, or `loadIndex` directories).
   * @default 1 (this process serves, as without it)
   */
  processes?: number | ProcessOptions;
}

/** A running server. */
export interface RunningServer {
  /** Where it listens, e.g. `http://127.0.0.1:8787`. */
  readonly url: string;
  /** Stop accepting connections, end the open ones, and resolve when the server is closed. */
  close(): Promise<void>;
}

/** Defaults of {@link ServeOptions}. */
export const SERVE_DEFAULTS = { host: '127.0.0.1', port: 8787 } as const;

/**
 * Start the grag HTTP API on `host:port`, by default `127.0.0.1:8787`: either from the server's
 * options (see {@link createGragServer}) with `host` and `port` among them, or an app already made
 * (e.g. by `createGragServer`, with routes of your own added) and where to listen. Resolves once it
 * listens, with its URL and a `close()`. Rejects with the listen error (e.g. `EADDRINUSE`) as an
 * `InvalidArgumentError` naming host and port.
 *
 * A `host` that is not loopback (see {@link isLoopbackHost}: `0.0.0.0`, a LAN address, a public
 * name) is refused with an `InvalidArgumentError` unless the server requires a token (for an app
 * passed in: unless `createGragServer` made it with a `token`; an app of your own is yours to
 * guard). The app learns where it listens, for its `Host` allow-list (see `allowedHosts`).
 *
 * @example
 * ```ts
 * const server = await serve({ indexes: [{ method: bm25Rag, index }], port: 0 });
 * console.log(server.url); // http://127.0.0.1:40123
 * await server.close();
 * ```
 */
export function serve(options: ServeOptions): Promise<RunningServer>;
export function serve(app: Hono, listen?: ListenOptions): Promise<RunningServer>;
export async function serve(first: ServeOptions | Hono, listen: ListenOptions = {}): Promise<RunningServer> {
  const made = typeof (first as Hono).fetch === 'function';
  const {
    host = SERVE_DEFAULTS.host,
    port = SERVE_DEFAULTS.port,
    ...rest
  } = made ? { ...listen } : (first as ServeOptions);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new InvalidArgumentError('port', `serve: port must be an integer from 0 to 65535, got ${port}.`);
  }
  const count = made ? 1 : processCount((first as ServeOptions).processes);
  const { processes: _processes, ...serverOptions } = rest as ServeOptions;
  const app = made || count > 1 ? (first as Hono) : createGragServer(serverOptions);
  const loopback = await isLoopbackHost(host);
  const unguarded =
    count > 1
      ? serverOptions.token === undefined && !serverOptions.tokens?.length
      : madeHere(app)?.token === false;
  if (!loopback && unguarded) {
    throw new InvalidArgumentError(
      'token',
      `serve: host "${host}" is not a loopback address, so anyone who can reach it could read and query these indexes; give the server a token (or bind 127.0.0.1).`,
    );
  }
  const binding: Binding = { host, port, loopback };
  if (count > 1)
    return serveProcesses({ ...serverOptions, processes: (first as ServeOptions).processes }, binding, count);
  return new Promise((resolve, reject) => {
    const server = serveNode(
      {
        // The app hears where it listens with every request (its Host allow-list needs the port).
        fetch: (request, env) => app.fetch(request, { ...(env as object), [BINDING]: binding }),
        port,
        hostname: host,
        // Leave the global Request and Response alone: the server may share its process with an app.
        overrideGlobalObjects: false,
      },
      (info: AddressInfo) => {
        server.off('error', onListenError);
        binding.port = info.port;
        const shown =
          info.family === 'IPv6' || info.address.includes(':') ? `[${info.address}]` : info.address;
        const url = `http://${shown}:${info.port}`;
        let closing: Promise<void> | undefined;
        resolve({
          url,
          close() {
            closing ??= new Promise<void>((done, fail) => {
              server.close((error) => (error ? fail(error) : done()));
              // Idle keep-alive connections would hold close() open; streams in flight end too.
              (server as import('node:http').Server).closeAllConnections?.();
            }).then(() => closeWorkers(app));
            return closing;
          },
        });
      },
    );
    const onListenError = (error: NodeJS.ErrnoException) => {
      reject(portError(host, port, error));
    };
    server.once('error', onListenError);
  });
}
