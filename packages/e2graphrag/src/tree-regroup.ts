/**
 * A summary tree regrouped from scratch after a change (an update with `full`): every leaf of the
 * changed corpus is grouped exactly as a build groups it, and each summary is asked exactly as a
 * build asks it, except that a request the old tree already answered (same purpose, same input
 * texts) takes the old summary's text without a call. So the tree is the one a fresh build makes.
 */
import { InvalidArgumentError } from '@grag/core';
import {
  buildSummaryTree,
  joinLeafTexts,
  type SummaryGroup,
  type SummaryLevelRunner,
  type SummaryTree,
  type SummaryTreeLeaf,
} from '@grag/summary-tree';
import type { SummaryTreeChange, UpdatedSummaryTree } from './tree-update.js';

/** What a build sends to `summarize` for a group: its purpose and its non-blank input texts. */
function request(
  level: number,
  children: readonly Pick<SummaryTreeLeaf, 'text' | 'docId' | 'overlapChars'>[],
) {
  const texts = level === 1 ? joinLeafTexts(children) : children.map((c) => c.text);
  const inputs = texts.filter((t) => t.trim() !== '');
  return { inputs, key: JSON.stringify([level === 1 ? 'chunks' : 'summaries', inputs]) };
}

/** Old summary node per request it answered (the first node, when several answered the same one). */
function answeredRequests(tree: SummaryTree): Map<string, number> {
  const answered = new Map<string, number>();
  tree.nodes.forEach((node, i) => {
    if (node.level === 0) return;
    const { inputs, key } = request(
      node.level,
      node.children.map((c) => tree.nodes[c]!),
    );
    if (inputs.length > 0 && !answered.has(key)) answered.set(key, i);
  });
  return answered;
}

/** The kept leaves of `tree` (with their old node index), then the added ones (index -1). */
function changedLeaves(
  tree: SummaryTree,
  change: SummaryTreeChange,
): { leaf: SummaryTreeLeaf; old: number }[] {
  const kept = tree.levels[0]!.filter((i) => change.keep(i)).map((i) => {
    const n = tree.nodes[i]!;
    const leaf: SummaryTreeLeaf = { id: n.id, text: n.text };
    if (n.docId !== undefined) leaf.docId = n.docId;
    if (n.location !== undefined) leaf.location = n.location;
    if (n.overlapChars !== undefined) leaf.overlapChars = n.overlapChars;
    return { leaf, old: i };
  });
  return [...kept, ...change.added.map((leaf) => ({ leaf, old: -1 }))];
}

/**
 * Regroup the leaves `tree` keeps plus the added ones into a new tree, as `buildSummaryTree` does
 * with the tree's `groupSize` and `stopRatio` (see the module comment). Only the groups whose
 * request the old tree did not answer go to `change.runLevel`; `summarized` counts those that
 * cost a call. `origin` gives, per new node, the old node it reuses (a kept leaf or an answered
 * summary) or -1.
 *
 * @throws InvalidArgumentError when no leaf remains.
 */
export async function regroupSummaryTree(
  tree: SummaryTree,
  change: SummaryTreeChange,
): Promise<UpdatedSummaryTree> {
  const leaves = changedLeaves(tree, change);
  if (leaves.length === 0) {
    throw new InvalidArgumentError(
      'change',
      'e2graphrag update: every remaining document is blank, so no chunk would remain; keep or add a document with text.',
    );
  }
  const answered = answeredRequests(tree);
  // Node texts of the tree being built, in its node order (leaves first, then each level in
  // group order), so that a group's children (node indexes) name their texts.
  const texts = leaves.map((l) => l.leaf.text);
  const origin = leaves.map((l) => l.old);
  let summarized = 0;
  const runLevel: SummaryLevelRunner = async (groups, summarize) => {
    const out = new Array<string>(groups.length);
    const reused = new Array<number>(groups.length).fill(-1);
    const ask: SummaryGroup[] = [];
    groups.forEach((group, k) => {
      const children = group.children.map((c) => (group.level === 1 ? leaves[c]!.leaf : { text: texts[c]! }));
      const { inputs, key } = request(group.level, children);
      const old = answered.get(key);
      if (old === undefined) {
        ask.push(group);
        if (inputs.length > 0) summarized++;
      } else {
        out[k] = tree.nodes[old]!.text;
        reused[k] = old;
      }
    });
    const asked = ask.length > 0 ? await change.runLevel(ask, summarize) : [];
    let next = 0;
    for (let k = 0; k < groups.length; k++) if (reused[k]! < 0) out[k] = asked[next++]!;
    texts.push(...out);
    origin.push(...reused);
    return out;
  };
  const regrouped = await buildSummaryTree(
    leaves.map((l) => l.leaf),
    change.summarizer,
    {
      groupSize: tree.groupSize,
      stopRatio: tree.stopRatio,
      summaryMaxTokens: change.summaryMaxTokens,
      runLevel,
      ...(change.signal ? { signal: change.signal } : {}),
    },
  );
  const oldSummaries = tree.nodes.length - tree.levels[0]!.length;
  const reusedSummaries = new Set(origin.filter((o, i) => o >= 0 && regrouped.nodes[i]!.level > 0));
  return {
    tree: regrouped,
    origin,
    summarized,
    droppedSummaries: oldSummaries - reusedSummaries.size,
  };
}
