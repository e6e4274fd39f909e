import { join } from 'node:path';
import {
  AbortError,
  assertKnownOptions,
  assertSameProviders,
  Bm25Index,
  type BuildContext,
  startBuild,
  type Chunk,
  checkVectorRows,
  chunkCorpus as chunkCorpusBy,
  DEFAULT_BUDGET_TOKENS,
  type Document,
  ENTRY_POINT_MODES,
  type EntityVocabulary,
  type EntryPointMode,
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
  reciprocalRankFusion,
  restoreEmbedderState,
  saveEmbedderState,
  searchEntryPoints,
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
  summaryCount,
} from '@grag/summary-tree';
import { type Bridge, expandBridges, homeChunks } from './bridges.js';
import { createWinkEntityExtractor, type EntityExtractor } from './entities.js';
import { EntityGraph } from './graph.js';
import { entityVocabulary, linkChunkEntities, linkQueryEntities } from './linking.js';
import {
  ADAPTIVE_RETRIEVAL_DEFAULTS,
  type AdaptiveRetrievalOptions,
  type AdaptiveRetrievalResult,
  adaptiveRetrieve,
} from './retrieve.js';

/**
 * Retrieval options of grag's offline configuration (beyond Algorithm 1): how entry points are
 * searched, whether the graph's chunks are fused with them, and bridge chunks.
 */
export interface E2GraphRagRankingOptions {
  /**
   * How the "dense retrieval" of Algorithm 1 (and the entry points fused with local chunks) searches
   * the tree nodes: `'dense'` (the embedder, the paper), `'lexical'` (BM25 over the node texts,
   * rebuilt at load) or `'hybrid'` (both, reciprocal rank fusion). @default 'hybrid' (measured; the
   * paper: 'dense')
   */
  entryPoints: EntryPointMode;
  /**
   * Rank the chunks Algorithm 1 selects together with the top-2k entry-point chunks (reciprocal rank
   * fusion) instead of returning only them; global mode's summaries follow the chunks. @default true
   * (measured; the paper returns Algorithm 1's selection alone)
   */
  fuseEntryPoints: boolean;
  /**
   * Weight of Algorithm 1's chunk ranking in that fusion (the entry points weigh 1); 0 keeps the
   * entry-point order and only adds Algorithm 1's chunks behind it. @default 0 (measured)
   */
  graphWeight: number;
  /**
   * Bridge chunks placed behind each of the first `bridgeSeeds` ranked chunks: the chunks of the
   * documents whose title entities it names (needs `linking`). 0: off (the paper). @default 2 (measured)
   */
  bridges: number;
  /** How many of the first ranked chunks get bridges. @default 5 (measured) */
  bridgeSeeds: number;
}

/** Defaults of {@link E2GraphRagRankingOptions}: grag's measured offline configuration. */
export const E2GRAPHRAG_RANKING_DEFAULTS: Readonly<E2GraphRagRankingOptions> = {
  entryPoints: 'hybrid',
  fuseEntryPoints: true,
  graphWeight: 0,
  bridges: 2,
  bridgeSeeds: 5,
};

/** Build options of E2GraphRAG; the retrieval ones are the defaults of every query of the index. */
export interface E2GraphRagOptions extends AdaptiveRetrievalOptions, E2GraphRagRankingOptions {
  /**
   * Link entities across the corpus (core's `linkEntities`: aliases folded, each document's title
   * an entity of its chunks, missed title mentions added) and match query entities against the
   * index's entity names. @default true (measured; the paper uses spaCy's entities as they come)
   */
  linking: boolean;
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
  linking: true,
  ...ADAPTIVE_RETRIEVAL_DEFAULTS,
  ...E2GRAPHRAG_RANKING_DEFAULTS,
};

/**
 * The paper's configuration (E2GraphRAG §3, Algorithm 1): no entity linking, dense retrieval, the
 * selection of Algorithm 1 alone, no bridges. `grag eval --methods e2graphrag --set linking=false
 * --set entryPoints=dense --set fuseEntryPoints=false --set bridges=0`.
 */
export const E2GRAPHRAG_PAPER_DEFAULTS: Readonly<E2GraphRagOptions> = {
  ...E2GRAPHRAG_DEFAULTS,
  linking: false,
  entryPoints: 'dense',
  fuseEntryPoints: false,
  bridges: 0,
};

/** Query options: the context budget, `topK` (k), and any retrieval option of {@link AdaptiveRetrievalOptions}. */
export interface E2GraphRagRetrieveOptions
  extends RetrieveOptions,
    Partial<Omit<AdaptiveRetrievalOptions, 'topK'>>,
    Partial<E2GraphRagRankingOptions> {}

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
  /** Per chunk: its document's title entity (with `linking`); empty without linking. */
  homes: (string | undefined)[];
  /** BM25 over the tree node texts (ids = node indexes), built on first lexical or hybrid query. */
  lexical?: Bm25Index;
  /** The index's entity names, for matching query spans (with `linking`). */
  vocabulary?: EntityVocabulary;
  /** Entity id → its document's first chunk (with `linking`). */
  home?: Map<number, number>;
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
  /** Title mentions added by linking (the extractor missed them). */
  textMentions?: number;
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

const RETRIEVAL_KEYS = Object.keys({ ...ADAPTIVE_RETRIEVAL_DEFAULTS, ...E2GRAPHRAG_RANKING_DEFAULTS }) as (
  | keyof AdaptiveRetrievalOptions
  | keyof E2GraphRagRankingOptions
)[];

/** Every build option key; others are refused. */
const BUILD_OPTION_KEYS = optionKeys<E2GraphRagOptions>({ ...E2GRAPHRAG_DEFAULTS, concurrency: undefined });
/** Every retrieve option key; others are refused. */
const QUERY_OPTION_KEYS = optionKeys<E2GraphRagRetrieveOptions>({
  budgetTokens: undefined,
  signal: undefined,
  ...ADAPTIVE_RETRIEVAL_DEFAULTS,
  ...E2GRAPHRAG_RANKING_DEFAULTS,
});

function resolveOptions(options: Partial<E2GraphRagOptions>, caller: string): E2GraphRagOptions {
  const o = { ...E2GRAPHRAG_DEFAULTS, ...options };
  if (o.chunking !== 'fixed' && o.chunking !== 'document') {
    throw new InvalidArgumentError(
      'chunking',
      `${caller}: chunking must be 'fixed' or 'document', got ${JSON.stringify(o.chunking)}.`,
    );
  }
  checkRankingOptions(o, caller);
  if (o.concurrency !== undefined && (!Number.isInteger(o.concurrency) || o.concurrency < 1)) {
    throw new InvalidArgumentError(
      'concurrency',
      `${caller}: concurrency must be a positive integer, got ${String(o.concurrency)}; leave it unset for the runtime's.`,
    );
  }
  return o;
}

function checkRankingOptions(o: Partial<E2GraphRagRankingOptions>, caller: string): void {
  if (o.entryPoints !== undefined && !ENTRY_POINT_MODES.includes(o.entryPoints)) {
    throw new InvalidArgumentError(
      'entryPoints',
      `${caller}: entryPoints must be one of ${ENTRY_POINT_MODES.join(', ')}, got ${JSON.stringify(o.entryPoints)}.`,
    );
  }
  if (o.graphWeight !== undefined && !(o.graphWeight >= 0)) {
    throw new InvalidArgumentError(
      'graphWeight',
      `${caller}: graphWeight must be >= 0, got ${String(o.graphWeight)}.`,
    );
  }
  for (const key of ['bridges', 'bridgeSeeds'] as const) {
    const value = o[key];
    if (value !== undefined && (!Number.isInteger(value) || value < 0)) {
      throw new InvalidArgumentError(key, `${caller}: ${key} must be an integer >= 0, got ${String(value)}.`);
    }
  }
}

/** What query-time linking and bridging need: the vocabulary and the home chunks (when linked). */
function linkingViews(
  graph: EntityGraph,
  homes: readonly (string | undefined)[],
): { vocabulary?: EntityVocabulary; home?: Map<number, number> } {
  if (homes.length === 0) return {};
  return { vocabulary: entityVocabulary(graph.entities), home: homeChunks(graph, homes) };
}

/** Leaves in rank order as items: one chunk item per leaf (no run merging, the order is the rank). */
function rankedItems(tree: SummaryTree, leaves: readonly number[]): RetrievedItem[] {
  return leaves.map((leaf, rank) => {
    const n = tree.nodes[leaf]!;
    return { id: n.id, kind: 'chunk', text: n.text, score: 1 / (rank + 1), source: provenance(tree, [leaf]) };
  });
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
    description: 'E2GraphRAG: summary tree + NLP entity graph, adaptive local/global retrieval',
    capabilities: { uses: ['embedder', 'tasks', 'vectorIndex'] },
    formatVersion,
    optionKeys: { build: BUILD_OPTION_KEYS, retrieve: QUERY_OPTION_KEYS },
    passageRanking: { kinds: ['chunk'] },
    async build(docs, ctx, options = {}) {
      assertKnownOptions(`${name} build`, options, BUILD_OPTION_KEYS);
      const o = resolveOptions({ ...settings.defaults, ...options }, `${name} build`);
      const rt = startBuild(ctx);
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
      const extracted = (entitiesResult as PromiseFulfilledResult<string[][][]>).value;
      const { graph, homes, textMentions } = await rt.stage(
        'graph',
        () => {
          if (!o.linking) return { graph: EntityGraph.fromSentences(extracted), homes: [], textMentions: 0 };
          const titles = new Map(docs.map((d) => [d.id, d.title]));
          const linked = linkChunkEntities(
            extracted,
            leaves.map((l) => ({ docId: l.docId ?? l.id, text: l.text })),
            titles,
          );
          return {
            graph: EntityGraph.fromSentences(linked.sentences),
            homes: linked.homes,
            textMentions: linked.textMentions,
          };
        },
        { checkpoint: false },
      );
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
        ...(o.linking ? { textMentions } : {}),
      };
      return {
        ctx,
        options: o,
        tree,
        vectors,
        graph,
        extractor,
        stats,
        homes,
        ...linkingViews(graph, homes),
      };
    },

    async retrieve(index, query, options = {}) {
      const started = performance.now();
      const { ctx, tree, vectors } = index;
      if (typeof query !== 'string' || query.trim() === '') {
        throw new InvalidArgumentError('query', `${name} retrieve: the query is empty; pass a question.`);
      }
      assertKnownOptions(`${name} retrieve`, options, QUERY_OPTION_KEYS);
      throwIfAborted(options.signal);
      const o: AdaptiveRetrievalOptions & E2GraphRagRankingOptions = {
        ...ADAPTIVE_RETRIEVAL_DEFAULTS,
        ...E2GRAPHRAG_RANKING_DEFAULTS,
      };
      for (const key of RETRIEVAL_KEYS) {
        const value = options[key as keyof E2GraphRagRetrieveOptions] ?? index.options[key];
        if (value !== undefined) (o as unknown as Record<string, unknown>)[key] = value;
      }
      if (options.topK !== undefined) o.topK = options.topK;
      checkRankingOptions(o, `${name} retrieve`);
      const extractedEntities = (await index.extractor.extract(query)).flat();
      const queryEntities = index.vocabulary
        ? linkQueryEntities(query, extractedEntities, index.vocabulary)
        : extractedEntities;
      const extracted = performance.now();
      let queryVector: Float32Array | undefined;
      let denseMs = 0;
      const leafCount = tree.levels[0]!.length;
      const search = async (k: number, leavesOnly = false) => {
        const t = performance.now();
        if (o.entryPoints !== 'lexical') {
          queryVector ??= (await embedAll(ctx.embedder, [query], { abortSignal: options.signal }))[0]!;
        }
        if (o.entryPoints !== 'dense') index.lexical ??= new Bm25Index(tree.nodes.map((n) => n.text));
        const hits = searchEntryPoints({
          mode: o.entryPoints,
          query,
          ...(queryVector ? { queryVector } : {}),
          vectors,
          ...(index.lexical ? { lexical: index.lexical } : {}),
          k: Math.min(k, leavesOnly ? leafCount : tree.nodes.length),
          ...(leavesOnly ? { filter: (id: number) => id < leafCount } : {}),
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
      let rankedPath = false;
      let items: RetrievedItem[];
      let labels = new Map<string, string>();
      if (!o.denseOnly && (o.fuseEntryPoints || o.bridges > 0)) {
        // grag's offline configuration: one chunk ranking (Algorithm 1's chunks fused with the entry
        // points), bridge chunks behind the first ones, then global mode's summaries.
        rankedPath = true;
        const graphLeaves =
          result.ranked.length > 0
            ? result.ranked
            : result.nodes.filter((n) => n.node < leafCount).map((n) => n.node);
        let ranking = graphLeaves;
        if (o.fuseEntryPoints) {
          const entry = await search(2 * o.topK, true);
          ranking =
            graphLeaves.length === 0
              ? entry.map((h) => h.id)
              : reciprocalRankFusion([entry, graphLeaves.map((id) => ({ id, score: 0 }))], {
                  weights: [1, Math.max(o.graphWeight, 1e-9)],
                }).map((h) => h.id);
        }
        const queryIds = result.trace.entities.flatMap((e) => index.graph.id(e) ?? []);
        if (o.bridges > 0 && index.home) {
          ({ ranking, bridges } = expandBridges(index.graph, index.home, index.homes, ranking, queryIds, o));
        }
        items = rankedItems(tree, ranking.slice(0, o.topK));
        // Chunks Algorithm 1 reached keep their "entity1-entity2: chunk" label (§3.2).
        for (const group of result.groups) {
          for (const leaf of group.leaves) labels.set(tree.nodes[leaf]!.id, group.entities.join('-'));
        }
        for (const { node, score } of result.nodes) {
          const n = tree.nodes[node]!;
          if (n.level === 0) continue;
          const leaves: number[] = [];
          for (let l = n.firstLeaf; l <= n.lastLeaf; l++) leaves.push(l);
          items.push({ id: n.id, kind: 'summary', text: n.text, score, source: provenance(tree, leaves) });
        }
      } else {
        ({ items, labels } = itemsOf(tree, result));
      }
      const selected = performance.now();
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
          if (index.homes.length > 0) await writeJson(join(tmp, 'links.json'), { homes: index.homes });
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
      // Indexes written before linking existed were built the paper's way.
      const params = manifest.params as Partial<E2GraphRagOptions>;
      const options = resolveOptions(
        { linking: false, entryPoints: 'dense', fuseEntryPoints: false, bridges: 0, ...params },
        `${name} load`,
      );
      const stats = (manifest.stats ?? {}) as unknown as E2GraphRagStats;
      let homes: (string | undefined)[] = [];
      if (options.linking) {
        const linksPath = join(dir, 'links.json');
        const links = await readJson(linksPath, v.object({ homes: v.array(v.nullable(v.string())) }));
        if (links.homes.length !== graph.chunkCount) {
          throw new IndexFormatError(
            dir,
            formatVersion,
            `${linksPath}: one title entity per chunk expected; rebuild the index.`,
          );
        }
        homes = links.homes.map((h) => h ?? undefined);
      }
      return { ctx, options, tree, vectors, graph, extractor, stats, homes, ...linkingViews(graph, homes) };
    },
  };
}

/** E2GraphRAG with default settings (`grag index --method e2graphrag`). */
export const e2GraphRag = createE2GraphRag();
