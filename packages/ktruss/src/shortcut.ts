/**
 * A certified shortcut for Q-Peel's size bound (internal: not exported from the package): when the
 * bound's pass over the nodes of relevance 0 is certain to remove all of them, it is skipped and the
 * bound goes on from the k-truss of the relevant nodes alone. See {@link boundFromRelevant}.
 */
import { BoundedPeel } from './bounded-peel.js';
import { maximalKTruss, type TrussComponent, trussDecomposition } from './decomposition.js';
import { type TrussGraph, trussGraphFromEdges } from './graph.js';
import { PeelState } from './peel-state.js';
import { liveLowBound, pinningOf } from './phase-bound.js';
import { type PreparedTruss, prepareTruss } from './prepared.js';
import type { Community } from './qpeel.js';

/** Communities settled by a shortcut, and the size bound's removal steps it ran (over `H` only). */
export interface Settled {
  communities: Community[];
  checks: number;
}

/** What the QRScore phase of a component left, as {@link boundFromRelevant} reads it. */
export interface PhaseLeft {
  /** The component's nodes by ascending relevance (ties by index). */
  order: readonly number[];
  /** Which nodes are alive (indexed by node). */
  nodeAlive: Uint8Array;
  /** Whether a node is a query node. */
  isQuery: Uint8Array;
  initialQrScore: number;
}

/**
 * The communities of `component` after Q-Peel's size bound `maxNodes`, computed without the bound's
 * pass over the nodes of relevance 0 when that pass is certain to remove all of them; `undefined`
 * when it is not (run the bound as usual). `anyPart`: keep every connected part (no query nodes).
 *
 * Ascending relevance puts `L`, the nodes of relevance 0, first (when no relevance is negative);
 * `H` is the rest. The bound removes the nodes of `order` in turn, each step leaving the maximal
 * k-truss of what remains (the cascade ends there whatever the order of its deletions), undone when it
 * would lose a query node or leave nothing, and stops once at most `maxNodes` nodes are alive. When
 * the QRScore phase left every node of `H` alive, every state of the pass over `L` contains `T0`,
 * the maximal k-truss of the component's edges among `H`. If every query node has an edge in `T0`
 * and `T0` has more than `maxNodes` nodes, no step of that pass is undone and the pass does not stop,
 * so it ends at `T0` exactly, whichever nodes of `L` the QRScore phase left; the bound then goes on
 * over `H` from `T0`, here on a graph of `|H|` nodes. The communities (nodes, edges, QRScore, initial
 * QRScore, removed count) are those of the full pass; the steps over `L` are not counted in `checks`.
 */
export function boundFromRelevant(
  prepared: PreparedTruss,
  component: TrussComponent,
  rel: Float64Array,
  left: PhaseLeft,
  maxNodes: number,
  anyPart: boolean,
  fromSettle?: T0Result,
): Settled | undefined {
  const { order, nodeAlive, isQuery } = left;
  if (order.length === 0 || rel[order[0]!]! < 0) return undefined;
  let first = 0;
  while (first < order.length && rel[order[first]!] === 0) {
    if (isQuery[order[first]!] === 1) return undefined;
    first++;
  }
  const high = order.slice(first);
  if (high.length <= maxNodes) return undefined;
  for (const v of high) if (nodeAlive[v] !== 1) return undefined;
  // The same call {@link settleWithoutPhase} made (same nodes in the same order, same sum): its result.
  if (fromSettle !== undefined && sameNodes(fromSettle.high, high)) return fromSettle.found;
  return fromT0(
    prepared,
    component,
    rel,
    high,
    (v) => isQuery[v] === 1,
    left.initialQrScore,
    maxNodes,
    anyPart,
  );
}

/** What {@link fromT0} gave for `high` (kept by {@link settleWithoutPhase} for {@link boundFromRelevant}). */
export interface T0Result {
  high: readonly number[];
  found: Settled | undefined;
}

function sameNodes(a: readonly number[], b: readonly number[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/**
 * The size bound over `high` (the component's nodes of positive relevance, ascending) from `T0`, the
 * maximal k-truss of the component's edges among them, when every query node has an edge in `T0` and
 * `T0` has more than `maxNodes` nodes; `undefined` otherwise. See {@link boundFromRelevant}.
 */
export function fromT0(
  prepared: PreparedTruss,
  component: TrussComponent,
  rel: Float64Array,
  high: readonly number[],
  isQuery: (v: number) => boolean,
  initialQrScore: number,
  maxNodes: number,
  anyPart: boolean,
): Settled | undefined {
  const { k, graph: g } = prepared.truss;
  const { sub, globalEdge, t0 } = t0Of(prepared, high);
  const liveT0 = t0.truss.nodes.length;
  if (liveT0 <= maxNodes) return undefined;
  const inT0 = new Uint8Array(high.length);
  for (const v of t0.truss.nodes) inT0[v] = 1;
  const keepLocal: number[] = [];
  for (let i = 0; i < high.length; i++) {
    if (!isQuery(high[i]!)) continue;
    if (inT0[i] !== 1) return undefined;
    keepLocal.push(i);
  }

  // The bound over H, from T0.
  const state = new PeelState(t0, keepLocal);
  const localOrder = high.map((_, i) => i);
  const { checks } = new BoundedPeel(state).peel(localOrder, liveT0, maxNodes);
  const kept = localOrder.filter((i) => state.nodeAlive[i] === 1);
  const out: Community[] = [];
  const inPart = new Uint8Array(high.length);
  for (const part of state.splitAlive(kept)) {
    if (!anyPart && !part.some((i) => state.isQuery[i] === 1)) continue;
    for (const i of part) inPart[i] = 1;
    const nodes = Uint32Array.from(part, (i) => high[i]!).sort();
    const edges: number[] = [];
    for (const e of t0.truss.edges) {
      if (state.edgeAlive[e] === 1 && inPart[sub.sources[e]!] === 1) edges.push(globalEdge[e]!);
    }
    for (const i of part) inPart[i] = 0;
    let sum = 0;
    for (const v of nodes) sum += rel[v]!;
    out.push({
      k,
      nodes,
      keys: Array.from(nodes, (v) => g.nodeIds[v]!),
      edges: Uint32Array.from(edges).sort(),
      qrScore: sum / nodes.length,
      initialQrScore,
      removed: component.nodes.length - nodes.length,
    });
  }
  return { communities: out, checks };
}

/** T0 of `high` in a prepared truss: the subgraph among them, its edges' ids in the truss's graph, and its prepared maximal k-truss. */
interface T0 {
  high: readonly number[];
  sub: TrussGraph;
  globalEdge: number[];
  t0: PreparedTruss;
}

/**
 * The last T0 made per prepared truss: DA-RAG searches one query's layer from two query vertices
 * with one relevance, so the second search asks for the same `high` (T0 does not depend on the query
 * vertices; it is only read).
 */
const lastT0 = new WeakMap<PreparedTruss, T0>();

/** The maximal k-truss of the edges of `prepared` among `high` (local node i is high[i]); reused when `high` is the last one's. */
function t0Of(prepared: PreparedTruss, high: readonly number[]): T0 {
  const last = lastT0.get(prepared);
  if (last !== undefined && sameNodes(last.high, high)) return last;
  const { truss, offsets, neighbors, edgeIds } = prepared;
  const local = new Map<number, number>();
  for (let i = 0; i < high.length; i++) local.set(high[i]!, i);
  const pairs: number[] = [];
  const globalEdge: number[] = [];
  for (const v of high) {
    const lv = local.get(v)!;
    for (let p = offsets[v]!; p < offsets[v + 1]!; p++) {
      const lw = local.get(neighbors[p]!);
      if (lw !== undefined && lv < lw) {
        pairs.push(lv, lw);
        globalEdge.push(edgeIds[p]!);
      }
    }
  }
  const sub = trussGraphFromEdges(high.length, Uint32Array.from(pairs));
  const t0 = prepareTruss(maximalKTruss(sub, truss.k, { trussness: trussDecomposition(sub).trussness }));
  const made = { high: high.slice(), sub, globalEdge, t0 };
  lastT0.set(prepared, made);
  return made;
}

/** The last {@link liveLowBound} per prepared truss, for the same reason as {@link lastT0}. */
const lastLow = new WeakMap<
  PreparedTruss,
  { component: TrussComponent; high: readonly number[]; low: number }
>();

/** {@link liveLowBound} of `high` in `component` (which depends on neither the relevance values nor the query vertices); reused when both are the last ones. */
function lowBoundOf(prepared: PreparedTruss, component: TrussComponent, high: readonly number[]): number {
  const last = lastLow.get(prepared);
  if (last !== undefined && last.component === component && sameNodes(last.high, high)) return last.low;
  prepared.pinning ??= pinningOf(prepared);
  const low = liveLowBound(prepared, prepared.pinning, component.nodes, component.edges, high);
  lastLow.set(prepared, { component, high: high.slice(), low });
  return low;
}

/**
 * The communities of `component` without running the QRScore phase, when it is certain to remove no
 * node of positive relevance and the size bound then ends at the same place (see
 * {@link boundFromRelevant}); `undefined` otherwise. The phase removes only nodes below the running
 * mean; while it has removed no node of `H` (relevance > 0) the mean is `Σ / (|H| + live L)`, and
 * {@link liveLowBound} bounds the live nodes of `L` from below, so if every node of `H` other than
 * the query nodes has relevance ≥ `Σ / (|H| + bound)` (the same floating-point division), none of
 * them is ever tested. The phase's own choices among `L` do not matter then: the size bound's pass
 * over `L` ends at `T0` whatever they were.
 */
export function settleWithoutPhase(
  prepared: PreparedTruss,
  component: TrussComponent,
  rel: Float64Array,
  isQuery: (v: number) => boolean,
  maxNodes: number,
  anyPart: boolean,
  kept?: (result: T0Result) => void,
): Settled | undefined {
  const high: number[] = [];
  for (const v of component.nodes) {
    const r = rel[v]!;
    if (r < 0) return undefined;
    if (r > 0) high.push(v);
    else if (isQuery(v)) return undefined;
  }
  if (high.length <= maxNodes) return undefined;
  high.sort((a, b) => rel[a]! - rel[b]! || a - b);
  // The full search's sum over its order (the zeros first add nothing).
  let sum = 0;
  for (const v of high) sum += rel[v]!;
  let minRel = Number.POSITIVE_INFINITY;
  for (const v of high) if (!isQuery(v) && rel[v]! < minRel) minRel = rel[v]!;
  const found = fromT0(
    prepared,
    component,
    rel,
    high,
    isQuery,
    sum / component.nodes.length,
    maxNodes,
    anyPart,
  );
  // The phase's sum over the component's order is this sum (its zeros come first and add
  // nothing), so boundFromRelevant, after the phase, would make this same call.
  kept?.({ high, found });
  if (found === undefined) return undefined;
  if (!(minRel >= sum / high.length)) {
    const low = lowBoundOf(prepared, component, high);
    if (!(minRel >= sum / (high.length + low))) return undefined;
  }
  return found;
}
