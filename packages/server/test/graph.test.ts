/**
 * The whole-graph routes: search an index's graph by name, read a node with a page of its
 * neighbours, NodeRAG's communities; the answers conform to the OpenAPI document; and on a generated
 * graph of 100k nodes (one hub of 30k neighbours) every answer stays within its limit.
 */
import type { Method } from '@grag/core';
import { e2GraphRag } from '@grag/e2graphrag';
import { bm25Rag } from '@grag/naive-rag';
import { nodeRag } from '@grag/noderag';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGragClient } from '../src/client.js';
import {
  createGragServer,
  type ErrorBody,
  openApiDocument,
  type RunningServer,
  serve,
} from '../src/index.js';
import { DOCS, offlineContext } from './helpers.js';

/** A "method" whose index is a plain knowledge graph (entities and relations, as DA-RAG keeps them). */
const kgMethod = {
  name: 'kg',
  description: 'A generated knowledge graph.',
  capabilities: { uses: [] },
  formatVersion: 1,
  build: async () => ({}),
  retrieve: async () => ({ context: '', items: [], tokens: 0, trace: {} }),
  save: async () => {},
  load: async () => ({}),
} as unknown as Method<unknown>;

const NODES = 100_000;
const HUB_DEGREE = 30_000;

/** 100k entities in a ring with chords, and a hub `e0` joined to the first 30k. */
function bigGraph() {
  const entities = Array.from({ length: NODES }, (_, i) => ({
    id: `e${i}`,
    name: `Station ${i} of the Quarrel Line`,
    descriptions: [`Relay station number ${i}.`],
  }));
  const relations: { source: string; target: string }[] = [];
  for (let i = 1; i < NODES; i++) {
    relations.push({ source: `e${i}`, target: `e${(i + 1) % NODES || 1}` });
    relations.push({ source: `e${i}`, target: `e${(i * 7919) % NODES || 2}` });
  }
  for (let i = 1; i <= HUB_DEGREE; i++) relations.push({ source: 'e0', target: `e${i}` });
  entities[0]!.name = 'Quarrel Hub';
  return { entities, relations };
}

let server: RunningServer;
const doc = openApiDocument();
const ajv = new Ajv2020({ strict: false, allErrors: true });
ajv.addSchema({ ...doc, $id: 'grag-openapi' });

/** `path` answered with 200, its body checked against the document's schema `schema`. */
async function get(path: string, schema: string) {
  const res = await fetch(new URL(path, server.url));
  const text = await res.text();
  expect(res.status, `${path}: ${text.slice(0, 300)}`).toBe(200);
  const body = JSON.parse(text);
  const validate = ajv.compile({ $ref: `grag-openapi#/components/schemas/${schema}` });
  expect(validate(body) ? [] : validate.errors, path).toEqual([]);
  return { body, bytes: text.length };
}

beforeAll(async () => {
  const [e2, noderag, bm25] = await Promise.all([
    e2GraphRag.build(DOCS, offlineContext()),
    nodeRag.build(DOCS, offlineContext()),
    bm25Rag.build(DOCS, offlineContext(), { chunking: 'document' }),
  ]);
  const app = createGragServer({
    indexes: [
      { method: e2GraphRag as unknown as Method<unknown>, index: e2 },
      { method: nodeRag as unknown as Method<unknown>, index: noderag },
      { method: bm25Rag as unknown as Method<unknown>, index: bm25 },
      { method: kgMethod, index: bigGraph(), name: 'big' },
    ],
    methods: [bm25Rag],
    createContext: offlineContext,
    explorerDir: false,
  });
  server = await serve(app, { port: 0 });
}, 120_000);

afterAll(async () => {
  await server?.close();
});

describe('graph routes', () => {
  it('finds an entity by part of its name and reads its neighbourhood', async () => {
    const { body } = await get('/v1/indexes/e2graphrag/graph?q=lindqvist', 'GraphSearch');
    expect(body.nodes).toBeGreaterThan(3);
    expect(body.communityType).toBeNull();
    expect(body.total).toBeGreaterThan(0);
    const node = body.matches[0];
    expect(node.label.toLowerCase()).toContain('lindqvist');
    const { body: near } = await get(
      `/v1/indexes/e2graphrag/graph/nodes/${encodeURIComponent(node.id)}`,
      'GraphNeighbourhood',
    );
    expect(near.node.id).toBe(node.id);
    expect(near.total).toBe(node.degree);
    expect(near.neighbours.length).toBe(Math.min(50, node.degree));
    const ids = new Set([node.id, ...near.neighbours.map((n: { id: string }) => n.id)]);
    for (const [a, b] of near.edges) expect(ids.has(a) && ids.has(b)).toBe(true);
  });

  it("lists NodeRAG's communities (H nodes) and their members", async () => {
    const { body } = await get('/v1/indexes/noderag/graph', 'GraphSearch');
    expect(body.communityType).toBe('H');
    const { body: communities } = await get('/v1/indexes/noderag/graph?type=H', 'GraphSearch');
    expect(communities.total).toBe(body.types.find((t: { type: string }) => t.type === 'H')?.count ?? 0);
    expect(communities.total).toBeGreaterThan(0);
    const h = communities.matches[0];
    expect(h.type).toBe('H');
    expect(h.community).toBeDefined();
    const { body: near } = await get(
      `/v1/indexes/noderag/graph/nodes/${encodeURIComponent(h.id)}`,
      'GraphNeighbourhood',
    );
    expect(near.text.length).toBeGreaterThan(0);
    expect(near.total).toBeGreaterThan(0);
  });

  it('answers 404 no_graph for a passage index, and 404 / 400 for a bad node or limit', async () => {
    const none = await fetch(new URL('/v1/indexes/bm25/graph', server.url));
    expect(none.status).toBe(404);
    expect(((await none.json()) as ErrorBody).error.code).toBe('no_graph');
    const missing = await fetch(new URL('/v1/indexes/big/graph/nodes/nowhere', server.url));
    expect(missing.status).toBe(404);
    expect(((await missing.json()) as ErrorBody).error.message).toBe(
      'No node "nowhere" in the graph of index "big".',
    );
    const tooMany = await fetch(new URL('/v1/indexes/big/graph?limit=501', server.url));
    expect(tooMany.status).toBe(400);
  });

  it('lists the methods POST /v1/indexes builds with', async () => {
    const { body } = await get('/v1/methods', 'MethodList');
    expect(body.create).toBe(true);
    expect(body.methods.map((m: { name: string }) => m.name)).toEqual(['bm25']);
  });

  it('keeps every answer bounded on a graph of 100k nodes', async () => {
    const first = await get('/v1/indexes/big/graph?q=quarrel', 'GraphSearch');
    expect(first.body.nodes).toBe(NODES);
    expect(first.body.total).toBe(NODES);
    expect(first.body.matches).toHaveLength(20);
    expect(first.body.matches[0].id).toBe('e0');
    expect(first.bytes).toBeLessThan(10_000);

    const started = performance.now();
    const search = await get('/v1/indexes/big/graph?q=station%2099&limit=500', 'GraphSearch');
    expect(search.body.matches).toHaveLength(500);
    expect(search.bytes).toBeLessThan(100_000);
    const hub = await get('/v1/indexes/big/graph/nodes/e0?limit=500', 'GraphNeighbourhood');
    expect(hub.body.total).toBe(HUB_DEGREE);
    expect(hub.body.neighbours).toHaveLength(500);
    expect(hub.body.edges.length).toBeLessThanOrEqual(500 * 5);
    expect(hub.bytes).toBeLessThan(200_000);
    const page = await get('/v1/indexes/big/graph/nodes/e0?offset=29990&limit=50', 'GraphNeighbourhood');
    expect(page.body.neighbours).toHaveLength(10);
    // Searched and walked without reading the graph again (generous bound for a loaded machine).
    expect(performance.now() - started).toBeLessThan(5_000);
  });

  it('the typed client reads the same answers as the routes', async () => {
    const grag = createGragClient({ baseUrl: server.url });
    expect(await grag.methods()).toEqual((await get('/v1/methods', 'MethodList')).body);
    expect(await grag.searchGraph('big', { q: 'hub', limit: 3 })).toEqual(
      (await get('/v1/indexes/big/graph?q=hub&limit=3', 'GraphSearch')).body,
    );
    expect(await grag.graphNode('big', 'e0', { offset: 2, limit: 3 })).toEqual(
      (await get('/v1/indexes/big/graph/nodes/e0?offset=2&limit=3', 'GraphNeighbourhood')).body,
    );
  });
});
