/**
 * E2GraphRAG's query path: query entities (linked to the index's names), Algorithm 1 with the
 * entry points as its "dense retrieval", grag's fused chunk ranking and bridges (or the paper's
 * evidence formatting), packed into the budget with a trace of every branch taken.
 */
import {
  DEFAULT_BUDGET_TOKENS,
  embedAll,
  InvalidArgumentError,
  type Retrieval,
  throwIfAborted,
  type VectorHit,
} from '@grag/core';
import { type Bridge, linkQueryEntities, placeBridges } from '@grag/core/graph';
import { packContext, residualSearch, searchEntryPointsAsync } from '@grag/core/kit';
import type { CollapsedTreeHit } from '@grag/summary-tree';
import { adaptiveRetrieve } from './adaptive.js';
import { lexicalOf } from './build.js';
import { type LabelledItems, paperItems, rankedItems, renderLabelled } from './items.js';
import { type E2GraphRagRetrieveOptions, resolveQueryOptions } from './options.js';
import { fuseChunkRanking, graphLeaves } from './ranking.js';
import type { E2GraphRagIndex } from './types.js';

/**
 * The leaves matching the query's terms that chunk `seed` does not contain (what a second hop behind
 * it must still match), by BM25, best first (the best `depth`); none when the seed contains every term.
 */
function residualHits(
  index: E2GraphRagIndex,
  query: string,
  seed: number,
  depth: number,
): { id: number; score: number }[] {
  const leafCount = index.tree.levels[0]!.length;
  return residualSearch(lexicalOf(index), query, index.tree.nodes[seed]!.text, (id) => id < leafCount, depth);
}

/** Retrieve from an E2GraphRAG index (see the README for the items and the trace). */
export async function retrieveE2GraphRag(
  index: E2GraphRagIndex,
  query: string,
  options: E2GraphRagRetrieveOptions,
  name: string,
): Promise<Retrieval> {
  const started = performance.now();
  const { providers, tree, vectors, graph } = index;
  if (typeof query !== 'string' || query.trim() === '') {
    throw new InvalidArgumentError('query', `${name} retrieve: the query is empty; pass a question.`);
  }
  const o = resolveQueryOptions(`${name} retrieve`, index.options, options);
  throwIfAborted(options.signal);
  const extractedEntities = (await index.extractor.extract(query)).flat();
  const queryEntities = index.vocabulary
    ? linkQueryEntities(query, extractedEntities, index.vocabulary)
    : extractedEntities;
  const extracted = performance.now();
  let queryVector: Float32Array | undefined;
  let denseMs = 0;
  const leafCount = tree.levels[0]!.length;
  const search = async (k: number, leavesOnly = false): Promise<VectorHit[]> => {
    const t = performance.now();
    if (o.entryPoints !== 'lexical') {
      queryVector ??= (await embedAll(providers.embedder, [query], { abortSignal: options.signal }))[0]!;
    }
    const hits = await searchEntryPointsAsync({
      mode: o.entryPoints,
      query,
      queryVector,
      vectors,
      lexical: o.entryPoints === 'dense' ? undefined : lexicalOf(index),
      k: Math.min(k, leavesOnly ? leafCount : tree.nodes.length),
      filter: leavesOnly ? (id: number) => id < leafCount : undefined,
      ...(o.entryEf > 0 ? { ef: o.entryEf } : {}),
    });
    denseMs += performance.now() - t;
    return hits;
  };
  const dense = async (k: number): Promise<CollapsedTreeHit[]> =>
    (await search(k)).map((h) => {
      const n = tree.nodes[h.id]!;
      return { node: h.id, id: n.id, level: n.level, score: h.score };
    });
  const result = await adaptiveRetrieve(index, queryEntities, dense, o);
  let bridges: Bridge[] = [];
  const rankedPath = !o.denseOnly && (o.fuseEntryPoints || o.bridges > 0);
  let labelled: LabelledItems;
  if (rankedPath) {
    // grag's offline configuration: one chunk ranking (Algorithm 1's chunks fused with the entry
    // points), bridge chunks behind the first ones, then global mode's summaries.
    const leaves = graphLeaves(result, leafCount);
    let ranking = o.fuseEntryPoints
      ? fuseChunkRanking({ entry: await search(2 * o.topK, true), leaves, graphWeight: o.graphWeight })
      : leaves;
    ({ ranking, bridges } = await placeBridges({
      graph,
      home: index.home,
      homes: index.homes,
      ranking,
      queryIds: result.trace.entities.flatMap((e) => graph.id(e) ?? []),
      options: o,
      entryRanking: () => search(leafCount, true),
      residual: (seed, depth) => residualHits(index, query, seed, depth),
    }));
    labelled = rankedItems(tree, result, ranking.slice(0, o.topK));
  } else {
    labelled = paperItems(tree, result);
  }
  const { items, labels } = labelled;
  const selected = performance.now();
  const packed = packContext(items, options.budgetTokens ?? DEFAULT_BUDGET_TOKENS, {
    tokenizer: providers.tokenizer,
    render: renderLabelled(labels),
  });
  const finished = performance.now();
  return {
    context: packed.context,
    items: packed.items,
    tokens: packed.tokens,
    subgraph: {
      nodes: result.trace.entities,
      edges: (result.trace.keptPairs ?? []).map(([a, b]) => [a, b] as [string, string]),
    },
    trace: {
      method: name,
      ...result.trace,
      k: o.topK,
      chunkThreshold: o.chunkThreshold,
      entryPoints: o.entryPoints,
      ranking: rankedPath ? 'fused' : 'paper',
      bridges: bridges.map((b) => ({
        from: tree.nodes[b.from]!.id,
        entity: b.entity,
        chunk: tree.nodes[b.chunk]!.id,
      })),
      ablation: {
        denseOnly: o.denseOnly,
        graphFilter: o.graphFilter,
        entityAwareRanking: o.entityAwareRanking,
        denseRetrieval: o.denseRetrieval,
        occurrenceRanking: o.occurrenceRanking,
      },
      ranked: items.length,
      packed: packed.items.length,
      truncated: packed.truncated,
      ms: {
        extract: extracted - started,
        dense: denseMs,
        select: selected - extracted - denseMs,
        pack: finished - selected,
        total: finished - started,
      },
    },
  };
}
