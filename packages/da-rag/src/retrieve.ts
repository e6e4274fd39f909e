import {
  Bm25Index,
  DEFAULT_BUDGET_TOKENS,
  DEFAULT_BUILD_CONCURRENCY,
  embedAll,
  InvalidArgumentError,
  linkKey,
  packContext,
  type Retrieval,
  type RetrievedItem,
  RRF_K,
  reciprocalRankFusion,
  throwIfAborted,
} from '@grag/core';
import { type TrussGraph, TrussIndex, trussGraphFromEdges } from '@grag/ktruss';
import { type DaRagQueryOptions, type DaRagRetrieveOptions, queryOptions } from './options.js';
import type { DaRagIndex, Layer } from './types.js';
import { entityText, mapLimit, unit } from './util.js';

/** A candidate community of one layer, in global node indices of that layer. */
interface Candidate {
  id: string;
  layer: Layer;
  /** k values whose Q-Peel gave this community (empty for 1-hop retrieval). */
  ks: number[];
  /** Nodes, most relevant first. */
  nodes: number[];
  edges: [number, number][];
  qrScore: number;
  /** QRScore of the k-truss component it was peeled from. */
  initialQrScore: number | null;
  /** Member text (chunk texts, or entity and relation descriptions) within `communityTokens`. */
  members: string;
  chunkIds: string[];
  docIds: string[];
  score: number;
  report: string;
}

/** One community of the trace, in node keys (chunk ids for the chunk layer, entity ids otherwise). */
export interface TracedCommunity {
  id: string;
  layer: Layer;
  /** k values that gave it (empty for 1-hop retrieval). */
  k: number[];
  nodes: string[];
  edges: [string, string][];
  qrScore: number;
  initialQrScore: number | null;
  /** Score used to rank it (0-10). */
  score: number;
  report: string;
  /** Whether it made it into the context. */
  packed: boolean;
}

/** What a layer's search did, in the trace. */
export interface LayerTrace {
  /** Nodes and edges of the graph searched (the whole layer, or the working subgraph). */
  nodes: number;
  edges: number;
  /** `[kMin, k_max]`, or `null` when the graph has no k-truss for k ≥ kMin (or ACS is off). */
  feasibleK: [number, number] | null;
  /** k values tried. */
  kValues: number[];
  candidates: number;
}

/** The k values tried over the feasible range `[lo, hi]`: `count` of them, spread, both ends included. */
export function spreadK(lo: number, hi: number, count: number, spacing: 'geometric' | 'linear'): number[] {
  if (hi < lo) return [];
  if (hi - lo + 1 <= count) return Array.from({ length: hi - lo + 1 }, (_, i) => lo + i);
  if (count === 1) return [lo];
  const out = new Set<number>();
  for (let i = 0; i < count; i++) {
    const t = i / (count - 1);
    out.add(spacing === 'linear' ? Math.round(lo + t * (hi - lo)) : Math.round(lo * (hi / lo) ** t));
  }
  return [...out].sort((a, b) => a - b);
}

/** The subgraph of `graph` induced by `nodes` (ascending), with the map back to `graph`'s indices. */
function induced(graph: TrussGraph, nodes: readonly number[]): TrussGraph {
  const local = new Int32Array(graph.n).fill(-1);
  nodes.forEach((v, i) => {
    local[v] = i;
  });
  const edges: number[] = [];
  for (const v of nodes) {
    for (let p = graph.offsets[v]!; p < graph.offsets[v + 1]!; p++) {
      const w = graph.neighbors[p]!;
      if (w > v && local[w]! >= 0) edges.push(local[v]!, local[w]!);
    }
  }
  return trussGraphFromEdges(nodes.length, Uint32Array.from(edges), { ids: nodes.map((v) => String(v)) });
}

interface Search {
  graph: TrussGraph;
  /** Global node index of each node of `graph`. */
  global: ArrayLike<number>;
  relevance: Float64Array;
  truss: () => TrussIndex;
}

function byRelevance(nodes: Iterable<number>, rel: Float64Array): number[] {
  return [...nodes].sort((a, b) => rel[b]! - rel[a]! || a - b);
}

/** EACS on one graph: Q-Peel at each k of the spread feasible range; identical communities merged. */
function eacs(
  layer: Layer,
  search: Search,
  q: DaRagQueryOptions,
): { candidates: Candidate[]; trace: LayerTrace } {
  const trace: LayerTrace = {
    nodes: search.graph.n,
    edges: search.graph.m,
    feasibleK: null,
    kValues: [],
    candidates: 0,
  };
  const candidates: Candidate[] = [];
  if (search.graph.m === 0) return { candidates, trace };
  const index = search.truss();
  if (index.maxTrussness < q.kMin) return { candidates, trace };
  const hi = q.kMax === null ? index.maxTrussness : Math.min(q.kMax, index.maxTrussness);
  trace.feasibleK = [q.kMin, index.maxTrussness];
  trace.kValues = spreadK(q.kMin, hi, q.candidatesPerLayer, q.kSpacing);
  // Query vertices: the most relevant nodes of the searched graph (none: any component, as in §5.2).
  const seeds =
    q.querySeeds > 0
      ? byRelevance(identityArray(search.graph.n), search.relevance)
          .slice(0, q.querySeeds)
          .filter((v) => search.relevance[v]! > 0)
      : [];
  const byNodes = new Map<string, Candidate>();
  for (const k of trace.kValues) {
    const community = index.qPeel(k, search.relevance, {
      ...(q.maxCommunityNodes === null ? {} : { maxNodes: q.maxCommunityNodes }),
      keep: seeds,
    }).communities[0];
    if (community === undefined) continue;
    const key = Array.from(community.nodes).join(',');
    const seen = byNodes.get(key);
    if (seen) {
      seen.ks.push(k);
      continue;
    }
    const g = index.graph;
    const local = byRelevance(community.nodes, search.relevance);
    const candidate: Candidate = {
      id: '',
      layer,
      ks: [k],
      nodes: local.map((v) => search.global[v]!),
      edges: Array.from(community.edges, (e) => [
        search.global[g.sources[e]!]!,
        search.global[g.targets[e]!]!,
      ]),
      qrScore: community.qrScore,
      initialQrScore: community.initialQrScore,
      members: '',
      chunkIds: [],
      docIds: [],
      score: 0,
      report: '',
    };
    byNodes.set(key, candidate);
    candidates.push(candidate);
  }
  for (const c of candidates) c.id = `${layer}-k${c.ks.join('+')}`;
  trace.candidates = candidates.length;
  return { candidates, trace };
}

/**
 * 1-hop retrieval on one graph (the "w/o ACS" ablation): the `seeds` most relevant nodes, their
 * neighbours, and the edges at the seeds.
 */
function oneHop(layer: Layer, search: Search, seeds: number): { candidates: Candidate[]; trace: LayerTrace } {
  const { graph, relevance: rel } = search;
  const trace: LayerTrace = { nodes: graph.n, edges: graph.m, feasibleK: null, kValues: [], candidates: 0 };
  if (graph.n === 0) return { candidates: [], trace };
  const top = byRelevance(
    Array.from({ length: graph.n }, (_, i) => i),
    rel,
  ).slice(0, seeds);
  const isSeed = new Set(top);
  const nodes = new Set(top);
  const edges: [number, number][] = [];
  for (const s of top) {
    for (let p = graph.offsets[s]!; p < graph.offsets[s + 1]!; p++) {
      const w = graph.neighbors[p]!;
      nodes.add(w);
      if (!isSeed.has(w) || s < w) edges.push([search.global[s]!, search.global[w]!]);
    }
  }
  const local = byRelevance(nodes, rel);
  const relevance = local.map((v) => rel[v]!);
  const candidate: Candidate = {
    id: `${layer}-1hop`,
    layer,
    ks: [],
    nodes: local.map((v) => search.global[v]!),
    edges,
    qrScore: relevance.reduce((a, b) => a + b, 0) / relevance.length,
    initialQrScore: null,
    members: '',
    chunkIds: [],
    docIds: [],
    score: 0,
    report: '',
  };
  trace.candidates = 1;
  return { candidates: [candidate], trace };
}

/**
 * Member text of a candidate within `budget` tokens, most relevant members first, with provenance:
 * the member chunks (chunk layer), or the chunks that mention the included entities, those that mention
 * more of them first, then by relevance to the query.
 */
function renderMembers(
  index: DaRagIndex,
  c: Candidate,
  budget: number,
  chunkRelevance: () => Float64Array,
  memberOrder: DaRagQueryOptions['memberOrder'] = 'relevance',
): void {
  const { tokenizer } = index.ctx;
  const lines: string[] = [];
  let chunkIds: string[] = [];
  let used = 0;
  // Line counts are memoized by the tokenizer (the same chunk texts recur across queries); the
  // separator adds at most one token. The joined text is checked exactly at the end.
  const take = (line: string, separator: string): boolean => {
    const cost = tokenizer.count(line) + (separator === '' ? 0 : 1);
    if (used + cost > budget) {
      if (lines.length === 0) {
        lines.push(tokenizer.truncate(line, budget));
        used = budget;
      }
      return false;
    }
    lines.push(line);
    used += cost;
    return true;
  };
  if (c.layer === 'chunk') {
    for (const i of c.nodes) {
      const fits = take(index.texts[i]!, '\n\n');
      if (fits || chunkIds.length === 0) chunkIds.push(index.chunks[i]!.id);
      if (!fits) break;
    }
    c.members = lines.join('\n\n');
  } else {
    const included = new Set<number>();
    const mentions = new Map<number, number>();
    for (const v of c.nodes) {
      const entity = index.entities[v]!;
      const fits = take(entityText(entity.name, entity.descriptions), '\n');
      if (!fits && included.size > 0) break;
      included.add(v);
      for (const id of entity.chunkIds) {
        const chunk = index.chunkLayer.index.get(id)!;
        mentions.set(chunk, (mentions.get(chunk) ?? 0) + 1);
      }
      if (!fits) break;
    }
    if (c.layer === 'kg') {
      const rank = new Map(c.nodes.map((v, r) => [v, r]));
      const edges = c.edges
        .filter(([a, b]) => included.has(a) && included.has(b))
        .sort((x, y) => rank.get(x[0])! + rank.get(x[1])! - (rank.get(y[0])! + rank.get(y[1])!));
      for (const [a, b] of edges) {
        const e = findRelation(index, a, b);
        if (e < 0) continue;
        const relation = index.relations[e]!;
        const names = `${index.entities[a]!.name} — ${index.entities[b]!.name}`;
        if (!take(entityText(names, relation.descriptions), '\n')) break;
      }
    }
    c.members = lines.join('\n');
    const rel = chunkRelevance();
    const chunks =
      memberOrder === 'linked'
        ? linkedOrder(index, byRelevance(mentions.keys(), rel))
        : [...mentions.entries()]
            .sort((x, y) => y[1] - x[1] || rel[y[0]]! - rel[x[0]]! || x[0] - y[0])
            .map(([chunk]) => chunk);
    chunkIds = chunks.map((chunk) => index.chunks[chunk]!.id);
  }
  if (tokenizer.count(c.members) > budget) c.members = tokenizer.truncate(c.members, budget);
  c.chunkIds = chunkIds;
  const docOf = (id: string) => index.chunks[index.chunkLayer.index.get(id)!]!.docId;
  c.docIds = [...new Set(c.chunkIds.map(docOf))];
}

/**
 * The entity each chunk's document is about: the KG entity named by the document title (the title
 * line of the chunk text), or -1. With entity linking, that is the entity other chunks link to when
 * they mention the document.
 */
function subjectEntities(index: DaRagIndex): Int32Array {
  if (index.cache.subjects) return index.cache.subjects;
  const byKey = new Map<string, number>();
  index.entities.forEach((e, i) => {
    const key = linkKey(e.name);
    if (key !== '' && !byKey.has(key)) byKey.set(key, i);
  });
  const out = new Int32Array(index.chunks.length).fill(-1);
  if (index.options.includeTitle) {
    index.texts.forEach((text, i) => {
      const line = text.slice(0, text.indexOf('\n') >>> 0).trim();
      const e = line === '' ? undefined : byKey.get(linkKey(line));
      if (e !== undefined) out[i] = e;
    });
  }
  index.cache.subjects = out;
  return out;
}

/**
 * Chunk members in `'linked'` order: by relevance, each followed by the members whose document it
 * mentions (its link to their subject entity), by relevance.
 */
function linkedOrder(index: DaRagIndex, nodes: readonly number[]): number[] {
  const subjects = subjectEntities(index);
  const placed = new Set<number>();
  const out: number[] = [];
  for (const c of nodes) {
    if (placed.has(c)) continue;
    placed.add(c);
    out.push(c);
    const mentions = index.chunkEntities[c]!;
    for (const d of nodes) {
      if (placed.has(d) || subjects[d]! < 0) continue;
      if (binaryHas(mentions, subjects[d]!)) {
        placed.add(d);
        out.push(d);
      }
    }
  }
  return out;
}

function binaryHas(sorted: Uint32Array, x: number): boolean {
  let lo = 0;
  let hi = sorted.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    const y = sorted[mid]!;
    if (y === x) return true;
    if (y < x) lo = mid + 1;
    else hi = mid - 1;
  }
  return false;
}

function findRelation(index: DaRagIndex, a: number, b: number): number {
  const g = index.kgLayer;
  let lo = g.offsets[a]!;
  let hi = g.offsets[a + 1]! - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    const x = g.neighbors[mid]!;
    if (x === b) return g.edgeIds[mid]!;
    if (x < b) lo = mid + 1;
    else hi = mid - 1;
  }
  return -1;
}

const LAYER_ORDER: Record<Layer, number> = { chunk: 0, kg: 1, sim: 2 };

/** Keys of a layer's nodes: chunk ids for the chunk layer, entity ids otherwise. */
function keyOf(index: DaRagIndex, layer: Layer, v: number): string {
  return layer === 'chunk' ? index.chunks[v]!.id : index.entities[v]!.id;
}

/** DA-RAG online retrieval (§4-5). */
export async function retrieveDaRag(
  index: DaRagIndex,
  query: string,
  options: DaRagRetrieveOptions,
  methodName: string,
): Promise<Retrieval> {
  const started = performance.now();
  const q = queryOptions(index.options, options);
  const { ctx } = index;
  const signal = options.signal;
  const budget = options.budgetTokens ?? DEFAULT_BUDGET_TOKENS;
  if (options.topK !== undefined && !(Number.isInteger(options.topK) && options.topK >= 1)) {
    throw new InvalidArgumentError(
      'topK',
      `da-rag retrieve: topK must be a positive integer, got ${options.topK}.`,
    );
  }
  const scoreBy =
    q.scoring === 'auto' ? (ctx.tasks.id.startsWith('offline') ? 'evidence' : 'model') : q.scoring;
  const useSim = q.similarityLayer && index.simLayer !== null;
  const ms: Record<string, number> = {};
  const time = async <T>(name: string, fn: () => Promise<T> | T): Promise<T> => {
    const t = performance.now();
    try {
      return await fn();
    } finally {
      ms[name] = (ms[name] ?? 0) + performance.now() - t;
    }
  };

  const [queryVector] =
    q.relevance === 'lexical'
      ? [undefined]
      : await time('embed', () => embedAll(ctx.embedder, [query], { abortSignal: signal }));
  throwIfAborted(signal);
  const queryUnit = queryVector === undefined ? undefined : unit(queryVector);
  let assessCalls = 0;
  let parseIssues = 0;
  let chunkRel: Float64Array | undefined;
  const chunkRelevance = () => {
    chunkRel ??= nodeRelevance(q.relevance, query, queryUnit, index.chunkVectors, () => {
      index.cache.lexicalChunks ??= new Bm25Index(index.texts);
      return index.cache.lexicalChunks;
    });
    return chunkRel;
  };
  let entityRel: Float64Array | undefined;
  const allEntityRelevance = () => {
    entityRel ??= nodeRelevance(q.relevance, query, queryUnit, index.entityVectors, () => {
      index.cache.lexicalEntities ??= new Bm25Index(
        index.entities.map((e) => entityText(e.name, e.descriptions)),
      );
      return index.cache.lexicalEntities;
    });
    return entityRel;
  };

  if (q.entryPointsOnly) {
    return entryPointsOnly(index, q, chunkRelevance(), budget, options.topK, methodName, {
      ...ms,
      total: performance.now() - started,
    });
  }
  const assess = async (candidates: Candidate[]) => {
    for (const c of candidates) renderMembers(index, c, q.communityTokens, chunkRelevance, q.memberOrder);
    await time('assess', () =>
      mapLimit(candidates, index.options.concurrency ?? DEFAULT_BUILD_CONCURRENCY, async (c) => {
        const offlineScore = () => {
          if (scoreBy !== 'evidence') return 10 * c.qrScore;
          // QRScore of the chunks the community packs, on the chunk relevance: one scale for all layers.
          const rel = chunkRelevance();
          let sum = 0;
          for (const id of c.chunkIds) sum += rel[index.chunkLayer.index.get(id)!]!;
          return c.chunkIds.length === 0 ? 0 : (10 * sum) / c.chunkIds.length;
        };
        if (!q.reports) {
          c.score = offlineScore();
          return;
        }
        const assessment = await ctx.tasks.assessCommunity(query, c.members, { abortSignal: signal });
        assessCalls++;
        parseIssues += assessment.issues.length;
        c.report = assessment.report.trim();
        c.score = scoreBy === 'model' ? assessment.score : offlineScore();
      }),
    );
  };
  const searchLayer = (layer: Layer, search: Search) => {
    const found = q.acs ? eacs(layer, search, q) : oneHop(layer, search, q.oneHopSeeds);
    if (layer === 'chunk' && q.memberOrder === 'linked') {
      for (const c of found.candidates) c.nodes = linkedOrder(index, c.nodes);
    }
    return found;
  };

  const layers: Partial<Record<Layer, LayerTrace>> = {};
  const all: Candidate[] = [];
  let anchor: Record<string, unknown> | null = null;
  const entityRelevance = (nodes: ArrayLike<number>) => {
    const all = allEntityRelevance();
    return Float64Array.from(nodes as ArrayLike<number>, (v) => all[v]!);
  };

  if (q.chunkLayer) {
    const chunkRel = chunkRelevance();
    const chunkSearch: Search = {
      graph: index.chunkLayer,
      global: identity(index.chunks.length),
      relevance: chunkRel,
      truss: () => {
        index.cache.chunk ??= new TrussIndex(index.chunkLayer);
        return index.cache.chunk;
      },
    };
    const found = await time('chunk', () => searchLayer('chunk', chunkSearch));
    layers.chunk = found.trace;
    await assess(found.candidates);
    all.push(...found.candidates);
    throwIfAborted(signal);

    // Working subgraphs: the entities of the anchor chunk community (§4).
    let anchorChunks: number[];
    if (found.candidates.length === 0) {
      anchorChunks = byRelevance(identityArray(index.chunks.length), chunkRel).slice(0, q.oneHopSeeds);
      anchor = { community: null, fallback: 'most relevant chunks' };
    } else if (q.anchor === 'union') {
      anchorChunks = [...new Set(found.candidates.flatMap((c) => c.nodes))];
      anchor = { community: found.candidates.map((c) => c.id) };
    } else {
      const best = [...found.candidates].sort((x, y) => y.score - x.score || y.qrScore - x.qrScore)[0]!;
      anchorChunks = best.nodes;
      anchor = { community: best.id };
    }
    const entitySet = new Set<number>();
    for (const c of anchorChunks) for (const e of index.chunkEntities[c]!) entitySet.add(e);
    const entities = [...entitySet].sort((a, b) => a - b);
    anchor.chunks = anchorChunks.length;
    anchor.entities = entities.length;
    const rel = entityRelevance(entities);
    const fine: Candidate[] = [];
    for (const layer of useSim ? (['kg', 'sim'] as const) : (['kg'] as const)) {
      const graph = layer === 'kg' ? index.kgLayer : index.simLayer!;
      const found = await time(layer, () => {
        const sub = induced(graph, entities);
        let truss: TrussIndex | undefined;
        return searchLayer(layer, {
          graph: sub,
          global: entities,
          relevance: rel,
          truss: () => {
            truss ??= new TrussIndex(sub);
            return truss;
          },
        });
      });
      layers[layer] = found.trace;
      fine.push(...found.candidates);
    }
    await assess(fine);
    all.push(...fine);
  } else {
    // "w/o C": EACS directly on the whole KG and Similarity layers.
    const rel = entityRelevance(identity(index.entities.length));
    const fine: Candidate[] = [];
    for (const layer of useSim ? (['kg', 'sim'] as const) : (['kg'] as const)) {
      const graph = layer === 'kg' ? index.kgLayer : index.simLayer!;
      const found = await time(layer, () =>
        searchLayer(layer, {
          graph,
          global: identity(graph.n),
          relevance: rel,
          truss: () => {
            index.cache[layer] ??= new TrussIndex(graph);
            return index.cache[layer];
          },
        }),
      );
      layers[layer] = found.trace;
      fine.push(...found.candidates);
    }
    await assess(fine);
    all.push(...fine);
  }
  throwIfAborted(signal);

  // Greedy packing by score (§5.1).
  const ranked = [...all].sort(
    (x, y) =>
      y.score - x.score ||
      y.qrScore - x.qrScore ||
      LAYER_ORDER[x.layer] - LAYER_ORDER[y.layer] ||
      x.id.localeCompare(y.id),
  );
  const limited = options.topK === undefined ? ranked : ranked.slice(0, options.topK);
  const items: RetrievedItem[] = limited.map((c) => ({
    id: c.id,
    kind: 'community',
    text: communityText(c, q.communityText),
    score: c.score,
    source: { chunkIds: c.chunkIds, docIds: c.docIds },
  }));
  const packed = packContext(items, budget, { tokenizer: ctx.tokenizer });
  const packedIds = new Set(packed.items.map((i) => i.id));

  const nodes = new Set<string>();
  const edges = new Map<string, [string, string]>();
  const prefix = (layer: Layer) => (layer === 'chunk' ? 'chunk:' : 'entity:');
  for (const c of ranked) {
    if (!packedIds.has(c.id)) continue;
    for (const v of c.nodes) nodes.add(prefix(c.layer) + keyOf(index, c.layer, v));
    for (const [a, b] of c.edges) {
      const x = prefix(c.layer) + keyOf(index, c.layer, a);
      const y = prefix(c.layer) + keyOf(index, c.layer, b);
      const pair: [string, string] = x < y ? [x, y] : [y, x];
      edges.set(JSON.stringify(pair), pair);
    }
  }
  const chosenK: Partial<Record<Layer, number[]>> = {};
  for (const c of ranked) {
    if (!packedIds.has(c.id) || c.ks.length === 0) continue;
    chosenK[c.layer] = [...(chosenK[c.layer] ?? []), ...c.ks].sort((a, b) => a - b);
  }
  const communities: TracedCommunity[] = ranked.map((c) => ({
    id: c.id,
    layer: c.layer,
    k: c.ks,
    nodes: c.nodes.map((v) => keyOf(index, c.layer, v)),
    edges: c.edges.map(([a, b]) => [keyOf(index, c.layer, a), keyOf(index, c.layer, b)]),
    qrScore: c.qrScore,
    initialQrScore: c.initialQrScore,
    score: c.score,
    report: c.report,
    packed: packedIds.has(c.id),
  }));
  return {
    context: packed.context,
    items: packed.items,
    tokens: packed.tokens,
    subgraph: { nodes: [...nodes], edges: [...edges.values()] },
    trace: {
      method: methodName,
      retrieval: q.acs ? 'eacs' : '1-hop',
      relevance: q.relevance,
      chunkLayer: q.chunkLayer,
      similarityLayer: useSim,
      scoring: q.reports || scoreBy === 'evidence' ? scoreBy : 'qrscore',
      layers,
      anchor,
      chosenK,
      communities,
      assessCalls,
      parseIssues,
      budgetTokens: budget,
      ranked: items.length,
      packed: packed.items.length,
      truncated: packed.truncated,
      ms: { ...ms, total: performance.now() - started },
    },
  };
}

/**
 * Relevance of every node to the query: cosine (`'dense'`), BM25 scaled to the best hit
 * (`'lexical'`), or reciprocal-rank fusion of both over the top {@link RELEVANCE_DEPTH} of each,
 * scaled to the best (`'hybrid'`). Nodes outside the lexical (or fused) lists get 0.
 */
function nodeRelevance(
  mode: DaRagQueryOptions['relevance'],
  query: string,
  queryUnit: Float32Array | undefined,
  vectors: readonly Float32Array[],
  lexical: () => Bm25Index,
): Float64Array {
  const n = vectors.length;
  if (mode === 'dense') return cosines(queryUnit!, vectors, identity(n));
  const bm25 = lexical().search(query, mode === 'lexical' ? n : RELEVANCE_DEPTH);
  const out = new Float64Array(n);
  if (mode === 'lexical') {
    const top = bm25[0]?.score ?? 0;
    if (top > 0) for (const hit of bm25) out[hit.id] = hit.score / top;
    return out;
  }
  const dense = cosines(queryUnit!, vectors, identity(n));
  const denseTop = Array.from(dense.keys())
    .sort((a, b) => dense[b]! - dense[a]! || a - b)
    .slice(0, RELEVANCE_DEPTH)
    .map((id) => ({ id, score: dense[id]! }));
  // Scaled so that first place in both lists is 1.
  const scale = 2 / (RRF_K + 1);
  for (const hit of reciprocalRankFusion([denseTop, bm25])) out[hit.id] = hit.score / scale;
  return out;
}

/** Hits of each list fused by `'hybrid'` relevance. */
export const RELEVANCE_DEPTH = 100;

/** The "entry points only" retrieval: chunks by relevance, packed in that order, no graph step. */
function entryPointsOnly(
  index: DaRagIndex,
  q: DaRagQueryOptions,
  rel: Float64Array,
  budget: number,
  topK: number | undefined,
  methodName: string,
  ms: Record<string, number>,
): Retrieval {
  const order = byRelevance(identityArray(index.chunks.length), rel).slice(0, topK ?? 200);
  const items: RetrievedItem[] = order.map((i) => ({
    id: index.chunks[i]!.id,
    kind: 'chunk',
    text: index.texts[i]!,
    score: rel[i]!,
    source: { chunkIds: [index.chunks[i]!.id], docIds: [index.chunks[i]!.docId] },
  }));
  const packed = packContext(items, budget, { tokenizer: index.ctx.tokenizer });
  return {
    context: packed.context,
    items: packed.items,
    tokens: packed.tokens,
    trace: {
      method: methodName,
      retrieval: 'entry-points',
      relevance: q.relevance,
      assessCalls: 0,
      budgetTokens: budget,
      ranked: items.length,
      packed: packed.items.length,
      truncated: packed.truncated,
      ms,
    },
  };
}

function communityText(c: Candidate, mode: DaRagQueryOptions['communityText']): string {
  if (mode === 'members' || c.report === '') return c.members;
  if (mode === 'report') return c.report;
  return `${c.report}\n\n${c.members}`;
}

/** Cosine of the unit query with the unit vectors of `nodes` (a dot product: index vectors are unit length). */
function cosines(
  query: Float32Array,
  vectors: readonly Float32Array[],
  nodes: ArrayLike<number>,
): Float64Array {
  const out = new Float64Array(nodes.length);
  const d = query.length;
  for (let i = 0; i < nodes.length; i++) {
    const v = vectors[nodes[i]!]!;
    let s = 0;
    for (let c = 0; c < d; c++) s += query[c]! * v[c]!;
    out[i] = s;
  }
  return out;
}

function identity(n: number): Uint32Array {
  const out = new Uint32Array(n);
  for (let i = 0; i < n; i++) out[i] = i;
  return out;
}

function identityArray(n: number): number[] {
  return Array.from({ length: n }, (_, i) => i);
}
