/**
 * Web pages against a local `grag serve`, in headless Chromium: a page of another origin (another
 * port of 127.0.0.1, served by a plain Node server) and a DNS-rebinding page (an origin whose name
 * resolves to 127.0.0.1 and the server's port, so its requests are "same-origin" and carry that
 * name as their Host) try every way a page has to read the indexes or to run a query: fetch in
 * cors and no-cors mode, text/plain and bodiless POSTs (no preflight), a JSON POST (preflight), a
 * text/plain form posted into a frame, and loading the page itself. The test checks what the page
 * could read and, on the server, what reached it and that no query ran. A page of the server's own
 * origin, and one of a configured `cors` origin, read everything: the attempts would see data if
 * the server gave any.
 *
 * Chromium's own guard for requests from public pages to private addresses (Local/Private Network
 * Access) is turned off, as it is in other browsers and in older Chromiums, so the server's
 * defences are what is tested.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Hono } from 'hono';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGragServer, type RunningServer, serve } from '../src/index.js';
import { chromiumFor, launchChromium, requireChromium } from './chromium.js';
import { countingIndex, INDEX_NAME, PRIVATE } from './counting.js';

const state = chromiumFor('browser-origin.e2e');

/** The rebinding name: Chromium resolves it to 127.0.0.1 (`--host-resolver-rules`). */
const REBIND = 'attacker.test';

/**
 * The attacks, run in a page: `attack(base)` tries each way to read from or post to the server at
 * `base` ('' for the page's own origin) and returns what the page could see of each.
 */
const ATTACKS = `
window.attack = async (base) => {
  const out = [];
  const question = JSON.stringify({ question: 'What is in the diary?' });
  async function read(name, url, init) {
    try {
      const res = await fetch(url, init);
      let text;
      try { text = await res.text(); } catch (e) { text = 'unreadable: ' + e; }
      out.push({ name, ok: res.ok, status: res.status, type: res.type, text });
    } catch (e) {
      out.push({ name, rejected: String(e) });
    }
  }
  await read('GET /v1/indexes', base + '/v1/indexes');
  await read('GET /v1/documents/diary', base + '/v1/documents/diary');
  await read('POST text/plain', base + '/v1/query', { method: 'POST', headers: { 'content-type': 'text/plain' }, body: question });
  await read('POST without a type', base + '/v1/query', { method: 'POST', body: new Blob([question]) });
  await read('POST form-urlencoded', base + '/v1/query', { method: 'POST', body: new URLSearchParams({ question: 'x' }) });
  await read('POST application/json', base + '/v1/query', { method: 'POST', headers: { 'content-type': 'application/json' }, body: question });
  await read('GET /v1/indexes no-cors', base + '/v1/indexes', { mode: 'no-cors' });
  await read('POST text/plain no-cors', base + '/v1/query', { method: 'POST', mode: 'no-cors', headers: { 'content-type': 'text/plain' }, body: question });
  // A text/plain form: its body is "<name>=<value>", here {"question": "x", "pad": "="}.
  const frame = document.createElement('iframe');
  frame.name = 'sink';
  document.body.append(frame);
  const loaded = new Promise((resolve) => {
    frame.addEventListener('load', () => resolve('loaded'), { once: true });
    setTimeout(() => resolve('no load event'), 5000);
  });
  const form = document.createElement('form');
  form.method = 'post';
  form.enctype = 'text/plain';
  form.action = base + '/v1/query';
  form.target = 'sink';
  const field = document.createElement('input');
  field.name = '{"question": "What is in the diary?", "pad": "';
  field.value = '"}';
  form.append(field);
  document.body.append(form);
  form.submit();
  const how = await loaded;
  let text;
  try {
    text = frame.contentDocument ? frame.contentDocument.body.innerText : 'no access to the frame';
  } catch (e) {
    text = 'no access to the frame: ' + e;
  }
  out.push({ name: 'form POST text/plain', frame: how, text });
  return out;
};
`;

const PAGE = `<!doctype html><html><head><meta charset="utf-8"><title>a page</title></head><body><script>${ATTACKS}</script></body></html>`;

/** What the page saw of one attempt. */
interface Seen {
  name: string;
  ok?: boolean;
  status?: number;
  type?: string;
  text?: string;
  rejected?: string;
  frame?: string;
}

/** A request as it reached the server, and its answer. */
interface Logged {
  method: string;
  path: string;
  host: string;
  origin: string | null;
  status: number;
}

/** `app` behind a `fetch` that logs every request it answers (what reached the server, and how it was answered). */
function logging(app: Hono, log: Logged[]): Hono {
  return {
    fetch: async (request: Request, env: unknown) => {
      const response = await app.fetch(request, env as object);
      const url = new URL(request.url);
      log.push({
        method: request.method,
        path: url.pathname,
        host: request.headers.get('host') ?? url.host,
        origin: request.headers.get('origin'),
        status: response.status,
      });
      return response;
    },
  } as unknown as Hono;
}

/** Nothing the page could read holds the index's name or the private document. */
function expectNothingRead(seen: Seen[]): void {
  const text = JSON.stringify(seen);
  expect(text).not.toContain(PRIVATE);
  expect(text).not.toContain(INDEX_NAME);
  for (const s of seen) {
    if (s.rejected !== undefined || s.frame !== undefined) continue;
    // Opaque (no-cors) answers show status 0 and no body; any other answer is an error.
    expect(s.ok, `${s.name}: ${JSON.stringify(s)}`).toBe(false);
  }
}

describe.skipIf(state === 'skip')('browser pages of other origins against grag serve', () => {
  const target = countingIndex();
  const log: Logged[] = [];
  let server: RunningServer;
  let port: number;
  let attackerSite: Server;
  let attackerOrigin: string;
  let browser: Browser;
  let context: BrowserContext;

  beforeAll(async () => {
    requireChromium(state);
    const app = createGragServer({ indexes: [target.input], explorerDir: false });
    server = await serve(logging(app, log), { port: 0 });
    port = Number(new URL(server.url).port);
    attackerSite = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end(PAGE);
    });
    await new Promise<void>((resolve) => attackerSite.listen(0, '127.0.0.1', resolve));
    attackerOrigin = `http://127.0.0.1:${(attackerSite.address() as AddressInfo).port}`;
    browser = await launchChromium([
      `--host-resolver-rules=MAP ${REBIND} 127.0.0.1`,
      '--disable-features=LocalNetworkAccessChecks,PrivateNetworkAccessSendPreflights,PrivateNetworkAccessRespectPreflightResults,BlockInsecurePrivateNetworkRequests,HttpsUpgrades,HttpsFirstBalancedModeAutoEnable',
    ]);
    context = await browser.newContext();
  }, 30_000);

  afterAll(async () => {
    await browser?.close();
    await server?.close();
    await new Promise((resolve) => attackerSite?.close(resolve));
  });

  async function open(url: string, route?: string): Promise<Page> {
    const page = await context.newPage();
    if (route) {
      // The rebinding page as the attacker's server would send it, before the name rebinds.
      await page.route(route, (r) => r.fulfill({ status: 200, contentType: 'text/html', body: PAGE }));
    }
    await page.goto(url);
    return page;
  }

  it('a page of another origin (127.0.0.1, another port) reads nothing and runs no query', async () => {
    log.length = 0;
    const page = await open(`${attackerOrigin}/`);
    const seen = (await page.evaluate(`attack(${JSON.stringify(server.url)})`)) as Seen[];
    await page.close();
    expectNothingRead(seen);
    expect(seen.find((s) => s.name === 'GET /v1/indexes')?.rejected).toMatch(/Failed to fetch/);
    expect(seen.find((s) => s.name === 'POST application/json')?.rejected).toMatch(/Failed to fetch/);
    expect(seen.find((s) => s.name === 'form POST text/plain')?.text).toMatch(/^no access to the frame/);
    expect(target.counter.queries).toBe(0);
    // What reached the server came from the page's origin (a no-cors GET names none) and was
    // refused, each with 403.
    expect(log.length).toBeGreaterThanOrEqual(8);
    for (const entry of log) {
      expect([attackerOrigin, null], JSON.stringify(entry)).toContain(entry.origin);
      expect(entry.status, JSON.stringify(entry)).toBe(403);
    }
    const posts = log.filter((e) => e.method === 'POST' && e.path === '/v1/query');
    expect(posts.length).toBeGreaterThanOrEqual(4); // text/plain, no type, form-urlencoded, no-cors, form
    // The JSON POST is never sent: its preflight is refused.
    expect(log.filter((e) => e.method === 'OPTIONS')).toHaveLength(1);
  }, 30_000);

  it('a DNS-rebinding page (Host attacker.test:<port>) reads nothing and runs no query', async () => {
    log.length = 0;
    const rebound = `http://${REBIND}:${port}`;
    const page = await open(`${rebound}/`, `${rebound}/`);
    expect(await page.evaluate('location.origin')).toBe(rebound);
    const seen = (await page.evaluate(`attack('')`)) as Seen[];
    await page.close();
    expectNothingRead(seen);
    // Same-origin to the page, so it reads the answers: each a 421 that names no data.
    const list = seen.find((s) => s.name === 'GET /v1/indexes')!;
    expect(list.status).toBe(421);
    expect(JSON.parse(list.text!).error.code).toBe('misdirected_request');
    expect(seen.find((s) => s.name === 'POST application/json')?.status).toBe(421);
    const form = seen.find((s) => s.name === 'form POST text/plain')!;
    expect(form.text).toContain('misdirected_request');
    expect(target.counter.queries).toBe(0);
    expect(log.length).toBeGreaterThanOrEqual(9);
    for (const entry of log) {
      expect(entry.host, JSON.stringify(entry)).toBe(`${REBIND}:${port}`);
      expect(entry.status, JSON.stringify(entry)).toBe(421);
    }
    // The page itself, when the name has rebound before it loads: a 421, no explorer.
    log.length = 0;
    const direct = await context.newPage();
    const response = await direct.goto(`${rebound}/v1/indexes`);
    expect(response?.status()).toBe(421);
    const shown = (await direct.textContent('body')) ?? '';
    expect(shown).toContain('misdirected_request');
    expect(shown).not.toContain(INDEX_NAME);
    await direct.close();
    // Chromium tries a request once more on a new connection after a 421; each try is refused.
    expect(log.length).toBeGreaterThan(0);
    expect(new Set(log.map((e) => e.status))).toEqual(new Set([421]));
  }, 30_000);

  it('a page of its own origin reads the indexes and queries them (localhost and 127.0.0.1)', async () => {
    // The same server without an explorer serves no page: the test puts one at its origin.
    for (const origin of [server.url, `http://localhost:${port}`]) {
      log.length = 0;
      const before = target.counter.queries;
      const page = await open(`${origin}/own-page`, `${origin}/own-page`);
      const seen = (await page.evaluate(`attack('')`)) as Seen[];
      await page.close();
      const byName = new Map(seen.map((s) => [s.name, s]));
      expect(byName.get('GET /v1/indexes')?.status).toBe(200);
      expect(byName.get('GET /v1/indexes')?.text).toContain(INDEX_NAME);
      expect(byName.get('GET /v1/documents/diary')?.text).toContain(PRIVATE);
      expect(byName.get('POST application/json')?.status).toBe(200);
      expect(byName.get('POST application/json')?.text).toContain(PRIVATE);
      // Its own page still cannot post text or forms: JSON only.
      expect(byName.get('POST text/plain')?.status).toBe(415);
      expect(byName.get('form POST text/plain')?.text).toContain('unsupported_media_type');
      expect(target.counter.queries).toBe(before + 1);
    }
  }, 30_000);

  it('a configured cors origin reads the API (preflight included); the others still do not', async () => {
    const other = countingIndex();
    const allowed = await serve(
      createGragServer({ indexes: [other.input], explorerDir: false, cors: [attackerOrigin] }),
      { port: 0 },
    );
    try {
      const page = await open(`${attackerOrigin}/`);
      const seen = (await page.evaluate(`attack(${JSON.stringify(allowed.url)})`)) as Seen[];
      await page.close();
      const byName = new Map(seen.map((s) => [s.name, s]));
      expect(byName.get('GET /v1/indexes')?.text).toContain(INDEX_NAME);
      expect(byName.get('POST application/json')?.status).toBe(200);
      expect(byName.get('POST application/json')?.text).toContain(PRIVATE);
      expect(byName.get('POST text/plain')?.status).toBe(415);
      expect(other.counter.queries).toBe(1);
      // A page at another port of the same host is not that origin.
      const stranger = await open(`http://localhost:${port}/stranger`, `http://localhost:${port}/stranger`);
      const refused = (await stranger.evaluate(`attack(${JSON.stringify(allowed.url)})`)) as Seen[];
      await stranger.close();
      expectNothingRead(refused);
      expect(other.counter.queries).toBe(1);
    } finally {
      await allowed.close();
    }
  }, 30_000);
});
