/**
 * The graph knowledge-graph local search reads: entities, relationships and text units with their
 * links resolved to positions once (`prepareLocalSearch`), so that every query only ranks.
 */
import { InvalidArgumentError } from '../contracts/errors.js';
import type { SourceLocation } from '../contracts/types.js';

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
