import {
  checkIndexFile,
  readJson,
  type Schema,
  shapeIssue,
  sourceLocationSchema,
  v,
  validate,
  writeJson,
} from '@grag/core/kit';
import type { SummaryTree, SummaryTreeNode } from './tree.js';

const nodeSchema: Schema<SummaryTreeNode> = v.object({
  id: v.string(),
  level: v.int({ min: 0 }),
  text: v.string(),
  children: v.array(v.int({ min: 0 })),
  parent: v.int({ min: -1 }),
  firstLeaf: v.int({ min: 0 }),
  lastLeaf: v.int({ min: 0 }),
  docId: v.optional(v.string()),
  location: v.optional(sourceLocationSchema),
  overlapChars: v.optional(v.int({ min: 0 })),
});

const treeSchema = v.object({
  formatVersion: v.refine(v.unknown(), (x) =>
    x === 1 ? undefined : `is format version ${String(x)}, expected 1`,
  ),
  groupSize: v.int({ min: 2 }),
  stopRatio: v.number(),
  nodes: v.array(nodeSchema),
  levels: v.array(v.array(v.int({ min: 0 })), { minLength: 1 }),
});

const isIndex = (value: number, size: number): boolean => value >= 0 && value < size;

/** The links between levels: every node in one level, children link back, leaves covered. */
function checkLinks(tree: SummaryTree): void {
  const { nodes, levels } = tree;
  const size = nodes.length;
  const leaves = levels[0]!;
  if (leaves.length === 0) shapeIssue('levels[0]', 'has no leaves');
  const seen = new Set<number>();
  levels.forEach((level, l) => {
    level.forEach((i, p) => {
      if (!isIndex(i, size) || seen.has(i))
        shapeIssue(`levels[${l}][${p}]`, `is a bad or repeated node ${i}`);
      seen.add(i);
      const node = nodes[i]!;
      const at = `nodes[${i}]`;
      if (node.level !== l) shapeIssue(`${at}.level`, `is ${node.level} but the node is in level ${l}`);
      if ((l === 0) !== (node.children.length === 0)) shapeIssue(`${at}.children`, 'do not fit the level');
      for (const c of node.children) {
        if (!isIndex(c, size) || nodes[c]!.level !== l - 1 || nodes[c]!.parent !== i) {
          shapeIssue(`${at}.children`, `hold a child ${c} that does not link back`);
        }
      }
      const topLevel = l === levels.length - 1;
      if (topLevel ? node.parent !== -1 : !isIndex(node.parent, size)) shapeIssue(`${at}.parent`, 'is bad');
      if (!isIndex(node.firstLeaf, leaves.length) || !isIndex(node.lastLeaf, leaves.length)) {
        shapeIssue(at, 'covers bad leaves');
      }
      if (node.firstLeaf > node.lastLeaf) shapeIssue(at, 'covers bad leaves');
      if (l === 0 && i !== p) shapeIssue(`levels[0][${p}]`, `is ${i}, expected ${p}`);
      if (l === 0 && (node.firstLeaf !== i || node.lastLeaf !== i))
        shapeIssue(at, 'is a leaf that covers others');
    });
  });
  if (seen.size !== size) shapeIssue('levels', 'leave some nodes in no level');
}

/**
 * Check that `value` is a {@link SummaryTree} (version, node fields, links between levels) and
 * return it typed.
 *
 * @param where Named in the error (a path, usually).
 * @throws IndexFormatError naming `where` and what is wrong, ending with "rebuild the index.".
 */
export function validateSummaryTree(value: unknown, where = 'summary tree'): SummaryTree {
  const tree = validate(treeSchema, value, where) as SummaryTree;
  checkIndexFile(where, () => checkLinks(tree));
  return tree;
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
  return validateSummaryTree(await readJson(path, v.unknown()), path);
}
