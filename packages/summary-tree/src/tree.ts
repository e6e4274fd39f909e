import {
  type Chunk,
  InvalidArgumentError,
  type ProgressReporter,
  type SourceLocation,
  type TaskSuite,
  throwIfAborted,
} from '@grag/core';

/** A leaf of a summary tree: one chunk, in document order. */
export interface SummaryTreeLeaf {
  /** Unique id (the chunk id). */
  id: string;
  /** What the leaf holds: it is summarized, embedded and shown. */
  text: string;
  /** Document of the leaf; consecutive leaves of one document can continue each other. */
  docId?: string;
  /** Where in its source file the leaf's chunk lies (the chunk's `location`), for citations. */
  location?: SourceLocation;
  /**
   * Leading characters of `text` that repeat the end of the previous leaf's text (the chunker's
   * overlap). A value > 0 marks the leaf as the continuation of the previous one: when both are
   * summarized together, they are joined into one passage with these characters dropped.
   * @default 0
   */
  overlapChars?: number;
}

/** A node of a {@link SummaryTree}: a leaf (level 0) or a summary of consecutive nodes of the level below. */
export interface SummaryTreeNode {
  /** Leaf id, or the summary id (`summary:<level>:<i>` by default). */
  id: string;
  /** 0 for leaves, 1 for summaries of leaves, 2 for summaries of summaries, ... */
  level: number;
  text: string;
  /** Node indexes of the children (consecutive nodes of the level below); empty for a leaf. */
  children: number[];
  /** Node index of the parent; -1 for a node of the top level. */
  parent: number;
  /** Node index of the first leaf the node covers (a leaf covers itself). */
  firstLeaf: number;
  /** Node index of the last leaf the node covers, inclusive. */
  lastLeaf: number;
  /** Leaves only: their document, as given. */
  docId?: string;
  /** Leaves only: their source-file location, as given. */
  location?: SourceLocation;
  /** Leaves only: as given in {@link SummaryTreeLeaf.overlapChars}. */
  overlapChars?: number;
}

/**
 * A summary tree as plain, JSON-serializable data. `nodes` holds the leaves first (node index =
 * leaf position), then each level in order; a node's index is also its vector id in
 * {@link embedSummaryTree}'s index.
 */
export interface SummaryTree {
  /** Layout version of this data. */
  formatVersion: 1;
  /** Nodes summarized per call (g). */
  groupSize: number;
  /** The recursion stopped at the first level with at most `stopRatio · groupSize` nodes. */
  stopRatio: number;
  nodes: SummaryTreeNode[];
  /** Node indexes of each level; `levels[0]` are the leaves, the last entry is the top level. */
  levels: number[][];
}

/** Options of {@link buildSummaryTree}. */
export interface SummaryTreeOptions {
  /** Nodes summarized per call (g). @default 5 (E2GraphRAG §4.4; official code `merge_num: 5`) */
  groupSize: number;
  /**
   * The leaves are always summarized once; further levels are built while the last one has more than
   * `stopRatio · groupSize` nodes, so up to that many top nodes remain.
   * @default 1.2 (official code; the paper says "until only g or fewer segments remain", §3.1)
   */
  stopRatio: number;
  /** Summaries of one level in flight at once (the default runner's; see `runLevel`). @default 4 */
  concurrency: number;
  /** Length asked of each summary, in tokens (passed to `summarize` as `maxTokens`). @default 200 */
  summaryMaxTokens: number;
  /** Id of the `index`-th summary of `level` (from 1). @default `summary:${level}:${index}` */
  summaryId: (level: number, index: number) => string;
  signal?: AbortSignal;
  /** Reports `{ stage: 'summarize', done, total, unit: 'calls' }` after each summary it asks for. */
  onProgress?: ProgressReporter;
  /**
   * Runs the summaries of each level, in place of the default runner (at most `concurrency` in
   * flight, abort checked before each). Route the calls through your own scheduler with it, or
   * return texts kept from an earlier run of the same build without asking again.
   * @default none: the default runner
   */
  runLevel?: SummaryLevelRunner;
}

/** One summary of a level, before it is made: the consecutive nodes of the level below it covers. */
export interface SummaryGroup {
  /** Level of the summary: 1 for a summary of leaves. */
  level: number;
  /** Position of the summary in its level, from 0. */
  index: number;
  /** Id the summary node gets. */
  id: string;
  /** Node indexes of the nodes it summarizes (consecutive nodes of the level below). */
  children: readonly number[];
  /** Node index of the first leaf it covers (= the leaf's position). */
  firstLeaf: number;
  /** Node index of the last leaf it covers, inclusive. */
  lastLeaf: number;
}

/**
 * Makes the summaries of one level: calls `summarize` once per group — in any order, with any
 * concurrency — and resolves to their texts in group order. `summarize` asks the summarizer (a
 * group whose texts are all blank resolves to `''` without a call). A runner may also resolve to
 * texts that an earlier run of the same build got from `summarize` for the same groups, without
 * calling it: the tree is then the same.
 */
export type SummaryLevelRunner = (
  groups: readonly SummaryGroup[],
  summarize: (group: SummaryGroup) => Promise<string>,
) => Promise<readonly string[]>;

/** Defaults of {@link buildSummaryTree}. */
export const SUMMARY_TREE_DEFAULTS: Readonly<Omit<SummaryTreeOptions, 'signal' | 'onProgress' | 'runLevel'>> =
  {
    groupSize: 5,
    stopRatio: 1.2,
    concurrency: 4,
    summaryMaxTokens: 200,
    summaryId: (level: number, index: number) => `summary:${level}:${index}`,
  };

/** What builds a summary: the core `summarize` task (a prompt on a chat model, or the offline extractive one). */
export type Summarizer = Pick<TaskSuite, 'summarize'>;

function resolveOptions(options: Partial<SummaryTreeOptions>, caller: string): SummaryTreeOptions {
  const o: SummaryTreeOptions = { ...SUMMARY_TREE_DEFAULTS, ...options };
  if (!Number.isInteger(o.groupSize) || o.groupSize < 2) {
    throw new InvalidArgumentError(
      'groupSize',
      `${caller}: groupSize must be an integer >= 2 (nodes per summary), got ${String(o.groupSize)}.`,
    );
  }
  if (!(o.stopRatio > 0) || o.stopRatio * o.groupSize < 1) {
    throw new InvalidArgumentError(
      'stopRatio',
      `${caller}: stopRatio must be positive with stopRatio · groupSize >= 1, got ${String(o.stopRatio)}.`,
    );
  }
  if (!Number.isInteger(o.concurrency) || o.concurrency < 1) {
    throw new InvalidArgumentError(
      'concurrency',
      `${caller}: concurrency must be a positive integer, got ${String(o.concurrency)}.`,
    );
  }
  if (!(o.summaryMaxTokens > 0)) {
    throw new InvalidArgumentError(
      'summaryMaxTokens',
      `${caller}: summaryMaxTokens must be a positive number, got ${String(o.summaryMaxTokens)}.`,
    );
  }
  return o;
}

/**
 * Number of nodes of each level of the tree over `leafCount` leaves: `[leafCount, ⌈leafCount/g⌉, ...]`.
 * The shape depends on the leaf count only, so the number of summarization calls is known before
 * building: the sum of every entry but the first (≈ n/(g−1), E2GraphRAG §4.4).
 */
export function summaryTreeShape(
  leafCount: number,
  options: Partial<Pick<SummaryTreeOptions, 'groupSize' | 'stopRatio'>> = {},
): number[] {
  const { groupSize, stopRatio } = resolveOptions(options, 'summaryTreeShape');
  if (!Number.isInteger(leafCount) || leafCount < 1) {
    throw new InvalidArgumentError(
      'leafCount',
      `summaryTreeShape: leafCount must be a positive integer, got ${String(leafCount)}.`,
    );
  }
  const sizes = [leafCount];
  let size = leafCount;
  do {
    size = Math.ceil(size / groupSize);
    sizes.push(size);
  } while (size > stopRatio * groupSize);
  return sizes;
}

/**
 * Leaves from chunks in document order. A chunk that follows the previous chunk of its document
 * (`order + 1`) and starts before that chunk ends gets `overlapChars = prev.end − chunk.start`.
 * With `titles`, the first chunk of each document (order 0) is written as `title + '\n' + text`.
 * Each leaf keeps its chunk's `location`, when it has one.
 */
export function leavesFromChunks(
  chunks: readonly Chunk[],
  options: { titles?: ReadonlyMap<string, string | undefined> } = {},
): SummaryTreeLeaf[] {
  const leaves: SummaryTreeLeaf[] = [];
  let previous: Chunk | undefined;
  for (const chunk of chunks) {
    const leaf: SummaryTreeLeaf = { id: chunk.id, text: chunk.text, docId: chunk.docId };
    if (chunk.location) leaf.location = chunk.location;
    const continues =
      previous !== undefined && previous.docId === chunk.docId && chunk.order === previous.order + 1;
    if (continues && chunk.start < previous!.end) {
      leaf.overlapChars = Math.min(chunk.text.length, previous!.end - chunk.start);
    }
    const title = options.titles?.get(chunk.docId)?.trim();
    if (title && chunk.order === 0) leaf.text = `${title}\n${chunk.text}`;
    leaves.push(leaf);
    previous = chunk;
  }
  return leaves;
}

/**
 * Join consecutive leaves into passages: a leaf with `overlapChars > 0` that follows a leaf of the
 * same document continues its passage with the repeated characters dropped; any other leaf starts a
 * new passage. The first leaf is always kept whole.
 */
export function joinLeafTexts(
  leaves: readonly Pick<SummaryTreeLeaf, 'text' | 'docId' | 'overlapChars'>[],
): string[] {
  const passages: string[] = [];
  let previous: Pick<SummaryTreeLeaf, 'docId'> | undefined;
  for (const leaf of leaves) {
    const overlap = leaf.overlapChars ?? 0;
    if (previous !== undefined && overlap > 0 && previous.docId === leaf.docId && passages.length > 0) {
      passages[passages.length - 1] += leaf.text.slice(Math.min(overlap, leaf.text.length));
    } else {
      passages.push(leaf.text);
    }
    previous = leaf;
  }
  return passages;
}

/** The default level runner: `fn` over `items`, at most `limit` in flight; results keep the input order. */
async function mapLimit<T, R>(
  items: readonly T[],
  limit: number,
  fn: (item: T, index: number) => Promise<R>,
): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const i = next++;
      results[i] = await fn(items[i]!, i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}

/**
 * Build a summary tree over `leaves` in document order (E2GraphRAG §3.1): summarize every
 * consecutive group of `groupSize` leaves — overlap between consecutive chunks dropped — then every
 * group of `groupSize` summaries, and so on. The leaves are always summarized once; further levels
 * are built while a level has more than `stopRatio · groupSize` nodes (official code), so several
 * top nodes may remain. Summaries of one level run concurrently (at most `concurrency` at once, or
 * as `runLevel` schedules them); the result does not depend on the order in which they finish.
 *
 * Each summary of leaves is asked with `purpose: 'chunks'`, each higher one with `purpose:
 * 'summaries'` and the children's texts (never their ids). A group whose texts are all blank gets a
 * blank summary without a call.
 *
 * @throws InvalidArgumentError for no leaves, duplicate or colliding ids, bad options, or a
 * `runLevel` that resolves to anything but one string per group.
 */
export async function buildSummaryTree(
  leaves: readonly SummaryTreeLeaf[],
  summarizer: Summarizer,
  options: Partial<SummaryTreeOptions> = {},
): Promise<SummaryTree> {
  const caller = 'buildSummaryTree';
  const o = resolveOptions(options, caller);
  if (leaves.length === 0) {
    throw new InvalidArgumentError('leaves', `${caller}: no leaves; pass at least one chunk.`);
  }
  const ids = new Set<string>();
  const nodes: SummaryTreeNode[] = leaves.map((leaf, i) => {
    if (typeof leaf.id !== 'string' || typeof leaf.text !== 'string') {
      throw new InvalidArgumentError('leaves', `${caller}: leaf ${i} needs a string id and a string text.`);
    }
    if (ids.has(leaf.id)) {
      throw new InvalidArgumentError('leaves', `${caller}: duplicate leaf id ${JSON.stringify(leaf.id)}.`);
    }
    ids.add(leaf.id);
    const node: SummaryTreeNode = {
      id: leaf.id,
      level: 0,
      text: leaf.text,
      children: [],
      parent: -1,
      firstLeaf: i,
      lastLeaf: i,
    };
    if (leaf.docId !== undefined) node.docId = leaf.docId;
    if (leaf.location !== undefined) node.location = leaf.location;
    if (leaf.overlapChars !== undefined && leaf.overlapChars > 0) node.overlapChars = leaf.overlapChars;
    return node;
  });
  const shape = summaryTreeShape(leaves.length, o);
  const total = shape.slice(1).reduce((a, b) => a + b, 0);
  const levels: number[][] = [nodes.map((_, i) => i)];
  let done = 0;
  const summarize = async (group: SummaryGroup): Promise<string> => {
    throwIfAborted(o.signal);
    const children = group.children.map((n) => nodes[n]!);
    const inputs = (group.level === 1 ? joinLeafTexts(children) : children.map((c) => c.text)).filter(
      (t) => t.trim() !== '',
    );
    const text =
      inputs.length === 0
        ? ''
        : await summarizer.summarize(inputs, {
            maxTokens: o.summaryMaxTokens,
            purpose: group.level === 1 ? 'chunks' : 'summaries',
            ...(o.signal ? { abortSignal: o.signal } : {}),
          });
    done++;
    o.onProgress?.({ stage: 'summarize', done, total, unit: 'calls' });
    return text;
  };
  const runLevel: SummaryLevelRunner =
    o.runLevel ??
    ((groups, fn) =>
      mapLimit(groups, o.concurrency, (group) => {
        throwIfAborted(o.signal);
        return fn(group);
      }));
  for (let level = 1; level < shape.length; level++) {
    throwIfAborted(o.signal);
    const below = levels[level - 1]!;
    const groups: SummaryGroup[] = [];
    for (let i = 0; i < below.length; i += o.groupSize) {
      const children = below.slice(i, i + o.groupSize);
      const index = groups.length;
      const id = o.summaryId(level, index);
      if (ids.has(id)) {
        throw new InvalidArgumentError(
          'summaryId',
          `${caller}: summary id ${JSON.stringify(id)} is already a node id; pass a summaryId that cannot collide with leaf ids.`,
        );
      }
      ids.add(id);
      groups.push({
        level,
        index,
        id,
        children,
        firstLeaf: nodes[children[0]!]!.firstLeaf,
        lastLeaf: nodes[children[children.length - 1]!]!.lastLeaf,
      });
    }
    const texts = await runLevel(groups, summarize);
    if (
      !Array.isArray(texts) ||
      texts.length !== groups.length ||
      !texts.every((t) => typeof t === 'string')
    ) {
      throw new InvalidArgumentError(
        'runLevel',
        `${caller}: runLevel must resolve to one string per group (${groups.length} at level ${level}); return the texts summarize gave, in group order.`,
      );
    }
    const indexes: number[] = [];
    for (const group of groups) {
      const index = nodes.length;
      for (const child of group.children) nodes[child]!.parent = index;
      nodes.push({
        id: group.id,
        level,
        text: texts[group.index]!,
        children: [...group.children],
        parent: -1,
        firstLeaf: group.firstLeaf,
        lastLeaf: group.lastLeaf,
      });
      indexes.push(index);
    }
    levels.push(indexes);
  }
  return { formatVersion: 1, groupSize: o.groupSize, stopRatio: o.stopRatio, nodes, levels };
}

/** Number of summaries (non-leaf nodes) of a tree: the summarization calls it took. */
export function summaryCount(tree: SummaryTree): number {
  return tree.nodes.length - (tree.levels[0]?.length ?? 0);
}

/** Node indexes of the leaves `node` covers, in document order. */
export function coveredLeaves(tree: SummaryTree, node: number): number[] {
  const n = tree.nodes[node];
  if (!n) throw new InvalidArgumentError('node', `coveredLeaves: no node ${node} in the tree.`);
  const out: number[] = [];
  for (let i = n.firstLeaf; i <= n.lastLeaf; i++) out.push(i);
  return out;
}
