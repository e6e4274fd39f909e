import type { QueryGraph, RetrieveOptions } from '@grag/core';
import {
  type OptionRule,
  opt,
  optionKeys,
  RETRIEVE_OPTION_RULES,
  resolveCheckedOptions,
} from '@grag/core/kit';
import type { DominanceEmbedder } from '@grag/dominance-gnn';
import type { Triple } from './kg.js';

/**
 * The dominance embedders an index can train or create by name (`@grag/dominance-gnn`):
 * `'training-free'` (GNN-PE code, no training), `'gat'` (the paper's GAT, Algorithm 1 lines 4–5,
 * trained at build time; the data side gets the closure correction) and `'monotone'` (an attention
 * model that is monotone by construction, trained at build time).
 */
export type DominanceEmbedderChoice = 'training-free' | 'gat' | 'monotone';
const EMBEDDER_CHOICES: readonly DominanceEmbedderChoice[] = ['training-free', 'gat', 'monotone'];

/** The options an index is built with and keeps (stored in its manifest). */
export interface SgRagIndexOptions {
  /** Edges per indexed path, l. @default 1 (SG-RAG §5.1 uses l = 1 unless stated; Table 6 compares 1 and 2) */
  pathLength: 1 | 2;
  /** Dominance embedding dimensions per node, d. @default 2 (GNN-PE code: a linear layer to 2 dims) */
  dominanceDimensions: number;
  /**
   * The dominance embedder, as recorded in the manifest: a name, or `'custom'` for an embedder
   * object passed to `build` (its serialized form is in `dominance.json`). @default 'training-free'
   */
  dominanceEmbedder: DominanceEmbedderChoice | 'custom';
  /** Epochs of the trained embedders (`'gat'`, `'monotone'`). @default 2 */
  dominanceEpochs: number;
  /**
   * Training vertices (degree 1..10) drawn with `seed` for the trained embedders; bounds the
   * training time (tfjs pure JS). @default 1000
   */
  dominanceTrainVertices: number;
  /** Seed of the training-free label vectors and of the trained models (weights, sampling). @default 2022 (GNN-PE code) */
  seed: number;
  /** For `pathLength: 2`, middle nodes of higher degree are skipped (their deg² paths dominate). @default 300 */
  maxMiddleDegree: number;
  /** R*-tree node capacity M. @default 16 */
  nodeCapacity: number;
  /** Tokens per chunk when a graph is extracted from documents. @default 1200 (GraphRAG) */
  chunkSize: number;
  /** Tokens shared by consecutive chunks. @default 100 */
  overlap: number;
}

/** Build options of SG-RAG: the index options and the knowledge-graph input. */
export interface SgRagOptions extends Omit<SgRagIndexOptions, 'dominanceEmbedder'> {
  /**
   * The dominance embedder: `'training-free'` (default), `'gat'` or `'monotone'` (trained on the
   * data graph at build time, seeded), or your own embedder object implementing
   * `DominanceEmbedder` of `@grag/dominance-gnn` (its `dimensions` replace `dominanceDimensions`;
   * it is embedded with node identities as star labels and saved with its `toJSON()`).
   * @default 'training-free'
   */
  dominanceEmbedder: DominanceEmbedderChoice | DominanceEmbedder;
  /**
   * Index these triples instead of extracting a graph from the documents (FB15k-237 and other
   * knowledge graphs). The documents passed to `build` are then ignored.
   */
  triples?: Triple[];
  /** Entity id → text (entity2text); ids without one are their own label. */
  entityText?: Record<string, string> | ReadonlyMap<string, string>;
  /** Relation id → text (relation2text); ids without one are their own text. */
  relationText?: Record<string, string> | ReadonlyMap<string, string>;
}

/** Defaults of {@link SgRagIndexOptions} (valid build options too). */
export const SG_RAG_DEFAULTS: SgRagIndexOptions & { dominanceEmbedder: DominanceEmbedderChoice } = {
  pathLength: 1,
  dominanceDimensions: 2,
  dominanceEmbedder: 'training-free',
  dominanceEpochs: 2,
  dominanceTrainVertices: 1000,
  seed: 2022,
  maxMiddleDegree: 300,
  nodeCapacity: 16,
  chunkSize: 1200,
  overlap: 100,
};

/** Checks of the {@link SgRagIndexOptions}, on build and on load. */
export const SG_RAG_RULES: { readonly [K in keyof SgRagIndexOptions]: OptionRule } = {
  pathLength: opt.oneOf(1, 2),
  dominanceDimensions: opt.int({ min: 1, max: 4096 }),
  dominanceEmbedder: opt.oneOf(...EMBEDDER_CHOICES, 'custom'),
  dominanceEpochs: opt.positiveInt,
  dominanceTrainVertices: opt.positiveInt,
  seed: opt.int({ min: 0 }),
  maxMiddleDegree: opt.nonNegativeInt,
  nodeCapacity: opt.int({ min: 2 }),
  chunkSize: opt.positiveInt,
  overlap: opt.nonNegativeInt,
};

/** Retrieval strategies: SG-RAG itself and the graph baselines of SG-RAG Table 3. */
export type SgRagMode = 'sg-rag' | 'entity' | 'one-hop' | 'two-hop';
const MODES: readonly SgRagMode[] = ['sg-rag', 'entity', 'one-hop', 'two-hop'];

/** The retrieve options of SG-RAG that have a default. */
export interface SgRagQueryOptions {
  /** `'sg-rag'` (default) or a Table 3 baseline: `'entity'`, `'one-hop'`, `'two-hop'`. */
  mode: SgRagMode;
  /** Cap on candidate labels per unknown node (Algorithm 5). @default 1000 */
  maxLabelCandidates: number;
  /** Cap on label combinations (Algorithm 6). @default 1000 */
  maxLabelCombinations: number;
  /** Cap on assembled subgraphs (Algorithm 8). @default 100 */
  maxMatches: number;
  /**
   * Also require each query edge's relation (and direction) on the matched data edge. SG-RAG matches
   * structure and node labels only. @default false
   */
  matchRelations: boolean;
  /** Facts gathered for the fallback and the hop baselines before ranking. @default 2000 */
  maxGatheredFacts: number;
  /**
   * Entity normalization takes a data node whose label equals the query node's (case-insensitive)
   * before the nearest-neighbour search. SG-RAG (Algorithm 3) uses the nearest neighbour only.
   * @default false
   */
  exactLabelMatch: boolean;
  /**
   * Search breadth of entity normalization's nearest-label search (Algorithm 3, k = 1) on an
   * approximate vector index: HNSW's `ef`; exact indexes ignore it. grag's own option (not one of
   * the paper's parameters). 0: the index's own (hnswlib's rule, `max(efSearch, k)`, which found the
   * planted fact for 87.5% of the scale benchmark's questions at 26,199 labels; 256: 93.75%, as an
   * exact search; on the dev slices 256 gives every number an exact search gives, 0 does not).
   * Labels of equal similarity go to the lowest node id whatever the breadth. @default 256
   * (measured; see the README's Performance)
   */
  labelEf: number;
  /**
   * Order of the matched subgraphs (and so of the answers): `'similarity'` ranks them by the
   * relation similarity of the matched edges to the query graph's relations (the question's text
   * for edges without one; see `rankMatches`), `'none'` keeps the order they were found in (node
   * order of the label combinations). SG-RAG leaves the choice to the answer model. @default 'similarity'
   */
  rankMatches: 'similarity' | 'none';
}

/** Retrieve options of SG-RAG. */
export interface SgRagRetrieveOptions extends RetrieveOptions, Partial<SgRagQueryOptions> {
  /** Use this query graph instead of calling the `extractQueryGraph` task. */
  queryGraph?: QueryGraph;
}

/** Defaults of {@link SgRagQueryOptions}. */
export const SG_RAG_RETRIEVE_DEFAULTS: SgRagQueryOptions = {
  mode: 'sg-rag',
  maxLabelCandidates: 1000,
  maxLabelCombinations: 1000,
  maxMatches: 100,
  matchRelations: false,
  maxGatheredFacts: 2000,
  exactLabelMatch: false,
  labelEf: 256,
  rankMatches: 'similarity',
};

/** Checks of the retrieve options: core's, the given query graph's shape and the {@link SgRagQueryOptions}. */
const RETRIEVE_RULES: { readonly [K in keyof SgRagRetrieveOptions]?: OptionRule } = {
  ...RETRIEVE_OPTION_RULES,
  queryGraph: {
    expected: 'a query graph ({ nodes: [...], edges: [...], issues: [...] })',
    test: (x) =>
      x === undefined ||
      (typeof x === 'object' &&
        x !== null &&
        Array.isArray((x as QueryGraph).nodes) &&
        Array.isArray((x as QueryGraph).edges)),
  },
  mode: opt.oneOf(...MODES),
  maxLabelCandidates: opt.positiveInt,
  maxLabelCombinations: opt.positiveInt,
  maxMatches: opt.positiveInt,
  matchRelations: opt.boolean,
  maxGatheredFacts: opt.positiveInt,
  exactLabelMatch: opt.boolean,
  labelEf: opt.nonNegativeInt,
  rankMatches: opt.oneOf('similarity', 'none'),
};

/** Whether `x` looks like a `DominanceEmbedder` (the methods and fields sg-rag calls). */
export function isDominanceEmbedder(x: unknown): x is DominanceEmbedder {
  const e = x as Partial<DominanceEmbedder> | null;
  return (
    typeof e === 'object' &&
    e !== null &&
    typeof e.embed === 'function' &&
    typeof e.embedGraph === 'function' &&
    typeof e.toJSON === 'function' &&
    Number.isInteger(e.dimensions) &&
    (e.dimensions as number) >= 1
  );
}

/** Build-time checks: as {@link SG_RAG_RULES}, but the embedder may be an object, not `'custom'`. */
const BUILD_RULES: { readonly [K in keyof SgRagOptions]?: OptionRule } = {
  ...SG_RAG_RULES,
  dominanceEmbedder: {
    expected: `one of ${EMBEDDER_CHOICES.map((c) => `'${c}'`).join(', ')} or a DominanceEmbedder object (embed, embedGraph, toJSON, dimensions)`,
    test: (x) => EMBEDDER_CHOICES.includes(x as DominanceEmbedderChoice) || isDominanceEmbedder(x),
  },
};

/** Every build option key (the triple input included); others are refused. */
export const SG_RAG_BUILD_OPTION_KEYS: readonly string[] = optionKeys<SgRagOptions>({
  ...SG_RAG_DEFAULTS,
  triples: undefined,
  entityText: undefined,
  relationText: undefined,
});

/** Every retrieve option key; others are refused. */
export const SG_RAG_RETRIEVE_OPTION_KEYS: readonly string[] = optionKeys<SgRagRetrieveOptions>({
  budgetTokens: undefined,
  topK: undefined,
  signal: undefined,
  queryGraph: undefined,
  ...SG_RAG_RETRIEVE_DEFAULTS,
});

/** Settings of {@link createSgRag}. */
export interface SgRagSettings {
  /** Method name used in manifests and the CLI. @default 'sg-rag' */
  name?: string;
  /** Build option defaults of this instance (over {@link SG_RAG_DEFAULTS}). */
  defaults?: Partial<SgRagOptions>;
  /** Retrieve option defaults of this instance (over {@link SG_RAG_RETRIEVE_DEFAULTS}). */
  retrieveDefaults?: Partial<SgRagRetrieveOptions>;
}

/** Resolved build options: the index options and the triple input, if any. */
export interface ResolvedBuildOptions {
  /** The index options (an embedder object is recorded as `'custom'`, with its own dimensions). */
  index: SgRagIndexOptions;
  /** The embedder object passed to `build`, if any. */
  customEmbedder: DominanceEmbedder | undefined;
  triples: Triple[] | undefined;
  entityText: SgRagOptions['entityText'];
  relationText: SgRagOptions['relationText'];
}

/**
 * The options of one build: unknown keys refused in each layer, `layers` resolved over the
 * defaults (undefined values ignored) and every index option checked, naming `caller`.
 */
export function resolveBuildOptions(
  caller: string,
  ...layers: (Partial<SgRagOptions> | undefined)[]
): ResolvedBuildOptions {
  const { triples, entityText, relationText, dominanceEmbedder, ...rest } =
    resolveCheckedOptions<SgRagOptions>(
      caller,
      {
        defaults: SG_RAG_DEFAULTS,
        rules: BUILD_RULES,
        known: SG_RAG_BUILD_OPTION_KEYS,
      },
      ...layers,
    );
  if (typeof dominanceEmbedder === 'string') {
    return {
      index: { ...rest, dominanceEmbedder },
      customEmbedder: undefined,
      triples,
      entityText,
      relationText,
    };
  }
  return {
    index: { ...rest, dominanceEmbedder: 'custom', dominanceDimensions: dominanceEmbedder.dimensions },
    customEmbedder: dominanceEmbedder,
    triples,
    entityText,
    relationText,
  };
}

/** The index options saved in a manifest, resolved over the defaults and checked like a build's. */
export function resolveSavedOptions(caller: string, saved: Record<string, unknown>): SgRagIndexOptions {
  return resolveCheckedOptions(caller, { defaults: SG_RAG_DEFAULTS, rules: SG_RAG_RULES }, saved);
}

/** Resolved retrieve options. */
export type ResolvedRetrieveOptions = SgRagQueryOptions & Omit<SgRagRetrieveOptions, keyof SgRagQueryOptions>;

/** The options of one retrieval, resolved and checked like a build's. */
export function resolveRetrieveOptions(
  caller: string,
  ...layers: (SgRagRetrieveOptions | Partial<SgRagRetrieveOptions> | undefined)[]
): ResolvedRetrieveOptions {
  return resolveCheckedOptions<ResolvedRetrieveOptions>(
    caller,
    { defaults: SG_RAG_RETRIEVE_DEFAULTS, rules: RETRIEVE_RULES, known: SG_RAG_RETRIEVE_OPTION_KEYS },
    ...layers,
  );
}
