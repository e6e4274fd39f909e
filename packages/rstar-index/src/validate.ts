/**
 * Checking what callers pass an `RStarTree`: its options, the entries it stores and the bounds of
 * its queries. Every misuse is an `InvalidArgumentError` or a `StateError` whose message says what
 * to pass instead.
 */
import { InvalidArgumentError, StateError } from '@grag/core';
import {
  type BoxLike,
  type BulkLoad,
  type ClusterOn,
  type LabelQuery,
  RSTAR_DEFAULTS,
  type RStarTreeOptions,
} from './options.js';
import type { TreeStore } from './store.js';

/** `clusterOn` values, in the order of their code in the saved format. */
export const CLUSTER_CODES: readonly ClusterOn[] = ['both', 'box', 'label'];
/** `bulkLoad` values, in the order of their code in the saved format. */
export const BULK_CODES: readonly BulkLoad[] = ['str', 'vamsplit'];

function isBoxLike(value: LabelQuery): value is BoxLike {
  return typeof value === 'object' && value !== null && 'min' in value && 'max' in value;
}

function fail(argument: string, message: string): never {
  throw new InvalidArgumentError(argument, `new RStarTree: ${message}`);
}

/** The options merged with {@link RSTAR_DEFAULTS}, each checked. */
export function resolveTreeOptions(
  options: Partial<RStarTreeOptions> & { dimensions: number },
): RStarTreeOptions {
  const o = { ...RSTAR_DEFAULTS, ...options };
  if (!Number.isInteger(o.dimensions) || o.dimensions < 1)
    fail('dimensions', `dimensions must be a positive integer, got ${String(o.dimensions)}.`);
  if (!Number.isInteger(o.labelDimensions) || o.labelDimensions < 0)
    fail(
      'labelDimensions',
      `labelDimensions must be a non-negative integer (0 for no labels), got ${String(o.labelDimensions)}.`,
    );
  if (!Number.isInteger(o.nodeCapacity) || o.nodeCapacity < 4 || o.nodeCapacity > 65535)
    fail('nodeCapacity', `nodeCapacity must be an integer in [4, 65535], got ${String(o.nodeCapacity)}.`);
  if (!(o.minFill > 0 && o.minFill <= 0.5))
    fail('minFill', `minFill must be in (0, 0.5], got ${String(o.minFill)}.`);
  if (!(o.reinsertFraction >= 0 && o.reinsertFraction < 1))
    fail(
      'reinsertFraction',
      `reinsertFraction must be in [0, 1) (0 disables forced reinsertion), got ${String(o.reinsertFraction)}.`,
    );
  if (!CLUSTER_CODES.includes(o.clusterOn))
    fail('clusterOn', `clusterOn must be 'both', 'box' or 'label', got ${String(o.clusterOn)}.`);
  if (o.clusterOn === 'label' && o.labelDimensions === 0)
    fail('clusterOn', `clusterOn 'label' needs labelDimensions > 0; use 'box' or give labelDimensions.`);
  if (!BULK_CODES.includes(o.bulkLoad))
    fail('bulkLoad', `bulkLoad must be 'str' or 'vamsplit', got ${String(o.bulkLoad)}.`);
  if (o.ArrayType !== Float64Array && o.ArrayType !== Float32Array)
    fail('ArrayType', 'ArrayType must be Float64Array or Float32Array.');
  return o;
}

/** @throws StateError naming `method` when the tree is not finished. */
export function requireFinished(t: TreeStore, method: string, hint = ''): void {
  if (!t.finished)
    throw new StateError(`Index not finished — call \`index.finish()\` before \`${method}()\`${hint}.`);
}

/** @throws InvalidArgumentError unless `value` is array-like of `length` items. */
export function checkLength(
  method: string,
  argument: string,
  value: ArrayLike<number>,
  length: number,
): void {
  if (value === null || typeof value !== 'object' || typeof value.length !== 'number')
    throw new InvalidArgumentError(
      argument,
      `RStarTree.${method}: ${argument} must be an array of ${length} numbers.`,
    );
  if (value.length !== length)
    throw new InvalidArgumentError(
      argument,
      `RStarTree.${method}: ${argument} has ${value.length} coordinates, the index has ${length} ${argument.startsWith('label') ? 'labelDimensions' : 'dimensions'}; pass ${length}.`,
    );
}

/** Check an entry's box into `s` (the lower corner at 0, the upper at D). */
function readEntryBox(
  t: TreeStore,
  method: string,
  min: ArrayLike<number>,
  max: ArrayLike<number>,
  s: Float64Array,
) {
  const d = t.dimensions;
  const D = t.D;
  checkLength(method, 'min', min, d);
  if (max !== min) checkLength(method, 'max', max, d);
  for (let i = 0; i < d; i++) {
    const a = min[i]!;
    const b = max[i]!;
    if (!Number.isFinite(a) || !Number.isFinite(b))
      throw new InvalidArgumentError(
        'min',
        `RStarTree.${method}: coordinate ${i} is ${String(Number.isFinite(a) ? b : a)}; entries need finite numbers (NaN wildcards are for queries).`,
      );
    if (a > b)
      throw new InvalidArgumentError(
        'max',
        `RStarTree.${method}: min[${i}] = ${a} is greater than max[${i}] = ${b}; pass the lower corner first.`,
      );
    s[i] = a;
    s[D + i] = b;
  }
}

/** Check an entry's label into `s` (after the box coordinates of each corner). */
function readEntryLabel(t: TreeStore, method: string, label: LabelQuery | undefined, s: Float64Array): void {
  if (t.labelDimensions === 0) {
    if (label !== undefined)
      throw new InvalidArgumentError(
        'label',
        `RStarTree.${method}: this index has no label space; create it with \`labelDimensions\` to store labels.`,
      );
    return;
  }
  if (label === undefined)
    throw new InvalidArgumentError(
      'label',
      `RStarTree.${method}: this index has labelDimensions ${t.labelDimensions}; pass each entry's label (a point or { min, max }).`,
    );
  const d = t.dimensions;
  const D = t.D;
  const lmin = isBoxLike(label) ? label.min : label;
  const lmax = isBoxLike(label) ? label.max : label;
  const L = t.labelDimensions;
  checkLength(method, 'label', lmin, L);
  if (lmax !== lmin) checkLength(method, 'label', lmax, L);
  for (let i = 0; i < L; i++) {
    const a = lmin[i]!;
    const b = lmax[i]!;
    if (!Number.isFinite(a) || !Number.isFinite(b))
      throw new InvalidArgumentError(
        'label',
        `RStarTree.${method}: label coordinate ${i} is ${String(Number.isFinite(a) ? b : a)}; stored labels need finite numbers (NaN wildcards are for queries).`,
      );
    if (a > b)
      throw new InvalidArgumentError(
        'label',
        `RStarTree.${method}: label min[${i}] = ${a} is greater than label max[${i}] = ${b}.`,
      );
    s[d + i] = a;
    s[D + d + i] = b;
  }
}

/** Validate one entry and store it at the next id; returns the id. */
export function writeEntry(
  t: TreeStore,
  method: string,
  min: ArrayLike<number>,
  max: ArrayLike<number>,
  label: LabelQuery | undefined,
): number {
  const s = t.scratch;
  readEntryBox(t, method, min, max, s);
  readEntryLabel(t, method, label, s);
  const id = t.entryCount;
  t.ensureEntryCapacity(id + 1);
  t.entryBoxes.set(s, id * t.stride);
  t.entryCount = id + 1;
  return id;
}

/** Unconstrained query bounds over all D coordinates. */
export function queryBounds(t: TreeStore): { lo: Float64Array; hi: Float64Array } {
  return {
    lo: new Float64Array(t.D).fill(Number.NEGATIVE_INFINITY),
    hi: new Float64Array(t.D).fill(Number.POSITIVE_INFINITY),
  };
}

/** Copy query coordinates into `out[offset..]`; NaN stays unconstrained. */
export function readQuery(
  method: string,
  argument: string,
  value: ArrayLike<number>,
  length: number,
  out: Float64Array,
  offset: number,
): void {
  checkLength(method, argument, value, length);
  for (let i = 0; i < length; i++) {
    const v = value[i]!;
    if (typeof v !== 'number')
      throw new InvalidArgumentError(argument, `RStarTree.${method}: ${argument}[${i}] is not a number.`);
    if (!Number.isNaN(v)) out[offset + i] = v;
  }
}

/** Narrow the label part of the query bounds to `label`; NaN in either bound is a wildcard. */
export function readLabel(
  t: TreeStore,
  method: string,
  label: LabelQuery | undefined,
  lo: Float64Array,
  hi: Float64Array,
): void {
  if (label === undefined) return;
  const L = t.labelDimensions;
  if (L === 0)
    throw new InvalidArgumentError(
      'label',
      `RStarTree.${method}: this index has no label space; drop the label constraint or create the index with \`labelDimensions\`.`,
    );
  const d = t.dimensions;
  const lmin = isBoxLike(label) ? label.min : label;
  const lmax = isBoxLike(label) ? label.max : label;
  checkLength(method, 'label', lmin, L);
  checkLength(method, 'label', lmax, L);
  for (let i = 0; i < L; i++) {
    const a = lmin[i]!;
    const b = lmax[i]!;
    if (typeof a !== 'number' || typeof b !== 'number')
      throw new InvalidArgumentError('label', `RStarTree.${method}: label[${i}] is not a number.`);
    // A NaN in either bound makes the whole dimension a wildcard.
    if (Number.isNaN(a) || Number.isNaN(b)) continue;
    if (a > b)
      throw new InvalidArgumentError(
        'label',
        `RStarTree.${method}: label min[${i}] = ${a} is greater than label max[${i}] = ${b}.`,
      );
    lo[d + i] = a;
    hi[d + i] = b;
  }
}
