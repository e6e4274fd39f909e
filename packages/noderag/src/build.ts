/**
 * NodeRAG indexing, G0 → G5 (§2.2-2.4), as stages of a build runtime: each stage's model calls go
 * through the runtime, and the graph is laid from their results by the pure steps of `units.ts`,
 * `elements.ts` and `hnsw.ts`. A build and an update run the same stages; an update's memo holds
 * the answers of the kept documents, so only new inputs reach the models.
 */
import {
  type BuildContext,
  type BuildRuntime,
  type Chunk,
  type Document,
  type IndexProviders,
  indexProviders,
  isFittableEmbedder,
  type ParseIssue,
  startBuild,
  type TitleDescription,
} from '@grag/core';
import { type HeteroNodeAttributes, importantEntities, leiden, type MatchingNode } from '@grag/heterograph';
import {
  attributeMaterial,
  communityMembers,
  fitTexts,
  layAttributes,
  layHighLevelElements,
  matchHighLevelElements,
} from './elements.js';
import { buildFlat, buildHnsw, exactBaseLayer, layBaseLayer, layLinks, nodeRagVectorIndex } from './hnsw.js';
import {
  emptyMemo,
  issuesOf,
  type KeptDecomposition,
  keptElement,
  materialKey,
  type NodeRagCalls,
  type NodeRagKept,
  type NodeRagMemo,
} from './kept.js';
import { localCommunities, localImportant, type PreviousStructures } from './local.js';
import type { NodeRagOptions } from './options.js';
import { searchStructures } from './search.js';
import type { NodeRagBuildStats, NodeRagIndex } from './types.js';
import { bump, layUnits, linkUnits, textUnits } from './units.js';

/** Add every count of `from` to `into`. */
function addCounts(into: Record<string, number>, from: Readonly<Record<string, number>>): void {
  for (const [key, n] of Object.entries(from)) bump(into, key, n);
}

/** The positions of `items` whose key `has` does not know: what must still be asked. */
function missing<T>(items: readonly T[], has: (item: T) => boolean): number[] {
  return items.flatMap((item, i) => (has(item) ? [] : [i]));
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
  const rt = startBuild(ctx);
  const { chunks, texts } = await rt.stage('chunk', () => textUnits(docs, ctx, o));
  const { embedder } = ctx;
  if (isFittableEmbedder(embedder)) {
    await rt.stage('fit', () => embedder.fit(texts), { checkpoint: false });
  }
  const documents = docs.map((d) => ({ id: d.id, ...(d.title !== undefined ? { title: d.title } : {}) }));
  const { index } = await indexNodeRag({
    rt,
    ctx,
    o,
    providers: { ...indexProviders(ctx), vectorIndex: nodeRagVectorIndex(ctx) },
    documents,
    chunks,
    texts,
    memo: emptyMemo(),
  });
  return index;
}

/** What {@link indexNodeRag} indexes. */
export interface NodeRagInput {
  rt: BuildRuntime;
  ctx: BuildContext;
  o: NodeRagOptions;
  /** The providers the index records. */
  providers: IndexProviders;
  /** Ids and titles of the documents, in order (titles feed entity linking). */
  documents: NodeRagKept['documents'];
  /** The chunks and the text of each chunk's T node (title line + chunk text). */
  chunks: Chunk[];
  texts: string[];
  /** Model answers to reuse instead of calling the model. */
  memo: NodeRagMemo;
  /**
   * The index an update changes, when importance and communities are kept where the change does
   * not reach (see `local.ts`); absent, both are computed over the whole graph, as a build does.
   */
  previous?: PreviousStructures;
}

/**
 * The stages after chunking (G1 → G5) over `input.chunks`: every model call whose exact input
 * `input.memo` answers is not made. Returns the index (with what it keeps for updates) and the
 * calls made.
 */
export async function indexNodeRag(
  input: NodeRagInput,
): Promise<{ index: NodeRagIndex; calls: NodeRagCalls }> {
  const { rt, ctx, o, chunks, texts, memo } = input;
  const { tasks, signal, tokenizer } = ctx;
  const concurrency = o.concurrency !== undefined ? { concurrency: o.concurrency } : {};
  const calls: NodeRagCalls = { decomposed: 0, summarized: 0, described: 0, embedded: 0 };
  const stats: NodeRagBuildStats = {
    documents: new Set(input.documents.map((d) => d.id)).size,
    chunks: chunks.length,
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

  // G1: semantic units, entities and relationships (§2.2).
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
        const docs = input.documents.map((d) => ({ ...d, text: '' }));
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

  // G2: attributes of important entities (§2.3, appendix C.2).
  const attributes = await rt.stage('attributes', async () => {
    const isCandidate = (a: HeteroNodeAttributes) => a.type === 'N' && a.weight >= o.attributeMinMentions;
    const computed = importantEntities(graph.graph, {
      isCandidate: (_, a) => isCandidate(a as HeteroNodeAttributes),
      coreRule: o.coreRule,
      betweennessSamples: o.betweennessSamples,
      seed: o.seed,
    }).nodes;
    const nodes = input.previous
      ? localImportant(input.previous, graph, computed, (key) => isCandidate(graph.node(key)))
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

  // Embeddings of S and A now (semantic matching needs them), of H and T when they exist (§2.4).
  const vectors = new Map<string, Float32Array>();
  const embed = async (keys: string[]) => {
    const textOf = new Map<string, string>();
    for (const key of keys) {
      const text = graph.node(key).text;
      if (!memo.vectors.has(text) && !textOf.has(text)) textOf.set(text, key);
    }
    const toEmbed = [...textOf.keys()];
    const embeddings = await rt.stage('embed', () =>
      rt.embed(toEmbed, { label: (text) => textOf.get(text)! }),
    );
    calls.embedded += toEmbed.length;
    toEmbed.forEach((text, i) => {
      memo.vectors.set(text, embeddings[i]!);
    });
    for (const key of keys) vectors.set(key, memo.vectors.get(graph.node(key).text)!);
  };
  await embed([...graph.nodes('S'), ...graph.nodes('A')]);

  // G3: Leiden communities, high-level elements and overviews, semantic matching (§2.3, appendix C.3).
  const communities = await rt.stage('communities', async () => {
    const { communities, count } = input.previous
      ? localCommunities(input.previous, graph, { seed: o.seed, resolution: o.leidenResolution })
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

  // G5: HNSW index over the embedded nodes and its base layer as semantic edges (§2.4); without
  // the HNSW addon, the exact flat index and the base layer HNSW's rule makes over exact neighbours.
  const vectorKeys = [...textKeys, ...graph.nodes('S'), ...graph.nodes('A'), ...graph.nodes('H')];
  const { index: hnsw, baseLayer } = await rt.stage(
    'hnsw',
    async (): Promise<{ index: NodeRagIndex['vectors']; baseLayer?: number[][] }> => {
      const rows = vectorKeys.map((key) => vectors.get(key)!);
      const dimensions = input.providers.embedder.dimensions;
      if (input.providers.vectorIndex.kind === 'flat') {
        const index = buildFlat({ vectors: rows, dimensions });
        ctx.onProgress?.({ stage: 'hnsw', done: rows.length, total: rows.length, unit: 'nodes' });
        if (!o.hnswEdges) return { index };
        const layer = exactBaseLayer(rows, { M: o.hnswM, efConstruction: o.hnswEfConstruction });
        stats.hnsw = layLinks(graph, layer, vectorKeys);
        return { index, baseLayer: vectorKeys.map((_, id) => layer.get(id) ?? []) };
      }
      const index = buildHnsw({
        vectors: rows,
        dimensions,
        options: o,
        onAdded: (done) => ctx.onProgress?.({ stage: 'hnsw', done, total: vectorKeys.length, unit: 'nodes' }),
      });
      if (o.hnswEdges) {
        const counts = await layBaseLayer(graph, index, vectorKeys);
        stats.hnsw = { added: counts.added, reinforced: counts.reinforced };
      }
      return { index };
    },
    { checkpoint: false },
  );
  const kept: NodeRagKept = {
    documents: input.documents,
    decompositions,
    attributes: attributes.kept.map(([key, summary]) => [key, summary]),
    elements: communities.keys.map((key, i) => [key, keptElement(communities.elements[i]!)]),
    important: attributes.entities,
    communities: communities.membership,
    embeddings: vectorKeys.map((key) => vectors.get(key)!),
  };
  const index: NodeRagIndex = {
    providers: input.providers,
    options: o,
    graph,
    vectors: hnsw,
    vectorKeys,
    ...(baseLayer ? { baseLayer } : {}),
    chunks,
    stats,
    kept,
    ...searchStructures(graph, vectorKeys),
  };
  return { index, calls };
}
