/**
 * A summary tree changed along the paths of a change: leaves of removed documents leave their
 * groups, new leaves fill the last group of the level and then form new groups, and only the
 * summaries whose children changed (and their ancestors) are asked for again. Every other summary
 * keeps its text, so it costs no model call and no embedding.
 */
import { InvalidArgumentError, throwIfAborted } from '@grag/core';
import {
  joinLeafTexts,
  SUMMARY_TREE_DEFAULTS,
  type Summarizer,
  type SummaryGroup,
  type SummaryLevelRunner,
  type SummaryTree,
  type SummaryTreeLeaf,
  type SummaryTreeNode,
} from '@grag/summary-tree';

/** What {@link updateSummaryTree} needs besides the tree. */
export interface SummaryTreeChange {
  /** Whether old leaf `i` (its node index) stays. */
  keep: (leaf: number) => boolean;
  /** Leaves appended after the kept ones, in document order. */
  added: readonly SummaryTreeLeaf[];
  summarizer: Summarizer;
  /** Length asked of each summary, in tokens (as the build asked). */
  summaryMaxTokens: number;
  /** Runs the summaries of one level (as `buildSummaryTree`'s `runLevel`). */
  runLevel: SummaryLevelRunner;
  signal?: AbortSignal;
}

/** The changed tree and where each of its nodes came from. */
export interface UpdatedSummaryTree {
  tree: SummaryTree;
  /** Per node of the new tree: the old node it is unchanged from (same text), or -1 when new or re-summarized. */
  origin: number[];
  /** Summaries asked for (re-summarized and new groups). */
  summarized: number;
  /** Summaries dropped because every leaf under them went. */
  droppedSummaries: number;
}

/** A node while the tree is reshaped: its children are positions in the level below. */
interface Draft {
  text: string;
  children: number[];
  /** Old node index, or -1 for a new node. */
  old: number;
  /** Its text must be asked for again. */
  dirty: boolean;
  firstLeaf: number;
  lastLeaf: number;
  leaf?: SummaryTreeLeaf;
}

/** Drafts of every summary level the old tree had, with removed children gone and new ones appended. */
function reshape(tree: SummaryTree, change: SummaryTreeChange, g: number): Draft[][] {
  const leafLevel: Draft[] = [];
  const at = new Map<number, number>();
  for (const i of tree.levels[0]!) {
    if (!change.keep(i)) continue;
    const n = tree.nodes[i]!;
    at.set(i, leafLevel.length);
    const leaf: SummaryTreeLeaf = { id: n.id, text: n.text };
    if (n.docId !== undefined) leaf.docId = n.docId;
    if (n.location !== undefined) leaf.location = n.location;
    if (n.overlapChars !== undefined) leaf.overlapChars = n.overlapChars;
    leafLevel.push({ text: n.text, children: [], old: i, dirty: false, firstLeaf: 0, lastLeaf: 0, leaf });
  }
  for (const leaf of change.added) {
    leafLevel.push({ text: leaf.text, children: [], old: -1, dirty: true, firstLeaf: 0, lastLeaf: 0, leaf });
  }
  const levels: Draft[][] = [leafLevel];
  for (let l = 1; l < tree.levels.length; l++) {
    const below = levels[l - 1]!;
    const level: Draft[] = [];
    const next = new Map<number, number>();
    const covered = new Set<number>();
    for (const i of tree.levels[l]!) {
      const node = tree.nodes[i]!;
      const children = node.children.flatMap((c) => (at.has(c) ? [at.get(c)!] : []));
      if (children.length === 0) continue;
      for (const c of children) covered.add(c);
      const dirty = children.length < node.children.length || children.some((c) => below[c]!.dirty);
      next.set(i, level.length);
      level.push({ text: node.text, children, old: i, dirty, firstLeaf: 0, lastLeaf: 0 });
    }
    // Nodes of the level below that no old summary holds are new: they come last, in order.
    const orphans = below.map((_, i) => i).filter((i) => !covered.has(i));
    appendGroups(level, orphans, g);
    at.clear();
    for (const [k, val] of next) at.set(k, val);
    levels.push(level);
  }
  return levels;
}

/** Put `orphans` into the last group while it has room, then into new groups of `g`. */
function appendGroups(level: Draft[], orphans: readonly number[], g: number): void {
  let rest = [...orphans];
  const last = level[level.length - 1];
  if (last && last.children.length < g && rest.length > 0) {
    const room = g - last.children.length;
    last.children.push(...rest.slice(0, room));
    last.dirty = true;
    rest = rest.slice(room);
  }
  for (let i = 0; i < rest.length; i += g) {
    level.push({ text: '', children: rest.slice(i, i + g), old: -1, dirty: true, firstLeaf: 0, lastLeaf: 0 });
  }
}

/**
 * Change `tree` along the paths of a change (see the module comment). Levels are added on top
 * while the top level has more than `stopRatio · groupSize` nodes, and dropped from the top while
 * the level below it has no more (as a build stops); the leaves are always summarized once. A
 * summary is asked for exactly as `buildSummaryTree` asks (same inputs, purpose and length).
 *
 * @throws InvalidArgumentError when no leaf remains.
 */
export async function updateSummaryTree(
  tree: SummaryTree,
  change: SummaryTreeChange,
): Promise<UpdatedSummaryTree> {
  const g = tree.groupSize;
  const stopAt = tree.stopRatio * g;
  const levels = reshape(tree, change, g);
  if (levels[0]!.length === 0) {
    throw new InvalidArgumentError(
      'change',
      'e2graphrag update: every remaining document is blank, so no chunk would remain; keep or add a document with text.',
    );
  }
  while (levels.length > 2 && levels[levels.length - 2]!.length <= stopAt) levels.pop();
  while (levels.length < 2 || levels[levels.length - 1]!.length > stopAt) {
    const top = levels[levels.length - 1]!;
    const level: Draft[] = [];
    appendGroups(
      level,
      top.map((_, i) => i),
      g,
    );
    levels.push(level);
  }
  const oldSummaries = tree.nodes.length - tree.levels[0]!.length;
  let kept = 0;
  let summarized = 0;
  levels[0]!.forEach((d, i) => {
    d.firstLeaf = i;
    d.lastLeaf = i;
  });
  for (let l = 1; l < levels.length; l++) {
    throwIfAborted(change.signal);
    const below = levels[l - 1]!;
    const level = levels[l]!;
    for (const d of level) {
      d.firstLeaf = below[d.children[0]!]!.firstLeaf;
      d.lastLeaf = below[d.children[d.children.length - 1]!]!.lastLeaf;
      if (d.old >= 0 && !d.dirty) kept++;
    }
    const dirty = level.flatMap((d, index) => (d.dirty ? [index] : []));
    const groups: SummaryGroup[] = dirty.map((index) => ({
      level: l,
      index,
      id: SUMMARY_TREE_DEFAULTS.summaryId(l, index),
      children: level[index]!.children,
      firstLeaf: level[index]!.firstLeaf,
      lastLeaf: level[index]!.lastLeaf,
    }));
    const summarize = async (group: SummaryGroup): Promise<string> => {
      throwIfAborted(change.signal);
      const children = group.children.map((c) => below[c]!);
      const texts =
        group.level === 1 ? joinLeafTexts(children.map((c) => c.leaf!)) : children.map((c) => c.text);
      const inputs = texts.filter((t) => t.trim() !== '');
      if (inputs.length === 0) return '';
      return change.summarizer.summarize(inputs, {
        maxTokens: change.summaryMaxTokens,
        purpose: group.level === 1 ? 'chunks' : 'summaries',
        ...(change.signal ? { abortSignal: change.signal } : {}),
      });
    };
    const texts = groups.length > 0 ? await change.runLevel(groups, summarize) : [];
    dirty.forEach((index, k) => {
      level[index]!.text = texts[k]!;
    });
    summarized += groups.length;
  }
  return {
    ...assemble(tree, levels),
    summarized,
    droppedSummaries: oldSummaries - kept - countReshaped(levels),
  };
}

/** Old summaries still in the tree but re-summarized (they count neither as kept nor as dropped). */
function countReshaped(levels: Draft[][]): number {
  return levels.slice(1).reduce((n, level) => n + level.filter((d) => d.old >= 0 && d.dirty).length, 0);
}

/** The tree of the drafts: leaves first, then each level; summary ids by position. */
function assemble(tree: SummaryTree, levels: Draft[][]): { tree: SummaryTree; origin: number[] } {
  const nodes: SummaryTreeNode[] = [];
  const origin: number[] = [];
  const indexes: number[][] = [];
  levels.forEach((level, l) => {
    const base = nodes.length;
    const belowBase = l === 0 ? 0 : indexes[l - 1]![0]!;
    indexes.push(level.map((_, i) => base + i));
    level.forEach((d, i) => {
      const node: SummaryTreeNode = {
        id: l === 0 ? d.leaf!.id : SUMMARY_TREE_DEFAULTS.summaryId(l, i),
        level: l,
        text: d.text,
        children: d.children.map((c) => belowBase + c),
        parent: -1,
        firstLeaf: d.firstLeaf,
        lastLeaf: d.lastLeaf,
      };
      if (l === 0 && d.leaf!.docId !== undefined) node.docId = d.leaf!.docId;
      if (l === 0 && d.leaf!.location !== undefined) node.location = d.leaf!.location;
      if (l === 0 && (d.leaf!.overlapChars ?? 0) > 0) node.overlapChars = d.leaf!.overlapChars!;
      for (const c of node.children) nodes[c]!.parent = base + i;
      nodes.push(node);
      origin.push(d.old >= 0 && !d.dirty ? d.old : -1);
    });
  });
  return {
    tree: { formatVersion: 1, groupSize: tree.groupSize, stopRatio: tree.stopRatio, nodes, levels: indexes },
    origin,
  };
}
