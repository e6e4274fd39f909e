/**
 * bridge-rag's query path: the question's entities linked to the index's names; the entry passages
 * (hybrid BM25 + dense, 2·topK of them); bridges behind the first ones (title bridges, then
 * mention bridges found with each seed's residual query); the first topK passages packed into the
 * budget, with a trace of each step.
 */
import {
  DEFAULT_BUDGET_TOKENS,
  embedAll,
  InvalidArgumentError,
  type Retrieval,
  type RetrievedItem,
  throwIfAborted,
} from '@grag/core';
import { linkQueryEntities, placeBridges } from '@grag/core/graph';
import { packContext, provenanceOf, residualSearch, searchEntryPointsAsync } from '@grag/core/kit';
import { type BridgeRagRetrieveOptions, resolveBridgeRagQuery } from './options.js';
import type { BridgeRagIndex } from './types.js';

/** Retrieve from a bridge-rag index (see the README for the items and the trace). */
export async function retrieveBridgeRag(
  index: BridgeRagIndex,
  query: string,
  options: BridgeRagRetrieveOptions,
  name: string,
): Promise<Retrieval> {
  const started = performance.now();
  if (typeof query !== 'string' || query.trim() === '') {
    throw new InvalidArgumentError('query', `${name} retrieve: the query is empty; pass a question.`);
  }
  const o = resolveBridgeRagQuery(`${name} retrieve`, index.options, options);
  throwIfAborted(options.signal);
  const { graph, chunks, texts, lexical, providers } = index;
  const extracted = (await index.extractor.extract(query)).flat();
  const queryEntities = [...new Set(linkQueryEntities(query, extracted, index.vocabulary))];
  const queryIds = queryEntities.flatMap((e) => graph.id(e) ?? []);
  const linked = performance.now();
  let queryVector: Float32Array | undefined;
  if (o.entryPoints !== 'lexical') {
    queryVector = (await embedAll(providers.embedder, [query], { abortSignal: options.signal }))[0]!;
  }
  const search = (k: number) =>
    searchEntryPointsAsync({
      mode: o.entryPoints,
      query,
      queryVector,
      vectors: index.vectors,
      lexical,
      k: Math.min(k, chunks.length),
      ...(o.entryEf > 0 ? { ef: o.entryEf } : {}),
    });
  const entry = await search(2 * o.topK);
  const searched = performance.now();
  const { ranking, bridges } = await placeBridges({
    graph,
    home: index.home,
    homes: index.homes,
    ranking: entry.map((h) => h.id),
    queryIds,
    options: o,
    entryRanking: () => search(chunks.length),
    residual: (seed, depth) => residualSearch(lexical, query, texts[seed]!, undefined, depth),
  });
  const items: RetrievedItem[] = ranking.slice(0, o.topK).map((c, rank) => {
    const chunk = chunks[c]!;
    return {
      id: chunk.id,
      kind: 'chunk',
      text: texts[c]!,
      score: 1 / (rank + 1),
      source: provenanceOf([chunk]),
    };
  });
  const bridged = performance.now();
  const packed = packContext(items, options.budgetTokens ?? DEFAULT_BUDGET_TOKENS, {
    tokenizer: providers.tokenizer,
  });
  const finished = performance.now();
  const bridgeIds = new Set(bridges.map((b) => chunks[b.chunk]!.id));
  return {
    context: packed.context,
    items: packed.items,
    tokens: packed.tokens,
    subgraph: {
      nodes: queryEntities.filter((e) => graph.id(e) !== undefined),
      edges: bridges.map((b) => [chunks[b.from]!.id, chunks[b.chunk]!.id] as [string, string]),
    },
    trace: {
      method: name,
      queryEntities,
      entities: queryIds.map((id) => graph.entities[id]!),
      entryPoints: o.entryPoints,
      entry: entry.length,
      k: o.topK,
      bridges: bridges.map((b) => ({
        from: chunks[b.from]!.id,
        entity: b.entity,
        chunk: chunks[b.chunk]!.id,
      })),
      ranked: items.length,
      packed: packed.items.length,
      bridgesPacked: packed.items.filter((i) => bridgeIds.has(i.id)).length,
      truncated: packed.truncated,
      ms: {
        link: linked - started,
        entry: searched - linked,
        bridges: bridged - searched,
        pack: finished - bridged,
        total: finished - started,
      },
    },
  };
}
