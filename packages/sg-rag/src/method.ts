import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  assertKnownOptions,
  assertSameProviders,
  type BuildContext,
  startBuild,
  type Chunk,
  checkIndexFile,
  checkVectorRows,
  chunkDocuments,
  cosineSimilarity,
  DEFAULT_BUDGET_TOKENS,
  embedAll,
  type GraphExtraction,
  InvalidArgumentError,
  indexFileError,
  indexVectors,
  isFittableEmbedder,
  KnowledgeGraphBuilder,
  MANIFEST_FILE,
  type Method,
  modelFingerprint,
  optionKeys,
  packContext,
  type QueryGraph,
  type Retrieval,
  type RetrievedItem,
  type RetrieveOptions,
  readBinary,
  readJson,
  readManifest,
  restoreEmbedderState,
  type Schema,
  saveEmbedderState,
  shapeIssue,
  type VectorIndex,
  v,
  validate,
  writeIndexDir,
  writeJson,
} from '@grag/core';
import {
  createStarGraph,
  createTrainingFreeEmbedder,
  type DominanceEmbedder,
  loadDominanceEmbedder,
  pathEmbedding,
} from '@grag/dominance-gnn';
import { RStarTree } from '@grag/rstar-index';
import {
  type Adjacency,
  adjacencyOf,
  edgeSentences,
  enumeratePaths,
  graphFromTriples,
  pairKey,
  type SgEdge,
  type SgGraph,
  type Triple,
} from './kg.js';
import {
  assembleSubgraphs,
  completeLabels,
  decomposeQuery,
  type Embedding,
  labelCombinations,
  type NormalizedQueryGraph,
  type PathCandidate,
  type PathIndexView,
  retrievePath,
} from './plan.js';

/** Build options of SG-RAG. */
export interface SgRagOptions {
  /**
   * Index these triples instead of extracting a graph from the documents (FB15k-237 and other
   * knowledge graphs). The documents passed to `build` are then ignored.
   */
  triples?: Triple[];
  /** Entity id → text (entity2text); ids without one are their own label. */
  entityText?: Record<string, string> | ReadonlyMap<string, string>;
  /** Relation id → text (relation2text); ids without one are their own text. */
  relationText?: Record<string, string> | ReadonlyMap<string, string>;
  /** Edges per indexed path, l. @default 1 (SG-RAG §5.1 uses l = 1 unless stated; Table 6 compares 1 and 2) */
  pathLength: 1 | 2;
  /** Dominance embedding dimensions per node, d. @default 2 (GNN-PE code: a linear layer to 2 dims) */
  dominanceDimensions: number;
  /** Seed of the training-free label vectors. @default 2022 (GNN-PE code) */
  seed: number;
  /** For `pathLength: 2`, middle nodes of higher degree are skipped (their deg² paths dominate). @default 300 */
  maxMiddleDegree: number;
  /** R*-tree node capacity M. @default 16 */
  nodeCapacity: number;
  /** Tokens per chunk when a graph is extracted from documents. @default 1200 (GraphRAG) */
  chunkSize: number;
  /** Tokens shared by consecutive chunks. @default 100 */
  overlap: number;
}

/** Defaults of {@link SgRagOptions}. */
export const SG_RAG_DEFAULTS: SgRagOptions = {
  pathLength: 1,
  dominanceDimensions: 2,
  seed: 2022,
  maxMiddleDegree: 300,
  nodeCapacity: 16,
  chunkSize: 1200,
  overlap: 100,
};

/** Retrieval strategies: SG-RAG itself and the graph baselines of SG-RAG Table 3. */
export type SgRagMode = 'sg-rag' | 'entity' | 'one-hop' | 'two-hop';

/** Retrieve options of SG-RAG. */
export interface SgRagRetrieveOptions extends RetrieveOptions {
  /** Use this query graph instead of calling the `extractQueryGraph` task. */
  queryGraph?: QueryGraph;
  /** `'sg-rag'` (default) or a Table 3 baseline: `'entity'`, `'one-hop'`, `'two-hop'`. */
  mode?: SgRagMode;
  /** Cap on candidate labels per unknown node (Algorithm 5). @default 1000 */
  maxLabelCandidates?: number;
  /** Cap on label combinations (Algorithm 6). @default 1000 */
  maxLabelCombinations?: number;
  /** Cap on assembled subgraphs (Algorithm 8). @default 100 */
  maxMatches?: number;
  /**
   * Also require each query edge's relation (and direction) on the matched data edge. SG-RAG matches
   * structure and node labels only. @default false
   */
  matchRelations?: boolean;
  /** Facts gathered for the fallback and the hop baselines before ranking. @default 2000 */
  maxGatheredFacts?: number;
}

/** Defaults of the numeric {@link SgRagRetrieveOptions}. */
export const SG_RAG_RETRIEVE_DEFAULTS = {
  mode: 'sg-rag' as SgRagMode,
  maxLabelCandidates: 1000,
  maxLabelCombinations: 1000,
  maxMatches: 100,
  matchRelations: false,
  maxGatheredFacts: 2000,
};

/** Every build option key (the triple input included); others are refused. */
const BUILD_OPTION_KEYS = optionKeys<SgRagOptions>({
  ...SG_RAG_DEFAULTS,
  triples: undefined,
  entityText: undefined,
  relationText: undefined,
});
/** Every retrieve option key; others are refused. */
const RETRIEVE_OPTION_KEYS = optionKeys<SgRagRetrieveOptions>({
  budgetTokens: undefined,
  topK: undefined,
  signal: undefined,
  queryGraph: undefined,
  ...SG_RAG_RETRIEVE_DEFAULTS,
});

/** A built SG-RAG index. */
export interface SgRagIndex {
  ctx: BuildContext;
  options: Omit<SgRagOptions, 'triples' | 'entityText' | 'relationText'>;
  graph: SgGraph;
  adjacency: Adjacency;
  /** Label embeddings o_0(v) of every node, for entity normalization. */
  labelVectors: VectorIndex;
  /** The path index I_l (Eq. 4). */
  paths: PathIndexView;
  stats: Record<string, number>;
}

function toMap(m: Record<string, string> | ReadonlyMap<string, string> | undefined): Map<string, string> {
  if (!m) return new Map();
  return m instanceof Map ? new Map(m) : new Map(Object.entries(m as Record<string, string>));
}

/**
 * The data graph of per-chunk extractions (in chunk order), merged with core's
 * `KnowledgeGraphBuilder`; relation descriptions become the edge facts.
 */
function graphFromExtractions(
  chunks: readonly Chunk[],
  extractions: readonly GraphExtraction[],
): { graph: SgGraph; skipped: number } {
  const builder = new KnowledgeGraphBuilder();
  chunks.forEach((chunk, i) => {
    builder.addExtraction(extractions[i]!, { chunkId: chunk.id, docId: chunk.docId });
  });
  const kg = builder.build();
  const ids = [...kg.entities.keys()];
  const index = new Map(ids.map((id, i) => [id, i]));
  const edges: SgEdge[] = [];
  for (const r of kg.relations.values()) {
    const s = index.get(r.source);
    const t = index.get(r.target);
    if (s === undefined || t === undefined || s === t) continue;
    const a = Math.min(s, t);
    const b = Math.max(s, t);
    const descriptions = r.descriptions.length > 0 ? r.descriptions : ['related'];
    edges.push({
      a,
      b,
      facts: descriptions.map((relation) => ({ relation, forward: s === a })),
      chunkIds: [...r.chunkIds],
      docIds: [...new Set(r.chunkIds.map((c) => kg.chunkDocs.get(c)).filter((d): d is string => !!d))],
    });
  }
  const entities = [...kg.entities.values()];
  return {
    graph: {
      ids,
      labels: entities.map((e) => e.name),
      descriptions: entities.map((e) => e.descriptions.join(' ')),
      edges,
    },
    skipped: kg.skipped.length,
  };
}

function buildPathIndex(
  graph: SgGraph,
  adjacency: Adjacency,
  opts: SgRagIndex['options'],
): { paths: PathIndexView; skippedMiddles: number } {
  const labels = new Map(graph.ids.map((_, i) => [String(i), String(i)]));
  const star = createStarGraph(
    labels,
    graph.edges.map((e) => [String(e.a), String(e.b)] as const),
  );
  const embedder = createTrainingFreeEmbedder({ dimensions: opts.dominanceDimensions, seed: opts.seed });
  const rows = embedder.embedGraph(star);
  const enumeration = enumeratePaths(graph, adjacency, opts.pathLength, opts.maxMiddleDegree);
  const k = opts.pathLength + 1;
  const tree = new RStarTree({
    dimensions: k * opts.dominanceDimensions,
    labelDimensions: k,
    nodeCapacity: opts.nodeCapacity,
  });
  for (let p = 0; p < enumeration.count; p++) {
    const nodes = Array.from(enumeration.nodes.subarray(p * k, p * k + k));
    // Star graph rows follow the label map's order, which is node order.
    tree.add(pathEmbedding(rows, nodes), undefined, nodes);
  }
  tree.finish();
  return {
    paths: {
      tree,
      pathNodes: enumeration.nodes,
      pathLength: opts.pathLength,
      dimensions: opts.dominanceDimensions,
      embedder,
    },
    skippedMiddles: enumeration.skippedMiddles,
  };
}

function checkOptions(opts: SgRagOptions): void {
  if (opts.pathLength !== 1 && opts.pathLength !== 2) {
    throw new InvalidArgumentError(
      'pathLength',
      `sg-rag build: pathLength must be 1 or 2, got ${opts.pathLength}.`,
    );
  }
  if (!Number.isInteger(opts.dominanceDimensions) || opts.dominanceDimensions < 1) {
    throw new InvalidArgumentError(
      'dominanceDimensions',
      `sg-rag build: dominanceDimensions must be a positive integer, got ${opts.dominanceDimensions}.`,
    );
  }
}

interface NormalizedNode {
  queryNode: string;
  label: string | null;
  node: string | null;
  nodeLabel: string | null;
  similarity: number | null;
  exact: boolean;
}

/** Entity normalization (SG-RAG Algorithm 3): each labelled query node → nearest data node label. */
async function normalize(
  index: SgRagIndex,
  qg: QueryGraph,
  signal: AbortSignal | undefined,
): Promise<{ q: NormalizedQueryGraph; report: NormalizedNode[]; droppedEdges: number }> {
  const exact = new Map<string, number>();
  index.graph.labels.forEach((l, i) => {
    const key = l.trim().toLowerCase();
    if (!exact.has(key)) exact.set(key, i);
  });
  const labelled = qg.nodes.filter((n) => n.label !== null);
  const vectors = labelled.length
    ? await embedAll(
        index.ctx.embedder,
        labelled.map((n) => n.label!),
        { abortSignal: signal },
      )
    : [];
  const report: NormalizedNode[] = [];
  const position = new Map<string, number>();
  const nodes: NormalizedQueryGraph['nodes'] = [];
  let v = 0;
  for (const n of qg.nodes) {
    if (position.has(n.id)) continue;
    position.set(n.id, nodes.length);
    if (n.label === null) {
      nodes.push({ id: n.id, node: null, isTarget: n.isTarget });
      report.push({
        queryNode: n.id,
        label: null,
        node: null,
        nodeLabel: null,
        similarity: null,
        exact: false,
      });
      continue;
    }
    const vector = vectors[v++]!;
    const hit = index.labelVectors.search(vector, 1)[0];
    const exactNode = exact.get(n.label.trim().toLowerCase());
    const node = exactNode ?? hit?.id;
    if (node === undefined) {
      nodes.push({ id: n.id, node: null, isTarget: n.isTarget });
      report.push({
        queryNode: n.id,
        label: n.label,
        node: null,
        nodeLabel: null,
        similarity: null,
        exact: false,
      });
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

function provenance(edges: readonly SgEdge[]): { chunkIds: string[]; docIds: string[] } {
  return {
    chunkIds: [...new Set(edges.flatMap((e) => e.chunkIds))],
    docIds: [...new Set(edges.flatMap((e) => e.docIds))],
  };
}

/** Facts of the edges within `hops` of the seeds, breadth first, at most `limit` edges. */
function gatherEdges(index: SgRagIndex, seeds: readonly number[], hops: number, limit: number): number[] {
  const { neighbours, edgeOf } = index.adjacency;
  const edges = new Set<number>();
  let frontier = [...new Set(seeds)];
  const seen = new Set(frontier);
  for (let h = 0; h < hops && edges.size < limit; h++) {
    const next: number[] = [];
    for (const n of frontier) {
      for (const m of neighbours[n]!) {
        if (edges.size >= limit) break;
        edges.add(edgeOf[n]!.get(m)!);
        if (!seen.has(m)) {
          seen.add(m);
          next.push(m);
        }
      }
    }
    frontier = next;
  }
  return [...edges];
}

/**
 * The offline answerer for context that is not an exact match: entities of the retrieved facts
 * (other than the query's own) linked to the most query entities; ties all kept.
 */
function coverageAnswers(
  index: SgRagIndex,
  edgeIds: readonly number[],
  known: ReadonlySet<number>,
): string[] {
  const links = new Map<number, Set<number>>();
  for (const id of edgeIds) {
    const e = index.graph.edges[id]!;
    for (const [x, y] of [
      [e.a, e.b],
      [e.b, e.a],
    ] as const) {
      if (known.has(y) && !known.has(x)) {
        const s = links.get(x) ?? new Set<number>();
        links.set(x, s);
        s.add(y);
      }
    }
  }
  let best = 0;
  for (const s of links.values()) best = Math.max(best, s.size);
  if (best === 0) return [];
  return [...links].filter(([, s]) => s.size === best).map(([x]) => index.graph.labels[x]!);
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
  const [qv, ...vs] = await embedAll(index.ctx.embedder, [query, ...texts], { abortSignal: signal });
  return edgeIds
    .map((id, i) => ({ id, score: cosineSimilarity(qv!, vs[i]!), text: texts[i]! }))
    .sort((a, b) => b.score - a.score || a.id - b.id);
}

function finish(
  index: SgRagIndex,
  items: RetrievedItem[],
  subgraph: { nodes: Set<number>; edges: Set<number> },
  options: RetrieveOptions,
  trace: Record<string, unknown>,
): Retrieval {
  const packed = packContext(items, options.budgetTokens ?? DEFAULT_BUDGET_TOKENS, {
    tokenizer: index.ctx.tokenizer,
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

/** Settings of {@link createSgRag}. */
export interface SgRagSettings {
  /** Method name used in manifests and the CLI. @default 'sg-rag' */
  name?: string;
  defaults?: Partial<SgRagOptions>;
  /** Default retrieve options (mode, caps). */
  retrieveDefaults?: Partial<SgRagRetrieveOptions>;
}

/**
 * SG-RAG (Structure Guided RAG for factual queries): a knowledge graph — extracted from the
 * documents or loaded from triples — indexed as paths in an R*-tree keyed by label and dominance
 * embeddings; a query graph is normalized, decomposed into paths, completed, matched path by path and
 * assembled into exact subgraphs whose target bindings answer the question.
 */
export function createSgRag(
  settings: SgRagSettings = {},
): Method<SgRagIndex, SgRagOptions, SgRagRetrieveOptions> {
  const name = settings.name ?? 'sg-rag';
  const formatVersion = 1;

  const retrieve = async (
    index: SgRagIndex,
    query: string,
    options: SgRagRetrieveOptions = {},
  ): Promise<Retrieval> => {
    assertKnownOptions(`${name} retrieve`, options, RETRIEVE_OPTION_KEYS);
    const o = { ...SG_RAG_RETRIEVE_DEFAULTS, ...settings.retrieveDefaults, ...options };
    const started = performance.now();
    const timings: Record<string, number> = {};
    const time = async <T>(stage: string, fn: () => T | Promise<T>): Promise<T> => {
      const t0 = performance.now();
      const r = await fn();
      timings[stage] = performance.now() - t0;
      return r;
    };
    const qg =
      o.queryGraph ??
      (await time('extractQueryGraph', () =>
        index.ctx.tasks.extractQueryGraph(query, { abortSignal: o.signal }),
      ));
    const { q, report, droppedEdges } = await time('normalize', () => normalize(index, qg, o.signal));
    const known = new Set(q.nodes.flatMap((n) => (n.node === null ? [] : [n.node])));
    const trace: Record<string, unknown> = {
      method: name,
      mode: o.mode,
      queryGraph: { nodes: qg.nodes, edges: qg.edges, issues: qg.issues.length, droppedEdges },
      normalization: report,
    };
    const { graph } = index;

    const fallback = async (hops: number, reason: string): Promise<Retrieval> => {
      const edgeIds = gatherEdges(index, [...known], hops, o.maxGatheredFacts);
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
      const answers = coverageAnswers(index, edgeIds, known);
      return finish(index, items, { nodes, edges: new Set(edgeIds) }, o, {
        ...trace,
        fallback: o.mode === 'sg-rag',
        fallbackReason: o.mode === 'sg-rag' ? reason : undefined,
        hops,
        gatheredFacts: edgeIds.length,
        answers,
        answerSource: 'coverage',
        timings,
        ms: performance.now() - started,
      });
    };

    if (o.mode === 'entity') {
      const items: RetrievedItem[] = [...known].map((n) => ({
        id: `entity:${graph.ids[n]}`,
        kind: 'entity',
        text: graph.descriptions[n] ? `${graph.labels[n]}: ${graph.descriptions[n]}` : graph.labels[n]!,
        score: 1,
        source: provenance(
          index.adjacency.neighbours[n]!.map((m) => graph.edges[index.adjacency.edgeOf[n]!.get(m)!]!),
        ),
      }));
      return finish(index, items, { nodes: new Set(known), edges: new Set() }, o, {
        ...trace,
        answers: [],
        timings,
        ms: performance.now() - started,
      });
    }
    if (o.mode === 'one-hop') return fallback(1, 'baseline');
    if (o.mode === 'two-hop') return fallback(2, 'baseline');
    if (o.mode !== 'sg-rag') {
      throw new InvalidArgumentError(
        'mode',
        `sg-rag retrieve: unknown mode "${o.mode}"; use ${Object.keys({ 'sg-rag': 1, entity: 1, 'one-hop': 1, 'two-hop': 1 }).join(', ')}.`,
      );
    }
    if (q.edges.length === 0) return fallback(1, 'the query graph has no edges');

    const paths = await time('decompose', () => decomposeQuery(q, index.paths.pathLength));
    const completion = await time('complete', () =>
      completeLabels(q, paths, index.paths, o.maxLabelCandidates, (n) => index.adjacency.neighbours[n]!),
    );
    const combos = labelCombinations(q, completion.candidates, o.maxLabelCombinations);
    const k = index.paths.pathLength + 1;
    const { edgeOf } = index.adjacency;
    const edgeOk = (qe: number, a: number, b: number): boolean => {
      const e = edgeOf[a]!.get(b);
      if (e === undefined) return false;
      if (!o.matchRelations) return true;
      const want = q.edges[qe]!;
      const rel = want.relation.trim().toLowerCase();
      const edge = graph.edges[e]!;
      // Query edge source → target must read as a fact from a to b.
      return edge.facts.some((f) => f.relation.trim().toLowerCase() === rel && f.forward === (edge.a === a));
    };
    const matches: Embedding[] = [];
    let visited = 0;
    let conflicts = 0;
    let injectivityConflicts = 0;
    const t0 = performance.now();
    for (const binding of combos.bindings) {
      if (matches.length >= o.maxMatches) break;
      const lists: PathCandidate[][] = [];
      for (const path of paths) {
        if (path.length === k) {
          const r = retrievePath(q, path, binding, index.paths);
          visited += r.visited;
          lists.push(r.candidates);
        } else {
          const nodes = path.map((n) => q.nodes[n]!.node ?? binding.get(n)!);
          lists.push(edgeOf[nodes[0]!]!.has(nodes[1]!) ? [{ pathId: -1, nodes }] : []);
        }
        if (lists.at(-1)!.length === 0) break;
      }
      if (lists.length < paths.length || lists.some((l) => l.length === 0)) continue;
      const assembled = assembleSubgraphs(q, paths, lists, edgeOk, o.maxMatches - matches.length);
      conflicts += assembled.conflicts;
      injectivityConflicts += assembled.injectivityConflicts;
      matches.push(...assembled.matches);
    }
    timings.match = performance.now() - t0;
    Object.assign(trace, {
      decomposition: paths.map((p) => p.map((n) => q.nodes[n]!.id)),
      completion: {
        candidates: Object.fromEntries(
          [...completion.candidates].map(([u, c]) => [q.nodes[u]!.id, c.length]),
        ),
        capped: completion.capped.map((u) => q.nodes[u]!.id),
        visited: completion.visited,
        combinations: combos.bindings.length,
        combinationConflicts: combos.conflicts,
        combinationsCapped: combos.capped,
      },
      matching: { visited, conflicts, injectivityConflicts, matches: matches.length },
    });
    if (matches.length === 0) return fallback(1, 'no subgraph matches every constraint');

    const targets = q.nodes.some((n) => n.isTarget)
      ? q.nodes.flatMap((n, i) => (n.isTarget ? [i] : []))
      : q.nodes.flatMap((n, i) => (n.node === null ? [i] : []));
    const answers = [
      ...new Set(matches.flatMap((m) => targets.flatMap((t) => (m[t]! >= 0 ? [graph.labels[m[t]!]!] : [])))),
    ];
    const nodes = new Set<number>();
    const edges = new Set<number>();
    const items: RetrievedItem[] = matches.map((m, i) => {
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
        score: 1 / (i + 1),
        source: provenance(used),
      };
    });
    return finish(index, items, { nodes, edges }, o, {
      ...trace,
      fallback: false,
      answers,
      answerSource: 'bindings',
      bindings: matches.map((m) =>
        Object.fromEntries(m.flatMap((n, i) => (n >= 0 ? [[q.nodes[i]!.id, graph.ids[n]!]] : []))),
      ),
      timings,
      ms: performance.now() - started,
    });
  };

  return {
    name,
    description:
      'SG-RAG: query graph -> path decomposition -> dominance embeddings in an R*-tree -> exact subgraphs',
    capabilities: { uses: ['embedder', 'tasks', 'vectorIndex'], triples: true },
    formatVersion,
    optionKeys: { build: BUILD_OPTION_KEYS, retrieve: RETRIEVE_OPTION_KEYS },
    async build(docs, ctx, options = {}) {
      assertKnownOptions(`${name} build`, options, BUILD_OPTION_KEYS);
      const opts: SgRagOptions = { ...SG_RAG_DEFAULTS, ...settings.defaults, ...options };
      checkOptions(opts);
      const { triples, entityText, relationText, ...stored } = opts;
      const stats: Record<string, number> = {};
      const rt = startBuild(ctx);
      let graph: SgGraph;
      if (triples) {
        graph = await rt.stage(
          'graph',
          () => {
            const r = graphFromTriples(triples, toMap(entityText), toMap(relationText));
            stats.skippedSelfLoops = r.skippedSelfLoops;
            return r.graph;
          },
          { checkpoint: false },
        );
      } else {
        if (docs.length === 0) {
          throw new InvalidArgumentError(
            'docs',
            'sg-rag build: the corpus is empty; pass documents or `options.triples`.',
          );
        }
        const chunks = await rt.stage(
          'chunk',
          () =>
            chunkDocuments(docs, {
              chunkSize: opts.chunkSize,
              overlap: opts.overlap,
              tokenizer: ctx.tokenizer,
            }),
          { checkpoint: false },
        );
        // One extractGraph call per chunk; the extractions (plain data) are the checkpoint.
        const extractions = await rt.stage('extract', () =>
          rt.map(chunks, (chunk) => ctx.tasks.extractGraph(chunk.text, { abortSignal: ctx.signal }), {
            label: (chunk) => chunk.id,
            unit: 'chunks',
          }),
        );
        graph = await rt.stage(
          'graph',
          () => {
            const r = graphFromExtractions(chunks, extractions);
            stats.skippedExtractions = r.skipped;
            return r.graph;
          },
          { checkpoint: false },
        );
      }
      if (graph.edges.length === 0) {
        throw new InvalidArgumentError(
          triples ? 'triples' : 'docs',
          'sg-rag build: the knowledge graph has no edges; pass triples or documents with relations.',
        );
      }
      const adjacency = adjacencyOf(graph);
      const { embedder } = ctx;
      if (isFittableEmbedder(embedder)) {
        await rt.stage('fit', () => embedder.fit(graph.labels), { checkpoint: false });
      }
      const vectors = await rt.stage('embed', () =>
        rt.embed(graph.labels, { label: (label) => `entity label "${label}"` }),
      );
      const labelVectors = await rt.stage(
        'vector-index',
        () => indexVectors(ctx.vectorIndex, vectors, { dimensions: embedder.dimensions }),
        { checkpoint: false },
      );
      const { paths, skippedMiddles } = await rt.stage(
        'paths',
        () => buildPathIndex(graph, adjacency, stored),
        { checkpoint: false },
      );
      Object.assign(stats, {
        nodes: graph.ids.length,
        edges: graph.edges.length,
        facts: graph.edges.reduce((s, e) => s + e.facts.length, 0),
        paths: paths.tree.size,
        skippedMiddles,
      });
      return { ctx, options: stored, graph, adjacency, labelVectors, paths, stats };
    },
    retrieve,
    async save(index, dir) {
      const { ctx } = index;
      await writeIndexDir(
        dir,
        {
          method: name,
          formatVersion,
          params: { ...index.options },
          providers: { embedder: modelFingerprint(ctx.embedder), vectorIndex: index.labelVectors.kind },
          stats: index.stats,
        },
        async (tmp) => {
          await writeJson(join(tmp, 'graph.json'), index.graph);
          await writeFile(join(tmp, 'paths.bin'), new Uint8Array(index.paths.pathNodes.buffer.slice(0)));
          await writeFile(join(tmp, 'tree.bin'), index.paths.tree.save());
          await writeJson(join(tmp, 'dominance.json'), index.paths.embedder.toJSON());
          await index.labelVectors.save(join(tmp, 'labels.bin'));
          await saveEmbedderState(ctx.embedder, tmp);
        },
      );
    },
    async load(dir, ctx) {
      const manifest = await readManifest(dir, { method: name, formatVersion });
      assertSameProviders(dir, manifest, {
        embedder: modelFingerprint(ctx.embedder),
        vectorIndex: ctx.vectorIndex.kind,
      });
      await restoreEmbedderState(ctx.embedder, dir);
      const options = validate(
        paramsSchema,
        manifest.params,
        `${join(dir, MANIFEST_FILE)} params`,
      ) as unknown as SgRagIndex['options'];
      const graphPath = join(dir, 'graph.json');
      const graph = await readJson(graphPath, graphSchema);
      checkIndexFile(graphPath, () => checkGraph(graph));
      const n = graph.ids.length;
      const k = options.pathLength + 1;
      const pathsPath = join(dir, 'paths.bin');
      const bytes = await readBinary(pathsPath);
      if (bytes.byteLength % (4 * k) !== 0) {
        throw indexFileError(
          pathsPath,
          `holds ${bytes.byteLength} bytes, not a whole number of ${k}-node paths`,
        );
      }
      const pathNodes = new Int32Array(
        bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength),
      );
      const badNode = pathNodes.findIndex((node) => node < 0 || node >= n);
      if (badNode >= 0) {
        throw indexFileError(
          pathsPath,
          `path ${Math.floor(badNode / k)} names node ${pathNodes[badNode]}, not one of the ${n} nodes`,
        );
      }
      const treePath = join(dir, 'tree.bin');
      const tree = RStarTree.load(await readBinary(treePath), treePath);
      const pathCount = pathNodes.length / k;
      const treeProblem =
        tree.dimensions !== k * options.dominanceDimensions || tree.labelDimensions !== k
          ? `indexes ${tree.dimensions}-dimensional keys, expected ${k * options.dominanceDimensions}`
          : tree.size !== pathCount
            ? `holds ${tree.size} paths, but paths.bin holds ${pathCount}`
            : undefined;
      if (treeProblem !== undefined) throw indexFileError(treePath, treeProblem);
      for (let id = 0; id < pathCount; id++) {
        if (!tree.has(id)) throw indexFileError(treePath, `has no entry for path ${id}`);
      }
      const dominancePath = join(dir, 'dominance.json');
      const dominance = await readJson(dominancePath, dominanceSchema);
      let embedder: DominanceEmbedder;
      try {
        embedder = loadDominanceEmbedder(dominance);
      } catch (error) {
        // The embedder checks its own weights; name the file they came from.
        throw indexFileError(dominancePath, (error as Error).message.replace(/\.$/, ''), { cause: error });
      }
      if (embedder.dimensions !== options.dominanceDimensions) {
        throw indexFileError(
          dominancePath,
          `holds a ${embedder.dimensions}-dimensional embedder, expected ${options.dominanceDimensions}`,
        );
      }
      const labelsPath = join(dir, 'labels.bin');
      const labelVectors = await ctx.vectorIndex.load(labelsPath);
      checkVectorRows(labelVectors, { count: n, dimensions: ctx.embedder.dimensions }, labelsPath);
      return {
        ctx,
        options,
        graph,
        adjacency: adjacencyOf(graph),
        labelVectors,
        paths: {
          tree,
          pathNodes,
          pathLength: options.pathLength,
          dimensions: options.dominanceDimensions,
          embedder,
        },
        stats: validate(v.record(v.number()), manifest.stats ?? {}, `${join(dir, MANIFEST_FILE)} stats`),
      };
    },
  };
}

const paramsSchema = v.object({
  pathLength: v.literal(1, 2),
  dominanceDimensions: v.int({ min: 1, max: 4096 }),
  seed: v.optional(v.int()),
  maxMiddleDegree: v.optional(v.int({ min: 0 })),
  nodeCapacity: v.optional(v.int({ min: 2 })),
});

const strings = v.array(v.string());
const graphSchema: Schema<SgGraph> = v.object({
  ids: strings,
  labels: strings,
  descriptions: strings,
  edges: v.array(
    v.object({
      a: v.int({ min: 0 }),
      b: v.int({ min: 0 }),
      facts: v.array(v.object({ relation: v.string(), forward: v.boolean() })),
      chunkIds: strings,
      docIds: strings,
    }),
  ),
});

/** Node arrays agree, ids are distinct, and edges join two distinct nodes once. */
function checkGraph(graph: SgGraph): void {
  const n = graph.ids.length;
  if (graph.labels.length !== n) shapeIssue('labels', `has ${graph.labels.length} labels for ${n} nodes`);
  if (graph.descriptions.length !== n) {
    shapeIssue('descriptions', `has ${graph.descriptions.length} descriptions for ${n} nodes`);
  }
  if (new Set(graph.ids).size !== n) shapeIssue('ids', 'repeat an id');
  const pairs = new Set<number>();
  graph.edges.forEach((e, i) => {
    if (!(e.a < e.b && e.b < n))
      shapeIssue(`edges[${i}]`, `joins ${e.a} and ${e.b}, not two nodes a < b of ${n}`);
    const key = pairKey(e.a, e.b, n);
    if (pairs.has(key)) shapeIssue(`edges[${i}]`, 'repeats a pair of nodes');
    pairs.add(key);
  });
}

const dominanceSchema = v.object({
  format: v.literal('grag-dominance-embedder'),
  version: v.literal(1),
  kind: v.literal('training-free', 'gat', 'monotone-gat'),
  dimensions: v.int({ min: 1, max: 4096 }),
  seed: v.int(),
  config: v.record(v.union(v.number(), v.string(), v.boolean())),
  weights: v.record(v.array(v.number())),
});

/** SG-RAG with default settings; CLI name `sg-rag`. */
export const sgRag = createSgRag();
