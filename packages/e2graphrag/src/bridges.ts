/**
 * Bridge chunks: the second hop of a multi-hop question through the linked entity graph. A chunk
 * ranked near the top names other documents' title entities; I(c→e) gives them, the graph's title
 * ("home") entities lead to their documents' chunks, which are placed right behind the chunk that
 * names them.
 */
import type { EntityGraph } from './graph.js';

/** Options of {@link expandBridges}. */
export interface BridgeOptions {
  /** Bridge chunks added behind each expanded chunk; 0 turns bridging off. */
  bridges: number;
  /** How many of the first ranked chunks are expanded. */
  bridgeSeeds: number;
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
}

/**
 * Insert bridge chunks into a ranking of leaves: for each of the first `bridgeSeeds` leaves, the
 * title entities it names (other than its own) whose home chunk is not ranked before it, best
 * first — most distinct query entities in the home chunk, then the entity named in fewest chunks
 * (a hub such as a country names half the corpus) — at most `bridges` of them, each placed right
 * behind the leaf (moved up when it was ranked lower).
 */
export function expandBridges(input: BridgeInput): { ranking: number[]; bridges: Bridge[] } {
  const { graph, home, homes: homeOfChunk, ranking, queryIds, ...o } = input;
  if (o.bridges <= 0 || o.bridgeSeeds <= 0 || home.size === 0) return { ranking: [...ranking], bridges: [] };
  const query = new Set(queryIds);
  const coverage = (chunk: number): number => {
    let n = 0;
    for (const e of graph.entitiesOf(chunk).entities) if (query.has(e)) n++;
    return n;
  };
  const out: number[] = [];
  const placed = new Set<number>();
  const bridges: Bridge[] = [];
  const seeds = ranking.slice(0, o.bridgeSeeds);
  const rest = ranking.slice(o.bridgeSeeds);
  for (const seed of seeds) {
    if (placed.has(seed)) continue;
    out.push(seed);
    placed.add(seed);
    const own = homeOfChunk[seed] !== undefined ? graph.id(homeOfChunk[seed]!) : undefined;
    const candidates: { entity: number; chunk: number; coverage: number; spread: number }[] = [];
    for (const e of graph.entitiesOf(seed).entities) {
      if (e === own) continue;
      const chunk = home.get(e);
      if (chunk === undefined || placed.has(chunk) || seeds.indexOf(chunk) > seeds.indexOf(seed)) continue;
      candidates.push({
        entity: e,
        chunk,
        coverage: coverage(chunk),
        spread: graph.chunksOf(e).chunks.length,
      });
    }
    candidates.sort((a, b) => b.coverage - a.coverage || a.spread - b.spread || a.entity - b.entity);
    for (const c of candidates.slice(0, o.bridges)) {
      if (placed.has(c.chunk)) continue;
      out.push(c.chunk);
      placed.add(c.chunk);
      bridges.push({ from: seed, entity: graph.entities[c.entity]!, chunk: c.chunk });
    }
  }
  for (const leaf of rest) {
    if (placed.has(leaf)) continue;
    out.push(leaf);
    placed.add(leaf);
  }
  return { ranking: out, bridges };
}
