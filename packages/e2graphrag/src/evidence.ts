/**
 * E2GraphRAG's evidence ranking and formatting (§3.2): entity-aware ranking of the chunks index
 * mapping reached, and their grouping under the query entities whose pairs reached them.
 */
import type { AdaptiveRetrievalIndex, EvidenceGroup } from './adaptive.js';

/**
 * Entity-aware ranking (§3.2): distinct query entities in the chunk (coverage), then (optionally)
 * the length of the run of adjacent candidate chunks it belongs to, then total occurrences of the
 * query entities, then document order.
 */
export function entityAwareRank(
  index: AdaptiveRetrievalIndex,
  candidates: readonly number[],
  ids: readonly number[],
  preferAdjacentRuns = false,
): number[] {
  const { tree, graph } = index;
  const query = new Set(ids);
  const info = new Map<number, { coverage: number; occurrences: number; run: number }>();
  for (const c of candidates) {
    const { entities, counts } = graph.entitiesOf(c);
    let coverage = 0;
    let occurrences = 0;
    for (let i = 0; i < entities.length; i++) {
      if (query.has(entities[i]!)) {
        coverage++;
        occurrences += counts[i]!;
      }
    }
    info.set(c, { coverage, occurrences, run: 1 });
  }
  if (preferAdjacentRuns) {
    const sorted = [...candidates].sort((x, y) => x - y);
    let start = 0;
    for (let i = 1; i <= sorted.length; i++) {
      const prev = sorted[i - 1]!;
      const cur = sorted[i];
      const adjacent =
        cur !== undefined && cur === prev + 1 && tree.nodes[cur]!.docId === tree.nodes[prev]!.docId;
      if (!adjacent) {
        for (let k = start; k < i; k++) info.get(sorted[k]!)!.run = i - start;
        start = i;
      }
    }
  }
  return [...candidates].sort((x, y) => {
    const a = info.get(x)!;
    const b = info.get(y)!;
    return (
      b.coverage - a.coverage ||
      (preferAdjacentRuns ? b.run - a.run : 0) ||
      b.occurrences - a.occurrences ||
      x - y
    );
  });
}

/**
 * Evidence formatting (§3.2): each chunk once, under the set of query entities whose pairs reached
 * it; groups ordered by entity coverage (more entities first), then by their first chunk; chunks
 * of a group in document order.
 */
export function groupEvidence(
  chosen: readonly number[],
  reached: ReadonlyMap<number, ReadonlySet<number>>,
  entities: readonly string[],
): EvidenceGroup[] {
  const groups = new Map<string, { positions: number[]; leaves: number[] }>();
  for (const leaf of [...chosen].sort((x, y) => x - y)) {
    const positions = [...(reached.get(leaf) ?? [])].sort((x, y) => x - y);
    const key = positions.join(',');
    let group = groups.get(key);
    if (!group) {
      group = { positions, leaves: [] };
      groups.set(key, group);
    }
    group.leaves.push(leaf);
  }
  return [...groups.values()]
    .sort((x, y) => y.positions.length - x.positions.length || x.leaves[0]! - y.leaves[0]!)
    .map((g) => ({ entities: g.positions.map((p) => entities[p]!), leaves: g.leaves }));
}
