/**
 * Clients that go away in the middle of their request body (a dropped connection, a slow client
 * given up on) are not failures of the server: 50 of them produce at most one log line, through
 * `onError` or the default stderr logger, and the server keeps answering.
 */
import { connect } from 'node:net';
import { bm25Rag } from '@grag/naive-rag';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { type RunningServer, serve } from '../src/index.js';
import { buildIndexes, postQuery } from './helpers.js';

/** Send the headers and part of a POST body to `url`, then drop the connection. */
function abortedUpload(url: string, path = '/v1/query'): Promise<void> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = connect(Number(port), hostname, () => {
      socket.write(
        `POST ${path} HTTP/1.1\r\nHost: ${hostname}:${port}\r\nContent-Type: application/json\r\nContent-Length: 5000\r\n\r\n{"question": "who fou`,
      );
      setTimeout(() => {
        socket.destroy();
        resolve();
      }, 20);
    });
    socket.on('error', () => resolve());
  });
}

/** Drop 50 uploads, 10 at a time, and give the server time to see every one go. */
async function fiftyAborted(url: string): Promise<void> {
  for (let round = 0; round < 5; round++) {
    await Promise.all(Array.from({ length: 10 }, () => abortedUpload(url)));
  }
  await new Promise((resolve) => setTimeout(resolve, 300));
}

describe('aborted uploads', () => {
  let server: RunningServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
    vi.restoreAllMocks();
  });

  it('50 clients that disconnect mid-body give at most one onError call, and the server still answers', async () => {
    const { bm25 } = await buildIndexes();
    const logged: string[] = [];
    server = await serve({
      indexes: [{ method: bm25Rag, index: bm25 }],
      onError: (error, where) => logged.push(`${where}: ${(error as Error)?.message ?? String(error)}`),
      port: 0,
    });
    await fiftyAborted(server.url);
    expect(logged.length, logged.join('\n')).toBeLessThanOrEqual(1);
    const answered = await postQuery(server.url, { question: 'Who founded the Kessler Shipyard?' });
    expect(answered.status).toBe(200);
  });

  it('50 clients that disconnect mid-body write at most one line on stderr with the default logger', async () => {
    const { bm25 } = await buildIndexes();
    const lines: string[] = [];
    const write = process.stderr.write.bind(process.stderr);
    vi.spyOn(process.stderr, 'write').mockImplementation(((
      chunk: string | Uint8Array,
      ...rest: unknown[]
    ) => {
      const text = String(chunk);
      if (text.startsWith('grag serve:')) {
        lines.push(...text.split('\n').filter(Boolean));
        return true;
      }
      return (write as (...args: unknown[]) => boolean)(chunk, ...rest);
    }) as typeof process.stderr.write);
    server = await serve({ indexes: [{ method: bm25Rag, index: bm25 }], port: 0 });
    await fiftyAborted(server.url);
    expect(lines.length, lines.join('\n')).toBeLessThanOrEqual(1);
  });
});
