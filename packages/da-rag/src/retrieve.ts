/**
 * DA-RAG online retrieval (§4-5): node relevance, community search on the chunk layer, then on the
 * KG and Similarity working subgraphs of the anchor community's entities, one assessment per
 * candidate, greedy packing by score.
 */
import {
  DEFAULT_BUDGET_TOKENS,
  embedAll,
  type Retrieval,
  type RetrievedItem,
  type TaskSuite,
  throwIfAborted,
} from '@grag/core';
import { chunkItem, packContext } from '@grag/core/kit';
import { chunkTruss } from './chunk-truss.js';
import { byRelevance, type FoundCommunity } from './community-search.js';
import { type DaRagQueryOptions, type DaRagRetrieveOptions, resolveQueryOptions } from './options.js';
import {
  assessForPacking,
  bestCandidate,
  type Candidate,
  distinctCandidates,
  type PackInput,
  packCommunities,
  rankCandidates,
} from './pack.js';
import { topByScore } from './relevance.js';
import { RetrievalRun } from './retrieval-run.js';
import type { DaRagIndex } from './types.js';
import { identity, identityArray, unit } from './util.js';

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
  const scoreBy = q.scoring === 'auto' ? autoScoring(tasks) : q.scoring;
  const useSim = q.similarityLayer && index.simLayer !== null;
  const run = new RetrievalRun(index, query, q, scoreBy, useSim, signal);
  const [queryVector] =
    q.relevance === 'lexical'
      ? [undefined]
      : await run.time('embed', () => embedAll(embedder, [query], { abortSignal: signal }));
  throwIfAborted(signal);
  run.queryUnit = queryVector === undefined ? undefined : unit(queryVector);

  if (q.entryPointsOnly) {
    return entryPointsOnly({
      index,
      q,
      rel: run.chunkRelevance(),
      budget,
      topK: options.topK,
      methodName,
      ms: { ...run.ms, total: performance.now() - started },
    });
  }

  const all: Candidate[] = [];
  const anchors: Record<string, unknown>[] = [];
  if (q.chunkLayer) await searchFromAnchors(run, all, anchors);
  else {
    // "w/o C": EACS directly on the whole KG and Similarity layers.
    all.push(...(await run.searchEntityLayers(null, true)));
  }
  throwIfAborted(signal);

  const packInput: PackInput = {
    index,
    ranked: distinctCandidates(rankCandidates(all)),
    budget,
    topK: options.topK,
    communityText: q.communityText,
    packing: q.packing,
    tokenizer: index.providers.tokenizer,
    ...(q.fillBudget ? { fill: run.chunkRelevance() } : {}),
  };
  // Deferred assessments: those whose report packing reads (their scores, and so the ranking, are known).
  if (run.defersAssessment) {
    packInput.ranked = await run.time('assess', () => assessForPacking(packInput, (c) => run.assessOne(c)));
  }
  throwIfAborted(signal);
  const result = run.timeSync('pack', () => packCommunities(packInput));
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
      layers: run.layers,
      anchor: q.chunkLayer ? (q.anchors > 1 ? anchors : anchors[0]) : null,
      chosenK: result.chosenK,
      communities: result.communities,
      assessCalls: run.assessCalls,
      parseIssues: run.parseIssues,
      budgetTokens: budget,
      ranked: result.ranked,
      packed: packed.items.length,
      ...(q.fillBudget ? { filled: result.filled } : {}),
      truncated: packed.truncated,
      ms: { ...run.ms, total: performance.now() - started },
    },
  };
}

/**
 * The chunk layer first (§4): for each query vertex (`anchors`), community search on the chunk
 * layer from the most relevant chunk outside the earlier anchors' communities, then on the KG and
 * Similarity subgraphs of the entities of its anchor community. Candidates go to `all`, each
 * anchor's trace to `anchors`.
 */
async function searchFromAnchors(
  run: RetrievalRun,
  all: Candidate[],
  anchors: Record<string, unknown>[],
): Promise<void> {
  const { index, q, signal } = run;
  const rel = run.chunkRelevance();
  const chunkSearch = (seeds?: number[]) =>
    run.time('chunk', () =>
      run.searchLayer('chunk', {
        graph: index.chunkLayer,
        global: identity(index.chunks.length),
        relevance: rel,
        truss: () => chunkTruss(index),
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
    if (a === 0) run.layers.chunk = found.trace;
    const tag = q.anchors > 1 ? `a${a + 1}:` : '';
    const chunkCandidates = await run.assess(found.communities.map((c) => ({ ...c, id: tag + c.id })));
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
        all.push(...(await run.assess([own])));
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
    const entityCandidates = await run.searchEntityLayers(entities, a === 0);
    all.push(...entityCandidates.map((c) => ({ ...c, id: tag + c.id })));
  }
}

/**
 * `scoring: 'auto'`: the suite's own score when its judgements are a model's, else (a heuristic
 * suite such as `@grag/offline`, whose score is an estimate) the evidence of the chunks a
 * community packs. Read from the suite's declared capability, never from its id.
 */
function autoScoring(tasks: TaskSuite): 'evidence' | 'model' {
  return tasks.judgement === 'heuristic' ? 'evidence' : 'model';
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
