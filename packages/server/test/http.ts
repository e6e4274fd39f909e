/**
 * Raw HTTP clients for the server tests: requests sent exactly as written (paths with `../`, any
 * `Host`, absolute request targets, no `Content-Length`), which `fetch` would not send.
 */
import { request as httpRequest } from 'node:http';
import { connect } from 'node:net';

/** What a raw request got back. */
export interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/**
 * An HTTP request with `path` sent exactly as written (fetch would resolve `../`), optionally
 * chunked (no Content-Length).
 */
export function rawRequest(
  base: string,
  path: string,
  options: { method?: string; body?: string; headers?: Record<string, string>; chunked?: boolean } = {},
): Promise<RawResponse> {
  const url = new URL(base);
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: url.hostname,
        port: url.port,
        method: options.method ?? 'GET',
        path,
        headers: {
          ...(options.body !== undefined && !options.chunked
            ? { 'content-length': String(Buffer.byteLength(options.body)) }
            : {}),
          ...options.headers,
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            body: Buffer.concat(chunks).toString('utf8'),
          }),
        );
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    if (options.body !== undefined && options.chunked) {
      // Several chunks, so the server cannot know the size up front.
      const step = Math.ceil(options.body.length / 4);
      for (let i = 0; i < options.body.length; i += step) req.write(options.body.slice(i, i + step));
    } else if (options.body !== undefined) req.write(options.body);
    req.end();
  });
}

/**
 * Send `head` (the request line and headers, `\r\n`-separated, without the blank line) and then
 * `body` as they are over a new connection to `base`, and read the response: for requests no
 * client library sends, e.g. a POST with neither `Content-Length` nor a body (`curl -X POST`).
 */
export function rawExchange(base: string, head: string[], body: string | Buffer = ''): Promise<RawResponse> {
  const url = new URL(base);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(url.port), url.hostname.replace(/^\[(.*)\]$/, '$1'));
    const chunks: Buffer[] = [];
    socket.on('data', (c: Buffer) => chunks.push(c));
    socket.on('error', reject);
    socket.on('end', () => {
      const all = Buffer.concat(chunks);
      const split = all.indexOf('\r\n\r\n');
      const lines = all.subarray(0, split).toString('latin1').split('\r\n');
      const headers: Record<string, string> = {};
      for (const line of lines.slice(1)) {
        const colon = line.indexOf(':');
        headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
      }
      let rest = all.subarray(split + 4);
      if (/chunked/i.test(headers['transfer-encoding'] ?? '')) {
        const parts: Buffer[] = [];
        for (;;) {
          const eol = rest.indexOf('\r\n');
          const size = Number.parseInt(rest.subarray(0, eol).toString('latin1'), 16);
          if (!size) break;
          parts.push(rest.subarray(eol + 2, eol + 2 + size));
          rest = rest.subarray(eol + 2 + size + 2);
        }
        rest = Buffer.concat(parts);
      }
      resolve({ status: Number(lines[0]?.split(' ')[1]), headers, body: rest.toString('utf8') });
    });
    socket.write(`${[...head, 'Connection: close'].join('\r\n')}\r\n\r\n`);
    socket.write(body);
  });
}
