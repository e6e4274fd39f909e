/**
 * One DA-RAG retrieval in progress (§4-5): the relevance of chunks and entities to the query,
 * computed when first needed; community search on a layer or on the subgraphs of the KG and
 * Similarity layers that entities induce; one assessment per candidate community; and the timings
 * and counts its trace reports.
 */
import { DEFAULT_BUILD_CONCURRENCY } from '@grag/core';
import type { Bm25Index } from '@grag/core/kit';
import {
  type EdgeTriangles,
  edgeTriangles,
  type InducedSubgraph,
  inducedSubgraph,
  inducedTriangles,
  type TrussGraph,
  TrussIndex,
} from '@grag/ktruss';
import {
  eacs,
  type FoundCommunity,
  type LayerFound,
  type LayerSearch,
  type LayerTrace,
  oneHop,
} from './community-search.js';
import { indexSubjects, linkedOrder, renderMembers } from './members.js';
import type { DaRagQueryOptions } from './options.js';
import { type Candidate, evidenceScore } from './pack.js';
import { lexicalChunks, lexicalEntities } from './persist-lexical.js';
import { cosines, nodeRelevance, POSTINGS_AFTER_ROW_READS, vectorPostings } from './relevance.js';
import { inTieOrder } from './tie-order.js';
import type { DaRagIndex, Layer } from './types.js';
import { identity, mapLimit } from './util.js';

/** How candidate communities are scored: the assessment's score, evidence, or QRScore. */
export type ScoreBy = Exclude<DaRagQueryOptions['scoring'], 'auto'>;

export class RetrievalRun {
  /** Milliseconds per step, summed over its calls. */
  readonly ms: Record<string, number> = {};
  /** The trace of each layer's (first) search. */
  readonly layers: Partial<Record<Layer, LayerTrace>> = {};
  assessCalls = 0;
  parseIssues = 0;
  /** The unit query vector; `undefined` for lexical relevance, or until the query is embedded. */
  queryUnit: Float32Array | undefined;
  #chunkRel: Float64Array | undefined;
  #entityRel: Float64Array | undefined;

  constructor(
    readonly index: DaRagIndex,
    readonly query: string,
    readonly q: DaRagQueryOptions,
    readonly scoreBy: ScoreBy,
    readonly useSim: boolean,
    readonly signal: AbortSignal | undefined,
  ) {}

  /** Run `fn`, adding its wall time to `ms[name]`. */
  async time<T>(name: string, fn: () => Promise<T> | T): Promise<T> {
    const t = performance.now();
    try {
      return await fn();
    } finally {
      this.ms[name] = (this.ms[name] ?? 0) + performance.now() - t;
    }
  }

  /** {@link time} for a synchronous step. */
  timeSync<T>(name: string, fn: () => T): T {
    const t = performance.now();
    try {
      return fn();
    } finally {
      this.ms[name] = (this.ms[name] ?? 0) + performance.now() - t;
    }
  }

  /** Relevance of every chunk to the query. */
  chunkRelevance(): Float64Array {
    const { index } = this;
    this.#chunkRel ??= this.#relevance(index.chunkVectors, 'chunkPostings', () => lexicalChunks(index));
    return this.#chunkRel;
  }

  /**
   * Relevance of the entities `nodes` to the query, in their order. Dense relevance of a node is its
   * own cosine, so for a working subgraph of fewer than a quarter of the entities only theirs are
   * computed ({@link cosines}, equal bit for bit to the postings' values); lexical and hybrid
   * relevance rank every entity, so those compute all of them once.
   */
  entityRelevance(nodes: ArrayLike<number>): Float64Array {
    const { index } = this;
    if (
      this.q.relevance === 'dense' &&
      this.#entityRel === undefined &&
      4 * nodes.length < index.entities.length
    ) {
      return this.timeSync('relevance', () => cosines(this.queryUnit!, index.entityVectors, nodes));
    }
    this.#entityRel ??= this.#relevance(index.entityVectors, 'entityPostings', () => lexicalEntities(index));
    const all = this.#entityRel;
    return Float64Array.from(nodes, (v) => all[v]!);
  }

  /**
   * Relevance of every one of `vectors` to the query (timed as `relevance`): row by row for the
   * first {@link POSTINGS_AFTER_ROW_READS} computations on an index, then by their postings, made
   * then and kept in the index cache under `postingsKey` (null, kept too, when not sparse). Both
   * give the same values bit for bit.
   */
  #relevance(
    vectors: Float32Array[],
    postingsKey: 'chunkPostings' | 'entityPostings',
    lexical: () => Bm25Index,
  ): Float64Array {
    const { cache } = this.index;
    return this.timeSync('relevance', () =>
      nodeRelevance({
        mode: this.q.relevance,
        query: this.query,
        queryUnit: this.queryUnit,
        vectors,
        postings: () => {
          if (cache[postingsKey] !== undefined) return cache[postingsKey];
          // The first computations read the vectors row by row (see POSTINGS_AFTER_ROW_READS).
          cache.rowReads ??= { chunkPostings: 0, entityPostings: 0 };
          if (cache.rowReads[postingsKey]++ < POSTINGS_AFTER_ROW_READS) return null;
          cache[postingsKey] = vectorPostings(vectors);
          return cache[postingsKey];
        },
        lexical,
      }),
    );
  }

  /**
   * Whether assessments wait until packing reads their report ({@link assess}): when the score does
   * not come from them and the task suite judges heuristically, in this process (its calls gain
   * nothing from running at once, and a candidate that packing leaves out whatever its report
   * needs none).
   */
  get defersAssessment(): boolean {
    return this.q.reports && this.scoreBy !== 'model' && this.index.providers.tasks.judgement === 'heuristic';
  }

  /**
   * Score the found communities: their members rendered within the community budget, then one
   * assessment call each (a report; the model's score, or evidence or QRScore offline), or, when
   * {@link defersAssessment}, none yet (`deferred`; see {@link assessOne}).
   */
  async assess(found: readonly FoundCommunity[]): Promise<Candidate[]> {
    const { index, q, scoreBy } = this;
    const rendered = this.timeSync('members', () =>
      found.map((community) => ({
        ...community,
        ...renderMembers({
          index,
          community,
          budget: q.communityTokens,
          chunkRelevance: () => this.chunkRelevance(),
          memberOrder: q.memberOrder,
        }),
      })),
    );
    const offlineScore = (c: (typeof rendered)[number]) =>
      scoreBy === 'evidence' ? evidenceScore(c.chunks, this.chunkRelevance()) : 10 * c.qrScore;
    if (!q.reports) return rendered.map((c) => ({ ...c, score: offlineScore(c), report: '' }));
    if (this.defersAssessment) {
      return rendered.map((c) => ({ ...c, score: offlineScore(c), report: '', deferred: true }));
    }
    return this.time('assess', () =>
      mapLimit(rendered, index.options.concurrency ?? DEFAULT_BUILD_CONCURRENCY, async (c) =>
        // The model's score replaces the placeholder 0.
        this.assessOne({ ...c, score: scoreBy === 'model' ? 0 : offlineScore(c), report: '' }),
      ),
    );
  }

  /**
   * One assessment call for candidate `c` (its members rendered): its report, and the model's score
   * with `scoring: 'model'` (else `c`'s score stays).
   */
  async assessOne(c: Candidate): Promise<Candidate> {
    const assessment = await this.index.providers.tasks.assessCommunity(this.query, c.members, {
      abortSignal: this.signal,
    });
    this.assessCalls++;
    this.parseIssues += assessment.issues.length;
    const score = this.scoreBy === 'model' ? assessment.score : c.score;
    const { deferred: _, ...rest } = c;
    return { ...rest, score, report: assessment.report.trim() };
  }

  /** Community search on a layer (EACS, or the 1-hop baseline); chunk members in linked order when asked. */
  searchLayer(layer: Layer, search: LayerSearch): LayerFound {
    const { index, q } = this;
    const searched = q.tieSeed > 0 ? inTieOrder(search, q.tieSeed) : search;
    const found = q.acs ? eacs(layer, searched, q) : oneHop(layer, searched, q.oneHopSeeds);
    if (layer !== 'chunk' || q.memberOrder !== 'linked') return found;
    const subjects = indexSubjects(index);
    const communities = found.communities.map((c) => ({
      ...c,
      nodes: linkedOrder(c.nodes, index.chunkEntities, subjects),
    }));
    return { ...found, communities };
  }

  /**
   * Search the KG (and Similarity) layer: the subgraphs induced by `entities`, or the whole layers
   * (`null`); the layers' traces are kept when `traced`. Returns the assessed candidates.
   */
  async searchEntityLayers(entities: number[] | null, traced: boolean): Promise<Candidate[]> {
    const { index } = this;
    const rel = this.entityRelevance(entities ?? identity(index.entities.length));
    const found: FoundCommunity[] = [];
    for (const layer of this.useSim ? (['kg', 'sim'] as const) : (['kg'] as const)) {
      const graph = layer === 'kg' ? index.kgLayer : index.simLayer!;
      const result = await this.time(layer, () => {
        if (entities === null) {
          return this.searchLayer(layer, {
            graph,
            global: identity(graph.n),
            relevance: rel,
            truss: () => {
              index.cache[layer] ??= new TrussIndex(graph);
              return index.cache[layer];
            },
          });
        }
        const sub = inducedSubgraph(graph, entities);
        let truss: TrussIndex | undefined;
        return this.searchLayer(layer, {
          graph: sub.graph,
          global: entities,
          relevance: rel,
          truss: () => {
            if (truss === undefined) {
              truss = new TrussIndex(sub.graph, { triangles: workingTriangles(index, layer, graph, sub) });
            }
            return truss;
          },
        });
      });
      if (traced) this.layers[layer] = result.trace;
      found.push(...result.communities);
    }
    return this.assess(found);
  }
}

/**
 * The triangles of a working subgraph: read from the layer's, listed once per index, or, while the
 * layer's are not listed yet and the subgraph holds less than a quarter of the layer's edges,
 * listed on the subgraph itself (the same listing, `inducedTriangles`' contract), so that a query
 * with a small anchor community does not list the whole layer.
 */
function workingTriangles(
  index: DaRagIndex,
  layer: 'kg' | 'sim',
  graph: TrussGraph,
  sub: InducedSubgraph,
): EdgeTriangles {
  const listed = index.cache.triangles?.[layer];
  if (listed === undefined && 4 * sub.graph.m < graph.m) return edgeTriangles(sub.graph);
  index.cache.triangles ??= {};
  index.cache.triangles[layer] ??= edgeTriangles(graph);
  return inducedTriangles(index.cache.triangles[layer], graph, sub);
}
