import { join } from 'node:path';
import {
  AbortError,
  assertKnownOptions,
  assertSameProviders,
  type BuildContext,
  buildRuntime,
  type Chunk,
  checkVectorRows,
  chunkCorpus as chunkCorpusBy,
  DEFAULT_BUDGET_TOKENS,
  type Document,
  embedAll,
  IndexFormatError,
  InvalidArgumentError,
  isFittableEmbedder,
  type Method,
  modelFingerprint,
  optionKeys,
  packContext,
  type RetrievedItem,
  type RetrieveOptions,
  readJson,
  readManifest,
  restoreEmbedderState,
  saveEmbedderState,
  throwIfAborted,
  type VectorIndex,
  v,
  writeIndexDir,
  writeJson,
} from '@grag/core';
import {
  buildSummaryTree,
  type CollapsedTreeHit,
  indexSummaryTree,
  joinLeafTexts,
  leavesFromChunks,
  loadSummaryTree,
  type SummaryLevelRunner,
  type SummaryTree,
  saveSummaryTree,
  searchCollapsedTree,
  summaryCount,
} from '@grag/summary-tree';
import { createWinkEntityExtractor, type EntityExtractor } from './entities.js';
import { EntityGraph } from './graph.js';
import {
  ADAPTIVE_RETRIEVAL_DEFAULTS,
  type AdaptiveRetrievalOptions,
  type AdaptiveRetrievalResult,
  adaptiveRetrieve,
} from './retrieve.js';

/** Build options of E2GraphRAG; the retrieval ones are the defaults of every query of the index. */
export interface E2GraphRagOptions extends AdaptiveRetrievalOptions {
  /**
   * `'fixed'`: token windows of `chunkSize` with `overlap`; `'document'`: one chunk per document (a
   * corpus of passages, as in the multi-hop QA benchmarks). @default 'fixed'
   */
  chunking: 'fixed' | 'document';
  /** Tokens per chunk. @default 1200 (E2GraphRAG §3.1) */
  chunkSize: number;
  /** Tokens shared by consecutive chunks. @default 100 (E2GraphRAG §3.1) */
  overlap: number;
  /** Write the document title as the first line of its first chunk (unless the text starts with it). @default true */
  includeTitle: boolean;
  /** Nodes per summary, g. @default 5 (E2GraphRAG §4.4; official `merge_num: 5`) */
  groupSize: number;
  /** Stop summarizing at the first level with at most `stopRatio · g` nodes. @default 1.2 (official code) */
  stopRatio: number;
  /**
   * Summarization calls in flight at once (within one tree level). When unset, the build runtime's
   * concurrency applies (`ctx.runtime.concurrency`). @default the runtime's, 8
   */
  concurrency?: number;
  /** Length asked of each summary, in tokens. @default 200 */
  summaryMaxTokens: number;
}

/** Defaults of {@link createE2GraphRag}. */
export const E2GRAPHRAG_DEFAULTS: Readonly<E2GraphRagOptions> = {
  chunking: 'fixed',
  chunkSize: 1200,
  overlap: 100,
  includeTitle: true,
  groupSize: 5,
  stopRatio: 1.2,
  summaryMaxTokens: 200,
  ...ADAPTIVE_RETRIEVAL_DEFAULTS,
};

/** Query options: the context budget, `topK` (k), and any retrieval option of {@link AdaptiveRetrievalOptions}. */
export interface E2GraphRagRetrieveOptions
  extends RetrieveOptions,
    Partial<Omit<AdaptiveRetrievalOptions, 'topK'>> {}

/** An E2GraphRAG index: the summary tree with its vectors, the entity graph with its indexes. */
export interface E2GraphRagIndex {
  ctx: BuildContext;
  options: E2GraphRagOptions;
  /** Leaves are the chunks, in document order; leaf i is chunk i of the entity graph. */
  tree: SummaryTree;
  /** Every tree node embedded; vector id = node index. */
  vectors: VectorIndex;
  graph: EntityGraph;
  extractor: EntityExtractor;
  stats: E2GraphRagStats;
}

/** Counts of a built index (also written to the manifest). */
export interface E2GraphRagStats {
  documents: number;
  /** Documents left out because their text is blank. */
  skippedDocuments: number;
  chunks: number;
  summaries: number;
  /** Nodes per tree level, leaves first. */
  levels: number[];
  entities: number;
  edges: number;
}

/** Settings of {@link createE2GraphRag}. */
export interface E2GraphRagSettings {
  /** Method name used in manifests and the CLI. @default 'e2graphrag' */
  name?: string;
  /** Option defaults of this instance. */
  defaults?: Partial<E2GraphRagOptions>;
  /** Entity extractor for indexing and queries. @default createWinkEntityExtractor() */
  extractor?: EntityExtractor;
}

const RETRIEVAL_KEYS = Object.keys(ADAPTIVE_RETRIEVAL_DEFAULTS) as (keyof AdaptiveRetrievalOptions)[];

/** Every build option key; others are refused. */
const BUILD_OPTION_KEYS = optionKeys<E2GraphRagOptions>({ ...E2GRAPHRAG_DEFAULTS, concurrency: undefined });
/** Every retrieve option key; others are refused. */
const QUERY_OPTION_KEYS = optionKeys<E2GraphRagRetrieveOptions>({
  budgetTokens: undefined,
  signal: undefined,
  ...ADAPTIVE_RETRIEVAL_DEFAULTS,
});

function resolveOptions(options: Partial<E2GraphRagOptions>, caller: string): E2GraphRagOptions {
  const o = { ...E2GRAPHRAG_DEFAULTS, ...options };
  if (o.chunking !== 'fixed' && o.chunking !== 'document') {
    throw new InvalidArgumentError(
      'chunking',
      `${caller}: chunking must be 'fixed' or 'document', got ${JSON.stringify(o.chunking)}.`,
    );
  }
  if (o.concurrency !== undefined && (!Number.isInteger(o.concurrency) || o.concurrency < 1)) {
    throw new InvalidArgumentError(
      'concurrency',
      `${caller}: concurrency must be a positive integer, got ${String(o.concurrency)}; leave it unset for the runtime's.`,
    );
  }
  return o;
}

/** Chunks of the corpus: token windows, or one chunk per non-blank document. */
function chunkCorpus(
  docs: readonly Document[],
  ctx: BuildContext,
  o: E2GraphRagOptions,
): { chunks: Chunk[]; skipped: number } {
  if (docs.length === 0) {
    throw new InvalidArgumentError(
      'docs',
      'e2graphrag build: the corpus is empty; pass at least one document.',
    );
  }
  const kept = docs.filter((d) => d.text.trim() !== '');
  if (kept.length === 0) {
    throw new InvalidArgumentError('docs', 'e2graphrag build: every document is blank; pass some text.');
  }
  const chunks = chunkCorpusBy(kept, {
    chunking: o.chunking,
    chunkSize: o.chunkSize,
    overlap: o.overlap,
    tokenizer: ctx.tokenizer,
  });
  return { chunks, skipped: docs.length - kept.length };
}

/** Titles to write on first chunks: those the document text does not already start with. */
function titlesToWrite(docs: readonly Document[]): Map<string, string | undefined> {
  const titles = new Map<string, string | undefined>();
  for (const doc of docs) {
    const title = doc.title?.trim();
    const firstLine = /^\s*#*\s*(.*)/.exec(doc.text)?.[1]?.trim();
    if (title && firstLine !== title) titles.set(doc.id, title);
  }
  return titles;
}

/** Consecutive leaves of one document in `leaves` (ascending), as runs. */
function runsOf(tree: SummaryTree, leaves: readonly number[]): number[][] {
  const runs: number[][] = [];
  for (const leaf of leaves) {
    const run = runs[runs.length - 1];
    const last = run?.[run.length - 1];
    if (run && last === leaf - 1 && tree.nodes[last]!.docId === tree.nodes[leaf]!.docId) run.push(leaf);
    else runs.push([leaf]);
  }
  return runs;
}

function provenance(tree: SummaryTree, leaves: readonly number[]): RetrievedItem['source'] {
  const chunkIds = leaves.map((l) => tree.nodes[l]!.id);
  const docIds = [...new Set(leaves.map((l) => tree.nodes[l]!.docId ?? tree.nodes[l]!.id))];
  return { chunkIds, docIds };
}

/** Retrieved items of a result: merged chunk runs under their entity label (local), or tree nodes (global). */
function itemsOf(
  tree: SummaryTree,
  result: AdaptiveRetrievalResult,
): { items: RetrievedItem[]; labels: Map<string, string> } {
  const items: RetrievedItem[] = [];
  const labels = new Map<string, string>();
  for (const group of result.groups) {
    const label = group.entities.join('-');
    for (const run of runsOf(tree, group.leaves)) {
      const first = tree.nodes[run[0]!]!;
      const last = tree.nodes[run[run.length - 1]!]!;
      const id = run.length === 1 ? first.id : `${first.id}..${last.id}`;
      const text = joinLeafTexts(run.map((l) => tree.nodes[l]!)).join('\n');
      items.push({ id, kind: 'chunk', text, score: group.entities.length, source: provenance(tree, run) });
      labels.set(id, label);
    }
  }
  for (const { node, score } of result.nodes) {
    const n = tree.nodes[node]!;
    const leaves: number[] = [];
    for (let l = n.firstLeaf; l <= n.lastLeaf; l++) leaves.push(l);
    items.push({
      id: n.id,
      kind: n.level === 0 ? 'chunk' : 'summary',
      text: n.text,
      score,
      source: provenance(tree, leaves),
    });
  }
  return { items, labels };
}

/**
 * E2GraphRAG (Zhao et al. 2025): a summary tree built with the `summarize` task and an entity graph
 * built without any model, joined by entity↔chunk indexes; queries pick local or global retrieval
 * by themselves (Algorithm 1).
 */
export function createE2GraphRag(
  settings: E2GraphRagSettings = {},
): Method<E2GraphRagIndex, E2GraphRagOptions, E2GraphRagRetrieveOptions> {
  const name = settings.name ?? 'e2graphrag';
  const formatVersion = 1;
  const extractor = settings.extractor ?? createWinkEntityExtractor();
  return {
    name,
    formatVersion,
    optionKeys: { build: BUILD_OPTION_KEYS, retrieve: QUERY_OPTION_KEYS },
    passageRanking: { kinds: ['chunk'] },
    async build(docs, ctx, options = {}) {
      assertKnownOptions(`${name} build`, options, BUILD_OPTION_KEYS);
      const o = resolveOptions({ ...settings.defaults, ...options }, `${name} build`);
      const rt = buildRuntime(ctx);
      const { chunks, skipped } = await rt.stage('chunk', () => chunkCorpus(docs, ctx, o));
      const leaves = leavesFromChunks(chunks, o.includeTitle ? { titles: titlesToWrite(docs) } : {});
      // The paper runs the (CPU) entity extraction and the (GPU) summaries side by side (§3.1).
      // Both start in this tick, entities first, so the stages are numbered the same on every run.
      const entities = rt.stage('entities', () =>
        rt.map(
          leaves,
          async (leaf, i) => {
            // Yield to the event loop now and then, so the summaries progress meanwhile.
            if (i % 16 === 0) await new Promise<void>((resolve) => setImmediate(resolve));
            return extractor.extract(leaf.text);
          },
          { label: (leaf) => leaf.id, unit: 'chunks', concurrency: 1, issues: () => undefined },
        ),
      );
      // Each level of the tree is one checkpointed 'summarize' stage: a resumed build gets the
      // finished levels back without asking for them again.
      const runLevel: SummaryLevelRunner = (groups, summarize) =>
        rt.stage('summarize', () =>
          rt.map(groups, summarize, {
            label: (g) => `${g.id} (chunks ${leaves[g.firstLeaf]!.id} to ${leaves[g.lastLeaf]!.id})`,
            unit: 'summaries',
            ...(o.concurrency !== undefined ? { concurrency: o.concurrency } : {}),
          }),
        );
      const summaries = buildSummaryTree(leaves, ctx.tasks, {
        groupSize: o.groupSize,
        stopRatio: o.stopRatio,
        summaryMaxTokens: o.summaryMaxTokens,
        runLevel,
        ...(ctx.signal ? { signal: ctx.signal } : {}),
      });
      // Both settle before the build goes on or fails, so no stage keeps running (and writing its
      // checkpoint) after the build has returned.
      const [treeResult, entitiesResult] = await Promise.allSettled([summaries, entities]);
      const failures = [treeResult, entitiesResult].flatMap((r) =>
        r.status === 'rejected' ? [r.reason] : [],
      );
      if (failures.length > 0) throw failures.find((e) => !AbortError.isInstance(e)) ?? failures[0];
      const tree = (treeResult as PromiseFulfilledResult<SummaryTree>).value;
      const sentences = (entitiesResult as PromiseFulfilledResult<string[][][]>).value;
      const graph = await rt.stage('graph', () => EntityGraph.fromSentences(sentences), {
        checkpoint: false,
      });
      const texts = tree.nodes.map((n) => n.text);
      const { embedder } = ctx;
      if (isFittableEmbedder(embedder)) {
        await rt.stage('fit', () => embedder.fit(texts), { checkpoint: false });
      }
      const embeddings = await rt.stage('embed', () =>
        rt.embed(texts, { label: (_, i) => tree.nodes[i]!.id }),
      );
      const vectors = await rt.stage(
        'vector-index',
        () => indexSummaryTree(tree, embeddings, ctx.vectorIndex, { dimensions: embedder.dimensions }),
        { checkpoint: false },
      );
      const stats: E2GraphRagStats = {
        documents: docs.length - skipped,
        skippedDocuments: skipped,
        chunks: chunks.length,
        summaries: summaryCount(tree),
        levels: tree.levels.map((l) => l.length),
        entities: graph.entities.length,
        edges: graph.edgeCount,
      };
      return { ctx, options: o, tree, vectors, graph, extractor, stats };
    },

    async retrieve(index, query, options = {}) {
      const started = performance.now();
      const { ctx, tree, vectors } = index;
      if (typeof query !== 'string' || query.trim() === '') {
        throw new InvalidArgumentError('query', `${name} retrieve: the query is empty; pass a question.`);
      }
      assertKnownOptions(`${name} retrieve`, options, QUERY_OPTION_KEYS);
      throwIfAborted(options.signal);
      const o: AdaptiveRetrievalOptions = { ...ADAPTIVE_RETRIEVAL_DEFAULTS };
      for (const key of RETRIEVAL_KEYS) {
        const value = options[key as keyof E2GraphRagRetrieveOptions] ?? index.options[key];
        if (value !== undefined) (o as unknown as Record<string, unknown>)[key] = value;
      }
      if (options.topK !== undefined) o.topK = options.topK;
      const queryEntities = (await index.extractor.extract(query)).flat();
      const extracted = performance.now();
      let queryVector: Float32Array | undefined;
      let denseMs = 0;
      const dense = async (k: number): Promise<CollapsedTreeHit[]> => {
        const t = performance.now();
        queryVector ??= (await embedAll(ctx.embedder, [query], { abortSignal: options.signal }))[0]!;
        const hits = searchCollapsedTree(tree, vectors, queryVector, Math.min(k, tree.nodes.length));
        denseMs += performance.now() - t;
        return hits;
      };
      const result = await adaptiveRetrieve(index, queryEntities, dense, o);
      const selected = performance.now();
      const { items, labels } = itemsOf(tree, result);
      const packed = packContext(items, options.budgetTokens ?? DEFAULT_BUDGET_TOKENS, {
        tokenizer: ctx.tokenizer,
        render: (item) => {
          const label = labels.get(item.id);
          return label ? `[${item.id}] ${label}: ${item.text}` : `[${item.id}] ${item.text}`;
        },
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
    },

    async save(index, dir) {
      const { ctx } = index;
      await writeIndexDir(
        dir,
        {
          method: name,
          formatVersion,
          params: { ...index.options },
          providers: {
            embedder: modelFingerprint(ctx.embedder),
            vectorIndex: index.vectors.kind,
            entityExtractor: index.extractor.id,
          },
          stats: { ...index.stats },
        },
        async (tmp) => {
          await saveSummaryTree(index.tree, join(tmp, 'tree.json'));
          await writeJson(join(tmp, 'graph.json'), index.graph.toJSON());
          await index.vectors.save(join(tmp, 'vectors.bin'));
          await saveEmbedderState(ctx.embedder, tmp);
        },
      );
    },

    async load(dir, ctx) {
      const manifest = await readManifest(dir, { method: name, formatVersion });
      assertSameProviders(dir, manifest, {
        embedder: modelFingerprint(ctx.embedder),
        vectorIndex: ctx.vectorIndex.kind,
        entityExtractor: extractor.id,
      });
      await restoreEmbedderState(ctx.embedder, dir);
      const tree = await loadSummaryTree(join(dir, 'tree.json'));
      const graphPath = join(dir, 'graph.json');
      const graph = EntityGraph.fromJSON(await readJson(graphPath, v.unknown()), graphPath);
      if (graph.chunkCount !== tree.levels[0]!.length) {
        throw new IndexFormatError(
          dir,
          formatVersion,
          `${dir}: the entity graph and the summary tree index different chunks; rebuild the index.`,
        );
      }
      const vectorsPath = join(dir, 'vectors.bin');
      const vectors = await ctx.vectorIndex.load(vectorsPath);
      checkVectorRows(
        vectors,
        { count: tree.nodes.length, dimensions: ctx.embedder.dimensions },
        vectorsPath,
      );
      const options = resolveOptions(manifest.params as Partial<E2GraphRagOptions>, `${name} load`);
      const stats = (manifest.stats ?? {}) as unknown as E2GraphRagStats;
      return { ctx, options, tree, vectors, graph, extractor, stats };
    },
  };
}

/** E2GraphRAG with default settings (`grag index --method e2graphrag`). */
export const e2GraphRag = createE2GraphRag();
