/**
 * NodeRAG indexing, G0 → G5 (§2.2-2.4), as stages of a build runtime: each stage's model calls go
 * through the runtime, and the graph is laid from their results by the pure steps of `units.ts`,
 * `elements.ts` and `hnsw.ts`.
 */
import {
  type BuildContext,
  type Document,
  indexProviders,
  isFittableEmbedder,
  type ParseIssue,
  startBuild,
} from '@grag/core';
import { importantEntities, leiden, type MatchingNode } from '@grag/heterograph';
import {
  attributeMaterial,
  communityMembers,
  fitTexts,
  layAttributes,
  layHighLevelElements,
  matchHighLevelElements,
} from './elements.js';
import { buildHnsw, layBaseLayer, NODERAG_VECTOR_INDEX } from './hnsw.js';
import type { NodeRagOptions } from './options.js';
import { searchStructures } from './search.js';
import type { NodeRagBuildStats, NodeRagIndex } from './types.js';
import { bump, layUnits, linkUnits, textUnits } from './units.js';

/** Add every count of `from` to `into`. */
function addCounts(into: Record<string, number>, from: Readonly<Record<string, number>>): void {
  for (const [key, n] of Object.entries(from)) bump(into, key, n);
}

/**
 * NodeRAG indexing, G0 → G5 (NodeRAG §2.2-2.4): decomposition into semantic units, entities and
 * relationships; attributes of important entities; Leiden communities with their high-level elements,
 * overviews and semantic matching; text insertion; selective embedding of T, S, A, H; HNSW semantic
 * edges. `o` are resolved options (see `resolveNodeRagOptions`).
 *
 * Runs through a new build runtime of `ctx` ({@link startBuild}): the model calls of each stage go
 * through `rt.map` (at most `o.concurrency`, else the runtime's concurrency, in flight) and their
 * results are checkpointed, so a build interrupted and run again with the same checkpoint store
 * resumes; the graph is rebuilt from those results, which are applied in input order.
 */
export async function buildNodeRag(
  docs: readonly Document[],
  ctx: BuildContext,
  o: NodeRagOptions,
): Promise<NodeRagIndex> {
  const { tasks, signal, tokenizer } = ctx;
  const rt = startBuild(ctx);
  const concurrency = o.concurrency !== undefined ? { concurrency: o.concurrency } : {};
  const stats: NodeRagBuildStats = {
    documents: new Set(docs.map((d) => d.id)).size,
    chunks: 0,
    extractedUnits: 0,
    importantEntities: 0,
    attributes: 0,
    communities: 0,
    emptyCommunities: 0,
    highLevelElements: 0,
    semanticMatchingEdges: 0,
    semanticClusters: 0,
    hnsw: { added: 0, reinforced: 0 },
    skipped: {},
    parseIssues: {},
  };
  const countIssues = (issues: readonly ParseIssue[]) => {
    for (const issue of issues) bump(stats.parseIssues, issue.kind);
  };

  const { chunks, texts } = await rt.stage('chunk', () => textUnits(docs, ctx, o));
  stats.chunks = chunks.length;
  const { embedder } = ctx;
  if (isFittableEmbedder(embedder)) {
    await rt.stage('fit', () => embedder.fit(texts), { checkpoint: false });
  }

  // G1: semantic units, entities and relationships (§2.2).
  const decompositions = await rt.stage('decompose', () =>
    rt.map(texts, (text) => tasks.decomposeSemanticUnits(text, { abortSignal: signal }), {
      label: (_, c) => chunks[c]!.id,
      unit: 'chunks',
      ...concurrency,
    }),
  );
  const { graph, unitsOfChunk } = await rt.stage(
    'decompose',
    () => {
      let units = decompositions.map((d) => d.units);
      if (o.entityLinking) {
        const linked = linkUnits({ docs, chunks, units });
        stats.linking = linked.linking;
        units = linked.units;
      }
      for (const decomposition of decompositions) countIssues(decomposition.issues);
      const laid = layUnits({ chunks, units });
      stats.extractedUnits = laid.extractedUnits;
      addCounts(stats.skipped, laid.skipped);
      return laid;
    },
    { checkpoint: false },
  );

  // G2: attributes of important entities (§2.3, appendix C.2).
  const attributes = await rt.stage('attributes', async () => {
    const important = importantEntities(graph.graph, {
      isCandidate: (_, a) => a.type === 'N' && (a.weight as number) >= o.attributeMinMentions,
      coreRule: o.coreRule,
      betweennessSamples: o.betweennessSamples,
      seed: o.seed,
    });
    const summaries = await rt.map(
      important.nodes,
      async (entity) => {
        const fitted = fitTexts(attributeMaterial(graph, entity), o.attributeContextTokens, tokenizer);
        const summary =
          fitted.length === 0
            ? ''
            : await tasks.summarize(fitted, {
                purpose: 'entity',
                maxTokens: o.attributeTokens,
                abortSignal: signal,
              });
        return summary.trim();
      },
      { label: (entity) => entity, unit: 'entities', ...concurrency },
    );
    return { entities: important.nodes, summaries };
  });
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

  // Embeddings of S and A now (semantic matching needs them), of H and T when they exist (§2.4).
  const vectors = new Map<string, Float32Array>();
  const embed = async (keys: string[]) => {
    const embeddings = await rt.stage('embed', () =>
      rt.embed(
        keys.map((key) => graph.node(key).text),
        { label: (_, i) => keys[i]! },
      ),
    );
    keys.forEach((key, i) => {
      vectors.set(key, embeddings[i]!);
    });
  };
  await embed([...graph.nodes('S'), ...graph.nodes('A')]);

  // G3: Leiden communities, high-level elements and overviews, semantic matching (§2.3, appendix C.3).
  const communities = await rt.stage('communities', async () => {
    const { communities, count } = leiden(graph.graph, {
      seed: o.seed,
      resolution: o.leidenResolution,
      iterations: o.leidenIterations,
    });
    const nonEmpty = communityMembers(graph, communities, count)
      .map((m, c) => ({ m, c }))
      .filter(({ m }) => m.length > 0);
    const elements = await rt.map(
      nonEmpty,
      ({ m }) => {
        const material = m.map((key) => graph.node(key).text);
        const content = fitTexts(material, o.communityContextTokens, tokenizer).join('\n');
        return tasks.titleAndDescription(content, { abortSignal: signal });
      },
      { label: ({ c }) => `community ${c}`, unit: 'communities', ...concurrency },
    );
    return { count, nonEmpty, elements };
  });
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
  await embed(highKeys);
  await rt.stage(
    'semantic-matching',
    () => {
      if (highKeys.length === 0) return;
      const nodes: MatchingNode[] = matching.map((node) => ({ ...node, vector: vectors.get(node.id)! }));
      const { edges, clusters } = matchHighLevelElements({
        nodes,
        denseMatchingClusterSize: o.denseMatchingClusterSize,
        seed: o.seed,
      });
      stats.semanticClusters = clusters;
      for (const [member, h] of edges) graph.connect(member, h, 'h');
      stats.semanticMatchingEdges = edges.length;
    },
    { checkpoint: false },
  );

  // G4: text insertion (§2.4).
  const textKeys = chunks.map((chunk, c) => {
    const key = `T:${chunk.id}`;
    graph.addNode(key, 'T', { text: texts[c]!, chunks: [chunk.id], docs: [chunk.docId] });
    for (const sKey of unitsOfChunk[c]!) graph.connect(key, sKey, 's');
    return key;
  });
  await embed(textKeys);

  // G5: HNSW index over the embedded nodes and its base layer as semantic edges (§2.4).
  const vectorKeys = [...textKeys, ...graph.nodes('S'), ...graph.nodes('A'), ...graph.nodes('H')];
  const hnsw = await rt.stage(
    'hnsw',
    async () => {
      const index = buildHnsw({
        vectors: vectorKeys.map((key) => vectors.get(key)!),
        dimensions: embedder.dimensions,
        options: o,
        onAdded: (done) => ctx.onProgress?.({ stage: 'hnsw', done, total: vectorKeys.length, unit: 'nodes' }),
      });
      if (o.hnswEdges) {
        const counts = await layBaseLayer(graph, index, vectorKeys);
        stats.hnsw = { added: counts.added, reinforced: counts.reinforced };
      }
      return index;
    },
    { checkpoint: false },
  );
  return {
    providers: { ...indexProviders(ctx), vectorIndex: NODERAG_VECTOR_INDEX },
    options: o,
    graph,
    vectors: hnsw,
    vectorKeys,
    chunks,
    stats,
    ...searchStructures(graph, vectorKeys),
  };
}
