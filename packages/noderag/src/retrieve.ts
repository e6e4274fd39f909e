/**
 * NodeRAG retrieval (§2.5): entry points among the embedded nodes, query entities matched against
 * entity and overview names (dual search), shallow personalized PageRank from all entries with cross
 * nodes, and the retrievable nodes packed into the budget.
 */
import {
  DEFAULT_BUDGET_TOKENS,
  embedAll,
  InvalidArgumentError,
  type Retrieval,
  type SourceLocation,
  throwIfAborted,
} from '@grag/core';
import { normalizeEntityName } from '@grag/core/graph';
import { searchEntryPointsAsync } from '@grag/core/kit';
import { chunkLocations, countBy, nodeRetrieval } from './context.js';
import {
  NODERAG_PLAIN_TOP_K,
  type NodeRagQueryOptions,
  type NodeRagRetrieveOptions,
  resolveRetrieveOptions,
} from './options.js';
import type { NodeRagIndex } from './types.js';

/**
 * The personalization weight of each entry: exact-match entries weigh 1; the i-th vector entry
 * (0-based) 1, or 1/(i + 1) with `'rank'` weighting. A key that is both takes its vector weight.
 */
export function entryWeights(input: {
  exact: readonly string[];
  vector: readonly string[];
  weighting: NodeRagQueryOptions['entryWeighting'];
}): Map<string, number> {
  const weights = new Map<string, number>();
  for (const key of input.exact) weights.set(key, 1);
  input.vector.forEach((key, i) => {
    weights.set(key, input.weighting === 'rank' ? 1 / (i + 1) : 1);
  });
  return weights;
}

/** Chunk id → location of each index's chunks, made on the first retrieval (chunks do not change). */
const locationsByIndex = new WeakMap<NodeRagIndex, ReadonlyMap<string, SourceLocation>>();

function locationsOf(index: NodeRagIndex): ReadonlyMap<string, SourceLocation> {
  let locations = locationsByIndex.get(index);
  if (!locations) {
    locations = chunkLocations(index.chunks);
    locationsByIndex.set(index, locations);
  }
  return locations;
}

/**
 * Retrieve from a NodeRAG index: options resolved over `defaults` (the method's retrieval defaults)
 * and checked, naming `name` in errors.
 */
export async function retrieveNodeRag(
  index: NodeRagIndex,
  query: string,
  options: NodeRagRetrieveOptions,
  context: { name: string; defaults?: Partial<NodeRagRetrieveOptions> | undefined },
): Promise<Retrieval> {
  const started = performance.now();
  const { name } = context;
  const o = resolveRetrieveOptions(`${name} retrieve`, context.defaults, options, index.options.preset);
  if (typeof query !== 'string' || query.trim() === '') {
    throw new InvalidArgumentError('query', `${name} retrieve: the query is blank; pass a question.`);
  }
  throwIfAborted(o.signal);
  const { providers, graph, search } = index;
  const stageMs: Record<string, number> = {};
  const mark = (stage: string, since: number) => {
    stageMs[stage] = performance.now() - since;
    return performance.now();
  };
  let t = performance.now();
  const queryVector =
    o.entryPoints === 'lexical'
      ? undefined
      : (await embedAll(providers.embedder, [query], { abortSignal: o.signal }))[0];
  const entryPoints = async (k: number) =>
    (
      await searchEntryPointsAsync({
        mode: o.entryPoints,
        query,
        ...(queryVector ? { queryVector, vectors: index.vectors } : {}),
        lexical: index.lexical,
        k: Math.min(k, index.vectorKeys.length),
      })
    ).map((hit) => ({ key: index.vectorKeys[hit.id]!, score: hit.score }));
  const budget = o.budgetTokens ?? DEFAULT_BUDGET_TOKENS;
  const retrieval = (
    nodes: Parameters<typeof nodeRetrieval>[0]['nodes'],
    trace: Record<string, unknown>,
    subgraphNodes?: string[],
  ) =>
    nodeRetrieval({
      graph,
      tokenizer: providers.tokenizer,
      nodes,
      budget,
      trace: { ...trace, stageMs, ms: performance.now() - started },
      ...(subgraphNodes ? { subgraphNodes } : {}),
      locations: locationsOf(index),
    });

  if (!o.graphSearch) {
    // Ablation "w/o cross node": plain top-k similarity over every embedded node.
    const k = o.topK ?? NODERAG_PLAIN_TOP_K;
    const hits = await entryPoints(k);
    t = mark('vector', t);
    const nodes = hits.map((h) => ({ key: h.key, type: graph.node(h.key).type, score: h.score }));
    return retrieval(nodes, {
      method: name,
      mode: 'vector-only',
      entryPoints: o.entryPoints,
      topK: k,
      entries: { exact: 0, vector: hits.length },
      entryNodes: { exact: [], vector: hits.map((h) => h.key) },
    });
  }

  const vectorHits = await entryPoints(o.vectorTopK);
  t = mark('vector', t);
  let queryEntities: string[] = [];
  let exact: string[] = [];
  if (o.dualSearch) {
    const extraction = await providers.tasks.extractQueryEntities(query, {
      abortSignal: o.signal,
      ...(index.options.entityLinking ? { vocabulary: index.vocabulary } : {}),
    });
    queryEntities = extraction.entities;
    if (o.queryEntityMatch === 'vocabulary') {
      const named = index.vocabulary
        .match(query)
        .map((m) => `N:${normalizeEntityName(m.name)}`)
        .filter((key) => graph.hasNode(key));
      const overviews = search.exactMatch(queryEntities).filter((key) => key.startsWith('O:'));
      exact = [...new Set([...named, ...overviews])];
    } else {
      exact = search.exactMatch(queryEntities);
    }
    t = mark('exact', t);
  }
  const vector = vectorHits.map((h) => h.key);
  const result = search.search(
    { exact, vector, weights: entryWeights({ exact, vector, weighting: o.entryWeighting }) },
    {
      teleport: o.teleport,
      iterations: o.pprIterations,
      update: o.pprUpdate,
      semanticEdges: o.semanticEdges,
      edgeWeighting: o.edgeWeighting,
      crossNodeSelection: o.crossNodeSelection,
      limits: {
        entities: o.entities,
        relationships: o.relationships,
        overviews: o.overviews,
        cross: o.crossNodes,
      },
    },
  );
  t = mark('ppr', t);
  return retrieval(
    result.nodes,
    {
      method: name,
      mode: 'graph',
      queryEntities,
      entries: { exact: exact.length, vector: vectorHits.length },
      entryNodes: { exact, vector },
      entryPoints: o.entryPoints,
      entryWeighting: o.entryWeighting,
      crossNodeSelection: o.crossNodeSelection,
      picked: { entities: result.picked.entities.length, overviews: result.picked.overviews.length },
      reasons: countBy(result.nodes.map((n) => n.reason)),
      ppr: { teleport: o.teleport, iterations: o.pprIterations, update: o.pprUpdate },
      ablation: {
        dualSearch: o.dualSearch,
        semanticEdges: o.semanticEdges,
        edgeWeighting: o.edgeWeighting,
      },
    },
    [...new Set([...exact, ...vector, ...result.nodes.map((n) => n.key)])],
  );
}
