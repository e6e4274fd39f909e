/**
 * The explorer as an app, end to end in headless Chromium, on a server of an empty folder of
 * indexes (what `grag serve --dir <folder>` runs): create an index in the page, upload a file,
 * watch its job finish, ask a question, open the cited passage, delete the document and see it gone
 * from the answers — with no restart; then browse the graph of an entity-graph index. Every wait is
 * for a condition on the page, none for a time.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Method } from '@grag/core';
import { e2GraphRag } from '@grag/e2graphrag';
import { bm25Rag } from '@grag/naive-rag';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildExplorer } from '../scripts/build-explorer.mjs';
import { createGragServer, openIndexFolder, type RunningServer, serve } from '../src/index.js';
import { CHROMIUM, chromiumState, launchChromium } from './chromium.js';
import { offlineContext } from './helpers.js';

const state = chromiumState();
if (state === 'skip') console.warn(`explorer-app.e2e: skipped, ${CHROMIUM} is missing; in CI this fails.`);

/** The first text of the new index, pasted in the page. */
const FIRST = 'The Tollen Quay fish market opens at dawn on Saturdays and sells smoked eel from the delta.';
/** The file uploaded: an invented ferry and its captain. */
const FERRY = {
  name: 'gannet-rose.md',
  text: '# Gannet Rose\n\nThe ferry Gannet Rose carries passengers from Tollen Quay to the island of Brisk.\nIts captain is Odile Varrack, who has sailed the Brisk crossing since 2009.\n',
};
/** Where the screenshots go (outside the repository). */
const OUTPUT = process.env.GRAG_TEST_OUTPUT ?? join(tmpdir(), 'grag-explorer-e2e');
const QUESTION = 'Who is the captain of the ferry Gannet Rose?';
const CAPTAIN = 'Odile Varrack';

describe.skipIf(state === 'skip')('the explorer app in headless Chromium', () => {
  let dir: string;
  let explorerDir: string;
  let server: RunningServer | undefined;
  let browser: Browser | undefined;
  let page: Page;
  const problems: string[] = [];

  beforeAll(async () => {
    if (state === 'fail') throw new Error(`${CHROMIUM} is missing; CI must install it.`);
    dir = await mkdtemp(join(tmpdir(), 'grag-explorer-app-'));
    explorerDir = await mkdtemp(join(tmpdir(), 'grag-explorer-app-page-'));
    await buildExplorer(explorerDir);
    const folder = await openIndexFolder(dir, {
      methods: [bm25Rag, e2GraphRag as unknown as Method<unknown>],
      context: () => offlineContext(),
      createContext: () => offlineContext(),
    });
    server = await serve(
      createGragServer({ folder, explorerDir, onError: (e) => problems.push(String(e)) }),
      {
        port: 0,
      },
    );
    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
    page.on('pageerror', (e) => problems.push(e.message));
    page.on('request', (r) => {
      if (!r.url().startsWith(server!.url)) problems.push(`request outside the server: ${r.url()}`);
    });
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await server?.close();
    for (const d of [dir, explorerDir]) if (d) await rm(d, { recursive: true, force: true });
  });

  /** Wait until the job line says `what` ended, and check it ended `expected` (done by default). */
  async function jobDone(what: string, expected: 'done' | 'failed' = 'done'): Promise<string> {
    const line = page.getByTestId('job-status');
    await expect
      .poll(
        async () => {
          const [text, state] = [await line.textContent(), await line.getAttribute('data-state')];
          return !!text?.startsWith(what) && (state === 'done' || state === 'failed');
        },
        { timeout: 20_000 },
      )
      .toBe(true);
    const text = (await line.textContent()) ?? '';
    expect(await line.getAttribute('data-state'), text).toBe(expected);
    return text;
  }

  /** Start recording every state the job line shows (its text and the bytes an upload has sent). */
  async function watchJobLine(): Promise<void> {
    // Run in the page (a string: the tests are compiled without the DOM's types).
    await page.evaluate(`(() => {
      const line = document.querySelector('#job-status');
      const seen = (window.jobLine = []);
      new MutationObserver(() => seen.push({ ...line.dataset, text: line.textContent })).observe(line, {
        attributes: true, childList: true, characterData: true, subtree: true,
      });
    })()`);
  }

  /** The upload progress the job line showed since {@link watchJobLine}: `[sent, total, text]`. */
  async function uploadProgress(): Promise<[number, number, string][]> {
    const seen = (await page.evaluate('window.jobLine')) as {
      state?: string;
      sent?: string;
      total?: string;
      text: string;
    }[];
    return seen
      .filter((s) => s.state === 'sending' && s.sent !== undefined && s.total !== undefined)
      .map((s) => [Number(s.sent), Number(s.total), s.text]);
  }

  async function screenshot(name: string): Promise<void> {
    await mkdir(OUTPUT, { recursive: true });
    await writeFile(join(OUTPUT, name), await page.screenshot());
  }

  async function ask(): Promise<string> {
    await page.getByRole('tab', { name: 'Ask' }).click();
    await page.getByLabel('Question', { exact: true }).fill(QUESTION);
    await page.getByRole('button', { name: 'Ask', exact: true }).click();
    await page.waitForSelector('#results[data-state=done]');
    return (await page.getByTestId('answer').textContent()) ?? '';
  }

  it('creates an index, uploads a file, answers from it with a citation, and forgets it once deleted', async () => {
    await page.goto(server!.url);
    await page.waitForSelector('body[data-ready]');
    expect(await page.getByTestId('status').textContent()).toContain('no index yet');

    await page.getByRole('tab', { name: 'Documents' }).click();
    await page.getByLabel('Index name').fill('harbour-notes');
    await page.getByLabel('Method').selectOption('bm25');
    await page.getByLabel('First document text').fill(FIRST);
    await page.getByRole('button', { name: 'Create index' }).click();
    expect(await jobDone('Creating index harbour-notes (bm25)')).toContain('added note-1');
    await page.waitForSelector('[data-testid=index-row][data-name="harbour-notes"] input:checked');
    await page.waitForSelector('[data-testid=doc-row][data-doc-id="note-1"]');

    await page.locator('#files').setInputFiles({
      name: FERRY.name,
      mimeType: 'text/markdown',
      buffer: Buffer.from(FERRY.text),
    });
    await watchJobLine();
    await page.getByRole('button', { name: 'Upload', exact: true }).click();
    expect(await jobDone(`Uploading ${FERRY.name} to harbour-notes`)).toContain(`added ${FERRY.name}`);
    // The bytes sent were shown as they went, up to the whole multipart body (the file and its framing).
    const progress = await uploadProgress();
    const [sent, total, text] = progress.at(-1) ?? [0, 0, ''];
    expect(sent).toBe(total);
    expect(total).toBeGreaterThan(FERRY.text.length);
    expect(text).toMatch(new RegExp(`^Uploading ${FERRY.name} to harbour-notes: sending 100% \\(`));
    await page.waitForSelector(`[data-testid=doc-row][data-doc-id="${FERRY.name}"]`);
    expect(await page.getByTestId('docs-meta').textContent()).toContain('1–2 of 2');
    await screenshot('explorer-documents.png');

    // Asked in the page, answered from the uploaded file, and its citation opens the passage.
    expect(await ask()).toContain(CAPTAIN);
    const citation = page.getByTestId('citation').first();
    await citation.click();
    const dialog = page.getByTestId('passage');
    await expect.poll(() => dialog.getAttribute('data-doc-id')).toBe(FERRY.name);
    await expect.poll(() => page.getByTestId('passage-text').textContent()).toContain(CAPTAIN);
    expect((await page.getByTestId('passage-mark').allTextContents()).join(' ')).toContain(CAPTAIN);
    await page.getByRole('button', { name: 'Close passage' }).click();

    // Deleted in the page: gone from the list and from the answers, with no restart.
    await page.getByRole('tab', { name: 'Documents' }).click();
    page.once('dialog', (d) => void d.accept());
    await page.getByRole('button', { name: `Delete document ${FERRY.name}` }).click();
    expect(await jobDone(`Deleting ${FERRY.name} from harbour-notes`)).toContain(`removed ${FERRY.name}`);
    await page.waitForSelector(`[data-testid=doc-row][data-doc-id="${FERRY.name}"]`, { state: 'detached' });
    const after = await ask();
    expect(after).not.toContain(CAPTAIN);
    const cited = await page.getByTestId('citation').allTextContents();
    expect(cited.join(' ')).not.toContain(FERRY.name);
    expect(problems).toEqual([]);
  }, 30_000);

  it('shows a refused upload and a failed job on the job line, in one line each', async () => {
    await page.getByRole('tab', { name: 'Documents' }).click();
    await page.locator('#files').setInputFiles({
      name: 'tides.xyz',
      mimeType: 'application/octet-stream',
      buffer: Buffer.from('High tide at 06:12.'),
    });
    await page.getByRole('button', { name: 'Upload', exact: true }).click();
    const refused = await jobDone('Uploading tides.xyz to harbour-notes', 'failed');
    expect(refused).toMatch(/^Uploading tides\.xyz to harbour-notes failed: .*tides\.xyz/);
    expect(await page.getByTestId('job-status').getAttribute('role')).toBe('alert');
    // The method refuses to remove an index's last document: the job fails, the document stays.
    page.once('dialog', (d) => void d.accept());
    await page.getByRole('button', { name: 'Delete document note-1' }).click();
    const failed = await jobDone('Deleting note-1 from harbour-notes', 'failed');
    expect(failed).toMatch(/^Deleting note-1 from harbour-notes failed: bm25 update: /);
    expect(failed.split('\n')).toHaveLength(1);
    await page.waitForSelector('[data-testid=doc-row][data-doc-id="note-1"]');
  }, 30_000);

  it('browses the graph of an entity-graph index: search, open, expand', async () => {
    await page.getByRole('tab', { name: 'Documents' }).click();
    await page.getByLabel('Index name').fill('ferries');
    await page.getByLabel('Method').selectOption('e2graphrag');
    await page.getByLabel('First document text').fill(FERRY.text);
    await page.getByRole('button', { name: 'Create index' }).click();
    await jobDone('Creating index ferries (e2graphrag)');

    // The tabs follow the arrow keys too.
    await page.getByRole('tab', { name: 'Documents' }).press('ArrowRight');
    await expect
      .poll(() => page.getByRole('tab', { name: 'Graph' }).getAttribute('aria-selected'))
      .toBe('true');
    await page.locator('#graph-index').selectOption('ferries');
    await page.getByLabel('Entity').fill('gannet');
    await page.getByRole('button', { name: 'Search', exact: true }).click();
    await page.waitForSelector('#graph-matches[data-state=done][data-query=gannet]');
    const match = page.getByTestId('graph-match').first();
    expect((await match.textContent())?.toLowerCase()).toContain('gannet');
    await match.click();
    const graph = page.getByTestId('browse-graph');
    await expect.poll(async () => Number(await graph.getAttribute('data-node-count'))).toBeGreaterThan(1);
    const before = Number(await graph.getAttribute('data-node-count'));
    expect(await page.locator('[data-testid=browse-graph] canvas').count()).toBeGreaterThan(0);

    await screenshot('explorer-graph.png');
    // Expanding a neighbour adds its own neighbours to the drawing.
    const neighbours = page.getByTestId('graph-neighbour');
    const ids = await neighbours.evaluateAll((els) => els.map((e) => e.getAttribute('data-node-id')));
    expect(ids.length).toBe(before - 1);
    await neighbours.first().click();
    await expect.poll(() => page.getByTestId('graph-node').getAttribute('data-node-id')).toBe(ids[0]);
    expect(Number(await graph.getAttribute('data-node-count'))).toBeGreaterThanOrEqual(before);

    // Deleted in the page: the index leaves every list.
    await page.getByRole('tab', { name: 'Documents' }).click();
    await page.locator('[data-testid=index-row][data-name="ferries"] input').check();
    page.once('dialog', (d) => void d.accept());
    await page.getByRole('button', { name: 'Delete index' }).click();
    await jobDone('Deleting index ferries');
    await page.waitForSelector('[data-testid=index-row][data-name="ferries"]', { state: 'detached' });
    expect(await page.locator('#graph-index option').allTextContents()).toEqual(['harbour-notes (bm25)']);
    expect(problems).toEqual([]);
  }, 30_000);

  it('creates an index from files alone, in one request, with the bytes sent shown', async () => {
    await page.getByRole('tab', { name: 'Documents' }).click();
    await page.getByLabel('Index name').fill('pier-files');
    await page.getByLabel('Method').selectOption('bm25');
    await page.getByLabel('First files').setInputFiles([
      { name: FERRY.name, mimeType: 'text/markdown', buffer: Buffer.from(FERRY.text) },
      { name: 'quay.txt', mimeType: 'text/plain', buffer: Buffer.from(FIRST) },
    ]);
    await watchJobLine();
    await page.getByRole('button', { name: 'Create index' }).click();
    const done = await jobDone('Creating index pier-files (bm25)');
    expect(done).toContain(`added ${FERRY.name}, quay.txt`);
    const [sent, total] = (await uploadProgress()).at(-1) ?? [0, 0];
    expect(sent).toBe(total);
    expect(total).toBeGreaterThan(FERRY.text.length + FIRST.length);
    await page.waitForSelector('[data-testid=index-row][data-name="pier-files"] input:checked');
    await page.waitForSelector('[data-testid=doc-row][data-doc-id="quay.txt"]');
    expect(problems).toEqual([]);
  }, 30_000);
});
