import { IndexFormatError } from '@grag/core';

/** Size of the fixed header hnswlib (0.8, as bundled by hnswlib-node 3.x) writes before the level-0 data. */
const NATIVE_HEADER_BYTES = 96;

/** The parts of an hnswlib index file that describe its base layer. */
export interface NativeBaseLayer {
  /** Elements in the file (hnswlib's `cur_element_count`, including elements marked deleted). */
  count: number;
  /** hnswlib's `M_`: the per-layer link budget above level 0. */
  M: number;
  /** hnswlib's `maxM0_`: the level-0 link budget (2·M). */
  maxM0: number;
  /** Dimensions, derived from the per-element record layout. */
  dimensions: number;
  /** Label (grag id) of each element, by hnswlib internal id. */
  labels: number[];
  /** Level-0 out-links of each element as labels, by hnswlib internal id. */
  links: number[][];
  /** Whether each element is marked deleted, by hnswlib internal id. */
  deleted: boolean[];
}

/**
 * Read the level-0 (base layer) graph out of the bytes hnswlib's `saveIndex` writes: a 96-byte
 * header (`offsetLevel0_`, `max_elements_`, `cur_element_count`, `size_data_per_element_`,
 * `label_offset_`, `offsetData_` as u64; `maxlevel_` i32; `enterpoint_node_` u32; `maxM_`, `maxM0_`,
 * `M_` u64; `mult_` f64; `ef_construction_` u64), then one fixed-size record per element: a u32 whose
 * low 16 bits count the links (byte 2 holds the deleted mark), `maxM0_` u32 internal ids, the vector,
 * and the u64 label. Throws `IndexFormatError` when the layout is not the one expected.
 */
export function readNativeBaseLayer(bytes: Uint8Array, source = '<hnswlib index>'): NativeBaseLayer {
  const fail = (message: string): never => {
    throw new IndexFormatError(source, undefined, `@grag/hnsw baseLayerGraph: ${message}`);
  };
  if (bytes.byteLength < NATIVE_HEADER_BYTES) fail('the hnswlib index is shorter than its header.');
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const u64 = (offset: number): number => {
    const value = view.getBigUint64(offset, true);
    if (value > BigInt(Number.MAX_SAFE_INTEGER)) fail(`header field at byte ${offset} is out of range.`);
    return Number(value);
  };
  const offsetLevel0 = u64(0);
  const count = u64(16);
  const recordBytes = u64(24);
  const labelOffset = u64(32);
  const dataOffset = u64(40);
  const maxM0 = u64(64);
  const M = u64(72);
  const linkBytes = 4 + 4 * maxM0;
  const dimensions = (labelOffset - dataOffset) / 4;
  if (
    offsetLevel0 !== 0 ||
    dataOffset !== linkBytes ||
    !Number.isInteger(dimensions) ||
    dimensions <= 0 ||
    recordBytes !== labelOffset + 8
  ) {
    fail(
      'unexpected hnswlib record layout; this hnswlib-node version is not supported for base-layer export.',
    );
  }
  if (bytes.byteLength < NATIVE_HEADER_BYTES + count * recordBytes) fail('the hnswlib index is truncated.');

  const labels: number[] = new Array(count);
  const deleted: boolean[] = new Array(count);
  for (let i = 0; i < count; i++) {
    const record = NATIVE_HEADER_BYTES + i * recordBytes;
    labels[i] = Number(view.getBigUint64(record + labelOffset, true));
    deleted[i] = ((bytes[record + 2] as number) & 0x01) !== 0;
  }
  const links: number[][] = new Array(count);
  for (let i = 0; i < count; i++) {
    const record = NATIVE_HEADER_BYTES + i * recordBytes;
    const size = view.getUint16(record, true);
    if (size > maxM0) fail(`element ${i} has ${size} level-0 links, more than maxM0 = ${maxM0}.`);
    const out: number[] = new Array(size);
    for (let j = 0; j < size; j++) {
      const internal = view.getUint32(record + 4 + 4 * j, true);
      const label = labels[internal];
      if (label === undefined)
        fail(`element ${i} links to internal id ${internal}, beyond ${count} elements.`);
      out[j] = label as number;
    }
    links[i] = out;
  }
  return { count, M, maxM0, dimensions, labels, links, deleted };
}

/**
 * Check the whole layout of an hnswlib index file before it is handed to hnswlib, whose reader
 * trusts the link lists (a corrupted one can crash the process natively): the header fields agree
 * with each other, every level-0 and upper-level link names an element of the file, every element's
 * label is a safe integer, the entry point exists at the top level, and the file ends exactly after
 * the last link list. Throws `IndexFormatError` naming `source` otherwise.
 */
export function checkNativeLayout(bytes: Uint8Array, source = '<hnswlib index>'): NativeBaseLayer {
  const layer = readNativeBaseLayer(bytes, source);
  const fail = (message: string): never => {
    throw new IndexFormatError(
      source,
      undefined,
      `${source}: the hnswlib graph ${message}; rebuild the index.`,
    );
  };
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const { count, M, maxM0 } = layer;
  const maxElements = view.getBigUint64(8, true);
  const recordBytes = Number(view.getBigUint64(24, true));
  const maxLevel = view.getInt32(48, true);
  const entryPoint = view.getUint32(52, true);
  const maxM = view.getBigUint64(56, true);
  const mult = view.getFloat64(80, true);
  const efConstruction = view.getBigUint64(88, true);
  if (maxElements < BigInt(count) || maxElements * BigInt(recordBytes) > 2n ** 34n) {
    fail('header has a bad capacity');
  }
  if (M < 2 || maxM !== BigInt(M) || maxM0 !== 2 * M) fail('header has inconsistent link budgets');
  if (!Number.isFinite(mult) || mult <= 0 || efConstruction === 0n || efConstruction > 2n ** 31n) {
    fail('header has bad construction settings');
  }
  if (count > 0 && (maxLevel < 0 || maxLevel > 64 || entryPoint >= count))
    fail('header has a bad entry point');
  for (let i = 0; i < count; i++) {
    const label = layer.labels[i]!;
    if (!Number.isSafeInteger(label)) fail(`element ${i} has label ${label}, not a safe integer`);
    if (((bytes[NATIVE_HEADER_BYTES + i * recordBytes + 2] as number) & 0xfe) !== 0) {
      fail(`element ${i} has unknown flags`);
    }
  }
  const linkListBytes = 4 + 4 * M;
  let offset = NATIVE_HEADER_BYTES + count * recordBytes;
  let topLevel = count > 0 ? 0 : -1;
  let entryLevel = 0;
  for (let i = 0; i < count; i++) {
    if (offset + 4 > bytes.byteLength) fail('is truncated in its upper-level links');
    const size = view.getUint32(offset, true);
    offset += 4;
    if (size % linkListBytes !== 0) fail(`element ${i} has an upper-level link block of ${size} bytes`);
    const levels = size / linkListBytes;
    if (levels > maxLevel) fail(`element ${i} is on level ${levels}, above the top level ${maxLevel}`);
    if (offset + size > bytes.byteLength) fail('is truncated in its upper-level links');
    for (let l = 0; l < levels; l++) {
      const at = offset + l * linkListBytes;
      const links = view.getUint16(at, true);
      if (links > M) fail(`element ${i} has ${links} links on level ${l + 1}, more than M = ${M}`);
      for (let j = 0; j < links; j++) {
        if (view.getUint32(at + 4 + 4 * j, true) >= count) fail(`element ${i} links beyond its elements`);
      }
    }
    topLevel = Math.max(topLevel, levels);
    if (i === entryPoint) entryLevel = levels;
    offset += size;
  }
  if (offset !== bytes.byteLength) fail(`has ${bytes.byteLength - offset} bytes after its last link list`);
  if (count > 0 && (topLevel !== maxLevel || entryLevel !== maxLevel)) {
    fail('header names a top level or entry point that does not match its elements');
  }
  return layer;
}
