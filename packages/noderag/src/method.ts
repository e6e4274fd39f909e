import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import {
  assertKnownOptions,
  assertSameProviders,
  Bm25Index,
  checkIndexFile,
  checkVectorRows,
  chunkSchema,
  DEFAULT_BUDGET_TOKENS,
  ENTRY_POINT_MODES,
  EntityVocabulary,
  embedAll,
  InvalidArgumentError,
  indexFileError,
  type Method,
  modelFingerprint,
  normalizeEntityName,
  optionKeys,
  packContext,
  type Retrieval,
  type RetrievedItem,
  readJson,
  readManifest,
  restoreEmbedderState,
  type Schema,
  saveEmbedderState,
  searchEntryPoints,
  shapeIssue,
  throwIfAborted,
  v,
  writeIndexDir,
  writeJson,
} from '@grag/core';
import {
  type EdgeKind,
  HeteroGraph,
  type HeteroGraphStats,
  HeteroSearch,
  NODE_TYPES,
  type NodeType,
  RETRIEVABLE_TYPES,
  type RetrievalReason,
} from '@grag/heterograph';
import { HnswIndex } from '@grag/hnsw';
import {
  INDEX_RETRIEVE_KEYS,
  NODERAG_DEFAULTS,
  NODERAG_RETRIEVE_DEFAULTS,
  type NodeRagOptions,
  type NodeRagRetrieveOptions,
} from './options.js';
import { buildNodeRag, layBaseLayer, type NodeRagBuildStats, type NodeRagIndex } from './pipeline.js';

/** Every build option key; others are refused. */
const BUILD_OPTION_KEYS = optionKeys<NodeRagOptions>({
  ...NODERAG_DEFAULTS,
  concurrency: undefined,
  ...(Object.fromEntries(INDEX_RETRIEVE_KEYS.map((k) => [k, undefined])) as Record<
    (typeof INDEX_RETRIEVE_KEYS)[number],
    undefined
  >),
});
/** Every retrieve option key; others are refused (`plainTopK` is a default, not an option). */
const { plainTopK: _plainTopK, ...retrieveDefaults } = NODERAG_RETRIEVE_DEFAULTS;
const RETRIEVE_OPTION_KEYS = optionKeys<NodeRagRetrieveOptions>({
  budgetTokens: undefined,
  topK: undefined,
  signal: undefined,
  ...retrieveDefaults,
});

/** Order of the node-type groups in the context. */
export const CONTEXT_TYPE_ORDER: readonly NodeType[] = ['H', 'A', 'S', 'R', 'T'];

/** Heading written before each node-type group of the context. */
const GROUP_HEADINGS: Record<NodeType, string> = {
  N: 'Entities',
  O: 'Overviews',
  H: 'High-level elements',
  A: 'Entity attributes',
  S: 'Semantic units',
  R: 'Relationships',
  T: 'Source text',
};

/** Tokens reserved per group heading and per item separator when choosing what fits the budget. */
const HEADING_TOKENS = 8;
const SEPARATOR_TOKENS = 2;

/** Settings of {@link createNodeRag}. */
export interface NodeRagSettings {
  /** Method name used in manifests and the CLI. @default 'noderag' */
  name?: string;
  /** Build options overriding {@link NODERAG_DEFAULTS}. */
  defaults?: Partial<NodeRagOptions>;
  /** Retrieval options overriding {@link NODERAG_RETRIEVE_DEFAULTS}. */
  retrieveDefaults?: Partial<NodeRagRetrieveOptions>;
}

/** On-disk layout version written by `save`. */
const FORMAT_VERSION = 1;

/** Compact serialized graph: structural edges only (HNSW edges are rebuilt from the vector index). */
interface StoredGraph {
  nodes: [
    key: string,
    type: NodeType,
    text: string,
    weight: number,
    chunks: string[],
    docs: string[],
    extra?: Record<string, unknown>,
  ][];
  edges: [a: number, b: number, kind: EdgeKind, baseWeight: number][];
}

function storeGraph(graph: HeteroGraph): StoredGraph {
  const position = new Map<string, number>();
  const nodes: StoredGraph['nodes'] = [];
  graph.graph.forEachNode((key, attrs) => {
    position.set(key, nodes.length);
    const { type, text, weight, chunks, docs, ...extra } = attrs;
    const row: StoredGraph['nodes'][number] = [key, type, text, weight, chunks, docs];
    if (Object.keys(extra).length > 0) row.push(extra);
    nodes.push(row);
  });
  const edges: StoredGraph['edges'] = [];
  graph.graph.forEachEdge((_, attrs, a, b) => {
    if (attrs.baseWeight > 0) edges.push([position.get(a)!, position.get(b)!, attrs.kind, attrs.baseWeight]);
  });
  return { nodes, edges };
}

const NODE_TYPE_VALUES = ['T', 'S', 'N', 'R', 'A', 'O', 'H'] as const satisfies readonly NodeType[];
const STORED_EDGE_KINDS = ['d', 'r', 'a', 'h', 'o', 's'] as const satisfies readonly EdgeKind[];

const storedGraphSchema: Schema<StoredGraph> = v.object({
  nodes: v.array(
    v.tuple(
      v.string(),
      v.literal(...NODE_TYPE_VALUES),
      v.string(),
      v.number(),
      v.array(v.string()),
      v.array(v.string()),
      v.optional(v.record(v.unknown())),
    ),
  ),
  edges: v.array(
    v.tuple(v.int({ min: 0 }), v.int({ min: 0 }), v.literal(...STORED_EDGE_KINDS), v.number({ min: 0 })),
  ),
});

const count = v.int({ min: 0 });
const buildStatsSchema: Schema<NodeRagBuildStats> = v.object({
  documents: count,
  chunks: count,
  extractedUnits: count,
  importantEntities: count,
  attributes: count,
  communities: count,
  emptyCommunities: count,
  highLevelElements: count,
  semanticMatchingEdges: count,
  semanticClusters: count,
  hnsw: v.object({ added: count, reinforced: count }),
  skipped: v.record(count),
  parseIssues: v.record(count),
  linking: v.optional(
    v.object({ names: count, entities: count, titleEntities: count, textMentions: count, folded: count }),
  ),
});

const storedChunksSchema = v.object({ chunks: v.array(chunkSchema), vectorKeys: v.array(v.string()) });

function restoreGraph(stored: StoredGraph, path: string): HeteroGraph {
  const graph = new HeteroGraph();
  const keys: string[] = [];
  const types = new Map<string, NodeType>();
  stored.nodes.forEach(([key, type, text, weight, chunks, docs, extra], i) => {
    if (types.has(key)) throw indexFileError(path, `nodes[${i}] repeats the key ${JSON.stringify(key)}`);
    types.set(key, type);
    graph.addNode(key, type, { text, weight, chunks, docs, ...(extra ? { extra } : {}) });
    keys.push(key);
  });
  stored.edges.forEach(([a, b, kind, weight], i) => {
    const ka = keys[a];
    const kb = keys[b];
    if (ka === undefined || kb === undefined || a === b) {
      throw indexFileError(
        path,
        `edges[${i}] joins nodes ${a} and ${b}, not two of the ${keys.length} nodes`,
      );
    }
    // The schema admits only the stored kinds: HNSW edges are rebuilt from the vector index.
    graph.connect(ka, kb, kind as Exclude<EdgeKind, 'hnsw'>, weight);
  });
  return graph;
}

async function directoryBytes(dir: string): Promise<number> {
  let total = 0;
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    total += entry.isDirectory() ? await directoryBytes(path) : (await stat(path)).size;
  }
  return total;
}

/** A loaded or built index with its search structures. */
interface Runtime {
  search: HeteroSearch;
  keyOfVector: readonly string[];
  /** BM25 over the texts of the embedded nodes, same ids as the vector index (built on first use). */
  lexical?: Bm25Index;
  /** The entity (N) names of the graph, for query entity matching (built on first use). */
  vocabulary?: EntityVocabulary;
}

function lexicalOf(index: NodeRagIndex, runtime: Runtime): Bm25Index {
  runtime.lexical ??= new Bm25Index(index.vectorKeys.map((key) => index.graph.node(key).text));
  return runtime.lexical;
}

function vocabularyOf(index: NodeRagIndex, runtime: Runtime): EntityVocabulary {
  if (!runtime.vocabulary) {
    const vocabulary = new EntityVocabulary();
    for (const key of index.graph.nodes('N')) vocabulary.add(index.graph.node(key).text);
    runtime.vocabulary = vocabulary;
  }
  return runtime.vocabulary;
}

/** The retrieval settings given at build time (stored with the index). */
function indexRetrieveDefaults(options: NodeRagOptions): Partial<NodeRagRetrieveOptions> {
  const out: Record<string, unknown> = {};
  for (const key of INDEX_RETRIEVE_KEYS) if (options[key] !== undefined) out[key] = options[key];
  return out as Partial<NodeRagRetrieveOptions>;
}

const runtimes = new WeakMap<NodeRagIndex, Runtime>();

function runtimeOf(index: NodeRagIndex): Runtime {
  let runtime = runtimes.get(index);
  if (!runtime) {
    runtime = { search: new HeteroSearch(index.graph), keyOfVector: index.vectorKeys };
    runtimes.set(index, runtime);
  }
  return runtime;
}

function positiveInteger(name: string, value: number, allowZero = false): number {
  if (!Number.isInteger(value) || value < (allowZero ? 0 : 1)) {
    throw new InvalidArgumentError(
      name,
      `noderag: ${name} must be a ${allowZero ? 'non-negative' : 'positive'} integer, got ${value}.`,
    );
  }
  return value;
}

/** The heterograph statistics of an index (NodeRAG Table 4) plus the build counts. */
export function nodeRagStats(index: NodeRagIndex): HeteroGraphStats & { build: NodeRagBuildStats } {
  return { ...index.graph.stats(), build: index.stats };
}

/**
 * NodeRAG (Xu et al., "NodeRAG: Structuring Graph-based RAG with Heterogeneous Nodes", 2025) as a
 * grag {@link Method}: build the heterograph G5 of seven node types, retrieve by dual search, shallow
 * personalized PageRank and cross nodes, and return only retrievable content (T, S, A, H, R), grouped
 * by node type within the token budget.
 *
 * @example
 * const index = await nodeRag.build(docs, ctx);
 * const retrieval = await nodeRag.retrieve(index, 'Who founded the shipyard?');
 */
export function createNodeRag(
  settings: NodeRagSettings = {},
): Method<NodeRagIndex, NodeRagOptions, NodeRagRetrieveOptions> {
  const name = settings.name ?? 'noderag';
  return {
    name,
    description: 'NodeRAG: heterograph of 7 node types, dual search + shallow PPR',
    capabilities: { uses: ['embedder', 'tasks', 'vectorIndex'] },
    formatVersion: FORMAT_VERSION,
    optionKeys: { build: BUILD_OPTION_KEYS, retrieve: RETRIEVE_OPTION_KEYS },
    passageRanking: { kinds: ['text', 'semantic-unit'], order: 'score' },

    async build(docs, ctx, options = {}) {
      assertKnownOptions(`${name} build`, options, BUILD_OPTION_KEYS);
      const o: NodeRagOptions = { ...NODERAG_DEFAULTS, ...settings.defaults, ...options };
      positiveInteger('chunkSize', o.chunkSize);
      if (o.concurrency !== undefined) positiveInteger('concurrency', o.concurrency);
      positiveInteger('hnswM', o.hnswM);
      return buildNodeRag(docs, ctx, o);
    },

    async retrieve(index, query, options = {}) {
      const started = performance.now();
      assertKnownOptions(`${name} retrieve`, options, RETRIEVE_OPTION_KEYS);
      const o = {
        ...NODERAG_RETRIEVE_DEFAULTS,
        ...settings.retrieveDefaults,
        ...indexRetrieveDefaults(index.options),
        ...options,
      };
      if (!ENTRY_POINT_MODES.includes(o.entryPoints)) {
        throw new InvalidArgumentError(
          'entryPoints',
          `noderag: entryPoints must be one of ${ENTRY_POINT_MODES.join(', ')}, got "${String(o.entryPoints)}".`,
        );
      }
      if (typeof query !== 'string' || query.trim() === '') {
        throw new InvalidArgumentError('query', 'noderag retrieve: the query is blank; pass a question.');
      }
      throwIfAborted(o.signal);
      const { ctx } = index;
      const runtime = runtimeOf(index);
      const timings: Record<string, number> = {};
      const mark = (stage: string, since: number) => {
        timings[stage] = performance.now() - since;
        return performance.now();
      };
      let t = performance.now();
      const queryVector =
        o.entryPoints === 'lexical'
          ? undefined
          : (await embedAll(ctx.embedder, [query], { abortSignal: o.signal }))[0];
      const toKeys = (k: number) =>
        searchEntryPoints({
          mode: o.entryPoints,
          query,
          ...(queryVector ? { queryVector, vectors: index.vectors } : {}),
          ...(o.entryPoints === 'dense' ? {} : { lexical: lexicalOf(index, runtime) }),
          k: Math.min(k, index.vectorKeys.length),
        }).map((hit) => ({
          key: runtime.keyOfVector[hit.id]!,
          score: hit.score,
        }));
      const budget = o.budgetTokens ?? DEFAULT_BUDGET_TOKENS;

      if (!o.graphSearch) {
        // Ablation "w/o cross node": plain top-k similarity over every embedded node.
        const k = positiveInteger('topK', o.topK ?? NODERAG_RETRIEVE_DEFAULTS.plainTopK);
        const hits = toKeys(k);
        t = mark('vector', t);
        const nodes = hits.map((h) => ({ key: h.key, type: index.graph.node(h.key).type, score: h.score }));
        return finish(index, nodes, budget, {
          method: name,
          mode: 'vector-only',
          entryPoints: o.entryPoints,
          topK: k,
          entries: { exact: 0, vector: hits.length },
          timings,
          ms: performance.now() - started,
        });
      }

      const vectorHits = toKeys(positiveInteger('vectorTopK', o.vectorTopK, true));
      t = mark('vector', t);
      let queryEntities: string[] = [];
      let exact: string[] = [];
      if (o.dualSearch) {
        const vocabulary = index.options.entityLinking ? vocabularyOf(index, runtime) : undefined;
        const extraction = await ctx.tasks.extractQueryEntities(query, {
          abortSignal: o.signal,
          ...(vocabulary ? { vocabulary } : {}),
        });
        queryEntities = extraction.entities;
        if (o.queryEntityMatch === 'vocabulary') {
          const named = vocabularyOf(index, runtime)
            .match(query)
            .map((m) => `N:${normalizeEntityName(m.name)}`)
            .filter((key) => index.graph.hasNode(key));
          const overviews = runtime.search.exactMatch(queryEntities).filter((key) => key.startsWith('O:'));
          exact = [...new Set([...named, ...overviews])];
        } else {
          exact = runtime.search.exactMatch(queryEntities);
        }
        t = mark('exact', t);
      }
      // Exact-match entries weigh 1; vector entries 1, or 1/(rank + 1) with `entryWeighting: 'rank'`.
      const weights = new Map<string, number>();
      for (const key of exact) weights.set(key, 1);
      vectorHits.forEach((h, i) => {
        weights.set(h.key, o.entryWeighting === 'rank' ? 1 / (i + 1) : 1);
      });
      const result = runtime.search.search(
        { exact, vector: vectorHits.map((h) => h.key), weights },
        {
          teleport: o.teleport,
          iterations: positiveInteger('pprIterations', o.pprIterations, true),
          update: o.pprUpdate,
          semanticEdges: o.semanticEdges,
          edgeWeighting: o.edgeWeighting,
          limits: {
            entities: positiveInteger('entities', o.entities, true),
            relationships: positiveInteger('relationships', o.relationships, true),
            overviews: positiveInteger('overviews', o.overviews, true),
            cross: positiveInteger('crossNodes', o.crossNodes, true),
          },
        },
      );
      t = mark('ppr', t);
      const subgraphNodes = [
        ...new Set([...exact, ...vectorHits.map((h) => h.key), ...result.nodes.map((n) => n.key)]),
      ];
      return finish(
        index,
        result.nodes,
        budget,
        {
          method: name,
          mode: 'graph',
          queryEntities,
          entries: { exact: exact.length, vector: vectorHits.length },
          entryPoints: o.entryPoints,
          entryWeighting: o.entryWeighting,
          picked: { entities: result.picked.entities.length, overviews: result.picked.overviews.length },
          reasons: countBy(result.nodes.map((n) => n.reason)),
          ppr: { teleport: o.teleport, iterations: o.pprIterations, update: o.pprUpdate },
          ablation: {
            dualSearch: o.dualSearch,
            semanticEdges: o.semanticEdges,
            edgeWeighting: o.edgeWeighting,
          },
          timings,
          ms: performance.now() - started,
        },
        subgraphNodes,
      );
    },

    async save(index, dir) {
      const { ctx } = index;
      const manifestStats: Record<string, unknown> = { ...nodeRagStats(index) };
      const manifest = {
        method: name,
        formatVersion: FORMAT_VERSION,
        params: { ...index.options },
        providers: {
          embedder: modelFingerprint(ctx.embedder),
          tasks: ctx.tasks.id,
          vectorIndex: 'hnsw',
        },
        stats: manifestStats,
      };
      await writeIndexDir(dir, manifest, async (tmp) => {
        await writeJson(join(tmp, 'graph.json'), storeGraph(index.graph));
        await writeJson(join(tmp, 'chunks.json'), { chunks: index.chunks, vectorKeys: index.vectorKeys });
        await writeJson(join(tmp, 'build-stats.json'), index.stats);
        await index.vectors.save(join(tmp, 'vectors.bin'));
        await saveEmbedderState(ctx.embedder, tmp);
        // Written before the manifest, so the manifest can tell the storage size of everything else.
        manifestStats.storageBytes = await directoryBytes(tmp);
      });
    },

    async load(dir, ctx) {
      const manifest = await readManifest(dir, { method: name, formatVersion: FORMAT_VERSION });
      assertSameProviders(dir, manifest, { embedder: modelFingerprint(ctx.embedder) });
      await restoreEmbedderState(ctx.embedder, dir);
      const options = { ...NODERAG_DEFAULTS, ...(manifest.params as Partial<NodeRagOptions>) };
      const graphPath = join(dir, 'graph.json');
      const graph = restoreGraph(await readJson(graphPath, storedGraphSchema), graphPath);
      const chunksPath = join(dir, 'chunks.json');
      const { chunks, vectorKeys } = await readJson(chunksPath, storedChunksSchema);
      checkIndexFile(chunksPath, () =>
        vectorKeys.forEach((key, i) => {
          if (!graph.graph.hasNode(key))
            shapeIssue(`vectorKeys[${i}]`, `is ${JSON.stringify(key)}, not a node of graph.json`);
        }),
      );
      if (new Set(vectorKeys).size !== vectorKeys.length)
        throw indexFileError(chunksPath, 'vectorKeys repeat a key');
      const stats = await readJson(join(dir, 'build-stats.json'), buildStatsSchema);
      const vectorsPath = join(dir, 'vectors.bin');
      const vectors = await HnswIndex.load(vectorsPath);
      checkVectorRows(
        vectors,
        { count: vectorKeys.length, dimensions: ctx.embedder.dimensions },
        vectorsPath,
      );
      vectors.efSearch = options.hnswEfSearch;
      if (options.hnswEdges) await layBaseLayer(graph, vectors, vectorKeys);
      return { ctx, options, graph, vectors, vectorKeys, chunks, stats } satisfies NodeRagIndex;
    },
  };
}

function countBy(values: readonly string[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const v of values) out[v] = (out[v] ?? 0) + 1;
  return out;
}

/** Group retrieved nodes by type, pack them into the budget and shape the {@link Retrieval}. */
function finish(
  index: NodeRagIndex,
  nodes: readonly { key: string; type: NodeType; score: number; reason?: RetrievalReason }[],
  budget: number,
  trace: Record<string, unknown>,
  subgraphNodes?: string[],
): Retrieval {
  const retrievable = nodes.filter((n) => RETRIEVABLE_TYPES.includes(n.type));
  // Choose by score what fits the budget (an item too large for what is left is passed over, smaller
  // ones after it may still fit), then write the chosen nodes grouped by type.
  const { tokenizer } = index.ctx;
  const chosen = new Set<string>();
  const groups = new Set<NodeType>();
  let used = 0;
  for (const node of [...retrievable].sort((a, b) => b.score - a.score)) {
    const cost =
      tokenizer.count(`[${node.key}] ${index.graph.node(node.key).text}`) +
      SEPARATOR_TOKENS +
      (groups.has(node.type) ? 0 : HEADING_TOKENS);
    if (used + cost > budget && chosen.size > 0) continue;
    chosen.add(node.key);
    groups.add(node.type);
    used += cost;
  }
  const ordered: RetrievedItem[] = [];
  for (const type of CONTEXT_TYPE_ORDER) {
    const group = retrievable
      .filter((n) => n.type === type && chosen.has(n.key))
      .sort((a, b) => b.score - a.score);
    for (const node of group) {
      const attrs = index.graph.node(node.key);
      ordered.push({
        id: node.key,
        kind: NODE_TYPES[type].kind,
        text: attrs.text,
        score: node.score,
        source: { chunkIds: [...attrs.chunks], docIds: [...attrs.docs] },
      });
    }
  }
  let previous: string | undefined;
  const packed = packContext(ordered, budget, {
    tokenizer,
    render: (item) => {
      const type = item.id.slice(0, 1) as NodeType;
      const heading = type !== previous ? `## ${GROUP_HEADINGS[type]}\n` : '';
      previous = type;
      return `${heading}[${item.id}] ${item.text}`;
    },
  });
  const retrieval: Retrieval = {
    context: packed.context,
    items: packed.items,
    tokens: packed.tokens,
    trace: {
      ...trace,
      types: countBy(packed.items.map((i) => i.id.slice(0, 1))),
      ranked: retrievable.length,
      packed: packed.items.length,
      dropped: retrievable.length - packed.items.length,
      truncated: packed.truncated,
    },
  };
  if (subgraphNodes) {
    const inside = new Set(subgraphNodes);
    const edges: [string, string][] = [];
    for (const key of inside) {
      index.graph.graph.forEachNeighbor(key, (other) => {
        if (key < other && inside.has(other)) edges.push([key, other]);
      });
    }
    retrieval.subgraph = { nodes: [...inside], edges };
  }
  return retrieval;
}

/** NodeRAG with the paper's and the official code's defaults; CLI name `noderag`. */
export const nodeRag = createNodeRag();
