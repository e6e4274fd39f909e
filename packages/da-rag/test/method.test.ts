import {
  type BuildContext,
  embedAll,
  type GraphExtractionOptions,
  InvalidArgumentError,
  type TaskSuite,
} from '@grag/core';
import { chunkDocuments } from '@grag/core/kit';
import { createPromptTasks } from '@grag/core/tasks';
import { createScriptedChatModel } from '@grag/core/test';
import { trussDecomposition } from '@grag/ktruss';
import { beforeAll, describe, expect, test } from 'vitest';
import { communityMeasures, type DaRagIndex, daRag, type TracedCommunity } from '../src/index.js';
import { CORPUS } from './corpus.js';
import { offlineContext } from './offline-context.js';

const QUERY = 'Who directs the institute that operates the research vessel built by the Kessler Shipyard?';

const pair = (a: number, b: number) => (a < b ? `${a},${b}` : `${b},${a}`);

function edgeSet(g: DaRagIndex['chunkLayer']): Set<string> {
  return new Set(Array.from({ length: g.m }, (_, e) => pair(g.sources[e]!, g.targets[e]!)));
}

function cosine(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    dot += a[i]! * b[i]!;
    na += a[i]! * a[i]!;
    nb += b[i]! * b[i]!;
  }
  return na === 0 || nb === 0 ? 0 : dot / Math.sqrt(na * nb);
}

/** Whether the nodes and edges (keys) form a connected k-truss: every edge in ≥ k − 2 triangles, connected. */
function isConnectedKTruss(nodes: string[], edges: [string, string][], k: number): boolean {
  const adj = new Map<string, Set<string>>(nodes.map((v) => [v, new Set()]));
  for (const [a, b] of edges) {
    if (!adj.has(a) || !adj.has(b)) return false;
    adj.get(a)!.add(b);
    adj.get(b)!.add(a);
  }
  for (const [a, b] of edges) {
    let triangles = 0;
    for (const w of adj.get(a)!) if (adj.get(b)!.has(w)) triangles++;
    if (triangles < k - 2) return false;
  }
  const seen = new Set([nodes[0]!]);
  const stack = [nodes[0]!];
  while (stack.length > 0) {
    for (const w of adj.get(stack.pop()!)!) {
      if (!seen.has(w)) {
        seen.add(w);
        stack.push(w);
      }
    }
  }
  return seen.size === nodes.length;
}

let ctx: BuildContext;
let index: DaRagIndex;

beforeAll(async () => {
  ctx = offlineContext();
  index = await daRag.build(CORPUS, ctx);
});

describe('offline index (DA-RAG §3)', () => {
  test('links each chunk to the entities extracted from it (inter-layer links)', () => {
    index.chunks.forEach((chunk, c) => {
      const expected = index.entities.flatMap((e, i) => (e.chunkIds.includes(chunk.id) ? [i] : []));
      expect(Array.from(index.chunkEntities[c]!)).toEqual(expected);
    });
    expect(index.chunkEntities.some((list) => list.length > 0)).toBe(true);
  });

  test('joins two chunks when a KG relation joins an entity of one to an entity of the other', () => {
    const chunkOf = new Map(index.chunks.map((c, i) => [c.id, i]));
    const byId = new Map(index.entities.map((e) => [e.id, e]));
    const expected = new Set<string>();
    for (const r of index.relations) {
      for (const a of byId.get(r.source)!.chunkIds) {
        for (const b of byId.get(r.target)!.chunkIds) {
          if (a !== b) expected.add(pair(chunkOf.get(a)!, chunkOf.get(b)!));
        }
      }
    }
    expect(expected.size).toBeGreaterThan(10);
    expect(edgeSet(index.chunkLayer)).toEqual(expected);
    // The KG layer holds exactly the relations.
    expect(index.kgLayer.m).toBe(index.relations.length);
    index.relations.forEach((r, e) => {
      const ends = [
        index.kgLayer.nodeIds[index.kgLayer.sources[e]!],
        index.kgLayer.nodeIds[index.kgLayer.targets[e]!],
      ];
      expect(ends.sort()).toEqual([r.source, r.target].sort());
    });
  });

  test('links each entity to its 5 most similar entities in the Similarity layer', () => {
    const n = index.entities.length;
    const expected = new Set<string>();
    for (let i = 0; i < n; i++) {
      const ranked = Array.from({ length: n }, (_, j) => j)
        .filter((j) => j !== i)
        .map((j) => ({ j, s: cosine(index.entityVectors[i]!, index.entityVectors[j]!) }))
        .sort((x, y) => y.s - x.s || x.j - y.j);
      for (const { j } of ranked.slice(0, 5)) expected.add(pair(i, j));
    }
    expect(edgeSet(index.simLayer!)).toEqual(expected);
  });

  test('extracts each chunk with one gleaning pass and embeds its title and description', async () => {
    const offline = offlineContext();
    const seen: (GraphExtractionOptions | undefined)[] = [];
    let described = 0;
    const tasks: TaskSuite = {
      ...offline.tasks,
      id: offline.tasks.id,
      extractGraph: (text, options) => {
        seen.push(options);
        return offline.tasks.extractGraph(text, options);
      },
      titleAndDescription: (text, options) => {
        described++;
        return offline.tasks.titleAndDescription(text, options);
      },
    };
    const built = await daRag.build(CORPUS, { ...offline, tasks }, { similarityLayer: false });
    expect(seen).toHaveLength(built.chunks.length);
    expect(seen.every((o) => o?.gleanings === 1)).toBe(true);
    expect(described).toBe(built.chunks.length);
    const [vector] = await embedAll(offline.embedder, [`${built.titles[0]}\n${built.descriptions[0]}`]);
    expect(cosine(vector!, built.chunkVectors[0]!)).toBeCloseTo(1, 6);
    expect(built.texts[0]!.startsWith('Kessler Shipyard\n')).toBe(true);
  });
});

describe('online retrieval (DA-RAG §4-5)', () => {
  test('returns connected k-truss communities with their QRScore, for every k that found them', async () => {
    // The paper's Q-Peel: cosine relevance, no size bound, no query vertex (peeling only raises QRScore).
    const paper = {
      relevance: 'dense',
      maxCommunityNodes: null,
      querySeeds: 0,
      memberOrder: 'relevance',
      anchors: 1,
    } as const;
    const r = await daRag.retrieve(index, QUERY, { budgetTokens: 4000, ...paper });
    const communities = r.trace.communities as TracedCommunity[];
    expect(communities.length).toBeGreaterThan(3);
    expect(new Set(communities.map((c) => c.layer))).toEqual(new Set(['chunk', 'kg', 'sim']));
    const [q] = await embedAll(ctx.embedder, [QUERY]);
    for (const c of communities) {
      for (const k of c.k) expect(isConnectedKTruss(c.nodes, c.edges, k)).toBe(true);
      const vectors =
        c.layer === 'chunk'
          ? c.nodes.map((id) => index.chunkVectors[index.chunkLayer.index.get(id)!]!)
          : c.nodes.map((id) => index.entityVectors[index.entityIndex.get(id)!]!);
      const expected = vectors.reduce((s, v) => s + cosine(q!, v), 0) / vectors.length;
      expect(c.qrScore).toBeCloseTo(expected, 6);
      expect(c.qrScore).toBeGreaterThanOrEqual(c.initialQrScore! - 1e-9);
      // Every edge is one of the layer's.
      const layer =
        c.layer === 'chunk' ? index.chunkLayer : c.layer === 'kg' ? index.kgLayer : index.simLayer!;
      for (const [a, b] of c.edges)
        expect(edgeSet(layer).has(pair(layer.index.get(a)!, layer.index.get(b)!))).toBe(true);
    }
  });

  test('tries k over the feasible range of each layer and shows the chosen k in the trace', async () => {
    const r = await daRag.retrieve(index, QUERY, { budgetTokens: 4000, anchors: 1 });
    const layers = r.trace.layers as Record<string, { feasibleK: [number, number]; kValues: number[] }>;
    const chunkMax = trussDecomposition(index.chunkLayer).maxTrussness;
    expect(layers.chunk!.feasibleK).toEqual([3, chunkMax]);
    expect(layers.chunk!.kValues[0]).toBe(3);
    expect(layers.chunk!.kValues.at(-1)).toBe(chunkMax);
    expect(layers.chunk!.kValues.length).toBeLessThanOrEqual(3);
    for (const layer of ['kg', 'sim']) {
      const { feasibleK, kValues } = layers[layer]!;
      expect(kValues.every((k) => k >= 3 && k <= feasibleK[1])).toBe(true);
    }
    const communities = r.trace.communities as TracedCommunity[];
    const chosen = r.trace.chosenK as Record<string, number[]>;
    for (const layer of ['chunk', 'kg', 'sim']) {
      const packedKs = communities.filter((c) => c.packed && c.layer === layer).flatMap((c) => c.k);
      expect(chosen[layer] ?? []).toEqual(packedKs.sort((a, b) => a - b));
    }
    expect(r.trace.anchor).toMatchObject({ community: expect.stringMatching(/^chunk-k/) });
  });

  test('scores each candidate with one model call (score + report) and packs them greedily by score', async () => {
    const chat = createScriptedChatModel((call) => {
      const prompt = call.messages.at(-1)!.content;
      const score = prompt.includes('Nordlys') ? 8 : prompt.includes('Solberg') ? 6 : 2;
      return JSON.stringify({ score, report: `Report scored ${score}.` });
    });
    const scripted = { ...index, providers: { ...index.providers, tasks: createPromptTasks(chat) } };
    const r = await daRag.retrieve(scripted, QUERY, { budgetTokens: 12000, anchors: 1 });
    const communities = r.trace.communities as TracedCommunity[];
    expect(chat.calls).toHaveLength(communities.length);
    expect(r.trace.assessCalls).toBe(communities.length);
    expect(chat.calls.every((call) => call.messages.at(-1)!.content.includes(QUERY))).toBe(true);
    expect(r.trace.scoring).toBe('model');
    const scores = r.items.map((item) => item.score);
    expect(scores).toEqual([...scores].sort((a, b) => b - a));
    expect(new Set(scores).size).toBeGreaterThan(1);
    for (const item of r.items) expect(item.text.startsWith(`Report scored ${item.score}.`)).toBe(true);
    // Greedy packing (§5.1): whole communities in score order; one that does not fit is left out.
    const tokenizer = index.providers.tokenizer;
    const budget = 300;
    const greedy = await daRag.retrieve(scripted, QUERY, { budgetTokens: budget, anchors: 1 });
    expect(greedy.tokens).toBeLessThanOrEqual(budget);
    expect(greedy.trace.truncated).toBeUndefined();
    const kept = new Set(greedy.items.map((i) => i.id));
    expect(greedy.items.map((i) => i.id)).toEqual(r.items.filter((i) => kept.has(i.id)).map((i) => i.id));
    for (const item of greedy.items) expect(greedy.context).toContain(`[${item.id}] ${item.text.trim()}`);
    const left = r.items.filter((i) => !kept.has(i.id));
    expect(left.length).toBeGreaterThan(0);
    for (const item of left) {
      expect(tokenizer.count(`[${item.id}] ${item.text.trim()}`)).toBeGreaterThan(budget - greedy.tokens);
    }
    // With packing 'truncate', a budget smaller than the first community packs only its head.
    const small = await daRag.retrieve(scripted, QUERY, {
      budgetTokens: 40,
      anchors: 1,
      packing: 'truncate',
    });
    expect(small.items.map((i) => i.id)).toEqual([r.items[0]!.id]);
    expect(small.trace.truncated).toBe(r.items[0]!.id);
    expect(small.tokens).toBeLessThanOrEqual(40);
    const none = await daRag.retrieve(scripted, QUERY, { budgetTokens: 40, anchors: 1 });
    expect(none.items).toEqual([]);
    // With reports only, every community is a short report and all of them fit.
    const reports = await daRag.retrieve(scripted, QUERY, {
      budgetTokens: 400,
      communityText: 'report',
      anchors: 1,
    });
    expect(reports.items.map((i) => i.text)).toEqual(r.items.map((i) => `Report scored ${i.score}.`));
  });

  test('scores with the QRScore and extractive reports under the offline task suite', async () => {
    const r = await daRag.retrieve(index, QUERY, { budgetTokens: 12000, scoring: 'qrscore' });
    expect(r.trace.scoring).toBe('qrscore');
    for (const c of r.trace.communities as TracedCommunity[]) {
      expect(c.score).toBeCloseTo(10 * c.qrScore, 12);
      expect(c.report.length).toBeGreaterThan(0);
    }
  });

  test("'auto' scoring under the offline suite is the relevance of the chunks a community packs", async () => {
    const r = await daRag.retrieve(index, QUERY, { budgetTokens: 12000 });
    expect(r.trace.scoring).toBe('evidence');
    const ep = await daRag.retrieve(index, QUERY, { budgetTokens: 12000, entryPointsOnly: true });
    const relevance = new Map(ep.items.map((item) => [item.id, item.score]));
    const items = new Map(r.items.map((item) => [item.id, item]));
    for (const c of r.trace.communities as TracedCommunity[]) {
      const item = items.get(c.id);
      if (!item) continue;
      const chunks = item.source.chunkIds;
      const mean = chunks.reduce((sum, id) => sum + (relevance.get(id) ?? 0), 0) / chunks.length;
      expect(c.score).toBeCloseTo(10 * mean, 9);
    }
  });

  test('the offline preset asks for no report: no assessment call, the members packed alone', async () => {
    const offline = await daRag.build(CORPUS, ctx, { preset: 'offline' });
    let calls = 0;
    const tasks: TaskSuite = {
      ...offline.providers.tasks,
      assessCommunity: (...args) => {
        calls++;
        return offline.providers.tasks.assessCommunity(...args);
      },
    };
    const counted: DaRagIndex = { ...offline, providers: { ...offline.providers, tasks } };
    const r = await daRag.retrieve(counted, QUERY, { budgetTokens: 12000 });
    expect(calls).toBe(0);
    expect(r.trace.assessCalls).toBe(0);
    const packed = (r.trace.communities as TracedCommunity[]).filter((c) => c.packed);
    expect(packed.length).toBeGreaterThan(0);
    for (const c of packed) expect(c.report).toBe('');
    // Asked for, the reports come back (one call per packed community at least).
    const withReports = await daRag.retrieve(counted, QUERY, { budgetTokens: 12000, reports: true });
    expect(calls).toBeGreaterThanOrEqual(
      (withReports.trace.communities as TracedCommunity[]).filter((c) => c.packed).length,
    );
    expect(calls).toBeGreaterThan(0);
  });

  test("'auto' scoring follows the suite's declared judgement, not its id", async () => {
    const offline = index.providers.tasks;
    const suite = (id: string, judgement?: TaskSuite['judgement']): DaRagIndex => {
      const tasks: TaskSuite = { ...offline, id };
      if (judgement === undefined) delete (tasks as { judgement?: unknown }).judgement;
      else (tasks as { judgement?: unknown }).judgement = judgement;
      return { ...index, providers: { ...index.providers, tasks } };
    };
    const scoring = async (i: DaRagIndex) =>
      (await daRag.retrieve(i, QUERY, { budgetTokens: 12000, anchors: 1 })).trace.scoring;
    expect(offline.judgement).toBe('heuristic');
    // An id that reads 'offline' without the capability is a model's suite.
    expect(await scoring(suite('offline:wink'))).toBe('model');
    // The capability under any id is a heuristic suite.
    expect(await scoring(suite('my-rules', 'heuristic'))).toBe('evidence');
    expect(await scoring(suite('offline:wink', 'model'))).toBe('model');
  });

  test('fills the subgraph with the nodes and edges of the packed communities', async () => {
    const r = await daRag.retrieve(index, QUERY, { budgetTokens: 700 });
    const packed = (r.trace.communities as TracedCommunity[]).filter((c) => c.packed);
    expect(packed.length).toBeGreaterThan(0);
    expect(packed.length).toBeLessThan((r.trace.communities as TracedCommunity[]).length);
    const prefix = (c: TracedCommunity) => (c.layer === 'chunk' ? 'chunk:' : 'entity:');
    const nodes = new Set(packed.flatMap((c) => c.nodes.map((v) => prefix(c) + v)));
    expect(new Set(r.subgraph!.nodes)).toEqual(nodes);
    const edges = new Set(
      packed.flatMap((c) => c.edges.map(([a, b]) => [prefix(c) + a, prefix(c) + b].sort().join('|'))),
    );
    expect(new Set(r.subgraph!.edges.map((e) => [...e].sort().join('|')))).toEqual(edges);
    expect(r.items.map((i) => i.id)).toEqual(packed.map((c) => c.id));
  });

  test('measures communities as appendix B.3 defines (density, diameter in the layer, pairwise similarity)', async () => {
    const r = await daRag.retrieve(index, QUERY, { budgetTokens: 4000 });
    const c = (r.trace.communities as TracedCommunity[]).find((x) => x.layer === 'chunk')!;
    const m = communityMeasures(index, c);
    const v = c.nodes.length;
    expect(m.density).toBeCloseTo((2 * c.edges.length) / (v * (v - 1)), 12);
    // In a connected k-truss the layer distance of two members is at most their distance inside it.
    expect(m.diameter).toBeGreaterThanOrEqual(v > 1 ? 1 : 0);
    expect(m.diameter).toBeLessThanOrEqual(Math.floor((2 * v - 2) / Math.max(1, Math.min(...c.k))));
    const vectors = c.nodes.map((id) => index.chunkVectors[index.chunkLayer.index.get(id)!]!);
    let sum = 0;
    for (let i = 0; i < v; i++) for (let j = i + 1; j < v; j++) sum += cosine(vectors[i]!, vectors[j]!);
    expect(m.pairwiseSimilarity).toBeCloseTo(sum / ((v * (v - 1)) / 2), 6);
  });

  test('rejects invalid options and topK', async () => {
    await expect(daRag.retrieve(index, QUERY, { kMin: 1 })).rejects.toThrow(
      /da-rag retrieve: kMin must be an integer ≥ 2 \(got 1\)/,
    );
    await expect(daRag.retrieve(index, QUERY, { kMin: 5, kMax: 4 })).rejects.toThrow(
      /kMax \(4\) must be at least kMin/,
    );
    await expect(daRag.retrieve(index, QUERY, { topK: 0 })).rejects.toThrow(InvalidArgumentError);
    await expect(daRag.build([], ctx)).rejects.toThrow(/corpus is empty/);
    await expect(daRag.build(CORPUS, ctx, { chunking: 'words' as never })).rejects.toThrow(
      /da-rag build: chunking must be one of "semantic", "fixed"/,
    );
  });
});

describe('ablations (Table 3a)', () => {
  test('w/o ACS retrieves the 1-hop neighbourhood of the most relevant nodes of each layer', async () => {
    const r = await daRag.retrieve(index, QUERY, { acs: false, oneHopSeeds: 2, anchors: 1 });
    expect(r.trace.retrieval).toBe('1-hop');
    const communities = r.trace.communities as TracedCommunity[];
    expect(communities.map((c) => c.id).sort()).toEqual(['chunk-1hop', 'kg-1hop', 'sim-1hop']);
    const [q] = await embedAll(ctx.embedder, [QUERY]);
    const seeds = index.chunks
      .map((_chunk, i) => ({ i, s: cosine(q!, index.chunkVectors[i]!) }))
      .sort((a, b) => b.s - a.s || a.i - b.i)
      .slice(0, 2)
      .map((x) => x.i);
    const g = index.chunkLayer;
    const expected = new Set(seeds.map((i) => index.chunks[i]!.id));
    for (const s of seeds)
      for (let p = g.offsets[s]!; p < g.offsets[s + 1]!; p++) expected.add(g.nodeIds[g.neighbors[p]!]!);
    expect(new Set(communities.find((c) => c.layer === 'chunk')!.nodes)).toEqual(expected);
  });

  test('w/o C searches the whole KG and Similarity layers', async () => {
    const r = await daRag.retrieve(index, QUERY, { chunkLayer: false });
    const layers = r.trace.layers as Record<string, { nodes: number }>;
    expect(layers.chunk).toBeUndefined();
    expect(layers.kg!.nodes).toBe(index.entities.length);
    expect(layers.sim!.nodes).toBe(index.entities.length);
    expect((r.trace.communities as TracedCommunity[]).some((c) => c.layer === 'chunk')).toBe(false);
  });

  test('w/o S builds no Similarity layer and searches none', async () => {
    const built = await daRag.build(CORPUS, offlineContext(), { similarityLayer: false });
    expect(built.simLayer).toBeNull();
    expect(built.stats.similarityLayerEdges).toBe(0);
    const r = await daRag.retrieve(built, QUERY);
    expect((r.trace.communities as TracedCommunity[]).some((c) => c.layer === 'sim')).toBe(false);
    // At query time on a full index too.
    const q = await daRag.retrieve(index, QUERY, { similarityLayer: false });
    expect((q.trace.communities as TracedCommunity[]).some((c) => c.layer === 'sim')).toBe(false);
  });

  test('w/o SC chunks in fixed 1200/100 token windows', async () => {
    const offline = offlineContext();
    const built = await daRag.build(CORPUS, offline, { chunking: 'fixed', similarityLayer: false });
    const expected = chunkDocuments(CORPUS, { chunkSize: 1200, overlap: 100, tokenizer: offline.tokenizer });
    expect(built.chunks).toEqual(expected);
    expect(index.chunks.length).toBeGreaterThan(built.chunks.length); // semantic chunks are finer here
  });
});
