/** Seed entities of the knowledge-graph channel. */

import { normalizeEntityName } from '@grag/core/graph';
import { searchEntryPointsAsync } from '@grag/core/kit';
import { searchSubChunks } from './entry.js';
import { mergeAlternating } from './ranking.js';
import type { KetRagIndex, KetRagSkeleton } from './types.js';

/**
 * The title entities of the given sub-chunks, in order: for each one, the title entity of its own
 * document (when it is in the graph), then the title entities it links to; each entity once.
 */
export function unitTitleSeeds(input: {
  units: readonly { id: string; docId: string }[];
  /** Document id → its title entity's id. */
  titleEntityOf: ReadonlyMap<string, string>;
  /** Sub-chunk id → positions of the title entities it links to. */
  unitEntities: ReadonlyMap<string, readonly number[]>;
  /** Entity ids by position. */
  entities: readonly { id: string }[];
  /** Whether an entity id is in the graph. */
  has: (id: string) => boolean;
}): string[] {
  const out: string[] = [];
  for (const unit of input.units) {
    const home = input.titleEntityOf.get(unit.docId);
    const linked = (input.unitEntities.get(unit.id) ?? []).map((p) => input.entities[p]!.id);
    for (const id of [...(home !== undefined && input.has(home) ? [home] : []), ...linked]) {
      if (!out.includes(id)) out.push(id);
    }
  }
  return out;
}

/** The skeleton's entities written in the query (longest match over names and aliases, capitalised). */
function queryEntities(skeleton: KetRagSkeleton, query: string): string[] {
  const matched: string[] = [];
  if (!skeleton.vocabulary) return matched;
  for (const m of skeleton.vocabulary.match(query, { capitalizedOnly: true })) {
    const id = normalizeEntityName(m.name);
    if (skeleton.graph.entityIndex.has(id) && !matched.includes(id)) matched.push(id);
  }
  return matched;
}

/**
 * Seed entities of the knowledge-graph channel, best first: with `entityLinking`, the skeleton's
 * entities written in the query; then, alternating, the title entities of the `seedUnits` best entry
 * sub-chunks (`entitySeeds` `'units'` or `'both'`) and the `entryPoints` search over the entities'
 * `name: description` texts (`'query'` or `'both'`, or when no unit seeds are possible);
 * `topKEntities` in all.
 */
export async function seedEntities(
  index: KetRagIndex,
  query: string,
  q: Float32Array,
): Promise<{ ids: string[]; matched: string[] }> {
  const o = index.options;
  const skeleton = index.skeleton!;
  const { graph } = skeleton;
  const matched = o.entityLinking ? queryEntities(skeleton, query) : [];
  // Seed units need title entities (entity linking); without them the search over entities seeds.
  const unitEntities = o.entitySeeds !== 'query' && o.entityLinking && index.entry && skeleton.unitEntities;
  const fromUnits = unitEntities
    ? unitTitleSeeds({
        units: (await searchSubChunks(index, query, q, o.seedUnits)).map((hit) => index.subChunks[hit.id]!),
        titleEntityOf: skeleton.titleEntityOf,
        unitEntities,
        entities: graph.entities,
        has: (id) => graph.entityIndex.has(id),
      })
    : [];
  const fromQuery: string[] = [];
  if ((o.entitySeeds !== 'units' || !unitEntities) && graph.entities.length > 0) {
    const hits = await searchEntryPointsAsync({
      mode: o.entryPoints,
      query,
      queryVector: q,
      vectors: skeleton.entityVectors,
      ...(skeleton.lexical ? { lexical: skeleton.lexical } : {}),
      k: Math.min(graph.entities.length, o.topKEntities + Math.min(matched.length, o.topKEntities)),
    });
    for (const hit of hits) {
      const id = graph.entities[hit.id]?.id;
      if (id !== undefined) fromQuery.push(id);
    }
  }
  // 'both': the two lists alternate (units first).
  return { ids: mergeAlternating(matched, [fromUnits, fromQuery], o.topKEntities), matched };
}
