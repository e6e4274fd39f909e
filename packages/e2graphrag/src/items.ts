/**
 * E2GraphRAG's retrieved items (§3.2 evidence formatting): chunks under the label of the query
 * entities that reached them ("entity1-entity2: chunk"), tree nodes of global mode, each with the
 * chunks and documents it comes from.
 */
import type { RetrievedItem } from '@grag/core';
import { provenanceOf } from '@grag/core/kit';
import { joinLeafTexts, type SummaryTree } from '@grag/summary-tree';
import type { AdaptiveRetrievalResult } from './adaptive.js';

/** Items, and the entity label of the chunk items Algorithm 1 reached (by item id). */
export interface LabelledItems {
  items: RetrievedItem[];
  labels: Map<string, string>;
}

/** The chunks, documents and source-file locations of `leaves`. */
export function provenance(tree: SummaryTree, leaves: readonly number[]): RetrievedItem['source'] {
  return provenanceOf(
    leaves.map((l) => {
      const n = tree.nodes[l]!;
      return { id: n.id, docId: n.docId ?? n.id, location: n.location };
    }),
  );
}

/** The leaves a tree node covers. */
function coveredLeaves(tree: SummaryTree, node: number): number[] {
  const n = tree.nodes[node]!;
  const leaves: number[] = [];
  for (let l = n.firstLeaf; l <= n.lastLeaf; l++) leaves.push(l);
  return leaves;
}

/** Consecutive leaves of one document in `leaves` (ascending), as runs. */
export function runsOf(tree: SummaryTree, leaves: readonly number[]): number[][] {
  const runs: number[][] = [];
  for (const leaf of leaves) {
    const run = runs[runs.length - 1];
    const last = run?.[run.length - 1];
    if (run && last === leaf - 1 && tree.nodes[last]!.docId === tree.nodes[leaf]!.docId) run.push(leaf);
    else runs.push([leaf]);
  }
  return runs;
}

/**
 * grag's ranked items: one chunk item per leaf of `ranking` (score 1/rank; no run merging, the
 * order is the rank), then global mode's summaries. The chunks Algorithm 1 reached keep their
 * "entity1-entity2" label (§3.2).
 */
export function rankedItems(
  tree: SummaryTree,
  result: Pick<AdaptiveRetrievalResult, 'groups' | 'nodes'>,
  ranking: readonly number[],
): LabelledItems {
  const items: RetrievedItem[] = ranking.map((leaf, rank) => {
    const n = tree.nodes[leaf]!;
    return { id: n.id, kind: 'chunk', text: n.text, score: 1 / (rank + 1), source: provenance(tree, [leaf]) };
  });
  const labels = new Map<string, string>();
  for (const group of result.groups) {
    for (const leaf of group.leaves) labels.set(tree.nodes[leaf]!.id, group.entities.join('-'));
  }
  for (const { node, score } of result.nodes) {
    const n = tree.nodes[node]!;
    if (n.level === 0) continue;
    items.push({
      id: n.id,
      kind: 'summary',
      text: n.text,
      score,
      source: provenance(tree, coveredLeaves(tree, node)),
    });
  }
  return { items, labels };
}

/**
 * The paper's items: in local mode, each group's runs of consecutive chunks merged into one item
 * (overlap removed) under the group's entity label, scored by the group's entity count; in global
 * mode, the tree nodes in rank order.
 */
export function paperItems(
  tree: SummaryTree,
  result: Pick<AdaptiveRetrievalResult, 'groups' | 'nodes'>,
): LabelledItems {
  const items: RetrievedItem[] = [];
  const labels = new Map<string, string>();
  for (const group of result.groups) {
    const label = group.entities.join('-');
    for (const run of runsOf(tree, group.leaves)) {
      const first = tree.nodes[run[0]!]!;
      const last = tree.nodes[run[run.length - 1]!]!;
      const id = run.length === 1 ? first.id : `${first.id}..${last.id}`;
      const text = joinLeafTexts(run.map((l) => tree.nodes[l]!)).join('\n');
      items.push({ id, kind: 'chunk', text, score: group.entities.length, source: provenance(tree, run) });
      labels.set(id, label);
    }
  }
  for (const { node, score } of result.nodes) {
    const n = tree.nodes[node]!;
    items.push({
      id: n.id,
      kind: n.level === 0 ? 'chunk' : 'summary',
      text: n.text,
      score,
      source: provenance(tree, coveredLeaves(tree, node)),
    });
  }
  return { items, labels };
}

/** How an item is written into the context: `[id] label: text`, or `[id] text` without a label. */
export function renderLabelled(labels: ReadonlyMap<string, string>): (item: RetrievedItem) => string {
  return (item) => {
    const label = labels.get(item.id);
    return label ? `[${item.id}] ${label}: ${item.text}` : `[${item.id}] ${item.text}`;
  };
}
