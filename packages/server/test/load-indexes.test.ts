/**
 * Indexes saved to directories, loaded once with `loadIndexes` (a passage baseline and a graph
 * method), then queried over HTTP: one at a time and sixteen at once must give the same results.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { e2GraphRag } from '@grag/e2graphrag';
import { bm25Rag, denseRag } from '@grag/naive-rag';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LoadedIndex, loadIndexes, type RunningServer, serve } from '../src/index.js';
import { DOCS, get, offlineContext, postQuery } from './helpers.js';

let root: string;
let loaded: LoadedIndex[];
let server: RunningServer;
const methods = [bm25Rag, denseRag, e2GraphRag];

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'grag-server-load-'));
  await bm25Rag.save(
    await bm25Rag.build(DOCS, offlineContext(), { chunking: 'document' }),
    join(root, 'bm25'),
  );
  await e2GraphRag.save(await e2GraphRag.build(DOCS, offlineContext()), join(root, 'e2graphrag'));
  loaded = await loadIndexes([join(root, 'bm25'), join(root, 'e2graphrag')], {
    methods,
    context: () => offlineContext(),
  });
  server = await serve({ indexes: loaded, explorerDir: false, port: 0 });
}, 60_000);

afterAll(async () => {
  await server?.close();
  await rm(root, { recursive: true, force: true });
});

/** A response without anything that measures time (`ms` fields and `…Ms` timings). */
function stripTimings(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(stripTimings);
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([key]) => key !== 'ms' && !key.endsWith('Ms'))
      .map(([key, v]) => [key, stripTimings(v)]),
  );
}

describe('loadIndexes', () => {
  it('loads each directory with its method, manifest providers and stats', () => {
    expect(loaded.map((ix) => [ix.method.name, ix.dir])).toEqual([
      ['bm25', join(root, 'bm25')],
      ['e2graphrag', join(root, 'e2graphrag')],
    ]);
    expect(loaded[0]!.stats).toMatchObject({ documents: 3, chunks: 3 });
    expect(loaded[0]!.providers).toEqual(loaded[0]!.manifest.providers);
  });

  it('lists the loaded indexes with the counts of their manifests', async () => {
    const body = await (await get(server.url, '/v1/indexes')).json();
    expect(body.indexes.map((ix: { name: string; documents: number }) => [ix.name, ix.documents])).toEqual([
      ['bm25', 3],
      ['e2graphrag', 3],
    ]);
  });

  it('serves the documents of a graph index from its summary-tree leaves', async () => {
    const res = await get(server.url, '/v1/documents/orsa?method=e2graphrag');
    const body = await res.json();
    // E2GraphRAG's leaves show the title as the first line of a document's first chunk.
    expect(body).toEqual({
      id: 'orsa',
      text: `Orsa\n${DOCS[1]!.text}`,
      index: 'e2graphrag',
      version: loaded[1]!.manifest && expect.stringMatching(/^[0-9a-f]{12}$/),
    });
  });

  it("returns the graph method's subgraph, as the method gives it", async () => {
    const question = 'Who directs the Lindqvist Institute on Orsa?';
    const body = await (await postQuery(server.url, { question, method: 'e2graphrag' })).json();
    // The query's two entities, one hop apart in the entity graph.
    expect(body.retrieval.subgraph).toEqual({
      nodes: ['Lindqvist Institute', 'Orsa'],
      edges: [['Lindqvist Institute', 'Orsa']],
    });
    // Both are the entities the query named (E2GraphRAG's trace says so).
    expect(body.retrieval.entryPoints).toEqual(['Lindqvist Institute', 'Orsa']);
    const direct = await e2GraphRag.retrieve(loaded[1]!.index as never, question);
    expect(body.retrieval.items).toEqual(JSON.parse(JSON.stringify(direct.items)));
  });

  it('refuses a directory that is not an index, in one line naming it', async () => {
    await expect(
      loadIndexes([join(root, 'nothing-here')], { methods, context: () => offlineContext() }),
    ).rejects.toThrow(`Index directory ${join(root, 'nothing-here')} does not exist.`);
    await expect(loadIndexes([root], { methods, context: () => offlineContext() })).rejects.toThrow(
      'is not a grag index',
    );
  });

  it('refuses a method it does not know and two indexes of one method', async () => {
    await expect(
      loadIndexes([join(root, 'e2graphrag')], { methods: [bm25Rag], context: () => offlineContext() }),
    ).rejects.toThrow(
      `${join(root, 'e2graphrag')} holds a 'e2graphrag' index, which this server does not know. Available: bm25.`,
    );
    await expect(
      loadIndexes([join(root, 'bm25'), join(root, 'bm25')], { methods, context: () => offlineContext() }),
    ).rejects.toThrow(
      "both hold a 'bm25' index; give each a name (put them in one folder and serve it with openIndexFolder, grag serve --dir <folder>).",
    );
  });
});

describe('concurrent queries', () => {
  const questions = [
    'Who founded the Kessler Shipyard?',
    'Which island is across the Veskan Strait?',
    'Who directs the Lindqvist Institute?',
    'Who owns the research vessel Aurora?',
    'When was the shipyard founded?',
    'What kind of institute is the Lindqvist Institute?',
    'Who is Ilse Marren?',
    'Where is the Lindqvist Institute?',
  ];
  const requests = questions.flatMap((question, i) => [
    { question, method: 'bm25', topK: 1 + (i % 3), answer: true },
    { question, method: 'e2graphrag', answer: i % 2 === 0 },
  ]);

  it('gives sixteen queries at once the results they give one at a time', async () => {
    expect(requests).toHaveLength(16);
    const sequential: unknown[] = [];
    for (const body of requests)
      sequential.push(stripTimings(await (await postQuery(server.url, body)).json()));
    const concurrent = await Promise.all(
      requests.map(async (body) => stripTimings(await (await postQuery(server.url, body)).json())),
    );
    expect(concurrent).toEqual(sequential);
    // The answers differ between questions, so equal lists are not a coincidence of one answer.
    const answers = new Set(sequential.map((r) => JSON.stringify((r as { answer?: unknown }).answer)));
    expect(answers.size).toBeGreaterThan(4);
  }, 60_000);
});
