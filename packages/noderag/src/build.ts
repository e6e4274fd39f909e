/**
 * NodeRAG indexing, G0 → G5 (§2.2-2.4), as stages of a build runtime: each stage's model calls go
 * through the runtime, and the graph is laid from their results by the pure steps of `units.ts`,
 * `elements.ts` and `hnsw.ts`. A build and an update run the same stages; an update's memo holds
 * the answers of the kept documents, so only new inputs reach the models.
 */
import { type BuildContext, type Chunk, type Document, isFittableEmbedder } from '@grag/core';
import { type BuildRuntime, type IndexProviders, indexProviders, startBuild } from '@grag/core/kit';
import {
  communityElements,
  decompose,
  embedNodes,
  type IndexingRun,
  importantAttributes,
  laySemanticMatching,
  semanticEdges,
  startSemanticMatching,
  vectorIndexOf,
} from './graph-stages.js';
import { emptyMemo, keptElement, type NodeRagCalls, type NodeRagKept, type NodeRagMemo } from './kept.js';
import type { PreviousStructures } from './local.js';
import type { NodeRagOptions } from './options.js';
import { searchStructures } from './search.js';
import type { NodeRagBuildStats, NodeRagIndex } from './types.js';
import { textUnits } from './units.js';

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
    providers: indexProviders(ctx),
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
  const { o, chunks, texts } = input;
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
  const run: IndexingRun = {
    ...input,
    previous: input.previous,
    concurrency: o.concurrency !== undefined ? { concurrency: o.concurrency } : {},
    calls,
    stats,
    vectors: new Map(),
  };
  const { vectors } = run;
  const { decompositions, graph, unitsOfChunk } = await decompose(run);
  const attributes = await importantAttributes(run, graph);
  // Embeddings of S and A now (semantic matching needs them), of H and T when they exist (§2.4).
  await embedNodes(run, graph, [...graph.nodes('S'), ...graph.nodes('A')]);
  const communities = await communityElements(run, graph);
  await embedNodes(run, graph, communities.highKeys);
  // Semantic matching's k-means runs on a worker thread while the vector index is built; the text
  // nodes are embedded first, from their texts, and laid after its edges, as the paper orders G3, G4.
  const matching = startSemanticMatching(run, communities.matching, communities.highKeys);
  const textKeys = chunks.map((chunk) => `T:${chunk.id}`);
  const textOf = new Map(textKeys.map((key, c) => [key, texts[c]!]));
  await embedNodes(run, graph, textKeys, (key) => textOf.get(key)!);
  const vectorKeys = [...textKeys, ...graph.nodes('S'), ...graph.nodes('A'), ...graph.nodes('H')];
  const hnsw = await vectorIndexOf(run, vectorKeys, input.providers);
  await laySemanticMatching(run, graph, matching);

  // G4: text insertion (§2.4).
  chunks.forEach((chunk, c) => {
    const key = textKeys[c]!;
    graph.addNode(key, 'T', { text: texts[c]!, chunks: [chunk.id], docs: [chunk.docId] });
    for (const sKey of unitsOfChunk[c]!) graph.connect(key, sKey, 's');
  });

  // The graph with its semantic edges is a new one (on arrays), which the index keeps.
  const { graph: linked, baseLayer } = await semanticEdges(run, graph, hnsw, vectorKeys);
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
    graph: linked,
    vectors: hnsw,
    vectorKeys,
    ...(baseLayer ? { baseLayer } : {}),
    chunks,
    stats,
    kept,
    ...searchStructures(linked, vectorKeys),
  };
  return { index, calls };
}
