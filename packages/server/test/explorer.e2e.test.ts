/**
 * The explorer page end to end in headless Chromium: the bundle built by scripts/build-explorer.mjs,
 * served by `grag serve`'s server over offline demo indexes, asked a demo question the way a user
 * does. Expectations come from outside the page: the corpus's answer, the API called directly from
 * Node, the demo files on disk, and the pixels of the drawn graph.
 */
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { formatLocation } from '@grag/core/kit';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildExplorer } from '../scripts/build-explorer.mjs';
import { createGragServer, serve } from '../src/index.js';
import {
  ANSWER,
  chromiumFor,
  countColor,
  DEMO_DIR,
  decodePng,
  demoIndexes,
  launchChromium,
  QUESTION,
  queryApi,
  requireChromium,
} from './explorer-fixture.js';

const state = chromiumFor('explorer.e2e');
/** Where the screenshot goes (the repository ignores no test output folder, so outside it). */
const OUTPUT = process.env.GRAG_TEST_OUTPUT ?? join(tmpdir(), 'grag-explorer-e2e');
/** Colours the page must draw: plain (untyped) nodes, and the graph's background. */
const PLAIN_NODE = '#5b6b82';
const GRAPH_BACKGROUND = '#fbfcfd';

describe.skipIf(state === 'skip')('explorer page in headless Chromium', () => {
  let explorerDir: string;
  let indexes: Awaited<ReturnType<typeof demoIndexes>>;
  let server: { url: string; close(): Promise<void> } | undefined;
  let browser: Browser | undefined;
  let page: Page;

  beforeAll(async () => {
    requireChromium(state);
    explorerDir = await mkdtemp(join(tmpdir(), 'grag-explorer-'));
    const built = await buildExplorer(explorerDir);
    expect(built.files.map((f) => f.name).sort()).toEqual([
      'assets/explorer.css',
      'assets/explorer.js',
      'index.html',
    ]);
    indexes = await demoIndexes();
    server = await serve(createGragServer({ indexes, explorerDir }), { port: 0 });
    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
    const problems: string[] = [];
    page.on('pageerror', (e) => problems.push(e.message));
    page.on('requestfailed', (r) => problems.push(`${r.url()}: ${r.failure()?.errorText}`));
    page.on('request', (r) => {
      if (!r.url().startsWith(server!.url)) problems.push(`request outside the server: ${r.url()}`);
    });
    (page as Page & { problems?: string[] }).problems = problems;
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await server?.close();
    if (explorerDir) await rm(explorerDir, { recursive: true, force: true });
  });

  const problems = () => (page as Page & { problems?: string[] }).problems ?? [];

  async function ask(methods: string[]): Promise<void> {
    await page.goto(server!.url);
    await page.waitForSelector('form[data-ready]');
    for (const box of await page.locator('input[name=method]').all()) {
      await box.setChecked(methods.includes(await box.inputValue()));
    }
    await page.getByLabel('Question', { exact: true }).fill(QUESTION);
    await page.getByRole('button', { name: 'Ask', exact: true }).click();
    await page.waitForSelector('#results[data-state=done]', { timeout: 30_000 });
  }

  it('lists the loaded indexes as methods to pick', async () => {
    await page.goto(server!.url);
    await page.waitForSelector('form[data-ready]');
    const names = await page
      .locator('input[name=method]')
      .evaluateAll((els) => els.map((e) => e.getAttribute('value')));
    expect(names).toEqual(['e2graphrag', 'bm25']);
  });

  it('answers the demo question with citations, context items and the drawn subgraph', async () => {
    const expected = await queryApi(server!.url, 'e2graphrag', false);
    const subgraph = expected.retrieval.subgraph!;
    expect(subgraph.nodes.length).toBeGreaterThan(1);
    await ask(['e2graphrag']);
    const column = page.locator('[data-testid=result][data-method=e2graphrag]');

    await expect.poll(() => column.getByTestId('answer').textContent()).toBe(ANSWER);

    const items = column.getByTestId('item');
    expect(await items.evaluateAll((els) => els.map((e) => e.getAttribute('data-item-id')))).toEqual(
      expected.retrieval.items.map((i) => i.id),
    );

    const graph = column.getByTestId('graph');
    expect(Number(await graph.getAttribute('data-node-count'))).toBe(subgraph.nodes.length);
    expect(Number(await graph.getAttribute('data-edge-count'))).toBe(subgraph.edges.length);
    expect(await page.locator('[data-testid=graph] canvas').count()).toBeGreaterThan(0);
    const pixels = decodePng(await graph.screenshot());
    const area = pixels.width * pixels.height;
    expect(countColor(pixels, GRAPH_BACKGROUND, 2)).toBeGreaterThan(area / 2);
    // Each node is a disc of at least 5 px radius: some 75 pixels of its colour.
    expect(countColor(pixels, PLAIN_NODE)).toBeGreaterThan(50 * subgraph.nodes.length);

    // Hovering an edge names its two ends: scan across the middle of the graph until a tooltip shows.
    const box = (await graph.boundingBox())!;
    let tip: string | null = null;
    for (let x = box.x + 5; x < box.x + box.width - 5 && tip === null; x += 3) {
      await page.mouse.move(x, box.y + box.height / 2);
      const shown = column.locator('.graph-tip');
      if (await shown.isVisible()) tip = await shown.textContent();
    }
    await page.mouse.move(0, 0);
    const ends = /^(.+) — (.+)$/.exec(tip ?? '');
    expect(ends, `edge tooltip "${tip}"`).not.toBeNull();
    const [, a, b] = ends!;
    expect(subgraph.edges.some(([x, y]) => (x === a && y === b) || (x === b && y === a))).toBe(true);

    // Each item shows where it lies in the source files: the demo files' sections.
    const places = column.getByTestId('item');
    for (const [i, item] of expected.retrieval.items.entries()) {
      const locations = item.source.locations!;
      expect(locations.length, `item ${item.id} has locations`).toBeGreaterThan(0);
      const shown = await places.nth(i).getByTestId('item-places').textContent();
      expect(shown).toContain(formatLocation(locations[0]!));
    }

    // Each citation shows the label of its source, as the API answers it (the file and its section).
    const answered = await queryApi(server!.url, 'e2graphrag', true);
    const labels = await column
      .getByTestId('citation')
      .evaluateAll((els) =>
        els.map((e) => e.querySelector('[data-testid=citation-source]')?.textContent ?? ''),
      );
    expect(labels).toEqual(answered.answer!.sources.map((s) => ` · ${s.label}`));
    expect(answered.answer!.sources.some((s) => s.label.includes('.md § '))).toBe(true);

    // A citation opens its passage: the cited document as it is on disk, the cited item's text marked.
    const citations = column.getByTestId('citation');
    expect(await citations.count()).toBeGreaterThan(0);
    const byId = new Map(expected.retrieval.items.map((i) => [i.id, i]));
    let namesTheAnswer = 0;
    for (const citation of await citations.all()) {
      const item = byId.get((await citation.getAttribute('data-item-id'))!)!;
      const docId = item.source.docIds![0]!;
      await citation.click();
      const dialog = page.getByTestId('passage');
      await expect.poll(() => dialog.getAttribute('data-doc-id')).toBe(docId);
      await expect.poll(() => page.getByTestId('passage-meta').textContent()).toContain(docId);
      // …and says where in the file the passage is.
      expect(await page.getByTestId('passage-meta').textContent()).toContain(
        formatLocation(item.source.locations![0]!),
      );
      const shown = (await page.getByTestId('passage-text').textContent()) ?? '';
      const onDisk = await readFile(join(DEMO_DIR, docId), 'utf8');
      expect(shown.trim()).toBe(onDisk.trim());
      const marks = (await page.getByTestId('passage-mark').allTextContents()).map((m) => m.trim());
      expect(marks.length).toBeGreaterThan(0);
      for (const mark of marks) expect(item.text).toContain(mark);
      expect(marks.join('').length).toBeGreaterThan(0.9 * item.text.length);
      if (shown.includes(ANSWER) && namesTheAnswer++ === 0) {
        await mkdir(OUTPUT, { recursive: true });
        await writeFile(join(OUTPUT, 'explorer-passage.png'), await page.screenshot());
      }
      await page.getByRole('button', { name: 'Close passage' }).click();
    }
    expect(namesTheAnswer).toBeGreaterThan(0);
    expect(problems()).toEqual([]);
  }, 60_000);

  it('compares two methods side by side, each as the API answers it', async () => {
    const [graphRag, bm25] = await Promise.all([
      queryApi(server!.url, 'e2graphrag', true),
      queryApi(server!.url, 'bm25', true),
    ]);
    const streamed: string[] = [];
    const onResponse = (r: import('playwright-core').Response) => {
      if (r.url().endsWith('/v1/query')) streamed.push(r.headers()['content-type'] ?? '');
    };
    page.on('response', onResponse);
    await ask(['e2graphrag', 'bm25']);
    page.off('response', onResponse);
    // The page asks for streamed answers and reads the event stream the server sends.
    expect(streamed).toHaveLength(2);
    for (const type of streamed) expect(type).toContain('text/event-stream');
    const columns = page.getByTestId('result');
    expect(await columns.evaluateAll((els) => els.map((e) => e.getAttribute('data-method')))).toEqual([
      'e2graphrag',
      'bm25',
    ]);
    for (const [method, json] of [
      ['e2graphrag', graphRag],
      ['bm25', bm25],
    ] as const) {
      const column = page.locator(`[data-testid=result][data-method=${method}]`);
      await expect.poll(() => column.getByTestId('answer').textContent()).toBe(json.answer!.text);
      expect(
        await column
          .getByTestId('citation')
          .evaluateAll((els) => els.map((e) => e.getAttribute('data-item-id'))),
      ).toEqual(json.answer!.citations);
      expect(Number(await column.getByTestId('graph').getAttribute('data-node-count'))).toBe(
        json.retrieval.subgraph?.nodes.length ?? 0,
      );
    }
    expect(graphRag.answer!.text).toBe(ANSWER);
    expect(bm25.retrieval.subgraph).toBeUndefined();
    await expect
      .poll(() => page.locator('[data-method=bm25] [data-testid=graph]').textContent())
      .toContain('no subgraph');

    await mkdir(OUTPUT, { recursive: true });
    const shot = join(OUTPUT, 'explorer.png');
    await writeFile(shot, await page.screenshot({ fullPage: false }));
    console.log(`explorer.e2e: screenshot ${shot}`);
    expect(problems()).toEqual([]);
  }, 60_000);

  it('sends the token of the #token= fragment, and says how to give one when it is missing', async () => {
    const token = 'explorer-e2e-token';
    const guarded = await serve(createGragServer({ indexes, explorerDir, token }), { port: 0 });
    const tab = await browser!.newPage();
    try {
      await tab.goto(`${guarded.url}/#token=${token}`);
      await tab.waitForSelector('form[data-ready]');
      expect(await tab.locator('input[name=method]').count()).toBe(2);
      await tab.goto(`${guarded.url}/`);
      await expect.poll(() => tab.getByTestId('status').getAttribute('role')).toBe('alert');
      expect(await tab.getByTestId('status').textContent()).toContain('#token=');
    } finally {
      await tab.close();
      await guarded.close();
    }
  });
});
