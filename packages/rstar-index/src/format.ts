/**
 * The binary format of `RStarTree.save()` / `RStarTree.load()`: a 64-byte header, then the typed
 * arrays (entry boxes, a liveness byte per id, node MBRs, levels, fills and children), each 8-byte
 * aligned, nodes renumbered breadth-first. Platform byte order (little-endian on every current
 * JavaScript engine). Header (little-endian):
 *
 * | bytes | field |
 * | --- | --- |
 * | 0–3 | magic `RST*` |
 * | 4 | format version (1) |
 * | 5 | bytes per coordinate (8 or 4) |
 * | 6, 7 | `clusterOn`, `bulkLoad` codes |
 * | 8–31 | dimensions, labelDimensions, nodeCapacity, entries, nodes, live entries (uint32) |
 * | 32–47 | minFill, reinsertFraction (float64) |
 * | 48–51 | height (uint32) |
 */
import { IndexFormatError } from '@grag/core';
import type { RStarTreeOptions } from './options.js';
import { REMOVED, type TreeStore } from './store.js';
import { BULK_CODES, CLUSTER_CODES } from './validate.js';

const FORMAT_MAGIC = 0x2a545352; // 'RST*' little-endian
const FORMAT_VERSION = 1;
const HEADER_BYTES = 64;

function align8(n: number): number {
  return (n + 7) & ~7;
}

/** Byte offsets of the arrays after the header, and the total size. */
interface Layout {
  entryBoxes: number;
  entryAlive: number;
  nodeBoxes: number;
  nodeLevel: number;
  nodeSize: number;
  nodeChildren: number;
  total: number;
}

function layout(entries: number, nodes: number, stride: number, slots: number, bpe: number): Layout {
  const entryBoxes = HEADER_BYTES;
  const entryAlive = align8(entryBoxes + entries * stride * bpe);
  const nodeBoxes = align8(entryAlive + entries);
  const nodeLevel = align8(nodeBoxes + nodes * stride * bpe);
  const nodeSize = align8(nodeLevel + nodes * 4);
  const nodeChildren = align8(nodeSize + nodes * 4);
  const total = align8(nodeChildren + nodes * slots * 4);
  return { entryBoxes, entryAlive, nodeBoxes, nodeLevel, nodeSize, nodeChildren, total };
}

/** The live nodes breadth-first from the root (which becomes 0), and each node's new id. */
function breadthFirst(t: TreeStore): { order: number[]; newId: Int32Array } {
  const order: number[] = [t.root];
  const newId = new Int32Array(t.nodeTop).fill(-1);
  newId[t.root] = 0;
  for (let i = 0; i < order.length; i++) {
    const n = order[i]!;
    if (t.nodeLevel[n] === 0) continue;
    const base = n * t.slots;
    for (let c = 0; c < t.nodeSize[n]!; c++) {
      const child = t.nodeChildren[base + c]!;
      newId[child] = order.length;
      order.push(child);
    }
  }
  return { order, newId };
}

function writeHeader(t: TreeStore, view: DataView, entries: number, nodes: number): void {
  view.setUint32(0, FORMAT_MAGIC, true);
  view.setUint8(4, FORMAT_VERSION);
  view.setUint8(5, t.ArrayType.BYTES_PER_ELEMENT);
  view.setUint8(6, CLUSTER_CODES.indexOf(t.clusterOn));
  view.setUint8(7, BULK_CODES.indexOf(t.bulkLoad));
  view.setUint32(8, t.dimensions, true);
  view.setUint32(12, t.labelDimensions, true);
  view.setUint32(16, t.nodeCapacity, true);
  view.setUint32(20, entries, true);
  view.setUint32(24, nodes, true);
  view.setUint32(28, t.alive, true);
  view.setFloat64(32, t.minFill, true);
  view.setFloat64(40, t.reinsertFraction, true);
  view.setUint32(48, t.height, true);
}

/** Serialize a finished tree into one buffer. */
export function saveTree(t: TreeStore): Uint8Array {
  const { order, newId } = breadthFirst(t);
  const nodes = order.length;
  const entries = t.entryCount;
  const bpe = t.ArrayType.BYTES_PER_ELEMENT;
  const s = t.stride;
  const at = layout(entries, nodes, s, t.slots, bpe);
  const bytes = new Uint8Array(at.total);
  writeHeader(t, new DataView(bytes.buffer), entries, nodes);

  new t.ArrayType(bytes.buffer, at.entryBoxes, entries * s).set(t.entryBoxes.subarray(0, entries * s));
  const aliveBytes = new Uint8Array(bytes.buffer, at.entryAlive, entries);
  for (let i = 0; i < entries; i++) aliveBytes[i] = t.entryLeaf[i] === REMOVED ? 0 : 1;
  const nodeBoxes = new t.ArrayType(bytes.buffer, at.nodeBoxes, nodes * s);
  const levels = new Int32Array(bytes.buffer, at.nodeLevel, nodes);
  const sizes = new Int32Array(bytes.buffer, at.nodeSize, nodes);
  const children = new Int32Array(bytes.buffer, at.nodeChildren, nodes * t.slots);
  for (let i = 0; i < nodes; i++) {
    const n = order[i]!;
    nodeBoxes.set(t.nodeBoxes.subarray(n * s, n * s + s), i * s);
    levels[i] = t.nodeLevel[n]!;
    const count = t.nodeSize[n]!;
    sizes[i] = count;
    const base = n * t.slots;
    for (let c = 0; c < count; c++) {
      const child = t.nodeChildren[base + c]!;
      children[i * t.slots + c] = levels[i] === 0 ? child : newId[child]!;
    }
  }
  return bytes;
}

/** Throws the `IndexFormatError` of a damaged or foreign buffer. */
type Fail = (message: string, version?: number) => never;

/** Check the header and read the tree's options from it. */
function readHeader(
  view: DataView,
  byteLength: number,
  fail: Fail,
): { options: RStarTreeOptions; version: number } {
  if (byteLength < HEADER_BYTES)
    fail(`the buffer has ${byteLength} bytes, fewer than a header; pass the bytes of save().`);
  if (view.getUint32(0, true) !== FORMAT_MAGIC) fail('not an RStarTree buffer (bad magic bytes).');
  const version = view.getUint8(4);
  if (version !== FORMAT_VERSION)
    fail(`format version ${version} is not supported (this build reads ${FORMAT_VERSION}).`, version);
  const bpe = view.getUint8(5);
  if (bpe !== 8 && bpe !== 4) fail(`unknown coordinate type code ${bpe}.`, version);
  const cluster = CLUSTER_CODES[view.getUint8(6)];
  if (cluster === undefined) fail(`unknown clusterOn code ${view.getUint8(6)}.`, version);
  const bulkLoad = BULK_CODES[view.getUint8(7)];
  if (bulkLoad === undefined) fail(`unknown bulkLoad code ${view.getUint8(7)}.`, version);
  const options: RStarTreeOptions = {
    dimensions: view.getUint32(8, true),
    labelDimensions: view.getUint32(12, true),
    nodeCapacity: view.getUint32(16, true),
    minFill: view.getFloat64(32, true),
    reinsertFraction: view.getFloat64(40, true),
    clusterOn: cluster!,
    bulkLoad: bulkLoad!,
    ArrayType: bpe === 8 ? Float64Array : Float32Array,
  };
  return { options, version };
}

/** Copy the arrays of `copy` into the empty tree `t` and check every node's fill, level and children. */
function readBody(
  t: TreeStore,
  copy: Uint8Array<ArrayBuffer>,
  view: DataView,
  version: number,
  fail: Fail,
): void {
  const entries = view.getUint32(20, true);
  const nodes = view.getUint32(24, true);
  const alive = view.getUint32(28, true);
  const s = t.stride;
  const slots = t.slots;
  const at = layout(entries, nodes, s, slots, t.ArrayType.BYTES_PER_ELEMENT);
  if (copy.byteLength !== at.total)
    fail(`the buffer has ${copy.byteLength} bytes, the header announces ${at.total}.`, version);
  if (nodes < 1) fail('the buffer holds no root node.', version);

  t.ensureEntryCapacity(entries);
  t.entryBoxes.set(new t.ArrayType(copy.buffer, at.entryBoxes, entries * s));
  t.entryCount = entries;
  t.entryLeaf.fill(REMOVED, 0, entries);
  const aliveBytes = new Uint8Array(copy.buffer, at.entryAlive, entries);
  for (let i = 0; i < nodes; i++) t.allocNode(0);
  t.nodeBoxes.set(new t.ArrayType(copy.buffer, at.nodeBoxes, nodes * s));
  t.nodeLevel.set(new Int32Array(copy.buffer, at.nodeLevel, nodes));
  t.nodeSize.set(new Int32Array(copy.buffer, at.nodeSize, nodes));
  t.nodeChildren.set(new Int32Array(copy.buffer, at.nodeChildren, nodes * slots));
  t.nodeParent.fill(-1, 0, nodes);
  let seen = 0;
  for (let n = 0; n < nodes; n++) {
    const count = t.nodeSize[n]!;
    const level = t.nodeLevel[n]!;
    if (count < 0 || count > t.nodeCapacity || level < 0 || level >= 64)
      fail(`node ${n} is damaged (fill ${count}, level ${level}).`, version);
    const base = n * slots;
    for (let c = 0; c < count; c++) {
      const child = t.nodeChildren[base + c]!;
      if (level === 0) {
        if (child < 0 || child >= entries || aliveBytes[child] !== 1 || t.entryLeaf[child] !== REMOVED)
          fail(`leaf ${n} points at a missing or repeated entry ${child}.`, version);
        t.entryLeaf[child] = n;
        seen++;
      } else {
        if (child <= n || child >= nodes || t.nodeLevel[child] !== level - 1 || t.nodeParent[child] !== -1)
          fail(`node ${n} points at an invalid child node ${child}.`, version);
        t.nodeParent[child] = n;
      }
    }
  }
  if (seen !== alive) fail(`the leaves hold ${seen} entries, the header announces ${alive}.`, version);
  t.alive = alive;
  t.root = 0;
  t.finished = true;
}

/**
 * Read {@link saveTree}'s buffer (copied, so the caller may reuse it) into the empty tree that
 * `create(options)` makes from the header's options.
 *
 * @param source Names the buffer's file in errors (which then end with "rebuild the index.").
 * @throws IndexFormatError when the buffer is not an R*-tree of this format version, or is damaged
 */
export function loadTree(
  data: ArrayBuffer | ArrayBufferView,
  source: string | undefined,
  create: (options: RStarTreeOptions) => TreeStore,
): void {
  const bytes =
    data instanceof ArrayBuffer
      ? new Uint8Array(data)
      : new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
  const fail: Fail = (message, version) => {
    throw new IndexFormatError(
      source ?? '(buffer)',
      version,
      source === undefined
        ? `RStarTree.load: ${message}`
        : `${source}: ${message.replace(/\.$/, '')}; rebuild the index.`,
    );
  };
  // Copy to an aligned buffer once; typed views below need 8-byte alignment.
  const copy = bytes.slice();
  const view = new DataView(copy.buffer);
  const { options, version } = readHeader(view, copy.byteLength, fail);
  let tree: TreeStore;
  try {
    tree = create(options);
  } catch (error) {
    fail(`the header holds invalid options (${(error as Error).message}).`, version);
  }
  readBody(tree, copy, view, version, fail);
}
