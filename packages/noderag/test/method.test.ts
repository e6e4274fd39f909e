import { InvalidArgumentError } from '@grag/core';
import { EMBEDDED_TYPES, type NodeType } from '@grag/heterograph';
import { beforeAll, describe, expect, it } from 'vitest';
import { type NodeRagIndex, nodeRag, nodeRagStats } from '../src/index.js';
import { DOCS, scriptedContext, taskOf, UNITS } from './fixtures.js';

/** The endpoint types each edge kind may join. */
const EDGE_TYPES: Record<string, [NodeType, NodeType][]> = {
  d: [
    ['S', 'N'],
    ['S', 'R'],
  ],
  r: [['R', 'N']],
  a: [['N', 'A']],
  h: [
    ['S', 'H'],
    ['A', 'H'],
  ],
  o: [['H', 'O']],
  s: [['T', 'S']],
};

/** Neighbours of `key` through structural edges of `kind` (HNSW edges left out). */
function linked(index: NodeRagIndex, key: string, kind: string): string[] {
  const out: string[] = [];
  index.graph.graph.forEachEdge(key, (_, attrs, a, b) => {
    if (attrs.kind === kind && attrs.baseWeight > 0) out.push(a === key ? b : a);
  });
  return out.sort();
}

describe('noderag build on a hand-made corpus (scripted model)', () => {
  let built: { index: NodeRagIndex; calls: string[] };
  beforeAll(async () => {
    const { ctx, chat } = scriptedContext();
    const index = await nodeRag.build(DOCS, ctx, { chunking: 'document', attributeMinMentions: 3 });
    built = { index, calls: chat.calls.map(taskOf) };
  });

  it('makes one semantic unit per unit the model returned and one text node per chunk', () => {
    const g = built.index.graph;
    const units = Object.values(UNITS).flat();
    expect(g.nodes('S').map((k) => g.node(k).text)).toEqual(units.map((u) => u.semantic_unit));
    expect(g.nodes('T')).toEqual(['T:kessler', 'T:orsa']);
    expect(g.node('T:kessler').text).toBe(`Kessler Shipyard\n${DOCS[0]!.text}`);
    // Text insertion: each T joins exactly the units decomposed from its chunk.
    expect(linked(built.index, 'T:kessler', 's')).toEqual(['S:0', 'S:1']);
    expect(linked(built.index, 'T:orsa', 's')).toEqual(['S:2', 'S:3']);
  });

  it('merges entity names by normalization and joins each unit to its entities', () => {
    const g = built.index.graph;
    expect(g.nodes('N').sort()).toEqual(
      ['N:1881', 'N:anton kessler', 'N:kessler shipyard', 'N:orsa', 'N:veskan strait'].sort(),
    );
    expect(g.node('N:anton kessler')).toMatchObject({
      text: 'Anton Kessler',
      weight: 2,
      docs: ['kessler', 'orsa'],
    });
    expect(g.node('N:orsa').weight).toBe(3);
    expect(g.neighbors('S:3', 'N').sort()).toEqual(['N:anton kessler', 'N:orsa']);
  });

  it('makes relationships nodes joined to their source, their target and their semantic unit', () => {
    const g = built.index.graph;
    const key = 'R:anton kessler|founded|kessler shipyard';
    expect(g.node(key)).toMatchObject({ type: 'R', text: 'Anton Kessler founded Kessler Shipyard' });
    expect(g.neighbors(key, 'N').sort()).toEqual(['N:anton kessler', 'N:kessler shipyard']);
    expect(g.neighbors(key, 'S')).toEqual(['S:0']);
    expect(g.nodes('R')).toHaveLength(4);
  });

  it('gives attributes to important entities only, one model call each, joined to their entity', () => {
    const g = built.index.graph;
    const attributes = g.nodes('A');
    // attributeMinMentions 3: only Orsa (three units) may be important.
    expect(attributes).toEqual(['A:orsa']);
    expect(linked(built.index, 'A:orsa', 'a')).toEqual(['N:orsa']);
    expect(linked(built.index, 'N:orsa', 'a')).toEqual(['A:orsa']);
    expect(g.node('A:orsa').text).toBe('Summary of Orsa: ferries were built for it.');
    expect(built.calls.filter((c) => c === 'attribute')).toHaveLength(1);
  });

  it('makes one high-level element and overview per community with content, one call each', () => {
    const g = built.index.graph;
    const highs = g.nodes('H');
    expect(highs.length).toBe(built.index.stats.highLevelElements);
    expect(built.calls.filter((c) => c === 'title')).toHaveLength(highs.length);
    expect(g.nodes('O')).toHaveLength(highs.length);
    for (const h of highs) {
      const [overview] = g.neighbors(h, 'O');
      expect(g.node(overview!).text).toMatch(/^Theme \d+$/);
      expect(g.node(h).text).toMatch(/^Insight number \d+\.$/);
    }
    expect(built.calls.filter((c) => c === 'decompose')).toHaveLength(2);
  });

  it('lays every edge between the node types its kind allows; HNSW edges only join embedded nodes', () => {
    const g = built.index.graph.graph;
    let hnsw = 0;
    g.forEachEdge((_, attrs, a, b, aa, ba) => {
      const pair = [aa.type, ba.type];
      if (attrs.hnsw > 0) {
        hnsw++;
        expect(EMBEDDED_TYPES).toContain(aa.type);
        expect(EMBEDDED_TYPES).toContain(ba.type);
      }
      if (attrs.kind === 'hnsw') return;
      const allowed = EDGE_TYPES[attrs.kind]!.some(
        ([x, y]) => (pair[0] === x && pair[1] === y) || (pair[0] === y && pair[1] === x),
      );
      expect(allowed, `${attrs.kind} edge ${a}–${b}`).toBe(true);
    });
    expect(hnsw).toBeGreaterThan(0);
    expect(hnsw).toBe(built.index.graph.stats().hnswEdges);
  });

  it('embeds only T, S, A and H nodes (selective embedding)', () => {
    const { index } = built;
    const types = new Set(index.vectorKeys.map((k) => index.graph.node(k).type));
    expect([...types].sort()).toEqual(['A', 'H', 'S', 'T']);
    expect(index.vectorKeys).toHaveLength(index.vectors.size);
    const g = index.graph;
    expect(index.vectorKeys.length).toBe(
      g.nodes('T').length + g.nodes('S').length + g.nodes('A').length + g.nodes('H').length,
    );
  });

  it('reports statistics per node type (Table 4)', () => {
    const stats = nodeRagStats(built.index);
    expect(stats.nodes).toMatchObject({ T: 2, S: 4, N: 5, R: 4, A: 1 });
    expect(stats.totalEdges).toBe(stats.structuralEdges + stats.hnswEdges - stats.hnswOverlap);
    expect(stats.build.chunks).toBe(2);
  });

  it('lays no HNSW edge when hnswEdges is false', async () => {
    const { ctx } = scriptedContext();
    const index = await nodeRag.build(DOCS, ctx, { chunking: 'document', hnswEdges: false });
    expect(index.graph.stats().hnswEdges).toBe(0);
  });
});

describe('noderag retrieve', () => {
  let index: NodeRagIndex;
  let chat: ReturnType<typeof scriptedContext>['chat'];
  beforeAll(async () => {
    const context = scriptedContext();
    chat = context.chat;
    index = await nodeRag.build(DOCS, context.ctx, { chunking: 'document', attributeMinMentions: 3 });
  });

  it('never returns entity or overview nodes as content', async () => {
    for (const query of [
      'Where was Anton Kessler born?',
      'What did the Kessler Shipyard build?',
      'Orsa',
      'Theme 1',
    ]) {
      const r = await nodeRag.retrieve(index, query);
      expect(r.items.length).toBeGreaterThan(0);
      for (const item of r.items) {
        expect(item.id).not.toMatch(/^[NO]:/);
        expect(['text', 'semantic-unit', 'attribute', 'high-level-element', 'relationship']).toContain(
          item.kind,
        );
      }
    }
  });

  it('enters by exact match: a matched entity brings its attribute, an overview its high-level element', async () => {
    const r = await nodeRag.retrieve(index, 'Tell me about Orsa', { vectorTopK: 0 });
    expect(r.trace.entries).toEqual({ exact: 1, vector: 0 });
    expect(r.items.map((i) => i.id)).toContain('A:orsa');
    const overview = index.graph.nodes('O')[0]!;
    const title = index.graph.node(overview).text;
    const [high] = index.graph.neighbors(overview, 'H');
    const viaOverview = await nodeRag.retrieve(index, `What is ${title}?`, { vectorTopK: 0 });
    expect(viaOverview.items.map((i) => i.id)).toContain(high);
  });

  it('groups the context by node type with a heading per group, and keeps provenance', async () => {
    const r = await nodeRag.retrieve(index, 'Where was Anton Kessler born?');
    const order = ['H', 'A', 'S', 'R', 'T'];
    const types = r.items.map((i) => i.id[0]!);
    const ranks = types.map((t) => order.indexOf(t));
    expect(ranks).toEqual([...ranks].sort((a, b) => a - b));
    expect(r.context.match(/^## .+$/gm)!.length).toBe(new Set(types).size);
    const unit = r.items.find((i) => i.id === 'S:3');
    if (unit) expect(unit.source).toEqual({ chunkIds: ['orsa'], docIds: ['orsa'] });
    expect(r.tokens).toBe(index.providers.tokenizer.count(r.context));
  });

  it('respects the token budget, keeping the best-scored nodes that fit', async () => {
    const query = 'Where was Anton Kessler born?';
    const full = await nodeRag.retrieve(index, query);
    const best = full.items.reduce((a, b) => (b.score > a.score ? b : a));
    const r = await nodeRag.retrieve(index, query, { budgetTokens: 60 });
    expect(r.tokens).toBeLessThanOrEqual(60);
    expect(r.items.length).toBeGreaterThan(0);
    expect(r.items.length).toBeLessThan(full.items.length);
    expect(r.items.map((i) => i.id)).toContain(best.id);
    const tiny = await nodeRag.retrieve(index, query, { budgetTokens: 5 });
    expect(tiny.tokens).toBeLessThanOrEqual(5);
  });

  it('asks the model for query entities only when dual search is on', async () => {
    const before = chat.calls.length;
    await nodeRag.retrieve(index, 'Where was Anton Kessler born?');
    expect(chat.calls.slice(before).map(taskOf)).toEqual(['query-entities']);
    const mid = chat.calls.length;
    const r = await nodeRag.retrieve(index, 'Where was Anton Kessler born?', { dualSearch: false });
    expect(chat.calls.length).toBe(mid);
    expect(r.trace.entries).toMatchObject({ exact: 0 });
  });

  it('returns the plain top-k similar nodes when graph search is off (w/o cross node)', async () => {
    const r = await nodeRag.retrieve(index, 'ferries built by the shipyard', { graphSearch: false, topK: 3 });
    expect(r.trace.mode).toBe('vector-only');
    expect(r.items).toHaveLength(3);
    for (const item of r.items) expect(EMBEDDED_TYPES).toContain(item.id[0]);
  });

  it('refuses a blank query and bad limits', async () => {
    await expect(nodeRag.retrieve(index, '  ')).rejects.toThrow(InvalidArgumentError);
    await expect(nodeRag.retrieve(index, 'Orsa', { pprIterations: -1 })).rejects.toThrow(/pprIterations/);
  });
});
