/**
 * Issue 26 ("Your own documents"), first "Done when" item, end to end: a folder with a PDF, an HTML
 * page, a Word file, a CSV, a JSON file and a Markdown file is indexed by `grag index` with every
 * method the CLI offers, offline, and each of the four facts of the mixed corpus is answered with a
 * citation that names exactly where it is (`harbour-report.pdf p. 3`, `ferries.csv row 7`, the Word
 * file's second-level heading, the HTML page's section): in `grag query --json` (structured
 * `locations` and their label), in `grag query`'s text, in the server's JSON and streamed answers,
 * and on the explorer page in headless Chromium.
 *
 * Every (method, fact) pair checks retrieval and answer apart: retrieval must bring an item holding
 * the answer with exactly the fact's location; the answer must name the answer and cite that
 * location, for every method; the server and the explorer show the same for every method.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import type { Retrieval, SourceLocation } from '@grag/core';
import { type CitedSource, formatLocation } from '@grag/core/kit';
import { createGragServer, loadIndexes, serve } from '@grag/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MIXED_CORPUS_FACTS, type MixedCorpusFact, writeMixedCorpus } from '../../loaders/test/corpus.js';
import { buildExplorer } from '../../server/scripts/build-explorer.mjs';
import { chromiumFor, launchChromium, requireChromium } from '../../server/test/chromium.js';
import { parseEvents, postQuery } from '../../server/test/helpers.js';
import { resolveConfig } from '../src/config.js';
import { run } from '../src/index.js';
import { createProviders } from '../src/providers.js';
import type { QueryResult } from '../src/query-command.js';
import { METHODS } from '../src/registry.js';
import { captureIO, runGrag } from './helpers.js';

type Format = MixedCorpusFact['format'];

/** The labels people read, written out here so that `formatLocation` is checked, not trusted. */
const LABELS: Record<Format, string> = {
  pdf: 'harbour-report.pdf p. 3',
  docx: 'shipyard-review.docx § Kessler Shipyard › Welding school',
  csv: 'ferries.csv row 7',
  html: 'concert-hall.html § The Merrow Falls Concert Hall › The organ',
};

let root: string;
let corpus: string;
const indexDir = (method: string) => join(root, 'indexes', method);

/** `grag index` of the corpus with each method: its exit code and stderr. */
const builds = new Map<string, { code: number; err: string; ms: number }>();

/** Each `grag query --json` run once, shared by the tests that read it. */
const queries = new Map<string, Promise<QueryResult>>();
function queryJson(method: string, fact: MixedCorpusFact): Promise<QueryResult> {
  const key = `${method}/${fact.format}`;
  let result = queries.get(key);
  if (!result) {
    result = runGrag(root, ['query', indexDir(method), fact.question, '--json']).then((r) => {
      if (r.code !== 0) throw new Error(`grag query (${method}) exited ${r.code}: ${r.err}`);
      return JSON.parse(r.out) as QueryResult;
    });
    queries.set(key, result);
  }
  return result;
}

const holds = (locations: readonly SourceLocation[] | undefined, want: SourceLocation) =>
  (locations ?? []).some((l) => isDeepStrictEqual(l, want));
const mentions = (text: string, answer: string) => text.toLowerCase().includes(answer.toLowerCase());

/** The retrieved items holding `fact.answer` at exactly `fact.location`. */
function itemsAt(retrieval: Retrieval, fact: MixedCorpusFact) {
  return retrieval.items.filter(
    (i) => holds(i.source.locations, fact.location) && mentions(i.text, fact.answer),
  );
}

/** What a failed expectation prints: the answer, what it cites, and where the top items are. */
function explain(r: QueryResult): string {
  const places = r.retrieval.items
    .slice(0, 8)
    .map(
      (i) =>
        `  ${i.id}: ${(i.source.locations ?? []).map(formatLocation).join('; ') || i.source.docIds.join(', ')}`,
    );
  return [
    `answer: ${r.answer}`,
    `cited: ${(r.sources ?? []).map((s) => s.label).join(' | ')}`,
    ...places,
  ].join('\n');
}

/** The answer names the fact's answer, and one cited source is exactly at the fact's location. */
function expectAnsweredAndCited(
  answer: string | undefined,
  sources: readonly CitedSource[],
  fact: MixedCorpusFact,
) {
  const label = LABELS[fact.format];
  expect(mentions(answer ?? '', fact.answer), `answer "${answer}" names ${fact.answer}`).toBe(true);
  const cited = sources.filter((s) => holds(s.locations, fact.location));
  expect(cited.length, `a citation at ${label}: ${sources.map((s) => s.label).join(' | ')}`).toBeGreaterThan(
    0,
  );
  for (const source of cited) expect(source.label.split('; ')).toContain(label);
}

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'grag-mixed-corpus-'));
  corpus = join(root, 'corpus');
  await writeMixedCorpus(corpus);
  for (const { name } of METHODS) {
    const started = performance.now();
    // No OpenAI settings in the environment: grag runs offline.
    const r = await runGrag(root, [
      'index',
      corpus,
      '--method',
      name,
      '--out',
      indexDir(name),
      '--vector-index',
      'flat',
    ]);
    builds.set(name, { code: r.code, err: r.err, ms: performance.now() - started });
  }
}, 60_000);

afterAll(async () => {
  if (root) await rm(root, { recursive: true, force: true });
});

it.each(MIXED_CORPUS_FACTS.map((f) => [f.format, f] as const))(
  'formatLocation labels the %s fact as people read it',
  (format, fact) => {
    expect(formatLocation(fact.location)).toBe(LABELS[format]);
  },
);

describe.each(METHODS.map((m) => m.name))('%s over the mixed corpus, offline', (method) => {
  it('indexes every file of the folder through the loaders', () => {
    const build = builds.get(method)!;
    expect(build.code, build.err).toBe(0);
    expect(build.err).toMatch(/running offline/);
    expect(build.err).toMatch(new RegExp(`^grag: indexing \\d+ documents from 6 files with ${method}$`, 'm'));
    expect(build.err).not.toMatch(/^grag: (skipped |\d+ (files?|records?) skipped)/m);
  });

  describe.each(MIXED_CORPUS_FACTS.map((f) => [f.format, f] as const))('%s fact', (format, fact) => {
    const label = LABELS[format];

    it(`retrieves the passage with "${fact.answer}" at ${label}`, async () => {
      const r = await queryJson(method, fact);
      expect(itemsAt(r.retrieval, fact).length, explain(r)).toBeGreaterThan(0);
      // Every document came through a loader with segments: every item knows where it is.
      const unlocated = r.retrieval.items.filter((i) => !i.source.locations?.length).map((i) => i.id);
      expect(unlocated, 'items without locations').toEqual([]);
    });

    it(`answers "${fact.answer}" citing ${label} in --json and in text`, async () => {
      const r = await queryJson(method, fact);
      expect(
        r.sources?.map((s) => s.id),
        'a source per citation',
      ).toEqual(r.citations);
      expectAnsweredAndCited(r.answer, r.sources ?? [], fact);

      // The text output prints the label after the citation's id.
      const text = await runGrag(root, ['query', indexDir(method), fact.question]);
      expect(text.code, text.err).toBe(0);
      const line = /^ {3}sources: (.*)$/m.exec(text.out)?.[1] ?? '';
      const cited = r.sources!.filter((s) => holds(s.locations, fact.location));
      expect(
        cited.some((s) => line.includes(`[${s.id}] `)),
        line,
      ).toBe(true);
      expect(line).toContain(label);
    });
  });
});

/** `grag serve <dirs> --port 0` in process, as a user runs it, until `stop()` aborts it. */
async function startServe(dirs: string[]): Promise<{ url: string; stop: () => Promise<void> }> {
  const controller = new AbortController();
  const io = { ...captureIO(root), signal: controller.signal };
  let ended = false;
  const running = run(['serve', ...dirs, '--port', '0', '--no-explorer'], io).finally(() => {
    ended = true;
  });
  const line = /^grag serve: .+ at (http:\/\/127\.0\.0\.1:\d+)\n/;
  const started = Date.now();
  while (!line.test(io.out())) {
    if (ended || Date.now() - started > 20_000) {
      controller.abort();
      throw new Error(`grag serve did not start (exit ${await running}): ${io.err()}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return {
    url: line.exec(io.out())![1]!,
    stop: async () => {
      controller.abort();
      expect(await running, io.err()).toBe(0);
    },
  };
}

interface ServedAnswer {
  method: string;
  retrieval: Retrieval;
  answer?: { text: string; citations: string[]; sources: CitedSource[] };
}

async function ask(url: string, method: string, question: string): Promise<ServedAnswer> {
  const res = await postQuery(url, { question, method, answer: true });
  expect(res.status, await res.clone().text()).toBe(200);
  return (await res.json()) as ServedAnswer;
}

describe('grag serve over the indexes', () => {
  let server: { url: string; stop: () => Promise<void> };
  beforeAll(async () => {
    server = await startServe(METHODS.map((m) => indexDir(m.name)));
  }, 30_000);
  afterAll(async () => {
    await server?.stop();
  });

  it.each(MIXED_CORPUS_FACTS.map((f) => [f.format, f] as const))(
    'every method answers the %s fact with sources at its location, whole and streamed',
    async (_format, fact) => {
      for (const { name } of METHODS) {
        const json = await ask(server.url, name, fact.question);
        expect(json.method).toBe(name);
        expect(json.answer!.sources.map((s) => s.id)).toEqual(json.answer!.citations);
        expectAnsweredAndCited(json.answer!.text, json.answer!.sources, fact);

        const res = await postQuery(server.url, {
          question: fact.question,
          method: name,
          answer: true,
          stream: true,
        });
        expect(res.headers.get('content-type')).toContain('text/event-stream');
        const streamed = parseEvents(await res.text()).find((e) => e.event === 'answer')?.data as
          | ServedAnswer['answer']
          | undefined;
        expect(streamed?.sources, name).toEqual(json.answer!.sources);
      }
    },
    30_000,
  );

  it('every method cites the same sources over HTTP as grag query --json', async () => {
    for (const { name } of METHODS) {
      for (const fact of MIXED_CORPUS_FACTS) {
        const [json, cli] = await Promise.all([ask(server.url, name, fact.question), queryJson(name, fact)]);
        expect(json.answer!.text, `${name}: ${fact.question}`).toBe(cli.answer);
        expect(json.answer!.sources, `${name}: ${fact.question}`).toEqual(cli.sources);
      }
    }
  }, 30_000);
});

const chromium = chromiumFor('mixed-corpus.e2e (explorer part)');

describe.skipIf(chromium === 'skip')('the explorer shows where each answer comes from', () => {
  let explorerDir: string;
  let server: { url: string; close(): Promise<void> } | undefined;
  let browser: Awaited<ReturnType<typeof launchChromium>> | undefined;

  beforeAll(async () => {
    requireChromium(chromium);
    explorerDir = join(root, 'explorer');
    await buildExplorer(explorerDir);
    // As `grag serve` loads an index: the providers its manifest names, from the CLI's config.
    const config = await resolveConfig({}, { env: {}, cwd: root });
    const indexes = await loadIndexes(
      METHODS.map((m) => indexDir(m.name)),
      {
        methods: METHODS.map((m) => m.method),
        context: (manifest) => createProviders(config, { manifest }).ctx,
      },
    );
    server = await serve(createGragServer({ indexes, explorerDir }), { port: 0 });
    browser = await launchChromium();
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  it.each(MIXED_CORPUS_FACTS.map((f) => [f.format, LABELS[f.format], f] as const))(
    "the %s fact: every method's citation shows %s",
    async (_format, label, fact) => {
      const page = await browser!.newPage({ viewport: { width: 1400, height: 1000 } });
      const problems: string[] = [];
      page.on('pageerror', (e) => problems.push(e.message));
      try {
        await page.goto(server!.url);
        await page.waitForSelector('form[data-ready]');
        // Every method at once: the page shows one column per method.
        for (const box of await page.locator('input[name=method]').all()) await box.setChecked(true);
        await page.getByLabel('Question', { exact: true }).fill(fact.question);
        await page.getByRole('button', { name: 'Ask', exact: true }).click();
        await page.waitForSelector('#results[data-state=done]', { timeout: 30_000 });
        for (const { name } of METHODS) {
          const expected = await ask(server!.url, name, fact.question);
          const column = page.locator(`[data-testid=result][data-method=${name}]`);
          await expect.poll(() => column.getByTestId('answer').textContent()).toBe(expected.answer!.text);
          expect(expected.answer!.text, name).toContain(fact.answer);

          const citations = column.getByTestId('citation');
          const shown = await citations.evaluateAll((els) =>
            els.map((e) => ({
              id: e.getAttribute('data-item-id'),
              source: e.querySelector('[data-testid=citation-source]')?.textContent ?? '',
            })),
          );
          expect(shown, name).toEqual(
            expected.answer!.sources.map((s) => ({ id: s.id, source: ` · ${s.label}` })),
          );
          expect(
            shown.some((c) => c.source.split(/ · |; /).includes(label)),
            `${name}: ${JSON.stringify(shown)}`,
          ).toBe(true);
          // The page shows the label itself, as a person reads it.
          expect(await column.textContent(), name).toContain(label);
        }
        expect(problems).toEqual([]);
      } finally {
        await page.close();
      }
    },
    60_000,
  );
});
