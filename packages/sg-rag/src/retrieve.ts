import {
  DEFAULT_BUDGET_TOKENS,
  embedAll,
  type Provenance,
  type QueryGraph,
  type Retrieval,
  type RetrievedItem,
} from '@grag/core';
import { cosineSimilarity, packContext, searchVectors, withLocations } from '@grag/core/kit';
import { edgeSentences, type SgEdge } from './kg.js';
import { matchQueryGraph } from './match.js';
import { coverageAnswers, gatherEdges } from './neighbourhood.js';
import type { ResolvedRetrieveOptions } from './options.js';
import type { Embedding, NormalizedQueryGraph } from './query-graph.js';
import { rankMatches } from './rank.js';
import type { SgRagIndex } from './types.js';

/** Relation and question embeddings of the match ranking, per index. */
const relationVectors = new WeakMap<SgRagIndex, Map<string, Float32Array>>();

/** How one query node was normalized (the `normalization` trace). */
interface NormalizedNode {
  queryNode: string;
  label: string | null;
  node: string | null;
  nodeLabel: string | null;
  similarity: number | null;
  exact: boolean;
}

/**
 * Hits of the nearest-label search, of which the first is taken: every index ranks equal scores by
 * lower id, so labels of equal similarity go to the lowest node id, as an exact search gives them
 * (a search for one hit on an approximate index returns whichever of them it meets first). The
 * nearest label is the same: the search's breadth is at least this and its own.
 */
const LABEL_TIES = 4;

/**
 * Entity normalization (SG-RAG Algorithm 3): each labelled query node → nearest data node label;
 * with `exactFirst`, a node whose label equals a data node's (case-insensitive) takes that node
 * first (our addition). `labelEf` is the nearest-label search's breadth on an approximate index
 * (0: the index's own).
 */
async function normalize(
  index: SgRagIndex,
  qg: QueryGraph,
  exactFirst: boolean,
  labelEf: number,
  signal: AbortSignal | undefined,
): Promise<{ q: NormalizedQueryGraph; report: NormalizedNode[]; droppedEdges: number }> {
  const labelled = qg.nodes.filter((n) => n.label !== null);
  const vectors = labelled.length
    ? await embedAll(
        index.providers.embedder,
        labelled.map((n) => n.label!),
        { abortSignal: signal },
      )
    : [];
  const report: NormalizedNode[] = [];
  const position = new Map<string, number>();
  const nodes: NormalizedQueryGraph['nodes'] = [];
  const unbound = (queryNode: string, label: string | null): NormalizedNode => ({
    queryNode,
    label,
    node: null,
    nodeLabel: null,
    similarity: null,
    exact: false,
  });
  let v = 0;
  for (const n of qg.nodes) {
    if (position.has(n.id)) continue;
    position.set(n.id, nodes.length);
    if (n.label === null) {
      nodes.push({ id: n.id, node: null, isTarget: n.isTarget });
      report.push(unbound(n.id, null));
      continue;
    }
    const vector = vectors[v++]!;
    const hit = (
      await searchVectors(index.labelVectors, vector, LABEL_TIES, labelEf > 0 ? { ef: labelEf } : {})
    )[0];
    const exactNode = exactFirst ? index.exactLabels.get(n.label.trim().toLowerCase()) : undefined;
    const node = exactNode ?? hit?.id;
    if (node === undefined) {
      nodes.push({ id: n.id, node: null, isTarget: n.isTarget });
      report.push(unbound(n.id, n.label));
      continue;
    }
    nodes.push({ id: n.id, node, isTarget: n.isTarget });
    report.push({
      queryNode: n.id,
      label: n.label,
      node: index.graph.ids[node]!,
      nodeLabel: index.graph.labels[node]!,
      similarity: exactNode !== undefined ? 1 : hit!.score,
      exact: exactNode !== undefined,
    });
  }
  let droppedEdges = 0;
  const edges: NormalizedQueryGraph['edges'] = [];
  for (const e of qg.edges) {
    const s = position.get(e.source);
    const t = position.get(e.target);
    if (s === undefined || t === undefined || s === t) {
      droppedEdges++;
      continue;
    }
    edges.push({ source: s, target: t, relation: e.relation });
  }
  return { q: { nodes, edges }, report, droppedEdges };
}

/** The chunks, documents and locations of the facts on `edges` (none for an index of triples). */
function provenance(edges: readonly SgEdge[]): Provenance {
  return withLocations(
    {
      chunkIds: [...new Set(edges.flatMap((e) => e.chunkIds))],
      docIds: [...new Set(edges.flatMap((e) => e.docIds))],
    },
    edges.flatMap((e) => e.locations ?? []),
  );
}

/** Ranks edges by the best similarity of their fact sentences to the query (dense retrieval). */
async function rankEdges(
  index: SgRagIndex,
  query: string,
  edgeIds: readonly number[],
  signal: AbortSignal | undefined,
): Promise<{ id: number; score: number; text: string }[]> {
  if (edgeIds.length === 0) return [];
  const texts = edgeIds.map((id) => edgeSentences(index.graph, index.graph.edges[id]!).join(' '));
  const [qv, ...vs] = await embedAll(index.providers.embedder, [query, ...texts], { abortSignal: signal });
  return edgeIds
    .map((id, i) => ({ id, score: cosineSimilarity(qv!, vs[i]!), text: texts[i]! }))
    .sort((a, b) => b.score - a.score || a.id - b.id);
}

function finish(
  index: SgRagIndex,
  items: RetrievedItem[],
  subgraph: { nodes: Set<number>; edges: Set<number> },
  budgetTokens: number | undefined,
  trace: Record<string, unknown>,
): Retrieval {
  const packed = packContext(items, budgetTokens ?? DEFAULT_BUDGET_TOKENS, {
    tokenizer: index.providers.tokenizer,
  });
  const { graph } = index;
  return {
    context: packed.context,
    items: packed.items,
    tokens: packed.tokens,
    subgraph: {
      nodes: [...subgraph.nodes].map((n) => graph.ids[n]!),
      edges: [...subgraph.edges].map((e) => [graph.ids[graph.edges[e]!.a]!, graph.ids[graph.edges[e]!.b]!]),
    },
    trace: { ...trace, ranked: items.length, packed: packed.items.length, truncated: packed.truncated },
  };
}

/** One retrieval in progress: its query graph normalized, the timings and the trace so far. */
interface SgRun {
  index: SgRagIndex;
  query: string;
  o: ResolvedRetrieveOptions;
  started: number;
  stageMs: Record<string, number>;
  time: <T>(stage: string, fn: () => T | Promise<T>) => Promise<T>;
  q: NormalizedQueryGraph;
  /** The data nodes the query nodes were normalized to. */
  known: Set<number>;
  trace: Record<string, unknown>;
}

/**
 * One SG-RAG retrieval: the query graph (given, or from the `extractQueryGraph` task) is normalized
 * against the node labels, then matched exactly (`matchQueryGraph`); the matched subgraphs, ranked
 * by `rankMatches` (relation similarity to the query graph, by default), give the answers (target
 * bindings, best first) and their relation paragraphs are the context. Without an exact match — or in a Table 3 baseline mode — the facts
 * around the query entities, ranked by similarity to the query, are.
 */
export async function retrieveSgRag(
  index: SgRagIndex,
  query: string,
  o: ResolvedRetrieveOptions,
  method: string,
): Promise<Retrieval> {
  const started = performance.now();
  const stageMs: Record<string, number> = {};
  const time = async <T>(stage: string, fn: () => T | Promise<T>): Promise<T> => {
    const t0 = performance.now();
    const r = await fn();
    stageMs[stage] = performance.now() - t0;
    return r;
  };
  const qg =
    o.queryGraph ??
    (await time('extractQueryGraph', () =>
      index.providers.tasks.extractQueryGraph(query, { abortSignal: o.signal }),
    ));
  const { q, report, droppedEdges } = await time('normalize', () =>
    normalize(index, qg, o.exactLabelMatch, o.labelEf, o.signal),
  );
  const known = new Set(q.nodes.flatMap((n) => (n.node === null ? [] : [n.node])));
  const trace: Record<string, unknown> = {
    method,
    mode: o.mode,
    queryGraph: { nodes: qg.nodes, edges: qg.edges, issues: qg.issues.length, droppedEdges },
    normalization: report,
  };
  const run: SgRun = { index, query, o, started, stageMs, time, q, known, trace };
  if (o.mode === 'entity') return entityRetrieval(run);
  if (o.mode === 'one-hop') return factsAround(run, 1, 'baseline');
  if (o.mode === 'two-hop') return factsAround(run, 2, 'baseline');
  if (q.edges.length === 0) return factsAround(run, 1, 'the query graph has no edges');

  const m = matchQueryGraph({
    query: q,
    graph: index.graph,
    adjacency: index.adjacency,
    paths: index.paths,
    maxLabelCandidates: o.maxLabelCandidates,
    maxLabelCombinations: o.maxLabelCombinations,
    maxMatches: o.maxMatches,
    matchRelations: o.matchRelations,
  });
  Object.assign(stageMs, m.ms);
  const { matches, completion, combinations } = m;
  Object.assign(trace, {
    decomposition: m.decomposition.map((p) => p.map((n) => q.nodes[n]!.id)),
    completion: {
      candidates: Object.fromEntries([...completion.candidates].map(([u, c]) => [q.nodes[u]!.id, c.length])),
      capped: completion.capped.map((u) => q.nodes[u]!.id),
      visited: completion.visited,
      combinations: combinations.bindings.length,
      combinationConflicts: combinations.conflicts,
      combinationsCapped: combinations.capped,
    },
    matching: {
      visited: m.visited,
      conflicts: m.conflicts,
      injectivityConflicts: m.injectivityConflicts,
      matches: matches.length,
    },
  });
  if (matches.length === 0) return factsAround(run, 1, 'no subgraph matches every constraint');
  return subgraphRetrieval(run, matches);
}

/**
 * The facts around the query entities within `hops` hops, ranked by similarity to the query: the
 * one- and two-hop baselines, and SG-RAG's fallback (`reason`) when no subgraph matches.
 */
async function factsAround(run: SgRun, hops: number, reason: string): Promise<Retrieval> {
  const { index, query, o, time, known, trace, stageMs, started } = run;
  const { graph } = index;
  const edgeIds = gatherEdges({
    adjacency: index.adjacency,
    seeds: [...known],
    hops,
    limit: o.maxGatheredFacts,
  });
  const ranked = await time('rank', () => rankEdges(index, query, edgeIds, o.signal));
  const items: RetrievedItem[] = ranked.map(({ id, score, text }) => ({
    id: `fact:${graph.ids[graph.edges[id]!.a]}|${graph.ids[graph.edges[id]!.b]}`,
    kind: 'relation',
    text,
    score,
    source: provenance([graph.edges[id]!]),
  }));
  const nodes = new Set<number>(known);
  for (const { id } of ranked) {
    nodes.add(graph.edges[id]!.a);
    nodes.add(graph.edges[id]!.b);
  }
  return finish(index, items, { nodes, edges: new Set(edgeIds) }, o.budgetTokens, {
    ...trace,
    fallback: o.mode === 'sg-rag',
    fallbackReason: o.mode === 'sg-rag' ? reason : undefined,
    hops,
    gatheredFacts: edgeIds.length,
    answers: coverageAnswers(graph, edgeIds, known),
    answerSource: 'coverage',
    stageMs,
    ms: performance.now() - started,
  });
}

/** The `entity` baseline: the normalized query entities with their descriptions. */
function entityRetrieval(run: SgRun): Retrieval {
  const { index, o, known, trace, stageMs, started } = run;
  const { graph } = index;
  const { neighbours, edgeOf } = index.adjacency;
  const items: RetrievedItem[] = [...known].map((n) => ({
    id: `entity:${graph.ids[n]}`,
    kind: 'entity',
    text: graph.descriptions[n] ? `${graph.labels[n]}: ${graph.descriptions[n]}` : graph.labels[n]!,
    score: 1,
    source: provenance(neighbours[n]!.map((m) => graph.edges[edgeOf[n]!.get(m)!]!)),
  }));
  return finish(index, items, { nodes: new Set(known), edges: new Set() }, o.budgetTokens, {
    ...trace,
    answers: [],
    stageMs,
    ms: performance.now() - started,
  });
}

/**
 * The matched subgraphs, ranked by `rankMatches` (relation similarity to the query graph, by
 * default): the answers are the target bindings, best first, and each match's relation paragraph
 * is an item.
 */
async function subgraphRetrieval(run: SgRun, matches: Embedding[]): Promise<Retrieval> {
  const { index, query, o, time, q, trace, stageMs, started } = run;
  const { graph } = index;
  const cache = relationVectors.get(index) ?? new Map<string, Float32Array>();
  relationVectors.set(index, cache);
  const ranked =
    o.rankMatches === 'similarity'
      ? await time('rankMatches', () =>
          rankMatches({
            query: q,
            question: query,
            matches,
            graph,
            adjacency: index.adjacency,
            embedder: index.providers.embedder,
            cache,
            ...(o.signal ? { signal: o.signal } : {}),
          }),
        )
      : matches.map((_, match) => ({ match, score: 1 / (match + 1) }));
  const ordered = ranked.map((r) => matches[r.match]!);

  const targets = q.nodes.some((n) => n.isTarget)
    ? q.nodes.flatMap((n, i) => (n.isTarget ? [i] : []))
    : q.nodes.flatMap((n, i) => (n.node === null ? [i] : []));
  const answers = [
    ...new Set(ordered.flatMap((m) => targets.flatMap((t) => (m[t]! >= 0 ? [graph.labels[m[t]!]!] : [])))),
  ];
  const { edgeOf } = index.adjacency;
  const nodes = new Set<number>();
  const edges = new Set<number>();
  const items: RetrievedItem[] = ordered.map((m, i) => {
    const used: SgEdge[] = [];
    const sentences: string[] = [];
    for (const e of q.edges) {
      const id = edgeOf[m[e.source]!]!.get(m[e.target]!)!;
      edges.add(id);
      used.push(graph.edges[id]!);
      sentences.push(...edgeSentences(graph, graph.edges[id]!));
    }
    for (const n of m) if (n >= 0) nodes.add(n);
    return {
      id: `match:${m.map((n) => graph.ids[n] ?? '').join('|')}`,
      kind: 'subgraph',
      text: [...new Set(sentences)].join(' '),
      score: ranked[i]!.score,
      source: provenance(used),
    };
  });
  return finish(index, items, { nodes, edges }, o.budgetTokens, {
    ...trace,
    fallback: false,
    answers,
    answerSource: 'bindings',
    rankMatches: o.rankMatches,
    matchScores: ranked.map((r) => r.score),
    bindings: ordered.map((m) =>
      Object.fromEntries(m.flatMap((n, i) => (n >= 0 ? [[q.nodes[i]!.id, graph.ids[n]!]] : []))),
    ),
    stageMs,
    ms: performance.now() - started,
  });
}
