/**
 * Knowledge-graph local search: the context builder of Microsoft GraphRAG's local search
 * (Edge et al. 2024), as KET-RAG's Algorithm 2 describes it (§2.3): seed entities by embedding
 * similarity to the query, then the relationships of the seeds (those between two seeds first),
 * then the text units that mention the seeds, each within its share of a token budget.
 */
import { type PackedContext, packContext } from '../context.js';
import { InvalidArgumentError } from '../contracts/errors.js';
import type { Tokenizer } from '../contracts/tokenizer.js';
import type { Provenance, RetrievedItem, SourceLocation } from '../contracts/types.js';
import type { VectorIndex } from '../contracts/vector.js';
import { withLocations } from '../provenance.js';
import type { LocalSearchGraph } from './local-search-graph.js';
import {
  type RankedRelationship,
  type RankedTextUnit,
  rankRelationships,
  rankTextUnits,
  type SeedEntity,
  seedPositions,
  selectSeedEntities,
} from './local-search-ranking.js';

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
