/**
 * The stages of NodeRAG indexing (§2.2-2.4) that ask the models or build the vector index: G1
 * decomposition, G2 attributes of important entities, the embeddings of the nodes, G3 communities
 * with their high-level elements and semantic matching, G5 the HNSW semantic edges. Each reads and
 * fills one {@link IndexingRun}; `build.ts` runs them in order.
 */
import {
  type BuildContext,
  type Chunk,
  isGraphVectorIndex,
  type ParseIssue,
  type TitleDescription,
  type VectorIndex,
} from '@grag/core';
import type { BuildRuntime, IndexProviders } from '@grag/core/kit';
import { type HeteroNodeAttributes, importantEntities, leiden, type MatchingNode } from '@grag/heterograph';
import {
  attributeMaterial,
  communityMembers,
  fitTexts,
  layAttributes,
  layHighLevelElements,
  matchHighLevelElements,
} from './elements.js';
import { buildVectorIndex, exactBaseLayer, withLinks } from './hnsw.js';
import {
  issuesOf,
  type KeptDecomposition,
  materialKey,
  type NodeRagCalls,
  type NodeRagKept,
  type NodeRagMemo,
} from './kept.js';
import { localCommunities, localImportant, type PreviousStructures } from './local.js';
import type { NodeRagOptions } from './options.js';
import type { NodeRagBuildStats, NodeRagIndex } from './types.js';
import { bump, layUnits, linkUnits } from './units.js';

/** One indexing run: its inputs, and the calls, counts and node vectors its stages add up. */
export interface IndexingRun {
  rt: BuildRuntime;
  ctx: BuildContext;
  o: NodeRagOptions;
  documents: NodeRagKept['documents'];
  chunks: Chunk[];
  texts: string[];
  memo: NodeRagMemo;
  previous: PreviousStructures | undefined;
  /** The runtime maps' concurrency: `o.concurrency` when the user set it. */
  concurrency: { concurrency?: number };
  calls: NodeRagCalls;
  stats: NodeRagBuildStats;
  /** The vector of every embedded node, by key. */
  vectors: Map<string, Float32Array>;
}

/** The graph the stages lay (the type of `NodeRagIndex['graph']`). */
type Graph = NodeRagIndex['graph'];

/** Add every count of `from` to `into`. */
function addCounts(into: Record<string, number>, from: Readonly<Record<string, number>>): void {
  for (const [key, n] of Object.entries(from)) bump(into, key, n);
}

/** The positions of `items` whose key `has` does not know: what must still be asked. */
function missing<T>(items: readonly T[], has: (item: T) => boolean): number[] {
  return items.flatMap((item, i) => (has(item) ? [] : [i]));
}

/** G1: semantic units, entities and relationships of every chunk (§2.2), laid as the graph. */
export async function decompose(run: IndexingRun) {
  const { rt, ctx, o, chunks, texts, memo, concurrency, calls, stats } = run;
  const { tasks, signal } = ctx;
  const countIssues = (issues: readonly ParseIssue[]) => {
    for (const issue of issues) bump(stats.parseIssues, issue.kind);
  };
  const ask = missing(texts, (text) => memo.decompositions.has(text));
  const asked = await rt.stage('decompose', () =>
    rt.map(ask, (c) => tasks.decomposeSemanticUnits(texts[c]!, { abortSignal: signal }), {
      label: (c) => chunks[c]!.id,
      unit: 'chunks',
      ...concurrency,
    }),
  );
  calls.decomposed = ask.length;
  const answered = new Map<number, KeptDecomposition>(
    asked.map((d, i) => [ask[i]!, { units: d.units, issues: d.issues.map((x) => x.kind) }]),
  );
  const decompositions = texts.map((text, c) => answered.get(c) ?? memo.decompositions.get(text)!);
  const { graph, unitsOfChunk } = await rt.stage(
    'decompose',
    () => {
      let units = decompositions.map((d) => d.units);
      if (o.entityLinking) {
        // Linking reads only ids and titles.
        const docs = run.documents.map((d) => ({ ...d, text: '' }));
        const linked = linkUnits({ docs, chunks, units });
        stats.linking = linked.linking;
        units = linked.units;
      }
      for (const decomposition of decompositions) countIssues(issuesOf(decomposition.issues));
      const laid = layUnits({ chunks, units });
      stats.extractedUnits = laid.extractedUnits;
      addCounts(stats.skipped, laid.skipped);
      return laid;
    },
    { checkpoint: false },
  );
  return { decompositions, graph, unitsOfChunk };
}

/** G2: attributes of important entities (§2.3, appendix C.2), summarized and laid on the graph. */
export async function importantAttributes(run: IndexingRun, graph: Graph) {
  const { rt, ctx, o, memo, concurrency, calls, stats } = run;
  const { tasks, signal, tokenizer } = ctx;
  const attributes = await rt.stage('attributes', async () => {
    const isCandidate = (a: HeteroNodeAttributes) => a.type === 'N' && a.weight >= o.attributeMinMentions;
    const computed = importantEntities(graph.graph, {
      isCandidate: (_, a) => isCandidate(a as HeteroNodeAttributes),
      coreRule: o.coreRule,
      betweennessSamples: o.betweennessSamples,
      seed: o.seed,
    }).nodes;
    const nodes = run.previous
      ? localImportant(run.previous, graph, computed, (key) => isCandidate(graph.node(key)))
      : computed;
    const material = nodes.map((entity) =>
      fitTexts(attributeMaterial(graph, entity), o.attributeContextTokens, tokenizer),
    );
    const keys = material.map(materialKey);
    const toAsk = missing(material, (m) => m.length === 0).filter((i) => !memo.attributes.has(keys[i]!));
    const fresh = await rt.map(
      toAsk,
      async (i) => {
        const summary = await tasks.summarize(material[i]!, {
          purpose: 'entity',
          maxTokens: o.attributeTokens,
          abortSignal: signal,
        });
        return summary.trim();
      },
      { label: (i) => nodes[i]!, unit: 'entities', ...concurrency },
    );
    const got = new Map(fresh.map((summary, j) => [toAsk[j]!, summary]));
    const summaries = material.map((m, i) =>
      m.length === 0 ? '' : (got.get(i) ?? memo.attributes.get(keys[i]!)!),
    );
    // Only entities with material have a key worth keeping (the others are never asked).
    const kept = keys.flatMap((key, i) => (material[i]!.length > 0 ? [[key, summaries[i]!] as const] : []));
    return { entities: nodes, summaries, kept, asked: toAsk.length };
  });
  calls.summarized = attributes.asked;
  await rt.stage(
    'attributes',
    () => {
      stats.importantEntities = attributes.entities.length;
      const laid = layAttributes({ graph, ...attributes });
      stats.attributes = laid.attributes;
      addCounts(stats.skipped, laid.skipped);
    },
    { checkpoint: false },
  );
  return attributes;
}

/**
 * Embed the nodes `keys` whose texts the memo does not hold (§2.4), and note every key's vector.
 * `textOf` gives a node's text: by default the graph's (the text nodes are embedded before they
 * are laid, from the chunk texts they will carry).
 */
export async function embedNodes(
  run: IndexingRun,
  graph: Graph,
  keys: string[],
  textOf: (key: string) => string = (key) => graph.node(key).text,
): Promise<void> {
  const { rt, memo, calls, vectors } = run;
  const keyOf = new Map<string, string>();
  for (const key of keys) {
    const text = textOf(key);
    if (!memo.vectors.has(text) && !keyOf.has(text)) keyOf.set(text, key);
  }
  const toEmbed = [...keyOf.keys()];
  const embeddings = await rt.stage('embed', () => rt.embed(toEmbed, { label: (text) => keyOf.get(text)! }));
  calls.embedded += toEmbed.length;
  toEmbed.forEach((text, i) => {
    memo.vectors.set(text, embeddings[i]!);
  });
  for (const key of keys) vectors.set(key, memo.vectors.get(textOf(key))!);
}

/**
 * G3: Leiden communities (kept where an update does not reach them), a title and description of
 * each non-empty one, laid as high-level elements (§2.3, appendix C.3).
 */
export async function communityElements(run: IndexingRun, graph: Graph) {
  const { rt, ctx, o, memo, concurrency, calls, stats } = run;
  const { tasks, signal, tokenizer } = ctx;
  const communities = await rt.stage('communities', async () => {
    const { communities, count } = run.previous
      ? localCommunities(run.previous, graph, { seed: o.seed, resolution: o.leidenResolution })
      : leiden(graph.graph, { seed: o.seed, resolution: o.leidenResolution, iterations: o.leidenIterations });
    const nonEmpty = communityMembers(graph, communities, count)
      .map((m, c) => ({ m, c }))
      .filter(({ m }) => m.length > 0);
    const contents = nonEmpty.map(({ m }) =>
      fitTexts(
        m.map((key) => graph.node(key).text),
        o.communityContextTokens,
        tokenizer,
      ).join('\n'),
    );
    const keys = contents.map((content) => materialKey([content]));
    const toAsk = missing(keys, (key) => memo.elements.has(key));
    const fresh = await rt.map(
      toAsk,
      (i) => tasks.titleAndDescription(contents[i]!, { abortSignal: signal }),
      { label: (i) => `community ${nonEmpty[i]!.c}`, unit: 'communities', ...concurrency },
    );
    const got = new Map(fresh.map((element, j) => [toAsk[j]!, element]));
    const elements: TitleDescription[] = keys.map((key, i) => {
      const element = got.get(i);
      if (element) return element;
      const kept = memo.elements.get(key)!;
      return { title: kept.title, description: kept.description, issues: issuesOf(kept.issues) };
    });
    return { count, nonEmpty, elements, keys, asked: toAsk.length, membership: [...communities] };
  });
  calls.described = communities.asked;
  const { matching, highKeys } = await rt.stage(
    'communities',
    () => {
      const { count, nonEmpty, elements } = communities;
      stats.communities = count;
      stats.emptyCommunities = count - nonEmpty.length;
      const laid = layHighLevelElements({ graph, communities: nonEmpty, elements });
      stats.highLevelElements = laid.highKeys.length;
      addCounts(stats.parseIssues, laid.parseIssues);
      addCounts(stats.skipped, laid.skipped);
      return laid;
    },
    { checkpoint: false },
  );
  return { ...communities, matching, highKeys };
}

/** The edges semantic matching found, and its K. */
type Matched = Awaited<ReturnType<typeof matchHighLevelElements>>;

/**
 * G3: semantic matching of the high-level elements with the S and A nodes (k-means clusters),
 * started: its k-means runs on a worker thread while the caller goes on (the vector index is built
 * meanwhile); {@link laySemanticMatching} lays what it finds. `undefined` without H nodes.
 */
export function startSemanticMatching(
  run: IndexingRun,
  matching: readonly Omit<MatchingNode, 'vector'>[],
  highKeys: readonly string[],
): Promise<Matched> | undefined {
  const { o, vectors } = run;
  if (highKeys.length === 0) return undefined;
  const nodes: MatchingNode[] = matching.map((node) => ({ ...node, vector: vectors.get(node.id)! }));
  const pending = matchHighLevelElements({
    nodes,
    denseMatchingClusterSize: o.denseMatchingClusterSize,
    seed: o.seed,
  });
  // Awaited in laySemanticMatching; a failure before then is not an unhandled rejection.
  pending.catch(() => undefined);
  return pending;
}

/** G3: the semantic-matching edges `pending` found, laid on the graph. */
export async function laySemanticMatching(
  run: IndexingRun,
  graph: Graph,
  pending: Promise<Matched> | undefined,
): Promise<void> {
  const { rt, stats } = run;
  await rt.stage(
    'semantic-matching',
    async () => {
      if (!pending) return;
      const { edges, clusters } = await pending;
      stats.semanticClusters = clusters;
      for (const [member, h] of edges) graph.connect(member, h, 'h');
      stats.semanticMatchingEdges = edges.length;
    },
    { checkpoint: false },
  );
}

/**
 * G5: the vector index over the embedded nodes (`vectorKeys`, their vectors noted by the run), made
 * by the index's vector-index factory.
 */
export function vectorIndexOf(
  run: IndexingRun,
  vectorKeys: readonly string[],
  providers: IndexProviders,
): Promise<VectorIndex> {
  const { rt, ctx, o, vectors } = run;
  return rt.stage(
    'hnsw',
    async (): Promise<VectorIndex> =>
      buildVectorIndex({
        factory: providers.vectorIndex,
        vectors: vectorKeys.map((key) => vectors.get(key)!),
        dimensions: providers.embedder.dimensions,
        options: o,
        onAdded: (done) => ctx.onProgress?.({ stage: 'hnsw', done, total: vectorKeys.length, unit: 'nodes' }),
      }),
    { checkpoint: false },
  );
}

/**
 * G5: the base layer of the vector index `index` as semantic edges (§2.4): a graph index's (HNSW)
 * own, or, on an exact index, the base layer HNSW's insertion rule makes over exact neighbours
 * (kept, since the index cannot give it back). Resolves to the graph with the semantic edges (a new
 * graph on arrays; `graph` itself is not changed).
 */
export function semanticEdges(
  run: IndexingRun,
  graph: Graph,
  index: VectorIndex,
  vectorKeys: string[],
): Promise<{ graph: Graph; baseLayer?: number[][] }> {
  const { rt, o, stats, vectors } = run;
  return rt.stage(
    'hnsw',
    async (): Promise<{ graph: Graph; baseLayer?: number[][] }> => {
      if (!o.hnswEdges) return { graph };
      if (isGraphVectorIndex(index)) {
        const linked = withLinks(graph, await index.baseLayerGraph(), vectorKeys);
        stats.hnsw = { added: linked.added, reinforced: linked.reinforced };
        return { graph: linked.graph };
      }
      const rows = vectorKeys.map((key) => vectors.get(key)!);
      const layer = exactBaseLayer(rows, { M: o.hnswM, efConstruction: o.hnswEfConstruction });
      const linked = withLinks(graph, layer, vectorKeys);
      stats.hnsw = { added: linked.added, reinforced: linked.reinforced };
      return { graph: linked.graph, baseLayer: vectorKeys.map((_, id) => layer.get(id) ?? []) };
    },
    { checkpoint: false },
  );
}
