/**
 * The ranking steps of knowledge-graph local search (KET-RAG Algorithm 2, §2.3; GraphRAG's local
 * context builder): seed entities by similarity to the query, the relationships of the seeds
 * (those between two seeds first), and the text units that mention the seeds.
 */
import { InvalidArgumentError } from '../contracts/errors.js';
import type { VectorIndex } from '../contracts/vector.js';
import { cosineSimilarity } from '../vector/math.js';
import type { LocalSearchGraph } from './local-search-graph.js';

/** A seed entity and its similarity to the query. */
export interface SeedEntity {
  /** Position in `graph.entities`. */
  index: number;
  id: string;
  score: number;
}

/**
 * The `k` entities most similar to `queryVector`, best first (equal scores: lower position first).
 * `entityVectors` is either one vector per entity (aligned with `graph.entities`; cosine similarity,
 * which ranks unit vectors as Euclidean distance does) or a {@link VectorIndex} whose ids are entity
 * positions.
 */
export function selectSeedEntities(
  graph: LocalSearchGraph,
  queryVector: ArrayLike<number>,
  entityVectors: readonly ArrayLike<number>[] | VectorIndex,
  k: number,
): SeedEntity[] {
  if (!Number.isInteger(k) || k < 0) {
    throw new InvalidArgumentError('k', `selectSeedEntities: k must be a non-negative integer, got ${k}.`);
  }
  if (k === 0 || graph.entities.length === 0) return [];
  if (isVectorIndex(entityVectors)) {
    return entityVectors
      .search(queryVector, Math.min(k, graph.entities.length))
      .filter((hit) => hit.id < graph.entities.length)
      .map((hit) => ({ index: hit.id, id: graph.entities[hit.id]!.id, score: hit.score }));
  }
  if (entityVectors.length !== graph.entities.length) {
    throw new InvalidArgumentError(
      'entityVectors',
      `selectSeedEntities: got ${entityVectors.length} entity vectors for ${graph.entities.length} entities; pass one per entity, in entity order.`,
    );
  }
  const scored = entityVectors.map((vector, index) => ({
    index,
    score: cosineSimilarity(queryVector, vector),
  }));
  scored.sort((a, b) => b.score - a.score || a.index - b.index);
  return scored.slice(0, k).map(({ index, score }) => ({ index, id: graph.entities[index]!.id, score }));
}

function isVectorIndex(value: readonly ArrayLike<number>[] | VectorIndex): value is VectorIndex {
  return typeof (value as VectorIndex).search === 'function' && !Array.isArray(value);
}

/** A relationship chosen by {@link rankRelationships}, with why it ranks where it does. */
export interface RankedRelationship {
  /** Position in `graph.relationships`. */
  index: number;
  /** `true` when both endpoints are seeds (in-network), ranked before every other. */
  inNetwork: boolean;
  /** Out-network only: how many seeds the non-seed endpoint is linked to. */
  links: number;
  /** Degree of source + degree of target. */
  rank: number;
}

export function seedPositions(graph: LocalSearchGraph, seeds: readonly string[], fn: string): number[] {
  const positions: number[] = [];
  const seen = new Set<number>();
  for (const id of seeds) {
    const i = graph.entityIndex.get(id);
    if (i === undefined) {
      throw new InvalidArgumentError(
        'seeds',
        `${fn}: seed ${JSON.stringify(id)} is not an entity of the graph; pass entity ids.`,
      );
    }
    if (!seen.has(i)) {
      seen.add(i);
      positions.push(i);
    }
  }
  return positions;
}

/**
 * The relationships of `seeds` in GraphRAG's local-search order: first every relationship between two
 * seeds (in-network), by rank (degree of source + degree of target) descending; then relationships
 * with one seed endpoint (out-network), by the number of seeds the other endpoint is linked to, then
 * by rank, keeping the first `topK × |seeds|` of them. Remaining ties: higher weight, then
 * relationship order.
 */
export function rankRelationships(
  graph: LocalSearchGraph,
  seeds: readonly string[],
  topK: number,
): RankedRelationship[] {
  if (!Number.isInteger(topK) || topK < 0) {
    throw new InvalidArgumentError(
      'topK',
      `rankRelationships: topK must be a non-negative integer, got ${topK}.`,
    );
  }
  const positions = seedPositions(graph, seeds, 'rankRelationships');
  const isSeed = new Set(positions);
  const inNetwork: RankedRelationship[] = [];
  const outNetwork: RankedRelationship[] = [];
  const seen = new Set<number>();
  // Seeds each non-seed entity is linked to through an out-network relationship.
  const outLinks = new Map<number, Set<number>>();
  for (const seed of positions) {
    for (const r of graph.incident[seed]!) {
      if (seen.has(r)) continue;
      seen.add(r);
      const [s, t] = graph.endpoints[r]!;
      const rank = graph.rank[r]!;
      if (isSeed.has(s) && isSeed.has(t)) {
        inNetwork.push({ index: r, inNetwork: true, links: 0, rank });
        continue;
      }
      const other = isSeed.has(s) ? t : s;
      const anchor = other === s ? t : s;
      let linked = outLinks.get(other);
      if (!linked) {
        linked = new Set();
        outLinks.set(other, linked);
      }
      linked.add(anchor);
      outNetwork.push({ index: r, inNetwork: false, links: 0, rank });
    }
  }
  for (const item of outNetwork) {
    const [s, t] = graph.endpoints[item.index]!;
    item.links = outLinks.get(isSeed.has(s) ? t : s)?.size ?? 0;
  }
  const weight = (r: number): number => graph.relationships[r]!.weight ?? 1;
  inNetwork.sort((a, b) => b.rank - a.rank || weight(b.index) - weight(a.index) || a.index - b.index);
  outNetwork.sort(
    (a, b) => b.links - a.links || b.rank - a.rank || weight(b.index) - weight(a.index) || a.index - b.index,
  );
  return [...inNetwork, ...outNetwork.slice(0, topK * positions.length)];
}

/** A text unit chosen by {@link rankTextUnits}. */
export interface RankedTextUnit {
  id: string;
  /** Position (in `seeds`) of the first seed that mentions the unit. */
  seed: number;
  /** Relationships of that seed extracted from this unit. */
  relationships: number;
}

/**
 * The text units of `seeds` in GraphRAG's local-search order: by the position of the first seed that
 * mentions them, then by how many of that seed's relationships come from the unit (descending), then
 * in the seed's `textUnitIds` order. Units missing from `graph.textUnits` are left out.
 */
export function rankTextUnits(graph: LocalSearchGraph, seeds: readonly string[]): RankedTextUnit[] {
  const positions = seedPositions(graph, seeds, 'rankTextUnits');
  const taken = new Set<string>();
  const out: RankedTextUnit[] = [];
  positions.forEach((entity, seed) => {
    const counts = new Map<string, number>();
    for (const r of graph.incident[entity]!) {
      for (const unit of graph.relationships[r]!.textUnitIds) counts.set(unit, (counts.get(unit) ?? 0) + 1);
    }
    const units: RankedTextUnit[] = [];
    for (const id of graph.entities[entity]!.textUnitIds) {
      if (taken.has(id) || !graph.textUnits.has(id)) continue;
      taken.add(id);
      units.push({ id, seed, relationships: counts.get(id) ?? 0 });
    }
    // Array.prototype.sort is stable: equal counts keep textUnitIds order.
    units.sort((a, b) => b.relationships - a.relationships);
    out.push(...units);
  });
  return out;
}
