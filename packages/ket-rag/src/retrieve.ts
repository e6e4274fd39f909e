/**
 * KET-RAG retrieval (Algorithm 4): GraphRAG local search on the skeleton with ⌊λ·L⌋ tokens, then the
 * text channel with the rest of L (`budgetSplit`: all the graph channel left, or (1 − λ)·L), without
 * repeating its sub-chunks.
 */
import {
  DEFAULT_BUDGET_TOKENS,
  embedAll,
  isStoredVectors,
  type Retrieval,
  type RetrievedItem,
} from '@grag/core';
import { type LocalSearchResult, localSearch, renderLocalSearchItem } from '@grag/core/graph';
import { assertKnownOptions, checkOption, opt, packContext, RETRIEVE_OPTION_RULES } from '@grag/core/kit';
import { textChannelItems } from './channels.js';
import { KET_RAG_RETRIEVE_OPTION_KEYS, type KetRagRetrieveOptions } from './options.js';
import { channelRankScores } from './ranking.js';
import { seedEntities } from './seeds.js';
import type { KetRagIndex, KetRagSkeleton } from './types.js';

function subgraphOf(skeleton: KetRagSkeleton, items: RetrievedItem[]): NonNullable<Retrieval['subgraph']> {
  const nodes = new Set<string>();
  const edges: [string, string][] = [];
  for (const item of items) {
    if (item.kind === 'entity') nodes.add(item.id);
    if (item.kind === 'relation') {
      const r = skeleton.relationshipById.get(item.id);
      if (r) {
        nodes.add(r.source);
        nodes.add(r.target);
        edges.push([r.source, r.target]);
      }
    }
  }
  return { nodes: [...nodes], edges };
}

/** Retrieve from a KET-RAG index; `name` is the method's name (in errors and the trace). */
export async function retrieveKetRag(
  name: string,
  index: KetRagIndex,
  query: string,
  options: KetRagRetrieveOptions,
): Promise<Retrieval> {
  const caller = `${name} retrieve`;
  assertKnownOptions(caller, options, KET_RAG_RETRIEVE_OPTION_KEYS);
  const started = performance.now();
  const o = index.options;
  const tokenizer = index.retrievalTokenizer;
  const budget = options.budgetTokens ?? DEFAULT_BUDGET_TOKENS;
  checkOption(caller, 'budgetTokens', budget, opt.nonNegative);
  checkOption(caller, 'topK', options.topK, RETRIEVE_OPTION_RULES.topK);
  const lambda = o.textChannel === 'none' ? 1 : (options.lambda ?? o.lambda);
  checkOption(caller, 'lambda', lambda, opt.fraction);
  const split = options.budgetSplit ?? o.budgetSplit;
  checkOption(caller, 'budgetSplit', split, opt.oneOf('rest', 'fixed'));
  const [queryVector] = await embedAll(index.providers.embedder, [query], { abortSignal: options.signal });
  const q = queryVector!;

  // Line 1: local search on the skeleton with λ·L tokens.
  const graphBudget = Math.floor(lambda * budget);
  let graph: LocalSearchResult | undefined;
  let matched: string[] = [];
  if (index.skeleton && graphBudget > 0) {
    const seeds = await seedEntities(index, query, q);
    matched = seeds.matched;
    // The seeds are given, so local search reads no entity vector (none when they are stored).
    const { entityVectors } = index.skeleton;
    graph = localSearch(index.skeleton.graph, q, isStoredVectors(entityVectors) ? null : entityVectors, {
      budgetTokens: graphBudget,
      tokenizer,
      topKEntities: o.topKEntities,
      topKRelationships: o.topKRelationships,
      textUnitProp: o.textUnitProp,
      seeds: seeds.ids,
    });
  }
  const graphContext = graph?.context ?? '';
  // Lines 2-4: the text channel gets (1 − λ)·L ('fixed', the paper), or all the graph channel
  // left ('rest').
  const used = graphContext === '' ? 0 : tokenizer.count(`${graphContext}\n\n`);
  const textBudget = Math.max(0, budget - (split === 'fixed' ? Math.max(graphBudget, used) : used));
  const seen = new Set((graph?.items ?? []).filter((i) => i.kind === 'chunk').map((i) => i.id));
  const trace: Record<string, unknown> = {
    method: name,
    variant: o.variant,
    lambda,
    budgetSplit: split,
    budgets: { graph: graphBudget, text: textBudget },
  };
  let ranked: RetrievedItem[] = [];
  if (textBudget > 0 && o.textChannel !== 'none') {
    const channel = await textChannelItems({ index, query, queryVector: q, budget: textBudget });
    Object.assign(trace, channel.trace);
    ranked = channel.items.filter((item) => !seen.has(item.id));
  }
  const pack = (tokens: number) =>
    packContext(ranked, tokens, { tokenizer, render: renderLocalSearchItem, truncate: false });
  const join = (text: string) => [graphContext, text].filter((c) => c !== '').join('\n\n');
  const text = pack(textBudget);
  let context = join(text.context);
  let tokens = tokenizer.count(context);
  let textItems = text.items;
  if (tokens > budget) {
    // Only for tokenizers whose counts do not add up across the join.
    const fitted = pack(Math.max(0, textBudget - (tokens - budget)));
    textItems = fitted.items;
    context = join(fitted.context);
    tokens = tokenizer.count(context);
  }
  // Passage ranking: the two channels are parallel sources of text (the paper concatenates them
  // and ranks neither above the other); each chunk item scores by reciprocal rank within its
  // channel, 1/(60 + rank), so a ranking by score interleaves them, graph first on ties.
  const items = [...channelRankScores(graph?.items ?? []), ...channelRankScores(textItems)];
  if (graph) {
    trace.seeds = graph.seeds.map((s) => s.id);
    trace.queryEntities = matched;
    trace.graphUnits = graph.items.filter((i) => i.kind === 'chunk').length;
    trace.relationshipSeeds = graph.relationshipSeeds;
    trace.graphTokens = graph.tokens;
  }
  trace.textTokens = text.tokens;
  trace.ms = performance.now() - started;
  const result: Retrieval = { context, items, tokens, trace };
  if (graph && index.skeleton) result.subgraph = subgraphOf(index.skeleton, graph.items);
  return result;
}
