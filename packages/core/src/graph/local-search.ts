/**
 * Knowledge-graph local search: the context builder of Microsoft GraphRAG's local search
 * (Edge et al. 2024), as KET-RAG's Algorithm 2 describes it (§2.3): seed entities by embedding
 * similarity to the query, then the relationships of the seeds (those between two seeds first),
 * then the text units that mention the seeds, each within its share of a token budget.
 */
import { type PackedContext, packContext } from '../context.js';
import { InvalidArgumentError } from '../errors.js';
import { withLocations } from '../provenance.js';
import type { Tokenizer } from '../tokenizer.js';
import type { Provenance, RetrievedItem, SourceLocation } from '../types.js';
import { cosineSimilarity } from '../vector/math.js';
import type { VectorIndex } from '../vector/types.js';

/** An entity of a {@link LocalSearchGraph}. */
export interface LocalSearchEntity {
  /** Unique key; relationships name their endpoints by it. */
  id: string;
  /** Display name written into the context. */
  name: string;
  description: string;
  /** Text units that mention the entity, in order of importance (first = written first). */
  textUnitIds: readonly string[];
}

/** An (undirected) relationship of a {@link LocalSearchGraph}. */
export interface LocalSearchRelationship {
  id: string;
  /** Entity id of one endpoint. */
  source: string;
  /** Entity id of the other endpoint. */
  target: string;
  description: string;
  /** Strength; breaks ties after the GraphRAG rank. @default 1 */
  weight?: number;
  /** Text units the relationship was extracted from. */
  textUnitIds: readonly string[];
}

/** A text unit (chunk, sub-chunk) of a {@link LocalSearchGraph}. */
export interface LocalSearchTextUnit {
  id: string;
  text: string;
  /** Documents the unit comes from (provenance of the retrieved item). @default [] */
  docIds?: readonly string[];
  /** Where in the source files the unit lies (its chunk's `location`), for the items' provenance. @default [] */
  locations?: readonly SourceLocation[];
}

/** What {@link prepareLocalSearch} reads. */
export interface LocalSearchInput {
  entities: readonly LocalSearchEntity[];
  relationships: readonly LocalSearchRelationship[];
  textUnits: Iterable<LocalSearchTextUnit>;
}

/**
 * A knowledge graph prepared for {@link localSearch}: entity positions, incident relationships and
 * GraphRAG ranks (entity rank = degree, relationship rank = degree of source + degree of target).
 */
export interface LocalSearchGraph {
  readonly entities: readonly LocalSearchEntity[];
  readonly relationships: readonly LocalSearchRelationship[];
  /** Entity id → position in `entities`. */
  readonly entityIndex: ReadonlyMap<string, number>;
  /** Position of each relationship's source and target in `entities`. */
  readonly endpoints: readonly (readonly [number, number])[];
  /** Relationship positions incident to each entity, in relationship order. */
  readonly incident: readonly (readonly number[])[];
  /** Number of relationships of each entity (GraphRAG's entity rank). */
  readonly degree: Int32Array;
  /** Degree of source + degree of target of each relationship (GraphRAG's relationship rank). */
  readonly rank: Int32Array;
  readonly textUnits: ReadonlyMap<string, LocalSearchTextUnit>;
}

/**
 * Prepare a knowledge graph for {@link localSearch}. O(entities + relationships + text units).
 *
 * @throws InvalidArgumentError when two entities share an id or a relationship names an entity that
 * is not in `entities`.
 */
export function prepareLocalSearch(input: LocalSearchInput): LocalSearchGraph {
  const entities = input.entities;
  const entityIndex = new Map<string, number>();
  entities.forEach((entity, i) => {
    if (entityIndex.has(entity.id)) {
      throw new InvalidArgumentError(
        'entities',
        `prepareLocalSearch: two entities have the id ${JSON.stringify(entity.id)}; merge them first (see KnowledgeGraphBuilder).`,
      );
    }
    entityIndex.set(entity.id, i);
  });
  const incident: number[][] = entities.map(() => []);
  const degree = new Int32Array(entities.length);
  const endpoints: [number, number][] = [];
  input.relationships.forEach((relationship, r) => {
    const s = entityIndex.get(relationship.source);
    const t = entityIndex.get(relationship.target);
    if (s === undefined || t === undefined) {
      const missing = s === undefined ? relationship.source : relationship.target;
      throw new InvalidArgumentError(
        'relationships',
        `prepareLocalSearch: relationship ${JSON.stringify(relationship.id)} names the entity ${JSON.stringify(missing)}, which is not in entities; add it.`,
      );
    }
    endpoints.push([s, t]);
    incident[s]!.push(r);
    degree[s]!++;
    if (t !== s) {
      incident[t]!.push(r);
      degree[t]!++;
    }
  });
  const rank = new Int32Array(endpoints.length);
  endpoints.forEach(([s, t], r) => {
    rank[r] = degree[s]! + degree[t]!;
  });
  const textUnits = new Map<string, LocalSearchTextUnit>();
  for (const unit of input.textUnits) textUnits.set(unit.id, unit);
  return {
    entities,
    relationships: input.relationships,
    entityIndex,
    endpoints,
    incident,
    degree,
    rank,
    textUnits,
  };
}

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

function seedPositions(graph: LocalSearchGraph, seeds: readonly string[], fn: string): number[] {
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

/** Options of {@link localSearch}. */
export interface LocalSearchOptions {
  /** Token budget of the whole context (entities, relationships and text units). Required. */
  budgetTokens: number;
  /** Counts the budget. Required. */
  tokenizer: Tokenizer;
  /**
   * Seed entities picked by similarity to the query. @default 10 (KET-RAG §2.3; GraphRAG
   * `top_k_mapped_entities`)
   */
  topKEntities: number;
  /** Out-network relationships kept per seed. @default 10 (GraphRAG `top_k_relationships`) */
  topKRelationships: number;
  /**
   * Share of the budget for text units; entities and relationships get the rest.
   * @default 0.5 (GraphRAG `text_unit_prop`, as in KET-RAG's official configuration)
   */
  textUnitProp: number;
  /**
   * Seeds to use instead of a similarity search (entity ids, in order); when given, `entityVectors`
   * and the query vector are not read.
   */
  seeds?: readonly string[];
  /** How a retrieved item is written into the context. @default {@link renderLocalSearchItem} */
  render?: (item: RetrievedItem) => string;
}

/** Defaults of {@link localSearch}. */
export const LOCAL_SEARCH_DEFAULTS = {
  topKEntities: 10,
  topKRelationships: 10,
  textUnitProp: 0.5,
} as const;

/** The result of {@link localSearch}. */
export interface LocalSearchResult {
  /** Entities, then relationships, then text units, joined by blank lines. */
  context: string;
  /** Items written into `context`, in context order (kinds `'entity'`, `'relation'`, `'chunk'`). */
  items: RetrievedItem[];
  tokens: number;
  seeds: SeedEntity[];
  /** Seeds whose relationships made it in whole (GraphRAG adds seeds one by one until one does not fit). */
  relationshipSeeds: number;
  /** Tokens of each section (entities and relationships together are the local share). */
  sections: { entities: number; relationships: number; textUnits: number };
}

/**
 * Default rendering: `(entity) Name: description`, `(relation) A — B: description`, and
 * `[unit id] text` for text units (the id is what an answer cites).
 */
export function renderLocalSearchItem(item: RetrievedItem): string {
  if (item.kind === 'entity' || item.kind === 'relation') return `(${item.kind}) ${item.text}`;
  return `[${item.id}] ${item.text}`;
}

/**
 * Build GraphRAG's local-search context for a query (KET-RAG Algorithm 2):
 * 1. seeds: the `topKEntities` entities most similar to `queryVector` (or `options.seeds`);
 * 2. the local share, `budget × (1 − textUnitProp)`: the seeds' descriptions, then relationships
 *    ranked by {@link rankRelationships} for the first 1, 2, … seeds, keeping the largest prefix
 *    whose relationships all fit (GraphRAG's "revert to the previous state"); when even the first
 *    seed's do not all fit, as many of them as fit, in order;
 * 3. the text-unit share, `budget × textUnitProp`: units ranked by {@link rankTextUnits}, whole units
 *    only.
 * The whole context never exceeds `budgetTokens`.
 *
 * @param entityVectors one vector per entity (aligned with `graph.entities`) or a {@link VectorIndex}
 *   over entity positions; ignored when `options.seeds` is given.
 * @throws InvalidArgumentError for a negative budget, a `textUnitProp` outside [0, 1], or unknown seeds.
 * @example
 * const graph = prepareLocalSearch({ entities, relationships, textUnits });
 * const { context, items } = localSearch(graph, queryVector, entityVectors, { budgetTokens: 6000, tokenizer });
 */
export function localSearch(
  graph: LocalSearchGraph,
  queryVector: ArrayLike<number> | null,
  entityVectors: readonly ArrayLike<number>[] | VectorIndex | null,
  options: Partial<LocalSearchOptions> & Pick<LocalSearchOptions, 'budgetTokens' | 'tokenizer'>,
): LocalSearchResult {
  const o = { ...LOCAL_SEARCH_DEFAULTS, ...options };
  const { budgetTokens, tokenizer } = o;
  if (!Number.isFinite(budgetTokens) || budgetTokens < 0) {
    throw new InvalidArgumentError(
      'budgetTokens',
      `localSearch: budgetTokens must be a non-negative number, got ${budgetTokens}.`,
    );
  }
  if (!(o.textUnitProp >= 0 && o.textUnitProp <= 1)) {
    throw new InvalidArgumentError(
      'textUnitProp',
      `localSearch: textUnitProp must be in [0, 1], got ${o.textUnitProp}.`,
    );
  }
  const render = o.render ?? renderLocalSearchItem;
  let seeds: SeedEntity[];
  if (o.seeds !== undefined) {
    seeds = seedPositions(graph, o.seeds, 'localSearch').map((index) => ({
      index,
      id: graph.entities[index]!.id,
      score: 1,
    }));
  } else {
    if (queryVector === null || entityVectors === null) {
      throw new InvalidArgumentError(
        'queryVector',
        'localSearch: pass a query vector and entity vectors, or options.seeds.',
      );
    }
    seeds = selectSeedEntities(graph, queryVector, entityVectors, o.topKEntities);
  }
  const empty: LocalSearchResult = {
    context: '',
    items: [],
    tokens: 0,
    seeds,
    relationshipSeeds: 0,
    sections: { entities: 0, relationships: 0, textUnits: 0 },
  };
  if (seeds.length === 0 || budgetTokens === 0) return empty;

  const pack = (items: readonly RetrievedItem[], budget: number): PackedContext =>
    packContext(items, Math.max(0, budget), { tokenizer, render, truncate: false });

  // 2. Local share: entities, then relationships seed by seed.
  const localBudget = Math.floor(budgetTokens * (1 - o.textUnitProp));
  const entityItems = seeds.map((seed) => entityItem(graph, seed));
  const entities = pack(entityItems, localBudget);
  const seedIds = seeds.map((s) => s.id);
  let local = entities;
  let relationshipCount = 0;
  let relationshipSeeds = 0;
  if (entities.dropped === 0) {
    for (let prefix = 1; prefix <= seedIds.length; prefix++) {
      const ranked = rankRelationships(graph, seedIds.slice(0, prefix), o.topKRelationships);
      const candidate = pack([...entityItems, ...ranked.map((r) => relationItem(graph, r))], localBudget);
      if (candidate.dropped > 0) {
        if (prefix === 1) {
          local = candidate; // none fit whole: keep those that fit, in order
          relationshipCount = candidate.items.length - entityItems.length;
        }
        break;
      }
      local = candidate;
      relationshipCount = ranked.length;
      relationshipSeeds = prefix;
    }
  }

  // 3. Text-unit share, never past the whole budget.
  const separatorTokens = local.context === '' ? 0 : tokenizer.count(`${local.context}\n\n`);
  let textBudget = Math.min(Math.floor(budgetTokens * o.textUnitProp), budgetTokens - separatorTokens);
  const unitItems = rankTextUnits(graph, seedIds).map((u) => textUnitItem(graph, u, seeds));
  let units = pack(unitItems, textBudget);
  let context = [local.context, units.context].filter((c) => c !== '').join('\n\n');
  let tokens = tokenizer.count(context);
  // Tokenizers whose counts do not add up across the join: shrink the text share until it fits.
  while (tokens > budgetTokens && units.items.length > 0) {
    textBudget -= tokens - budgetTokens;
    units = pack(unitItems, textBudget);
    context = [local.context, units.context].filter((c) => c !== '').join('\n\n');
    tokens = tokenizer.count(context);
  }
  return {
    context,
    items: [...local.items, ...units.items],
    tokens,
    seeds,
    relationshipSeeds,
    sections: {
      entities: entities.tokens,
      relationships: relationshipCount > 0 ? local.tokens - entities.tokens : 0,
      textUnits: units.tokens,
    },
  };
}

/** The provenance of an item the units `unitIds` support: those units, their documents and locations. */
function unitSource(graph: LocalSearchGraph, unitIds: readonly string[]): Provenance {
  const docs = new Set<string>();
  const locations: SourceLocation[] = [];
  for (const id of unitIds) {
    const unit = graph.textUnits.get(id);
    for (const doc of unit?.docIds ?? []) docs.add(doc);
    if (unit?.locations) locations.push(...unit.locations);
  }
  return withLocations({ chunkIds: [...unitIds], docIds: [...docs] }, locations);
}

function entityItem(graph: LocalSearchGraph, seed: SeedEntity): RetrievedItem {
  const entity = graph.entities[seed.index]!;
  return {
    id: entity.id,
    kind: 'entity',
    text: entity.description ? `${entity.name}: ${entity.description}` : entity.name,
    score: seed.score,
    source: unitSource(graph, entity.textUnitIds),
  };
}

function relationItem(graph: LocalSearchGraph, ranked: RankedRelationship): RetrievedItem {
  const relationship = graph.relationships[ranked.index]!;
  const [s, t] = graph.endpoints[ranked.index]!;
  const names = `${graph.entities[s]!.name} — ${graph.entities[t]!.name}`;
  return {
    id: relationship.id,
    kind: 'relation',
    text: relationship.description ? `${names}: ${relationship.description}` : names,
    score: ranked.rank,
    source: unitSource(graph, relationship.textUnitIds),
  };
}

function textUnitItem(graph: LocalSearchGraph, ranked: RankedTextUnit, seeds: SeedEntity[]): RetrievedItem {
  const unit = graph.textUnits.get(ranked.id)!;
  return {
    id: unit.id,
    kind: 'chunk',
    text: unit.text,
    score: seeds[ranked.seed]?.score ?? 0,
    source: withLocations({ chunkIds: [unit.id], docIds: [...(unit.docIds ?? [])] }, unit.locations ?? []),
  };
}
