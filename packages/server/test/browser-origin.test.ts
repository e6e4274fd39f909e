/**
 * The server's defences against web pages, over real HTTP: the `Host` allow-list (DNS rebinding),
 * JSON bodies only (the body types a page may send cross-site without a preflight are refused),
 * bodiless and chunked bodies, the `Origin` check, CORS only for configured origins, and no
 * non-loopback bind without a token. Every refusal is one line in the usual error shape, and a
 * refused query never reaches the method.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { InvalidArgumentError } from '@grag/core';
import { refusalOf } from '@grag/core/test/vitest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGragServer, isLoopbackHost, type RunningServer, serve } from '../src/index.js';
import { countingIndex, INDEX_NAME, PRIVATE } from './counting.js';
import { type RawResponse, rawExchange, rawRequest } from './http.js';

let explorerDir: string;
let server: RunningServer;
let port: number;
let base: string;
const counting = countingIndex();

beforeAll(async () => {
  explorerDir = await mkdtemp(join(tmpdir(), 'grag-server-origin-'));
  await mkdir(join(explorerDir, 'assets'));
  await writeFile(join(explorerDir, 'index.html'), '<!doctype html><title>explorer</title>');
  await writeFile(join(explorerDir, 'assets', 'explorer.js'), 'console.log("explorer");');
  server = await serve({ indexes: [counting.input], explorerDir, port: 0 });
  base = server.url;
  port = Number(new URL(base).port);
});

afterAll(async () => {
  await server?.close();
  await rm(explorerDir, { recursive: true, force: true });
});

const JSON_TYPE = { 'content-type': 'application/json' };
const QUESTION = JSON.stringify({ question: 'What is in the diary?' });

/** `res` is the error `status` `code` in one line of JSON, and carries no private data. */
function expectRefusal(res: RawResponse, status: number, code: string, what = ''): void {
  expect(res.status, `${what} ${res.body}`).toBe(status);
  expect(res.body, what).not.toContain(PRIVATE);
  expect(res.body, what).not.toContain(INDEX_NAME);
  expect(res.body.trim().split('\n'), what).toHaveLength(1);
  const body = JSON.parse(res.body) as { error: { code: string; message: string } };
  expect(Object.keys(body), what).toEqual(['error']);
  expect(body.error.code, what).toBe(code);
  expect(body.error.message, what).not.toContain('\n');
  expect(res.headers['content-type'], what).toMatch(/^application\/json/);
}

function corsHeaders(res: RawResponse): string[] {
  return Object.keys(res.headers).filter((h) => h.startsWith('access-control-'));
}

/** Every route: the API's, the explorer's files, and a POST query. */
function everyRoute(headers: Record<string, string>): [string, () => Promise<RawResponse>][] {
  return [
    ['GET /v1/indexes', () => rawRequest(base, '/v1/indexes', { headers })],
    ['GET /v1/documents/diary', () => rawRequest(base, '/v1/documents/diary', { headers })],
    ['GET /', () => rawRequest(base, '/', { headers })],
    ['GET /assets/explorer.js', () => rawRequest(base, '/assets/explorer.js', { headers })],
    ['GET /healthz', () => rawRequest(base, '/healthz', { headers })],
    [
      'POST /v1/query',
      () =>
        rawRequest(base, '/v1/query', {
          method: 'POST',
          body: QUESTION,
          headers: { ...JSON_TYPE, ...headers },
        }),
    ],
  ];
}

describe('Host allow-list on a loopback server (DNS rebinding)', () => {
  it('answers 421 misdirected_request to a foreign Host on every route, and runs no query', async () => {
    const before = counting.counter.queries;
    for (const host of [
      `attacker.example:${port}`,
      'attacker.example',
      `127.0.0.1.attacker.example:${port}`,
      `localhost.:${port}`,
      `0.0.0.0:${port}`,
      `192.168.1.20:${port}`,
    ]) {
      for (const [route, send] of everyRoute({ host })) {
        const res = await send();
        expectRefusal(res, 421, 'misdirected_request', `${host} ${route}`);
        expect(JSON.parse(res.body).error.message).toContain('DNS rebinding');
        expect(corsHeaders(res)).toEqual([]);
      }
    }
    expect(counting.counter.queries).toBe(before);
  });

  it('answers localhost, 127.0.0.1 and [::1], each without a port or with its own', async () => {
    for (const host of [
      `127.0.0.1:${port}`,
      '127.0.0.1',
      `localhost:${port}`,
      'localhost',
      `LocalHost:${port}`,
      `[::1]:${port}`,
      '[::1]',
    ]) {
      for (const [route, send] of everyRoute({ host })) {
        const res = await send();
        expect(res.status, `${host} ${route}: ${res.body}`).toBe(200);
      }
    }
  });

  it('refuses an allowed name with another port', async () => {
    for (const host of [`localhost:${port + 1}`, '127.0.0.1:1', '[::1]:80']) {
      expectRefusal(await rawRequest(base, '/v1/indexes', { headers: { host } }), 421, 'misdirected_request');
    }
  });

  it('checks the host of an absolute request target too', async () => {
    const res = await rawRequest(base, `http://attacker.example:${port}/v1/indexes`, {
      headers: { host: `127.0.0.1:${port}` },
    });
    expectRefusal(res, 421, 'misdirected_request');
  });

  it('answers the host it is bound to (127.0.0.2 here)', async () => {
    let other: RunningServer;
    try {
      other = await serve({
        indexes: [countingIndex().input],
        explorerDir: false,
        host: '127.0.0.2',
        port: 0,
      });
    } catch (error) {
      // Not every system routes all of 127.0.0.0/8 to loopback (Linux does).
      console.warn(`browser-origin: 127.0.0.2 not bindable here (${(error as Error).message})`);
      return;
    }
    try {
      const otherPort = new URL(other.url).port;
      for (const host of [`127.0.0.2:${otherPort}`, '127.0.0.2', `localhost:${otherPort}`]) {
        expect((await rawRequest(other.url, '/v1/indexes', { headers: { host } })).status, host).toBe(200);
      }
      const foreign = await rawRequest(other.url, '/v1/indexes', { headers: { host: 'attacker.example' } });
      expectRefusal(foreign, 421, 'misdirected_request');
    } finally {
      await other.close();
    }
  });

  it('answers the names of allowedHosts: without a port on any port, with one on that port only', async () => {
    const proxied = await serve({
      indexes: [countingIndex().input],
      explorerDir: false,
      port: 0,
      allowedHosts: ['grag.example.com', 'Proxy.Test:8443', '[fd00::1]'],
    });
    try {
      const allowed = [
        'grag.example.com',
        'grag.example.com:443',
        'GRAG.example.com:8080',
        'proxy.test:8443',
        '[fd00::1]:9',
        `127.0.0.1:${new URL(proxied.url).port}`,
      ];
      for (const host of allowed) {
        expect((await rawRequest(proxied.url, '/v1/indexes', { headers: { host } })).status, host).toBe(200);
      }
      for (const host of ['proxy.test', 'proxy.test:9000', 'sub.grag.example.com', 'attacker.example']) {
        const res = await rawRequest(proxied.url, '/v1/indexes', { headers: { host } });
        expectRefusal(res, 421, 'misdirected_request', host);
      }
    } finally {
      await proxied.close();
    }
  });

  it('restricts the Host of an app run without serve to the loopback names', async () => {
    const app = createGragServer({ indexes: [countingIndex().input], explorerDir: false });
    expect((await app.request('/v1/indexes')).status).toBe(200);
    expect((await app.request('http://127.0.0.1:9999/v1/indexes')).status).toBe(200);
    const foreign = await app.request('http://attacker.example:8787/v1/indexes');
    expect(foreign.status).toBe(421);
    expect(((await foreign.json()) as { error: { code: string } }).error.code).toBe('misdirected_request');
  });
});

describe('JSON bodies only', () => {
  it('answers 415 to text/plain, form types and no content type, and runs no query', async () => {
    const before = counting.counter.queries;
    for (const type of [
      'text/plain',
      'text/plain;charset=UTF-8',
      'application/x-www-form-urlencoded',
      'multipart/form-data; boundary=x',
      'application/json; charset=latin1',
      'application/jsonp',
      undefined,
    ]) {
      const res = await rawRequest(base, '/v1/query', {
        method: 'POST',
        body: QUESTION,
        headers: type === undefined ? {} : { 'content-type': type },
      });
      expectRefusal(res, 415, 'unsupported_media_type', String(type));
      expect(JSON.parse(res.body).error.message).toBe(
        `Send the body as JSON with Content-Type: application/json (got ${type === undefined ? 'none' : JSON.stringify(type)}).`,
      );
    }
    expect(counting.counter.queries).toBe(before);
  });

  it('takes application/json with or without charset=utf-8, in any case', async () => {
    for (const type of [
      'application/json',
      'application/json; charset=utf-8',
      'Application/JSON;Charset="UTF-8"',
    ]) {
      const res = await rawRequest(base, '/v1/query', {
        method: 'POST',
        body: QUESTION,
        headers: { 'content-type': type },
      });
      expect(res.status, type).toBe(200);
      expect(JSON.parse(res.body).retrieval.items[0].id).toBe('diary');
    }
  });

  it('answers 400 in one line to a POST without a body, however it is framed', async () => {
    const head = [`POST /v1/query HTTP/1.1`, `Host: 127.0.0.1:${port}`, 'Content-Type: application/json'];
    const cases: [string, () => Promise<RawResponse>][] = [
      // curl -X POST -H 'content-type: application/json': neither Content-Length nor a body.
      ['no Content-Length', () => rawExchange(base, head)],
      ['Content-Length: 0', () => rawExchange(base, [...head, 'Content-Length: 0'])],
      ['empty chunked body', () => rawExchange(base, [...head, 'Transfer-Encoding: chunked'], '0\r\n\r\n')],
    ];
    for (const [name, send] of cases) {
      const res = await send();
      expectRefusal(res, 400, 'bad_request', name);
      expect(JSON.parse(res.body).error.message, name).toBe(
        'The request has no body; send {"question": "<your question>"} as JSON.',
      );
    }
    // Without a content type it is the content type that is wrong.
    const bare = await rawExchange(base, [`POST /v1/query HTTP/1.1`, `Host: 127.0.0.1:${port}`]);
    expectRefusal(bare, 415, 'unsupported_media_type');
  });

  it('reads a chunked JSON body under the limit', async () => {
    const res = await rawRequest(base, '/v1/query', {
      method: 'POST',
      body: QUESTION,
      chunked: true,
      headers: JSON_TYPE,
    });
    expect(res.status, res.body).toBe(200);
    expect(JSON.parse(res.body).retrieval.items[0].text).toContain('What is in the diary?');
  });

  it('answers 400 to a body that is not UTF-8', async () => {
    const latin1 = Buffer.from('{"question": "caf\xe9"}', 'latin1');
    const res = await rawExchange(
      base,
      [
        'POST /v1/query HTTP/1.1',
        `Host: 127.0.0.1:${port}`,
        'Content-Type: application/json',
        `Content-Length: ${latin1.length}`,
      ],
      latin1,
    );
    expectRefusal(res, 400, 'bad_request');
    expect(JSON.parse(res.body).error.message).toBe(
      'The body is not valid UTF-8; send {"question": "<your question>"} as JSON.',
    );
  });
});

describe('Origin check', () => {
  it('answers 403 forbidden_origin to another origin on every route, GET and POST, and runs no query', async () => {
    const before = counting.counter.queries;
    for (const origin of [
      `http://127.0.0.1:${port + 1}`,
      'http://attacker.example',
      `http://attacker.example:${port}`,
      `https://localhost:${port + 1}`,
      'null',
      'file://',
    ]) {
      for (const [route, send] of everyRoute({ origin })) {
        const res = await send();
        expectRefusal(res, 403, 'forbidden_origin', `${origin} ${route}`);
        expect(corsHeaders(res)).toEqual([]);
      }
    }
    expect(counting.counter.queries).toBe(before);
  });

  it("takes the server's own origin: the scheme and the Host the request was sent to", async () => {
    const before = counting.counter.queries;
    for (const [host, origin] of [
      [`127.0.0.1:${port}`, `http://127.0.0.1:${port}`],
      [`localhost:${port}`, `http://localhost:${port}`],
      [`[::1]:${port}`, `http://[::1]:${port}`],
    ] as const) {
      for (const [route, send] of everyRoute({ host, origin })) {
        const res = await send();
        expect(res.status, `${origin} ${route}: ${res.body}`).toBe(200);
        expect(corsHeaders(res)).toEqual([]);
      }
    }
    expect(counting.counter.queries).toBe(before + 3);
  });

  it('refuses what a page of another origin loads without an Origin (Sec-Fetch-Site), but not a link the user follows', async () => {
    for (const site of ['cross-site', 'same-site']) {
      // An <img>, a <script> or fetch(..., {mode: 'no-cors'}): no Origin header, but Fetch Metadata.
      for (const [route, send] of everyRoute({ 'sec-fetch-site': site, 'sec-fetch-mode': 'no-cors' })) {
        const res = await send();
        expectRefusal(res, 403, 'forbidden_origin', `${site} ${route}`);
        expect(JSON.parse(res.body).error.message).toContain(`Sec-Fetch-Site: ${site}`);
      }
      const frame = await rawRequest(base, '/', {
        headers: { 'sec-fetch-site': site, 'sec-fetch-mode': 'navigate', 'sec-fetch-dest': 'iframe' },
      });
      expectRefusal(frame, 403, 'forbidden_origin', `${site} iframe`);
      const link = await rawRequest(base, '/', {
        headers: { 'sec-fetch-site': site, 'sec-fetch-mode': 'navigate', 'sec-fetch-dest': 'document' },
      });
      expect(link.status, `${site} link`).toBe(200);
    }
    for (const site of ['same-origin', 'none']) {
      for (const [route, send] of everyRoute({ 'sec-fetch-site': site })) {
        expect((await send()).status, `${site} ${route}`).toBe(200);
      }
    }
  });

  it('sends no Access-Control-* header by default, not even to a preflight', async () => {
    const preflight = await rawRequest(base, '/v1/query', {
      method: 'OPTIONS',
      headers: {
        origin: 'http://attacker.example',
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'content-type',
      },
    });
    expectRefusal(preflight, 403, 'forbidden_origin');
    expect(corsHeaders(preflight)).toEqual([]);
    const own = await rawRequest(base, '/v1/query', {
      method: 'OPTIONS',
      headers: { origin: base, 'access-control-request-method': 'POST' },
    });
    expect(own.status).toBe(404);
    expect(corsHeaders(own)).toEqual([]);
    for (const [route, send] of everyRoute({})) expect(corsHeaders(await send()), route).toEqual([]);
  });
});

describe('cors', () => {
  const APP = 'http://app.test:3000';
  let cors: RunningServer;
  const corsCounter = countingIndex();

  beforeAll(async () => {
    cors = await serve({
      indexes: [corsCounter.input],
      explorerDir: false,
      port: 0,
      cors: [APP, 'https://b.test/'],
    });
  });
  afterAll(async () => {
    await cors?.close();
  });

  it('answers a preflight from a configured origin with exactly that origin', async () => {
    const res = await rawRequest(cors.url, '/v1/query', {
      method: 'OPTIONS',
      headers: {
        origin: APP,
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'content-type, authorization',
      },
    });
    expect(res.status).toBe(204);
    expect(res.headers['access-control-allow-origin']).toBe(APP);
    expect(res.headers['access-control-allow-methods']).toBe('GET, POST, DELETE');
    expect(res.headers['access-control-allow-headers']).toBe('authorization, content-type, accept');
    expect(res.headers['access-control-allow-credentials']).toBeUndefined();
    expect(res.headers.vary).toContain('Origin');
    expect(corsCounter.counter.queries).toBe(0);
  });

  it('lets a configured origin read the API, with Access-Control-Allow-Origin set to it', async () => {
    const list = await rawRequest(cors.url, '/v1/indexes', { headers: { origin: APP } });
    expect(list.status).toBe(200);
    expect(list.headers['access-control-allow-origin']).toBe(APP);
    expect(list.headers.vary).toContain('Origin');
    const query = await rawRequest(cors.url, '/v1/query', {
      method: 'POST',
      body: QUESTION,
      headers: { ...JSON_TYPE, origin: 'https://b.test' },
    });
    expect(query.status).toBe(200);
    expect(query.headers['access-control-allow-origin']).toBe('https://b.test');
    // Its errors are readable to it too (it sent the request; the error names no data).
    const bad = await rawRequest(cors.url, '/v1/query', {
      method: 'POST',
      body: QUESTION,
      headers: { 'content-type': 'text/plain', origin: APP },
    });
    expectRefusal(bad, 415, 'unsupported_media_type');
  });

  it('refuses every other origin, preflight included, without CORS headers', async () => {
    for (const origin of [
      'http://app.test:3001',
      'https://app.test:3000',
      'http://app.test',
      'http://evil.test',
    ]) {
      const preflight = await rawRequest(cors.url, '/v1/query', {
        method: 'OPTIONS',
        headers: { origin, 'access-control-request-method': 'POST' },
      });
      expectRefusal(preflight, 403, 'forbidden_origin', origin);
      expect(corsHeaders(preflight)).toEqual([]);
      const get = await rawRequest(cors.url, '/v1/indexes', { headers: { origin } });
      expectRefusal(get, 403, 'forbidden_origin', origin);
      expect(corsHeaders(get)).toEqual([]);
    }
    const own = await rawRequest(cors.url, '/v1/indexes', { headers: { origin: cors.url } });
    expect(own.status).toBe(200);
    expect(corsHeaders(own)).toEqual([]);
    expect(corsCounter.counter.queries).toBe(1);
  });
});

describe('option checks', () => {
  const refusal = (f: () => unknown) => refusalOf(f, InvalidArgumentError).message;

  it('refuses a CORS entry that is not an exact http(s) origin, in one line', () => {
    for (const entry of ['*', 'app.test', 'https://app.test/path', 'ftp://app.test', 'null', 42]) {
      const message = refusal(() =>
        createGragServer({ indexes: [countingIndex().input], cors: [entry as string] }),
      );
      expect(message).toBe(
        `Bad CORS origin ${JSON.stringify(entry)}: give an exact origin, scheme://host[:port] without a path, e.g. https://app.example.com.`,
      );
    }
  });

  it('refuses an allowed host that is not a host name with an optional port, in one line', () => {
    for (const entry of ['http://grag.test', 'grag.test/x', 'a b', 'grag.test:99999', '[zz::1]', '']) {
      const message = refusal(() =>
        createGragServer({ indexes: [countingIndex().input], allowedHosts: [entry] }),
      );
      expect(message).toBe(
        `Bad allowed host ${JSON.stringify(entry)}: give a host name or address with an optional :port, e.g. grag.example.com or grag.example.com:8443.`,
      );
    }
  });
});

describe('no server on a non-loopback address without a token', () => {
  it('tells loopback hosts from the others', async () => {
    const cases: [string, boolean][] = [
      ['127.0.0.1', true],
      ['127.0.0.2', true],
      ['::1', true],
      ['[::1]', true],
      ['::ffff:127.0.0.1', true],
      ['localhost', true],
      ['LOCALHOST', true],
      ['0.0.0.0', false],
      ['::', false],
      ['', false],
      ['10.1.2.3', false],
      ['192.168.0.10', false],
      ['fd00::1', false],
    ];
    for (const [host, loopback] of cases) expect(await isLoopbackHost(host), host).toBe(loopback);
    await expect(isLoopbackHost('no-such-host.invalid')).rejects.toThrow(
      /^Cannot resolve host "no-such-host\.invalid"/,
    );
  });

  it('refuses serve(options) and serve(app) on 0.0.0.0 and :: without a token, in one line', async () => {
    for (const host of ['0.0.0.0', '::']) {
      const attempts = [
        () => serve({ indexes: [countingIndex().input], explorerDir: false, host, port: 0 }),
        () =>
          serve(createGragServer({ indexes: [countingIndex().input], explorerDir: false }), {
            host,
            port: 0,
          }),
      ];
      for (const attempt of attempts) {
        const error = await attempt().then(
          (s) => s.close().then(() => undefined),
          (e: unknown) => e,
        );
        expect(InvalidArgumentError.isInstance(error), host).toBe(true);
        expect((error as InvalidArgumentError).argument).toBe('token');
        expect((error as Error).message).toBe(
          `serve: host "${host}" is not a loopback address, so anyone who can reach it could read and query these indexes; give the server a token (or bind 127.0.0.1).`,
        );
      }
    }
  });

  it('serves 0.0.0.0 with a token, answering any Host unless allowedHosts is given', async () => {
    const token = 'tok-5e2d';
    const onAllInterfaces = (allowedHosts?: string[]) =>
      serve({
        indexes: [countingIndex().input],
        explorerDir: false,
        host: '0.0.0.0',
        port: 0,
        token,
        ...(allowedHosts ? { allowedHosts } : {}),
      });
    const open = await onAllInterfaces();
    const listed = await onAllInterfaces(['grag.lan']);
    try {
      const auth = { authorization: `Bearer ${token}` };
      const at = (s: RunningServer) => `http://127.0.0.1:${new URL(s.url).port}`;
      expect((await rawRequest(at(open), '/v1/indexes', { headers: { host: 'grag.lan:1234' } })).status).toBe(
        401,
      );
      for (const host of ['grag.lan:1234', 'anything.example']) {
        const res = await rawRequest(at(open), '/v1/indexes', { headers: { ...auth, host } });
        expect(res.status, host).toBe(200);
      }
      expect(
        (await rawRequest(at(listed), '/v1/indexes', { headers: { ...auth, host: 'grag.lan' } })).status,
      ).toBe(200);
      const foreign = await rawRequest(at(listed), '/v1/indexes', {
        headers: { ...auth, host: 'anything.example' },
      });
      expectRefusal(foreign, 421, 'misdirected_request');
      // The Origin check holds there too: a page of another origin is refused, token or not.
      const page = await rawRequest(at(open), '/v1/indexes', {
        headers: { ...auth, host: 'grag.lan', origin: 'http://attacker.example' },
      });
      expectRefusal(page, 403, 'forbidden_origin');
    } finally {
      await open.close();
      await listed.close();
    }
  });
});
