/**
 * The query options of DA-RAG (§4-5 and grag's own), their meaning and defaults; their values and
 * checks are in `options.ts`.
 */
import type { EntryPointMode } from '@grag/core/kit';

/** Options of the online retrieval (DA-RAG §4-5); defaults can be set at build time and overridden per query. */
export interface DaRagQueryOptions {
  /**
   * Start with EACS on the Semantic Chunk layer and search the KG and Similarity layers only inside the
   * entities of the chunk community (§4). `false` is the "w/o C" ablation: EACS directly on the whole
   * KG and Similarity layers. @default true (DA-RAG §4)
   */
  chunkLayer: boolean;
  /** Use the Similarity layer when the index has one. @default true */
  similarityLayer: boolean;
  /**
   * Attributed community search (Q-Peel). `false` is the "w/o ACS" ablation: on each layer, the
   * `oneHopSeeds` most relevant nodes and their 1-hop neighbours. @default true (DA-RAG §5)
   */
  acs: boolean;
  /** Smallest k of the feasible range (a 3-truss is the first with triangles). @default 3 */
  kMin: number;
  /**
   * Largest k tried; `null` for the largest k with a non-empty truss in the layer (the feasible range
   * ends there). @default null
   */
  kMax: number | null;
  /**
   * k values tried per layer, spread over the feasible range `[kMin, k_max]` (both ends included). Each
   * gives one candidate community (the best Q-Peel result); identical communities are merged.
   * @default 3 (the paper reports 8.3 assessment calls per query over its three layers)
   */
  candidatesPerLayer: number;
  /**
   * How the k values are spread: `'geometric'` (denser at small k, where communities depend most on
   * the query) or `'linear'`. @default 'geometric'
   */
  kSpacing: 'geometric' | 'linear';
  /**
   * Which chunk community induces the working subgraphs (§4): `'best'`, the candidate with the highest
   * score, or `'union'` of every chunk candidate. @default 'best'
   */
  anchor: 'best' | 'union';
  /**
   * Candidate score used to rank and pack: `'model'`, the relevance score the model returns with the
   * report (§5.1); `'qrscore'`, 10 × the community's QRScore (Eq. 1, on its own layer's relevance);
   * `'evidence'`, 10 × the mean chunk relevance of the chunks the community packs (one scale for
   * every layer); `'auto'`, `'evidence'` when the task suite declares `judgement: 'heuristic'` (the
   * offline task suite does: its "score" is a heuristic) and the model's score otherwise. @default 'auto'
   */
  scoring: 'auto' | 'model' | 'qrscore' | 'evidence';
  /**
   * Ask the model for a relevance score and a community report for each candidate (one call each,
   * §5.1). With `false` no call is made: the score is the QRScore (or the evidence, see `scoring`)
   * and there is no report. @default true (DA-RAG §5.1; the `offline` preset: false, since a
   * heuristic task suite's report is sentences of the members the context already holds; measured,
   * see the README)
   */
  reports: boolean;
  /**
   * What a packed community contributes to the context: its `'report'`, its `'members'` (chunk texts,
   * or entity and relation descriptions), or both. @default 'report+members'
   */
  communityText: 'report' | 'members' | 'report+members';
  /**
   * Token budget of one community's member text (what the model assesses and what is packed), most
   * relevant members first. @default 4000 (DA-RAG Table 4, max_token_for_text_unit)
   */
  communityTokens: number;
  /**
   * Seeds of 1-hop retrieval (`acs: false`), and chunks that anchor the working subgraphs when the chunk
   * layer has no k-truss. @default 5
   */
  oneHopSeeds: number;
  /**
   * Query relevance of the nodes (the attribute Q-Peel peels by, and the order of members):
   * `'dense'`, the cosine of the query and node embeddings (DA-RAG Eq. 1); `'lexical'`, BM25 of the
   * query over the chunk texts and entity texts (rebuilt from the stored texts on first use); or
   * `'hybrid'`, both fused by reciprocal rank (the top 100 of each list), scaled to
   * the best. @default 'dense' (DA-RAG Eq. 1; the `offline` preset: 'hybrid', measured, see the README)
   */
  relevance: EntryPointMode;
  /**
   * Size bound of a community: Q-Peel goes on peeling the least relevant nodes, past its QRScore test,
   * while the community has more nodes than this and the rest stays a connected k-truss (so the
   * community closes in on the query's nodes). `null`: no bound, Q-Peel as in DA-RAG §5.2.
   * @default null (DA-RAG §5.2; the `offline` preset: 10, measured, see the README)
   */
  maxCommunityNodes: number | null;
  /**
   * Query vertices of each layer's search: the `querySeeds` most relevant nodes. Q-Peel then searches
   * only the k-truss components holding one of them and never peels them off (attributed community
   * search with query vertices, as in ACQ / ATC, which DA-RAG §5 builds on). 0: no query vertex, the
   * best component anywhere (DA-RAG §5.2). @default 0 (DA-RAG §5.2; the `offline` preset: 1, measured)
   */
  querySeeds: number;
  /**
   * Local search (grag's, not in DA-RAG): with query vertices, Q-Peel peels only the region of this
   * many nodes around them (breadth first over edges of trussness at least k, the more relevant
   * first at each distance; `@grag/ktruss`'s `TrussIndex.qPeel` option `region`), not their whole
   * k-truss component, which on a large layer holds most of it. `null`: the whole component (DA-RAG
   * §5.2). No effect without query vertices. Measured (offline preset, 300): the chunk-layer search
   * 4.7 times faster on 4,457 passages, slower on 1,000 chunks; R@5 from 2.5 points lower to 1.6
   * higher on the dev slices; see the README.
   * @default null (DA-RAG §5.2, in both presets)
   */
  searchRegion: number | null;
  /**
   * The community search with query vertices: `'q-peel'`, Q-Peel on each query vertex's k-truss
   * component (DA-RAG §5.2, with the size bound when `maxCommunityNodes` is set); or `'local'`,
   * grag's local size-bounded search (`@grag/ktruss`'s `TrussIndex.localSearch`): the community
   * Q-Peel's size bound ends at on the component without Q-Peel's QRScore phase, least relevant
   * first and, among equal relevance, the farthest from the query vertex first, found from the query
   * vertex outwards (its cost does not grow with the component); a component of at most
   * `localExactUpTo` nodes is searched with Q-Peel itself. No effect without query vertices.
   * @default 'q-peel' (DA-RAG §5.2; the `offline` preset: 'local', measured, see the README)
   */
  communitySearch: 'q-peel' | 'local';
  /**
   * With `communitySearch: 'local'`: a query vertex whose k-truss component has at most this many
   * nodes is searched with Q-Peel (cheap there, and exact); a larger one with the local search.
   * @default 200
   */
  localExactUpTo: number;
  /**
   * The order among nodes of equal relevance in each layer's community search (grag's, not in
   * DA-RAG): Q-Peel's peel order, the local search's last tie, a layer's query vertices and its
   * communities' member order take such ties by node index, an order the paper leaves open (with
   * `'hybrid'` or `'lexical'` relevance most chunks of a layer tie at 0). A positive seed searches
   * each graph with its nodes relabelled by that seed's permutation instead, changing nothing but
   * those ties: rerunning with a few seeds shows how much the results rest on that order. Slower (a
   * relabelled layer's truss index is made once per seed, a working subgraph's per query).
   * 0: node index. @default 0
   */
  tieSeed: number;
  /**
   * How the ranked communities fill the budget: `'greedy'` takes each community whole, in score
   * order, leaving out one that does not fit and going on with the next (§5.1's greedy packing);
   * `'truncate'` stops at the first that does not fit and writes its head into what is left.
   * @default 'greedy' (DA-RAG §5.1)
   */
  packing: 'greedy' | 'truncate';
  /**
   * What is left of the budget after the communities (grag's, not in DA-RAG): filled with the chunks
   * of positive relevance that no packed chunk community writes, most relevant first, the first that
   * does not fit cut to the room left. `false`: the context is the packed communities alone (§5.1),
   * often well under the budget. @default false (DA-RAG §5.1; the `offline` preset: true, measured)
   */
  fillBudget: boolean;
  /**
   * Anchor chunk communities (§4), each searched around its own query vertex: the most relevant chunk
   * outside the communities of the anchors before it. Each anchor's community gives its own working
   * subgraphs on the KG and Similarity layers, and every candidate of every anchor is ranked and
   * packed together. With 1, the anchor is the chunk community around the `querySeeds` most relevant
   * chunks, as in DA-RAG §4. @default 1 (DA-RAG §4; the `offline` preset: 2, measured, see the README)
   */
  anchors: number;
  /**
   * When an anchor's chunk search finds no community (its query vertex is in no k-truss, or the chunk
   * layer has none), the chunks that anchor the working subgraphs instead (the query vertex, or the
   * `oneHopSeeds` most relevant chunks) are a candidate community of their own, assessed, ranked and
   * packed like the others. `false`: they only anchor the working subgraphs, and the best-matching
   * chunk can be missing from the context. @default true (grag's; §4 does not say what happens then)
   */
  fallbackCommunity: boolean;
  /**
   * The "entry points only" configuration: no graph step. The chunks ranked by `relevance` are packed
   * in that order (items of kind `'chunk'`), with no community search and no assessment call; it
   * shows what the graph step adds. @default false
   */
  entryPointsOnly: boolean;
  /**
   * Order of a community's chunks (what the context and the passage ranking follow): `'relevance'`,
   * chunk-layer members most relevant first and an entity community's chunks by how many of its
   * entities they mention; `'linked'`, by relevance, each chunk followed by the community's chunks
   * whose document it mentions (through the inter-layer links to their title entities).
   * @default 'relevance' (the paper does not order members; the `offline` preset: 'linked', measured)
   */
  memberOrder: 'relevance' | 'linked';
}
