/**
 * DA-RAG online retrieval (§4-5): node relevance, community search on the chunk layer, then on the
 * KG and Similarity working subgraphs of the anchor community's entities, one assessment per
 * candidate, greedy packing by score.
 */
import {
  Bm25Index,
  chunkItem,
  DEFAULT_BUDGET_TOKENS,
  DEFAULT_BUILD_CONCURRENCY,
  embedAll,
  packContext,
  type Retrieval,
  type RetrievedItem,
  throwIfAborted,
} from '@grag/core';
import { TrussIndex } from '@grag/ktruss';
import {
  byRelevance,
  eacs,
  type FoundCommunity,
  inducedSubgraph,
  type LayerFound,
  type LayerSearch,
  type LayerTrace,
  oneHop,
} from './community-search.js';
import { indexSubjects, linkedOrder, renderMembers } from './members.js';
import { type DaRagQueryOptions, type DaRagRetrieveOptions, resolveQueryOptions } from './options.js';
import {
  bestCandidate,
  type Candidate,
  distinctCandidates,
  evidenceScore,
  packCommunities,
  rankCandidates,
} from './pack.js';
import { nodeRelevance, topByScore } from './relevance.js';
import type { DaRagIndex, Layer } from './types.js';
import { entityText, identity, identityArray, mapLimit, unit } from './util.js';

/** DA-RAG online retrieval (§4-5). */
export async function retrieveDaRag(
  index: DaRagIndex,
  query: string,
  options: DaRagRetrieveOptions,
  methodName: string,
): Promise<Retrieval> {
  const started = performance.now();
  const q = resolveQueryOptions(`${methodName} retrieve`, index.options, options);
  const { embedder, tasks } = index.providers;
  const signal = options.signal;
  const budget = options.budgetTokens ?? DEFAULT_BUDGET_TOKENS;
  const scoreBy = q.scoring === 'auto' ? (tasks.id.startsWith('offline') ? 'evidence' : 'model') : q.scoring;
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
  const timeSync = <T>(name: string, fn: () => T): T => {
    const t = performance.now();
    try {
      return fn();
    } finally {
      ms[name] = (ms[name] ?? 0) + performance.now() - t;
    }
  };

  const [queryVector] =
    q.relevance === 'lexical'
      ? [undefined]
      : await time('embed', () => embedAll(embedder, [query], { abortSignal: signal }));
  throwIfAborted(signal);
  const queryUnit = queryVector === undefined ? undefined : unit(queryVector);
  let chunkRel: Float64Array | undefined;
  const chunkRelevance = () => {
    chunkRel ??= timeSync('relevance', () =>
      nodeRelevance({
        mode: q.relevance,
        query,
        queryUnit,
        vectors: index.chunkVectors,
        lexical: () => {
          index.cache.lexicalChunks ??= new Bm25Index(index.texts);
          return index.cache.lexicalChunks;
        },
      }),
    );
    return chunkRel;
  };
  let entityRel: Float64Array | undefined;
  const allEntityRelevance = () => {
    entityRel ??= timeSync('relevance', () =>
      nodeRelevance({
        mode: q.relevance,
        query,
        queryUnit,
        vectors: index.entityVectors,
        lexical: () => {
          index.cache.lexicalEntities ??= new Bm25Index(
            index.entities.map((e) => entityText(e.name, e.descriptions)),
          );
          return index.cache.lexicalEntities;
        },
      }),
    );
    return entityRel;
  };
  const entityRelevance = (nodes: ArrayLike<number>) => {
    const all = allEntityRelevance();
    return Float64Array.from(nodes, (v) => all[v]!);
  };

  if (q.entryPointsOnly) {
    return entryPointsOnly({
      index,
      q,
      rel: chunkRelevance(),
      budget,
      topK: options.topK,
      methodName,
      ms: { ...ms, total: performance.now() - started },
    });
  }

  let assessCalls = 0;
  let parseIssues = 0;
  const assess = async (found: readonly FoundCommunity[]): Promise<Candidate[]> => {
    const rendered = timeSync('members', () =>
      found.map((community) => ({
        ...community,
        ...renderMembers({
          index,
          community,
          budget: q.communityTokens,
          chunkRelevance,
          memberOrder: q.memberOrder,
        }),
      })),
    );
    return time('assess', () =>
      mapLimit(rendered, index.options.concurrency ?? DEFAULT_BUILD_CONCURRENCY, async (c) => {
        const offlineScore = () =>
          scoreBy === 'evidence'
            ? evidenceScore(c.chunkIds, chunkRelevance(), index.chunkLayer.index)
            : 10 * c.qrScore;
        if (!q.reports) return { ...c, score: offlineScore(), report: '' };
        const assessment = await tasks.assessCommunity(query, c.members, { abortSignal: signal });
        assessCalls++;
        parseIssues += assessment.issues.length;
        const score = scoreBy === 'model' ? assessment.score : offlineScore();
        return { ...c, score, report: assessment.report.trim() };
      }),
    );
  };
  const searchLayer = (layer: Layer, search: LayerSearch): LayerFound => {
    const found = q.acs ? eacs(layer, search, q) : oneHop(layer, search, q.oneHopSeeds);
    if (layer !== 'chunk' || q.memberOrder !== 'linked') return found;
    const subjects = indexSubjects(index);
    const communities = found.communities.map((c) => ({
      ...c,
      nodes: linkedOrder(c.nodes, index.chunkEntities, subjects),
    }));
    return { ...found, communities };
  };
  /** Search the KG (and Similarity) layer: the subgraphs induced by `entities`, or the whole layers. */
  const searchEntityLayers = async (entities: number[] | null, traced: boolean) => {
    const rel = entityRelevance(entities ?? identity(index.entities.length));
    const found: FoundCommunity[] = [];
    for (const layer of useSim ? (['kg', 'sim'] as const) : (['kg'] as const)) {
      const graph = layer === 'kg' ? index.kgLayer : index.simLayer!;
      const result = await time(layer, () => {
        if (entities === null) {
          return searchLayer(layer, {
            graph,
            global: identity(graph.n),
            relevance: rel,
            truss: () => {
              index.cache[layer] ??= new TrussIndex(graph);
              return index.cache[layer];
            },
          });
        }
        const sub = inducedSubgraph(graph, entities);
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
      if (traced) layers[layer] = result.trace;
      found.push(...result.communities);
    }
    return assess(found);
  };

  const layers: Partial<Record<Layer, LayerTrace>> = {};
  const all: Candidate[] = [];
  const anchors: Record<string, unknown>[] = [];
  if (q.chunkLayer) {
    const rel = chunkRelevance();
    const chunkSearch = (seeds?: number[]) =>
      time('chunk', () =>
        searchLayer('chunk', {
          graph: index.chunkLayer,
          global: identity(index.chunks.length),
          relevance: rel,
          truss: () => {
            index.cache.chunk ??= new TrussIndex(index.chunkLayer);
            return index.cache.chunk;
          },
          ...(seeds ? { seeds } : {}),
        }),
      );
    // One anchor per query vertex: the most relevant chunk outside the earlier anchors' communities.
    const covered = new Set<number>();
    // Only chunks of positive relevance can be query vertices.
    const order = q.anchors > 1 ? byRelevance(positiveNodes(rel), rel) : [];
    for (let a = 0, next = 0; a < q.anchors; a++) {
      let seed: number | undefined;
      if (q.anchors > 1) {
        while (next < order.length && covered.has(order[next]!)) next++;
        seed = order[next];
        if (seed === undefined || rel[seed]! <= 0) break;
      }
      const found = await chunkSearch(seed === undefined ? undefined : [seed]);
      if (a === 0) layers.chunk = found.trace;
      const tag = q.anchors > 1 ? `a${a + 1}:` : '';
      const chunkCandidates = await assess(found.communities.map((c) => ({ ...c, id: tag + c.id })));
      all.push(...chunkCandidates);
      throwIfAborted(signal);

      // Working subgraphs: the entities of the anchor chunk community (§4).
      let anchorChunks: number[];
      const anchor: Record<string, unknown> = seed === undefined ? {} : { seed: index.chunks[seed]!.id };
      if (chunkCandidates.length === 0) {
        anchorChunks = seed === undefined ? topByScore(rel, q.oneHopSeeds) : [seed];
        anchor.community = null;
        anchor.fallback = seed === undefined ? 'most relevant chunks' : 'the query vertex';
        if (q.fallbackCommunity && anchorChunks.length > 0) {
          let sum = 0;
          for (const c of anchorChunks) sum += rel[c]!;
          const own: FoundCommunity = {
            id: `${tag}chunk-fallback`,
            layer: 'chunk',
            ks: [],
            nodes: anchorChunks,
            edges: [],
            qrScore: sum / anchorChunks.length,
            initialQrScore: null,
          };
          all.push(...(await assess([own])));
          anchor.community = own.id;
        }
      } else if (q.anchor === 'union') {
        anchorChunks = [...new Set(chunkCandidates.flatMap((c) => c.nodes))];
        anchor.community = chunkCandidates.map((c) => c.id);
      } else {
        const best = bestCandidate(chunkCandidates);
        anchorChunks = best.nodes;
        anchor.community = best.id;
      }
      for (const c of anchorChunks) covered.add(c);
      if (seed !== undefined) covered.add(seed);
      const entitySet = new Set<number>();
      for (const c of anchorChunks) for (const e of index.chunkEntities[c]!) entitySet.add(e);
      const entities = [...entitySet].sort((x, y) => x - y);
      anchor.chunks = anchorChunks.length;
      anchor.entities = entities.length;
      anchors.push(anchor);
      const entityCandidates = await searchEntityLayers(entities, a === 0);
      all.push(...entityCandidates.map((c) => ({ ...c, id: tag + c.id })));
    }
  } else {
    // "w/o C": EACS directly on the whole KG and Similarity layers.
    all.push(...(await searchEntityLayers(null, true)));
  }
  throwIfAborted(signal);

  const ranked = distinctCandidates(rankCandidates(all));
  const result = timeSync('pack', () =>
    packCommunities({
      index,
      ranked,
      budget,
      topK: options.topK,
      communityText: q.communityText,
      packing: q.packing,
      tokenizer: index.providers.tokenizer,
    }),
  );
  const { packed } = result;
  return {
    context: packed.context,
    items: packed.items,
    tokens: packed.tokens,
    subgraph: result.subgraph,
    trace: {
      method: methodName,
      retrieval: q.acs ? 'eacs' : '1-hop',
      relevance: q.relevance,
      chunkLayer: q.chunkLayer,
      similarityLayer: useSim,
      scoring: q.reports || scoreBy === 'evidence' ? scoreBy : 'qrscore',
      layers,
      anchor: q.chunkLayer ? (q.anchors > 1 ? anchors : anchors[0]) : null,
      chosenK: result.chosenK,
      communities: result.communities,
      assessCalls,
      parseIssues,
      budgetTokens: budget,
      ranked: result.ranked,
      packed: packed.items.length,
      truncated: packed.truncated,
      ms: { ...ms, total: performance.now() - started },
    },
  };
}

/** The nodes of positive relevance, ascending. */
function positiveNodes(rel: Float64Array): number[] {
  const out: number[] = [];
  for (let i = 0; i < rel.length; i++) if (rel[i]! > 0) out.push(i);
  return out;
}

/** Input of {@link entryPointsOnly}. */
interface EntryPointsInput {
  index: DaRagIndex;
  q: DaRagQueryOptions;
  /** Relevance of every chunk. */
  rel: Float64Array;
  budget: number;
  topK: number | undefined;
  methodName: string;
  ms: Record<string, number>;
}

/** The "entry points only" retrieval: chunks by relevance, packed in that order, no graph step. */
function entryPointsOnly(input: EntryPointsInput): Retrieval {
  const { index, rel, budget } = input;
  const order = byRelevance(identityArray(index.chunks.length), rel).slice(0, input.topK ?? 200);
  const items: RetrievedItem[] = order.map((i) => chunkItem(index.chunks[i]!, index.texts[i]!, rel[i]!));
  const packed = packContext(items, budget, { tokenizer: index.providers.tokenizer });
  return {
    context: packed.context,
    items: packed.items,
    tokens: packed.tokens,
    trace: {
      method: input.methodName,
      retrieval: 'entry-points',
      relevance: input.q.relevance,
      assessCalls: 0,
      budgetTokens: budget,
      ranked: items.length,
      packed: packed.items.length,
      truncated: packed.truncated,
      ms: input.ms,
    },
  };
}
