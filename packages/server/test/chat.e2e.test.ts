/**
 * The AI SDK UI's `useChat` (`@ai-sdk/react`) against `grag serve`, in headless Chromium: the
 * README's `Ask` component, bundled with React by esbuild into a page served from another port of
 * 127.0.0.1, talks to a server with a token and that page's origin in `cors`. A user types a
 * question of the demo corpus and submits it; the page must show the streamed answer and its cited
 * sources. Expectations come from outside the page: the corpus's answer, and `POST /v1/query` called
 * from Node.
 */
import { readFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import type { CitedSource } from '@grag/core/kit';
import { build } from 'esbuild';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningServer, serve } from '../src/index.js';
import {
  ANSWER,
  chromiumFor,
  demoIndexes,
  launchChromium,
  QUESTION,
  requireChromium,
} from './explorer-fixture.js';
import { scriptedIndex, streamingChat } from './helpers.js';

const state = chromiumFor('chat.e2e');

const PACKAGE_DIR = fileURLToPath(new URL('..', import.meta.url));
const TOKEN = 'chat-e2e-token';
/** A second question of the demo corpus, asked in the same chat, and its answer (02-kessler-shipyard.md). */
const FOLLOW_UP = 'When was the Kessler Shipyard founded?';
const FOLLOW_UP_ANSWER = '1881';

/** The one ```tsx block of the README: the `Ask` component. */
async function readmeComponent(): Promise<string> {
  const readme = await readFile(new URL('../README.md', import.meta.url), 'utf8');
  const blocks = [...readme.matchAll(/```tsx\n([\s\S]*?)```/g)].map((m) => m[1]!);
  expect(blocks).toHaveLength(1);
  expect(blocks[0]).toContain("from '@ai-sdk/react'");
  return blocks[0]!;
}

/**
 * The page's script: React rendering the README's `Ask` with the server, index and token of the
 * page's fragment, bundled for the browser (React, `@ai-sdk/react` and `ai` from this package's
 * development dependencies).
 */
async function bundlePage(component: string): Promise<string> {
  const entry = `
import { createRoot } from 'react-dom/client';
import { Ask } from 'readme:ask';
const params = new URLSearchParams(location.hash.slice(1));
createRoot(document.getElementById('root')).render(
  <Ask server={params.get('server')} index={params.get('index')} token={params.get('token') ?? undefined} />,
);
`;
  const result = await build({
    stdin: { contents: entry, loader: 'tsx', resolveDir: PACKAGE_DIR, sourcefile: 'page.tsx' },
    bundle: true,
    write: false,
    format: 'esm',
    platform: 'browser',
    target: ['es2022'],
    jsx: 'automatic',
    define: { 'process.env.NODE_ENV': '"production"' },
    logLevel: 'silent',
    plugins: [
      {
        name: 'readme-component',
        setup(b) {
          b.onResolve({ filter: /^readme:ask$/ }, () => ({ path: 'ask.tsx', namespace: 'readme' }));
          b.onLoad({ filter: /.*/, namespace: 'readme' }, () => ({
            contents: component,
            loader: 'tsx',
            resolveDir: PACKAGE_DIR,
          }));
        },
      },
    ],
  });
  return result.outputFiles[0]!.text;
}

/** A plain static server for the page: `/` and `/app.js`, nothing else. */
async function servePage(script: string): Promise<{ url: string; server: Server }> {
  const html =
    '<!doctype html><html><head><meta charset="utf-8"><title>Ask</title><link rel="icon" href="data:,"></head><body><div id="root"></div><script type="module" src="/app.js"></script></body></html>';
  const server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    if (path === '/') res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(html);
    else if (path === '/app.js') res.writeHead(200, { 'content-type': 'text/javascript' }).end(script);
    else res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

/** `POST /v1/query` with an answer, straight from Node: what the page must show. */
async function queryAnswer(
  base: string,
  question: string,
): Promise<{ text: string; citations: string[]; sources: CitedSource[] }> {
  const res = await fetch(new URL('/v1/query', base), {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${TOKEN}` },
    body: JSON.stringify({ question, method: 'e2graphrag', answer: true }),
  });
  expect(res.status).toBe(200);
  return ((await res.json()) as { answer: Awaited<ReturnType<typeof queryAnswer>> }).answer;
}

describe.skipIf(state === 'skip')('useChat (@ai-sdk/react) against grag serve in headless Chromium', () => {
  let grag: RunningServer | undefined;
  let page: { url: string; server: Server } | undefined;
  let browser: Browser | undefined;
  const slow = streamingChat(['Ilse Marren ', 'directs the ', 'institute [lindqvist].'], { delayMs: 400 });
  const problems: string[] = [];
  const streams: { url: string; status: number; type: string | null; protocol: string | null }[] = [];

  beforeAll(async () => {
    requireChromium(state);
    page = await servePage(await bundlePage(await readmeComponent()));
    grag = await serve({
      indexes: [...(await demoIndexes()), scriptedIndex(slow, 'streaming')],
      token: TOKEN,
      cors: [page.url],
      explorerDir: false,
      port: 0,
    });
    browser = await launchChromium();
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await grag?.close();
    await new Promise((resolve) => page?.server.close(resolve));
  });

  async function open(index: string): Promise<Page> {
    const tab = await browser!.newPage();
    tab.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
    tab.on('console', (m) => {
      if (m.type() === 'error') problems.push(`console: ${m.text()}`);
    });
    tab.on('requestfailed', (r) => problems.push(`${r.url()}: ${r.failure()?.errorText}`));
    tab.on('request', (r) => {
      if (!r.url().startsWith(page!.url) && !r.url().startsWith(grag!.url)) {
        problems.push(`request outside the two servers: ${r.url()}`);
      }
    });
    tab.on('response', (r) => {
      if (r.url().endsWith('/v1/chat') && r.request().method() === 'POST') {
        const headers = r.headers();
        streams.push({
          url: r.url(),
          status: r.status(),
          type: headers['content-type'] ?? null,
          protocol: headers['x-vercel-ai-ui-message-stream'] ?? null,
        });
      }
    });
    const fragment = new URLSearchParams({ server: grag!.url, index, token: TOKEN });
    await tab.goto(`${page!.url}/#${fragment}`);
    await tab.getByLabel('Question').waitFor();
    return tab;
  }

  async function submit(tab: Page, question: string): Promise<void> {
    await tab.getByLabel('Question').fill(question);
    await tab.getByRole('button', { name: 'Ask' }).click();
  }

  /** The assistant messages the page shows: each one's text and its sources. */
  function shown(tab: Page) {
    return tab.locator('article[data-role=assistant]').evaluateAll((articles) =>
      articles.map((article) => ({
        text: [...article.querySelectorAll('p')].map((p) => p.textContent).join(''),
        sources: [...article.querySelectorAll('cite')].map((cite) => ({
          id: cite.getAttribute('data-source'),
          text: cite.textContent,
        })),
      })),
    );
  }

  it('shows the answer to a typed question and its cited sources, as POST /v1/query gives them', async () => {
    const expected = await queryAnswer(grag!.url, QUESTION);
    expect(expected.text).toContain(ANSWER);
    expect(expected.sources.length).toBeGreaterThan(0);
    const tab = await open('e2graphrag');
    await submit(tab, QUESTION);
    await expect
      .poll(() => tab.locator('article[data-role=assistant] cite').count(), { timeout: 20_000 })
      .toBe(expected.sources.length);
    await expect.poll(() => tab.getByRole('button', { name: 'Ask' }).isEnabled()).toBe(false);

    const [user] = await tab.locator('article[data-role=user]').allTextContents();
    expect(user).toBe(QUESTION);
    const [answer] = await shown(tab);
    expect(answer!.text).toBe(expected.text);
    expect(answer!.text).toContain(ANSWER);
    expect(answer!.sources).toEqual(
      expected.sources.map((source) => ({ id: source.id, text: `[${source.id}] ${source.label}` })),
    );
    // The labels name the demo files and their sections (a loader's places), not bare ids.
    expect(answer!.sources[0]!.text).toMatch(/\.md § /);
    expect(await tab.getByRole('alert').count()).toBe(0);

    // The same chat: a second question is answered on its own, below the first answer.
    const second = await queryAnswer(grag!.url, FOLLOW_UP);
    expect(second.text).toContain(FOLLOW_UP_ANSWER);
    expect(second.sources.length).toBeGreaterThan(0);
    await submit(tab, FOLLOW_UP);
    await expect.poll(async () => (await shown(tab)).length, { timeout: 20_000 }).toBe(2);
    await expect
      .poll(async () => (await shown(tab))[1]!.sources.length, { timeout: 20_000 })
      .toBe(second.sources.length);
    const [first, next] = await shown(tab);
    expect(first).toEqual(answer);
    expect(next!.text).toBe(second.text);
    expect(next!.text).toContain(FOLLOW_UP_ANSWER);
    expect(next!.sources.map((s) => s.id)).toEqual(second.citations);

    expect(streams.slice(-2)).toEqual([
      { url: `${grag!.url}/v1/chat`, status: 200, type: 'text/event-stream', protocol: 'v1' },
      { url: `${grag!.url}/v1/chat`, status: 200, type: 'text/event-stream', protocol: 'v1' },
    ]);
    expect(problems).toEqual([]);
    await tab.close();
  });

  it("shows a streaming model's answer piece by piece, and its source once the text is complete", async () => {
    const tab = await open('streaming');
    // Every state the answer goes through on the page, as it changes (polling could miss one).
    await tab.evaluate(`
      window.states = [];
      new MutationObserver(() => {
        const answer = document.querySelector('article[data-role=assistant]');
        if (!answer) return;
        const state = [[...answer.querySelectorAll('p')].map((p) => p.textContent).join(''), answer.querySelectorAll('cite').length];
        const last = window.states.at(-1);
        if (!last || last[0] !== state[0] || last[1] !== state[1]) window.states.push(state);
      }).observe(document.body, { subtree: true, childList: true, characterData: true });
    `);
    await submit(tab, 'Who directs the institute on Orsa?');
    await expect
      .poll(() => tab.locator('article[data-role=assistant] cite').count(), { timeout: 10_000 })
      .toBe(1);
    // Each piece comes 400 ms after the one before: the page showed each as it came, and the source
    // once the text was complete (React may render the empty text part, and the last piece with the
    // source, or not: they arrive together).
    const final = 'Ilse Marren directs the institute [lindqvist].';
    const states = (await tab.evaluate('window.states')) as [string, number][];
    expect([...new Set(states.map(([text]) => text).filter((text) => text !== ''))]).toEqual([
      'Ilse Marren ',
      'Ilse Marren directs the ',
      final,
    ]);
    expect(states.filter(([text]) => text !== final).map(([, cites]) => cites)).toEqual(
      states.filter(([text]) => text !== final).map(() => 0),
    );
    expect(states.at(-1)).toEqual([final, 1]);
    expect(await shown(tab)).toEqual([
      {
        text: 'Ilse Marren directs the institute [lindqvist].',
        sources: [{ id: 'lindqvist', text: '[lindqvist] lindqvist' }],
      },
    ]);
    expect(slow.calls).toHaveLength(1);
    expect(problems).toEqual([]);
    await tab.close();
  });
});
