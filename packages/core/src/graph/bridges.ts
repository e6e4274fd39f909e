/**
 * Bridge chunks: the second hop of a multi-hop question through the linked entity graph. A chunk
 * ranked near the top names other documents' title entities; I(c→e) gives them, the graph's title
 * ("home") entities lead to their documents' chunks, which are placed right behind the chunk that
 * names them (title bridges). Mention bridges follow them: chunks that share a rare entity with the
 * chunk and best match what the question asks beyond it (its residual query).
 */
import { type OptionRule, opt } from '../options.js';
import type { EntityGraph } from './entity-graph.js';

/**
 * How one seed's title-bridge candidates are ordered: `'coverage'`: most distinct query entities in
 * the candidate chunk, then the entity named in fewest chunks ("spread"); `'entry'`: the candidate
 * chunk's entry-point rank for the query first (unranked last), then coverage and spread;
 * `'residual'`: the candidate's residual score first (BM25 for the query terms the seed does not
 * contain), then coverage and spread.
 */
export type BridgeOrder = 'coverage' | 'entry' | 'residual';

/** The bridge orders, for option checks. */
export const BRIDGE_ORDERS: readonly BridgeOrder[] = ['coverage', 'entry', 'residual'];

/**
 * Options of {@link expandBridges}; a method that exposes them takes `Required<BridgeOptions>`
 * among its options and states its own defaults.
 */
export interface BridgeOptions {
  /**
   * Title bridges placed behind each of the first `bridgeSeeds` ranked chunks: the chunks of the
   * documents whose title entities it names. 0: no bridge of either kind.
   */
  bridges: number;
  /** How many of the first ranked chunks get bridges. */
  bridgeSeeds: number;
  /**
   * How one seed's title-bridge candidates are ordered: `'coverage'` (most query entities in the
   * candidate, then the entity named in fewest chunks), `'entry'` (its entry-point rank for the
   * question first) or `'residual'` (its BM25 score for the question's terms the seed lacks first).
   * @default 'coverage'
   */
  bridgeOrder?: BridgeOrder;
  /**
   * Place a title bridge only when its entry-point rank (0-based, see `entryRank`) is below this;
   * 0: no threshold. @default 0
   */
  bridgeMaxRank?: number;
  /**
   * Mention bridges behind each seed, after its title bridges (needs `residual`): chunks among the
   * first `mentionResidualRank` for the seed's residual query (the question's terms the seed does
   * not contain) that name an entity of the seed named in at most `mentionSpread` chunks, in
   * residual order. 0: off. @default 0
   */
  mentionBridges?: number;
  /** Most chunks an entity shared by a seed and its mention bridge may be named in. @default 5 */
  mentionSpread?: number;
  /** How many hits of the seed's residual query may become mention bridges. @default 10 */
  mentionResidualRank?: number;
}

/** What a valid value of each {@link BridgeOptions} option is, for a method that exposes them. */
export const BRIDGE_OPTION_RULES: { readonly [K in keyof BridgeOptions]-?: OptionRule } = {
  bridges: opt.nonNegativeInt,
  bridgeSeeds: opt.nonNegativeInt,
  bridgeOrder: opt.oneOf(...BRIDGE_ORDERS),
  bridgeMaxRank: opt.nonNegativeInt,
  mentionBridges: opt.nonNegativeInt,
  mentionSpread: opt.positiveInt,
  mentionResidualRank: opt.positiveInt,
};

/**
 * The {@link BridgeOptions} among a method's options (which hold others too), to hand to
 * {@link expandBridges}.
 */
export function bridgeOptionsOf(options: Required<BridgeOptions>): Required<BridgeOptions> {
  return {
    bridges: options.bridges,
    bridgeSeeds: options.bridgeSeeds,
    bridgeOrder: options.bridgeOrder,
    bridgeMaxRank: options.bridgeMaxRank,
    mentionBridges: options.mentionBridges,
    mentionSpread: options.mentionSpread,
    mentionResidualRank: options.mentionResidualRank,
  };
}

/** One bridge added by {@link expandBridges}. */
export interface Bridge {
  /** Leaf that names the entity. */
  from: number;
  /** The title entity named. */
  entity: string;
  /** Leaf of the entity's document placed behind `from`. */
  chunk: number;
}

/**
 * Home chunks per entity id: the first chunk of each document whose title entity it is (`homes[c]`
 * is chunk c's title entity key, or undefined).
 */
export function homeChunks(graph: EntityGraph, homes: readonly (string | undefined)[]): Map<number, number> {
  const out = new Map<number, number>();
  homes.forEach((home, chunk) => {
    if (home === undefined) return;
    const id = graph.id(home);
    if (id !== undefined && !out.has(id)) out.set(id, chunk);
  });
  return out;
}

/** What {@link expandBridges} reads. */
export interface BridgeInput extends BridgeOptions {
  graph: EntityGraph;
  /** Entity id → its document's first chunk (see {@link homeChunks}). */
  home: ReadonlyMap<number, number>;
  /** Per chunk: its document's title entity key, or undefined. */
  homes: readonly (string | undefined)[];
  /** Leaves, best first. */
  ranking: readonly number[];
  /** Graph ids of the query entities. */
  queryIds: readonly number[];
  /**
   * Chunk → its 0-based rank in the entry-point search for the query (a chunk not in it ranks
   * last); read by `bridgeOrder: 'entry'` and `bridgeMaxRank`.
   */
  entryRank?: ReadonlyMap<number, number>;
  /**
   * The chunks matching the seed's residual query — the query terms the seed does not contain,
   * what a second hop behind it must still match — best first with their scores (chunks with no
   * such term left out); read by `bridgeOrder: 'residual'` and mention bridges. `depth` is how many
   * of the best hits are read: `mentionResidualRank`, or `Infinity` (every hit) for the residual
   * order, which reads any candidate's score; more may be returned.
   */
  residual?: (seed: number, depth: number) => readonly { id: number; score: number }[];
}

/**
 * Insert bridge chunks into a ranking of leaves. For each of the first `bridgeSeeds` leaves (the
 * seeds), best first:
 * - title bridges: the title entities the seed names (other than its own) whose home chunk is not
 *   placed yet nor a later seed, ordered by `bridgeOrder` — by default most distinct query entities
 *   in the home chunk, then the entity named in fewest chunks (a hub such as a country names half
 *   the corpus) — at most `bridges` of them (with `bridgeMaxRank`, only those ranked below it among
 *   the entry points);
 * - then mention bridges: at most `mentionBridges` of the first `mentionResidualRank` chunks for the
 *   seed's residual query that share with the seed an entity named in at most `mentionSpread`
 *   chunks (not placed yet nor a later seed), in residual order;
 * each placed right behind the seed (moved up when it was ranked lower). The rest keep their order.
 */
export function expandBridges(input: BridgeInput): { ranking: number[]; bridges: Bridge[] } {
  const { graph, home, homes: homeOfChunk, ranking, queryIds, entryRank, residual, ...o } = input;
  const mentions = residual ? (o.mentionBridges ?? 0) : 0;
  if (o.bridgeSeeds <= 0 || (o.bridges <= 0 && mentions <= 0)) return { ranking: [...ranking], bridges: [] };
  const order = o.bridgeOrder ?? 'coverage';
  const maxRank = o.bridgeMaxRank ?? 0;
  const mentionSpread = o.mentionSpread ?? 5;
  const mentionDepth = o.mentionResidualRank ?? 10;
  const rankOf = (chunk: number): number => entryRank?.get(chunk) ?? Number.POSITIVE_INFINITY;
  const query = new Set(queryIds);
  const coverage = (chunk: number): number => {
    let n = 0;
    for (const e of graph.entitiesOf(chunk).entities) if (query.has(e)) n++;
    return n;
  };
  type Candidate = {
    entity: number;
    chunk: number;
    coverage: number;
    spread: number;
    rank: number;
    residual: number;
  };
  const compare = (a: Candidate, b: Candidate): number => {
    const byCoverage = b.coverage - a.coverage;
    const bySpread = a.spread - b.spread;
    const tie = byCoverage || bySpread || a.entity - b.entity;
    if (order === 'entry') return (a.rank === b.rank ? 0 : a.rank < b.rank ? -1 : 1) || tie;
    if (order === 'residual') return b.residual - a.residual || tie;
    return tie;
  };
  const out: number[] = [];
  const placed = new Set<number>();
  const bridges: Bridge[] = [];
  const seeds = ranking.slice(0, o.bridgeSeeds);
  const rest = ranking.slice(o.bridgeSeeds);
  // A chunk can follow the seed at `seedIndex` unless it is placed or a later seed (never moved forward).
  const free = (chunk: number, seedIndex: number): boolean =>
    !placed.has(chunk) && !(seeds.indexOf(chunk) > seedIndex);
  const place = (from: number, entity: number, chunk: number): void => {
    out.push(chunk);
    placed.add(chunk);
    bridges.push({ from, entity: graph.entities[entity]!, chunk });
  };
  for (const [seedIndex, seed] of seeds.entries()) {
    if (placed.has(seed)) continue;
    out.push(seed);
    placed.add(seed);
    const residualHits =
      residual && (order === 'residual' || mentions > 0)
        ? residual(seed, order === 'residual' ? Number.POSITIVE_INFINITY : mentionDepth)
        : [];
    if (o.bridges > 0) {
      const residualScore = new Map(order === 'residual' ? residualHits.map((h) => [h.id, h.score]) : []);
      const own = homeOfChunk[seed] !== undefined ? graph.id(homeOfChunk[seed]!) : undefined;
      const candidates: Candidate[] = [];
      for (const e of graph.entitiesOf(seed).entities) {
        if (e === own) continue;
        const chunk = home.get(e);
        if (chunk === undefined || !free(chunk, seedIndex)) continue;
        const rank = rankOf(chunk);
        if (maxRank > 0 && !(rank < maxRank)) continue;
        candidates.push({
          entity: e,
          chunk,
          coverage: coverage(chunk),
          spread: graph.chunksOf(e).chunks.length,
          rank,
          residual: residualScore.get(chunk) ?? 0,
        });
      }
      candidates.sort(compare);
      for (const c of candidates.slice(0, o.bridges))
        if (!placed.has(c.chunk)) place(seed, c.entity, c.chunk);
    }
    if (mentions > 0) {
      const seedEntities = new Set<number>();
      for (const e of graph.entitiesOf(seed).entities) {
        if (graph.chunksOf(e).chunks.length <= mentionSpread) seedEntities.add(e);
      }
      let added = 0;
      for (const { id: chunk } of residualHits.slice(0, mentionDepth)) {
        if (added >= mentions) break;
        if (chunk === seed || !free(chunk, seedIndex)) continue;
        // The shared entity that links them: the one named in fewest chunks (lowest id on ties).
        let link: number | undefined;
        for (const e of graph.entitiesOf(chunk).entities) {
          if (!seedEntities.has(e)) continue;
          if (link === undefined || graph.chunksOf(e).chunks.length < graph.chunksOf(link).chunks.length)
            link = e;
        }
        if (link === undefined) continue;
        place(seed, link, chunk);
        added++;
      }
    }
  }
  for (const leaf of rest) {
    if (placed.has(leaf)) continue;
    out.push(leaf);
    placed.add(leaf);
  }
  return { ranking: out, bridges };
}

/** What {@link placeBridges} reads. */
export interface PlaceBridgesInput {
  graph: EntityGraph;
  /** Entity id → its document's first chunk; undefined for an index without entity linking (no bridges). */
  home: ReadonlyMap<number, number> | undefined;
  homes: readonly (string | undefined)[];
  /** Chunks, best first. */
  ranking: number[];
  /** Graph ids of the query entities. */
  queryIds: readonly number[];
  /** The method's bridge options (every one set). */
  options: Required<BridgeOptions>;
  /** Every chunk in entry-point order for the query; asked for only when the options read it. */
  entryRanking: () => Promise<readonly { id: number }[]> | readonly { id: number }[];
  /** See {@link BridgeInput.residual}. */
  residual: (seed: number, depth: number) => readonly { id: number; score: number }[];
}

/**
 * The bridge step of a query on a linked index: `ranking` with bridges placed behind its first
 * chunks by {@link expandBridges}, or `ranking` itself when `options.bridges` is 0 or the index has
 * no home chunks. The entry-point rank of every chunk (`entryRanking`) is asked for only when the
 * bridge order (`'entry'`) or the threshold (`bridgeMaxRank`) reads it.
 */
export async function placeBridges(
  input: PlaceBridgesInput,
): Promise<{ ranking: number[]; bridges: Bridge[] }> {
  const { options: o, ranking, home } = input;
  if (o.bridges <= 0 || !home) return { ranking, bridges: [] };
  const entryRank =
    o.bridgeOrder === 'entry' || o.bridgeMaxRank > 0
      ? new Map((await input.entryRanking()).map((h, rank) => [h.id, rank]))
      : undefined;
  return expandBridges({
    graph: input.graph,
    home,
    homes: input.homes,
    ranking,
    queryIds: input.queryIds,
    ...bridgeOptionsOf(o),
    entryRank,
    residual: input.residual,
  });
}
