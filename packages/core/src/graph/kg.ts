import { UndirectedGraph } from 'graphology';
import { InvalidArgumentError } from '../contracts/errors.js';
import type { ExtractedEntity, ExtractedRelation, KgEntity, KgRelation } from '../contracts/types.js';
import { type EntityLinking, type EntityLinkingOptions, type LinkableItem, linkEntities } from './linking.js';
import { cleanEntityName, foldCase, normalizeEntityName } from './names.js';

/** Entity types are compared trimmed, whitespace-collapsed and lower-cased (`'PERSON'` = `'person'`). */
function normalizeType(type: string): string {
  return type.normalize('NFKC').replace(/\s+/gu, ' ').trim().toLowerCase();
}

/** Type given to an entity that only appeared as a relation endpoint. */
export const UNKNOWN_ENTITY_TYPE = 'unknown';

/** Where an extraction comes from. */
export interface ExtractionSource {
  chunkId: string;
  docId: string;
  /**
   * The chunk's text. Read only by entity linking (`entityLinking` with `scanTexts`), which finds
   * document titles in it that the extraction missed. @default undefined
   */
  text?: string;
}

/** Options of {@link KnowledgeGraphBuilder} and {@link assembleKnowledgeGraph}. */
export interface KnowledgeGraphOptions {
  /**
   * Link entities across the corpus before merging (see `linkEntities`): document titles become
   * entities of their chunks, aliases fold into their canonical entity. `true` links with the
   * defaults and no titles; an object gives the titles and rules. @default false
   */
  entityLinking?: boolean | EntityLinkingOptions;
}

/** What entity linking did while building a {@link KnowledgeGraph}: `linkEntities`'s result without the items. */
export type KnowledgeGraphLinking = Omit<EntityLinking, 'items'>;

/** What {@link KnowledgeGraphBuilder.addExtraction} reads: a `GraphExtraction` fits. */
export interface ExtractionLike {
  entities: readonly ExtractedEntity[];
  relations: readonly ExtractedRelation[];
}

/** An extracted record that was not merged into the graph, and why. */
export interface SkippedExtraction {
  kind: 'entity' | 'relation';
  /**
   * - `'empty-name'`: an entity name (or a relation endpoint) is empty after normalization.
   * - `'self-relation'`: both endpoints normalize to the same entity.
   * - `'invalid-weight'`: a relation weight is negative or not a finite number.
   */
  reason: 'empty-name' | 'self-relation' | 'invalid-weight';
  chunkId: string;
  docId: string;
  /** The record as extracted. */
  record: ExtractedEntity | ExtractedRelation;
}

/** A merged knowledge graph: the result of {@link KnowledgeGraphBuilder.build}. */
export class KnowledgeGraph {
  /** Entities by id (normalized name), in order of first appearance. */
  readonly entities: Map<string, KgEntity>;
  /** Relations by id (see {@link relationId}), in order of first appearance. */
  readonly relations: Map<string, KgRelation>;
  /** Records that were not merged, with their reason. */
  readonly skipped: SkippedExtraction[];
  /** Document of every chunk that contributed. */
  readonly chunkDocs: Map<string, string>;
  /** Canonical names, aliases, title entities and counts, when built with `entityLinking`. */
  readonly linking: KnowledgeGraphLinking | undefined;

  constructor(
    entities: Map<string, KgEntity>,
    relations: Map<string, KgRelation>,
    skipped: SkippedExtraction[],
    chunkDocs: Map<string, string>,
    linking?: KnowledgeGraphLinking,
  ) {
    this.entities = entities;
    this.relations = relations;
    this.skipped = skipped;
    this.chunkDocs = chunkDocs;
    this.linking = linking;
  }

  /**
   * The graph as a graphology `UndirectedGraph`: one node per entity (key = entity id, attributes =
   * the entity's fields), one edge per relation (key = relation id, attributes = the relation's
   * fields, so the summed weight is the edge attribute `weight`). Arrays are copied.
   */
  toGraph(): UndirectedGraph {
    const graph = new UndirectedGraph();
    for (const entity of this.entities.values()) graph.addNode(entity.id, copyEntity(entity));
    for (const relation of this.relations.values()) {
      graph.addUndirectedEdgeWithKey(relation.id, relation.source, relation.target, copyRelation(relation));
    }
    return graph;
  }
}

/**
 * The id of the relation between two entity ids: the JSON array of the two ids in sorted order, so
 * `A–B` and `B–A` share it (relations are undirected, as in GraphRAG).
 */
export function relationId(a: string, b: string): string {
  return JSON.stringify(a < b ? [a, b] : [b, a]);
}

interface EntityAcc {
  id: string;
  name: string | undefined;
  endpointName: string;
  typeCounts: Map<string, number>;
  descriptions: Set<string>;
  chunkIds: Set<string>;
}

interface RelationAcc {
  id: string;
  source: string;
  target: string;
  descriptions: Set<string>;
  weight: number;
  keywords: Set<string>;
  chunkIds: Set<string>;
}

/**
 * Merges per-chunk graph extractions into one knowledge graph.
 *
 * Entities: names with the same {@link normalizeEntityName} key are one entity; its `name` is the
 * first cleaned name seen in an entity record; `types` are counted (normalized to lower case) and
 * listed most frequent first, ties in order of first appearance; distinct non-empty descriptions
 * accumulate in order; `chunkIds` are united in order of first appearance.
 *
 * Relations: keyed by the sorted pair of endpoint keys ({@link relationId}): relations are
 * undirected, so `A→B` and `B→A` merge. `source`/`target` keep the orientation first seen. Weights
 * are summed; descriptions, keywords and chunk ids accumulate distinct, in order.
 *
 * A relation endpoint never extracted as an entity creates that entity, with type `'unknown'` and no
 * description (it gains types and descriptions if a later record names it). Self-relations (both
 * endpoints the same key), empty names and invalid weights are not merged: they are listed in
 * `skipped` with their reason.
 *
 * @example
 * const builder = new KnowledgeGraphBuilder();
 * for (const chunk of chunks) {
 *   builder.addExtraction(await tasks.extractGraph(chunk.text), { chunkId: chunk.id, docId: chunk.docId });
 * }
 * const kg = builder.build();
 *
 * With `entityLinking`, the builder keeps the extractions and links them across the whole corpus in
 * `build()` (`linkEntities`: titles as entities, alias folding), then merges the linked records by
 * the rules above; `kg.linking` reports what was linked.
 */
export class KnowledgeGraphBuilder {
  private readonly entities = new Map<string, EntityAcc>();
  private readonly relations = new Map<string, RelationAcc>();
  private readonly skipped: SkippedExtraction[] = [];
  private readonly chunkDocs = new Map<string, string>();
  private readonly linkingOptions: EntityLinkingOptions | undefined;
  private readonly pending: LinkableItem[] = [];
  /** Cleaned name and key of each raw name string merged so far (names repeat across chunks). */
  private readonly names = new Map<string, readonly [string, string]>();

  constructor(options: KnowledgeGraphOptions = {}) {
    const linking = options.entityLinking;
    this.linkingOptions =
      linking === true ? {} : linking === false || linking === undefined ? undefined : linking;
  }

  /**
   * Merge the entities, then the relations, of one chunk's extraction.
   * @throws InvalidArgumentError when `source.chunkId` was already given with another `docId`.
   */
  addExtraction(extraction: ExtractionLike, source: ExtractionSource): this {
    const { chunkId, docId } = source;
    const knownDoc = this.chunkDocs.get(chunkId);
    if (knownDoc !== undefined && knownDoc !== docId) {
      throw new InvalidArgumentError(
        'source',
        `KnowledgeGraphBuilder.addExtraction: chunk "${chunkId}" was added with doc "${knownDoc}" and now ` +
          `with "${docId}"; chunk ids must be unique across documents.`,
      );
    }
    this.chunkDocs.set(chunkId, docId);
    if (this.linkingOptions) {
      const item: LinkableItem = {
        chunkId,
        docId,
        extraction: { entities: extraction.entities.slice(), relations: extraction.relations.slice() },
      };
      if (source.text !== undefined) item.text = source.text;
      this.pending.push(item);
      return this;
    }
    return this.merge(extraction, chunkId, docId);
  }

  private merge(extraction: ExtractionLike, chunkId: string, docId: string): this {
    for (const record of extraction.entities) {
      const [name, id] = this.clean(record.name);
      if (id === '') {
        this.skipped.push({ kind: 'entity', reason: 'empty-name', chunkId, docId, record });
        continue;
      }
      const entity = this.entity(id, name);
      entity.name ??= name;
      const type = normalizeType(record.type ?? '');
      if (type !== '') entity.typeCounts.set(type, (entity.typeCounts.get(type) ?? 0) + 1);
      addText(entity.descriptions, record.description);
      entity.chunkIds.add(chunkId);
    }

    for (const record of extraction.relations) {
      const [sourceName, a] = this.clean(record.source);
      const [targetName, b] = this.clean(record.target);
      const weight = record.weight ?? 1;
      let reason: SkippedExtraction['reason'] | undefined;
      if (a === '' || b === '') reason = 'empty-name';
      else if (a === b) reason = 'self-relation';
      else if (!(Number.isFinite(weight) && weight >= 0)) reason = 'invalid-weight';
      if (reason !== undefined) {
        this.skipped.push({ kind: 'relation', reason, chunkId, docId, record });
        continue;
      }
      this.entity(a, sourceName).chunkIds.add(chunkId);
      this.entity(b, targetName).chunkIds.add(chunkId);
      const id = relationId(a, b);
      let relation = this.relations.get(id);
      if (relation === undefined) {
        relation = {
          id,
          source: a,
          target: b,
          descriptions: new Set(),
          weight: 0,
          keywords: new Set(),
          chunkIds: new Set(),
        };
        this.relations.set(id, relation);
      }
      relation.weight += weight;
      addText(relation.descriptions, record.description);
      for (const keyword of record.keywords ?? []) addText(relation.keywords, keyword);
      relation.chunkIds.add(chunkId);
    }
    return this;
  }

  /** A snapshot of the merged graph; the builder stays usable and later additions do not affect it. */
  build(): KnowledgeGraph {
    if (this.linkingOptions) {
      const { items, ...linking } = linkEntities(this.pending, this.linkingOptions);
      const plain = new KnowledgeGraphBuilder();
      for (const item of items) plain.merge(item.extraction, item.chunkId, item.docId);
      for (const [chunkId, docId] of this.chunkDocs) plain.chunkDocs.set(chunkId, docId);
      const kg = plain.build();
      return new KnowledgeGraph(kg.entities, kg.relations, kg.skipped, kg.chunkDocs, linking);
    }
    const entities = new Map<string, KgEntity>();
    for (const acc of this.entities.values()) {
      const types = [...acc.typeCounts.entries()]
        .map(([type, count], order) => ({ type, count, order }))
        .sort((x, y) => y.count - x.count || x.order - y.order)
        .map((t) => t.type);
      entities.set(acc.id, {
        id: acc.id,
        name: acc.name ?? acc.endpointName,
        types: types.length > 0 ? types : [UNKNOWN_ENTITY_TYPE],
        descriptions: [...acc.descriptions],
        chunkIds: [...acc.chunkIds],
      });
    }
    const relations = new Map<string, KgRelation>();
    for (const acc of this.relations.values()) {
      relations.set(acc.id, {
        id: acc.id,
        source: acc.source,
        target: acc.target,
        descriptions: [...acc.descriptions],
        weight: acc.weight,
        keywords: [...acc.keywords],
        chunkIds: [...acc.chunkIds],
      });
    }
    return new KnowledgeGraph(entities, relations, this.skipped.slice(), new Map(this.chunkDocs));
  }

  private clean(raw: string): readonly [string, string] {
    let entry = this.names.get(raw);
    if (entry === undefined) {
      const name = cleanEntityName(raw);
      entry = [name, foldCase(name)];
      if (this.names.size < 1_000_000) this.names.set(raw, entry);
    }
    return entry;
  }

  private entity(id: string, endpointName: string): EntityAcc {
    let entity = this.entities.get(id);
    if (entity === undefined) {
      entity = {
        id,
        name: undefined,
        endpointName,
        typeCounts: new Map(),
        descriptions: new Set(),
        chunkIds: new Set(),
      };
      this.entities.set(id, entity);
    }
    return entity;
  }
}

/** One chunk's extraction with its provenance (and, optionally, its text), for {@link assembleKnowledgeGraph}. */
export interface ExtractionItem extends ExtractionSource {
  extraction: ExtractionLike;
}

/**
 * Merge many chunk extractions into one {@link KnowledgeGraph} (a {@link KnowledgeGraphBuilder} in
 * one call; same merging rules, same `entityLinking` option).
 * @example
 * const kg = assembleKnowledgeGraph(items, { entityLinking: { titles: new Map(docs.map((d) => [d.id, d.title])) } });
 */
export function assembleKnowledgeGraph(
  items: Iterable<ExtractionItem>,
  options: KnowledgeGraphOptions = {},
): KnowledgeGraph {
  const builder = new KnowledgeGraphBuilder(options);
  for (const { extraction, chunkId, docId, text } of items) {
    builder.addExtraction(extraction, text === undefined ? { chunkId, docId } : { chunkId, docId, text });
  }
  return builder.build();
}

function addText(set: Set<string>, text: string | undefined): void {
  const t = (text ?? '').trim();
  if (t !== '') set.add(t);
}

function copyEntity(entity: KgEntity): KgEntity {
  return {
    ...entity,
    types: entity.types.slice(),
    descriptions: entity.descriptions.slice(),
    chunkIds: entity.chunkIds.slice(),
  };
}

function copyRelation(relation: KgRelation): KgRelation {
  return {
    ...relation,
    descriptions: relation.descriptions.slice(),
    keywords: relation.keywords.slice(),
    chunkIds: relation.chunkIds.slice(),
  };
}
