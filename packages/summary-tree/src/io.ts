import { IndexFormatError, readJson, writeJson } from '@grag/core';
import type { SummaryTree, SummaryTreeNode } from './tree.js';

function fail(where: string, reason: string): never {
  throw new IndexFormatError(where, undefined, `${where}: not a summary tree (${reason}); rebuild it.`);
}

const isIndex = (value: unknown, size: number): value is number =>
  Number.isInteger(value) && (value as number) >= 0 && (value as number) < size;

/**
 * Check that `value` is a {@link SummaryTree} (version, node fields, links between levels) and
 * return it typed.
 *
 * @param where Named in the error (a path, usually).
 * @throws IndexFormatError naming what is wrong.
 */
export function validateSummaryTree(value: unknown, where = 'summary tree'): SummaryTree {
  const tree = value as Partial<SummaryTree> | null;
  if (typeof tree !== 'object' || tree === null) fail(where, 'not an object');
  if (tree.formatVersion !== 1) fail(where, `format version ${String(tree.formatVersion)}, expected 1`);
  if (!Number.isInteger(tree.groupSize) || (tree.groupSize as number) < 2) fail(where, 'bad groupSize');
  if (typeof tree.stopRatio !== 'number') fail(where, 'bad stopRatio');
  if (!Array.isArray(tree.nodes) || !Array.isArray(tree.levels) || tree.levels.length < 1) {
    fail(where, 'nodes or levels missing');
  }
  const nodes = tree.nodes as SummaryTreeNode[];
  const size = nodes.length;
  const leaves = tree.levels[0];
  if (!Array.isArray(leaves) || leaves.length === 0) fail(where, 'no leaves');
  const seen = new Set<number>();
  tree.levels.forEach((level, l) => {
    if (!Array.isArray(level)) fail(where, `level ${l} is not an array`);
    for (const i of level) {
      if (!isIndex(i, size) || seen.has(i))
        fail(where, `level ${l} lists a bad or repeated node ${String(i)}`);
      seen.add(i);
      const node = nodes[i]!;
      if (typeof node.id !== 'string' || typeof node.text !== 'string' || node.level !== l) {
        fail(where, `node ${i} has a bad id, text or level`);
      }
      if (!Array.isArray(node.children) || (l === 0) !== (node.children.length === 0)) {
        fail(where, `node ${i} has bad children`);
      }
      for (const c of node.children) {
        if (!isIndex(c, size) || nodes[c]!.level !== l - 1 || nodes[c]!.parent !== i) {
          fail(where, `node ${i} has a child ${String(c)} that does not link back`);
        }
      }
      const topLevel = l === (tree.levels as number[][]).length - 1;
      if (topLevel ? node.parent !== -1 : !isIndex(node.parent, size))
        fail(where, `node ${i} has a bad parent`);
      if (!isIndex(node.firstLeaf, leaves.length) || !isIndex(node.lastLeaf, leaves.length)) {
        fail(where, `node ${i} covers bad leaves`);
      }
    }
  });
  if (seen.size !== size) fail(where, 'some nodes are in no level');
  return tree as SummaryTree;
}

/** Write a summary tree as JSON to `path`. */
export async function saveSummaryTree(tree: SummaryTree, path: string): Promise<void> {
  await writeJson(path, tree);
}

/**
 * Read a summary tree written by {@link saveSummaryTree}.
 * @throws IndexFormatError when the file is missing, not JSON, or not a valid tree.
 */
export async function loadSummaryTree(path: string): Promise<SummaryTree> {
  return validateSummaryTree(await readJson<unknown>(path), path);
}
