/**
 * What the test servers of this package share (fake-server.ts, fault-server.ts): an HTTP server
 * on 127.0.0.1 and a port the OS picks, its OpenAI-style base URL, request bodies read whole, the
 * endpoint a path names, and delayed work that `close()` cancels.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** The endpoints the test servers answer. */
export type Endpoint = 'chat' | 'embeddings';

/** The endpoint `path` names, by its ending; `undefined` for any other path. */
export function endpointOf(path: string): Endpoint | undefined {
  if (path.endsWith('/chat/completions')) return 'chat';
  if (path.endsWith('/embeddings')) return 'embeddings';
  return undefined;
}

/** A test server on 127.0.0.1; subclasses answer each request with its whole body read. */
export abstract class LocalServer {
  readonly #server: Server;
  readonly #timers = new Set<NodeJS.Timeout>();
  #port = 0;

  constructor() {
    this.#server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => this.handle(req, res, Buffer.concat(chunks).toString('utf8')));
    });
  }

  /** Answer `req`, whose body (UTF-8) is `text`. */
  protected abstract handle(req: IncomingMessage, res: ServerResponse, text: string): void;

  /** Base URL to give the provider (ends in `/v1`). */
  get baseURL(): string {
    return `http://127.0.0.1:${this.#port}/v1`;
  }

  /** Listen on 127.0.0.1 and a port the OS picks. */
  async listen(): Promise<this> {
    await new Promise<void>((resolve) => this.#server.listen(0, '127.0.0.1', resolve));
    this.#port = (this.#server.address() as AddressInfo).port;
    return this;
  }

  /** Cancel the pending delayed work, drop every connection and close the server. */
  async close(): Promise<void> {
    for (const timer of this.#timers) clearTimeout(timer);
    this.#timers.clear();
    this.#server.closeAllConnections();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }

  /** Run `fn` in `ms` milliseconds, unless the server is closed before. */
  protected later(ms: number, fn: () => void): void {
    const timer = setTimeout(() => {
      this.#timers.delete(timer);
      fn();
    }, ms);
    this.#timers.add(timer);
  }
}
