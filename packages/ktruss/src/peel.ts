/**
 * The peeling engine behind `peelTruss` and `TrussIndex.qPeel` (internal: not exported from the
 * package). See `peelPrepared`.
 */
import { BoundedPeel } from './bounded-peel.js';
import type { TrussComponent } from './decomposition.js';
import type { TrussGraph } from './graph.js';
import type { PeelMemo, PhaseOne } from './peel-memo.js';
import { PeelState } from './peel-state.js';
import { trianglesOf } from './prepared.js';
import type { Community, PreparedTruss, QPeelResult } from './qpeel.js';
import { RemovalTest } from './removal-test.js';
import { boundFromRelevant, settleWithoutPhase, type T0Result } from './shortcut.js';

/**
 * The peeling phase of `qPeel` on a prepared maximal k-truss (`peelTruss`; `TrussIndex.qPeel` with a
 * memo). Supports are copied; only a missing `prepared.triangles` is filled in.
 *
 * The triangles at a node and on an edge are read from the prepared per-edge triangle lists (sorted by
 * third node, so the triangles {v, a, x} with x > a are a suffix of edge {v, a}'s list: each is read
 * once), and a node's live degree is counted, so a removal test costs the triangles at the node and a
 * cascade the triangles on the edges it deletes. A test that fails records why (a triangle edge at
 * minimum support, neighbours not connected, too few nodes left); later sweeps skip the test while
 * that reason still holds (supports only fall and nodes only go during the QRScore phase, so it would
 * fail again), and count it as a check as before. With `memo`, the QRScore phase of a component starts
 * from a saved one when that gives the same decisions (see {@link PeelMemo}).
 */
export function peelPrepared(
  prepared: PreparedTruss,
  rel: Float64Array,
  top: number,
  maxSweeps: number,
  maxNodes: number = Number.POSITIVE_INFINITY,
  keep: readonly number[] = [],
  memo?: PeelMemo,
  shortcut = false,
): QPeelResult {
  const { truss } = prepared;
  const { graph: g, k } = truss;
  const result: QPeelResult = { k, communities: [], components: truss.components.length, checks: 0 };
  if (truss.edges.length === 0) return result;
  trianglesOf(prepared);
  const querySet = new Set(keep);
  const communities: Community[] = [];
  let engine: Engine | undefined;
  // With the shortcut, components are searched from the highest bound on what they can give, and
  // one whose bound is below the top communities found is not searched (see `ComponentBounds`).
  const bounds =
    shortcut && truss.components.length > 1 ? new ComponentBounds(truss.components, rel, k) : undefined;
  for (const c of bounds?.order ?? truss.components.keys()) {
    const component = truss.components[c]!;
    if (keep.length > 0 && !component.nodes.some((v) => querySet.has(v))) continue;
    if (bounds?.below(c, communities, top)) {
      result.pruned = (result.pruned ?? 0) + 1;
      continue;
    }
    let t0: T0Result | undefined;
    if (shortcut && Number.isFinite(maxNodes)) {
      const settled = settleWithoutPhase(
        prepared,
        component,
        rel,
        (v) => querySet.has(v),
        maxNodes,
        keep.length === 0,
        (result) => {
          t0 = result;
        },
      );
      if (settled !== undefined) {
        result.shortcuts = (result.shortcuts ?? 0) + 1;
        result.checks += settled.checks;
        communities.push(...settled.communities);
        continue;
      }
    }
    engine ??= engineOf(prepared, keep);
    const { state, test, boundedPeel, inPart } = engine;
    const { isQuery, nodeAlive, edgeAlive } = state;
    const saved = memo?.phaseOne(c, component.nodes, rel, maxSweeps, keep);
    // The QRScore phase of this component with the same relevance, where no query node was met:
    // start from what it left.
    if (saved) restorePhaseOne(state, component, saved);
    const phase = saved ?? qrScorePhase(state, test, component, rel, maxSweeps, memo, c);
    result.checks += phase.checks;
    const { order, initialQrScore } = phase;
    let alive = phase.alive;
    const bounded = alive > maxNodes;
    const fromRelevant =
      shortcut && bounded
        ? boundFromRelevant(
            prepared,
            component,
            rel,
            { order, nodeAlive, isQuery, initialQrScore },
            maxNodes,
            keep.length === 0,
            t0,
          )
        : undefined;
    if (fromRelevant !== undefined) {
      result.shortcuts = (result.shortcuts ?? 0) + 1;
      result.checks += fromRelevant.checks;
      communities.push(...fromRelevant.communities);
      continue;
    }
    if (bounded) {
      // Size bound: peel on toward the query (see BoundedPeel). Stop when at most `maxNodes` nodes
      // remain.
      const step = boundedPeel.peel(order, alive, maxNodes);
      alive = step.alive;
      result.checks += step.checks;
    }
    const kept = order.filter((v) => nodeAlive[v] === 1);
    const parts = (bounded ? state.splitAlive(kept) : [kept]).filter(
      (part) => keep.length === 0 || part.some((v) => isQuery[v] === 1),
    );
    for (const part of parts) {
      const nodes = Uint32Array.from(part).sort();
      for (const v of nodes) inPart[v] = 1;
      const edges = component.edges.filter((e) => edgeAlive[e] === 1 && inPart[g.sources[e]!] === 1);
      for (const v of nodes) inPart[v] = 0;
      communities.push({
        k,
        nodes,
        keys: Array.from(nodes, (v) => g.nodeIds[v]!),
        edges,
        qrScore: meanOver(nodes, rel),
        initialQrScore,
        removed: component.nodes.length - nodes.length,
      });
    }
  }
  communities.sort(compareCommunities);
  result.communities = communities.slice(0, top);
  return result;
}

/**
 * {@link peelPrepared} on the prepared k-truss of a subgraph whose node `i` is `nodes[i]` and edge
 * `j` is `edges[j]` of `g` (nodes ascending, so ties break as on `g`), with `g`'s relevance and
 * query nodes already in the subgraph's numbering; the communities in `g`'s nodes, keys and edges.
 */
export function peelSubgraph(
  prepared: PreparedTruss,
  g: TrussGraph,
  nodes: ArrayLike<number>,
  edges: ArrayLike<number>,
  rel: Float64Array,
  options: { top: number; maxSweeps: number; maxNodes: number; shortcut: boolean },
  keep: readonly number[],
): QPeelResult {
  const result = peelPrepared(
    prepared,
    Float64Array.from(nodes, (v) => rel[v]!),
    options.top,
    options.maxSweeps,
    options.maxNodes,
    keep,
    undefined,
    options.shortcut,
  );
  const toGlobal = (c: Community): Community => {
    const members = Uint32Array.from(c.nodes, (v) => nodes[v]!);
    return {
      ...c,
      nodes: members,
      keys: Array.from(members, (v) => g.nodeIds[v]!),
      edges: Uint32Array.from(c.edges, (e) => edges[e]!).sort(),
    };
  };
  return { ...result, communities: result.communities.map(toGlobal) };
}

/**
 * The order of Q-Peel's communities (of several components, or of several searches): the higher
 * QRScore first, then the larger, then the one whose lowest node index is lower.
 */
export function compareCommunities(
  x: Pick<Community, 'qrScore' | 'nodes'>,
  y: Pick<Community, 'qrScore' | 'nodes'>,
): number {
  return y.qrScore - x.qrScore || y.nodes.length - x.nodes.length || x.nodes[0]! - y.nodes[0]!;
}

/**
 * Bounds on the QRScore of what each component of a k-truss can give: every community found in a
 * component is a connected k-truss of its nodes, so it has at least k of them, and the mean of any
 * k or more of them is at most the mean of the component's k most relevant. A component whose bound
 * is below the QRScore of each of the `top` best communities found cannot place one among them
 * (ties included: the bound is compared with a margin for the rounding of the two sums).
 */
class ComponentBounds {
  /** Components by descending bound (ties: in component order). */
  readonly order: number[];
  readonly #bound: Float64Array;
  readonly #margin: Float64Array;

  constructor(components: readonly TrussComponent[], rel: Float64Array, k: number) {
    this.#bound = new Float64Array(components.length);
    this.#margin = new Float64Array(components.length);
    const heap = new Float64Array(k);
    components.forEach((component, c) => {
      const { nodes } = component;
      let size = 0;
      let largest = 0;
      // A min-heap of the k largest relevances.
      for (const v of nodes) {
        const r = rel[v]!;
        largest = Math.max(largest, Math.abs(r));
        if (size < k) {
          let i = size++;
          while (i > 0 && heap[(i - 1) >> 1]! > r) {
            heap[i] = heap[(i - 1) >> 1]!;
            i = (i - 1) >> 1;
          }
          heap[i] = r;
        } else if (r > heap[0]!) {
          let i = 0;
          for (;;) {
            const l = 2 * i + 1;
            if (l >= size) break;
            const child = l + 1 < size && heap[l + 1]! < heap[l]! ? l + 1 : l;
            if (heap[child]! >= r) break;
            heap[i] = heap[child]!;
            i = child;
          }
          heap[i] = r;
        }
      }
      let sum = 0;
      for (let i = 0; i < size; i++) sum += heap[i]!;
      this.#bound[c] = sum / size;
      // Each sum of n terms is within n·ε·max|r| of the exact one.
      this.#margin[c] = 4 * (nodes.length + k) * Number.EPSILON * largest;
    });
    this.order = Array.from(components.keys()).sort((a, b) => this.#bound[b]! - this.#bound[a]! || a - b);
  }

  /** The `top` best QRScores of the communities read so far, descending. */
  readonly #best: number[] = [];
  #read = 0;

  /** Whether component c cannot give one of the `top` best of `found` (which only grows). */
  below(c: number, found: readonly Community[], top: number): boolean {
    const best = this.#best;
    for (; this.#read < found.length; this.#read++) {
      const score = found[this.#read]!.qrScore;
      let i = best.length;
      while (i > 0 && best[i - 1]! < score) i--;
      if (i < top) best.splice(i, 0, score);
      if (best.length > top) best.pop();
    }
    return best.length === top && this.#bound[c]! + this.#margin[c]! < best[top - 1]!;
  }
}

/** The peel state of a prepared truss with what works on it (`inPart` all 0 between uses). */
interface Engine {
  state: PeelState;
  test: RemovalTest;
  boundedPeel: BoundedPeel;
  inPart: Uint8Array;
}

/**
 * Engines kept per prepared truss and reused, reset, by its next search: the state's arrays are
 * sized by the whole graph, and allocating them per search (several searches per query on a layer
 * of 150,000 edges) cost about as much garbage collection as the peeling. Searches do not nest.
 */
const engines = new WeakMap<PreparedTruss, Engine>();

/** The engine of `prepared`, fresh for query nodes `keep`. */
function engineOf(prepared: PreparedTruss, keep: readonly number[]): Engine {
  let engine = engines.get(prepared);
  if (engine === undefined) {
    const state = new PeelState(prepared, keep);
    engine = {
      state,
      test: new RemovalTest(state),
      boundedPeel: new BoundedPeel(state),
      inPart: new Uint8Array(prepared.truss.graph.n),
    };
    engines.set(prepared, engine);
    return engine;
  }
  engine.state.reset(keep);
  engine.test.reset();
  return engine;
}

/** Set the component's nodes, edges and supports to what a saved QRScore phase left. */
function restorePhaseOne(state: PeelState, component: TrussComponent, saved: PhaseOne): void {
  const { sources, targets, edgeAlive, support, nodeAlive, liveDegree } = state;
  for (const v of saved.removed) {
    nodeAlive[v] = 0;
    liveDegree[v] = 0;
  }
  const edges = component.edges;
  for (let i = 0; i < edges.length; i++) {
    const e = edges[i]!;
    support[e] = saved.support[i]!;
    const s = sources[e]!;
    const t = targets[e]!;
    if (nodeAlive[s] === 1 && nodeAlive[t] === 1) continue;
    edgeAlive[e] = 0;
    if (nodeAlive[s] === 1) liveDegree[s]!--;
    if (nodeAlive[t] === 1) liveDegree[t]!--;
  }
}

/**
 * The QRScore phase of one component (DA-RAG Algorithm 1): sweeps over its nodes by ascending
 * relevance, each removing the nodes below the current mean whose removal test passes, until a
 * sweep removes nothing. Saved in `memo` (as component `c`) when it met no query node.
 */
function qrScorePhase(
  state: PeelState,
  test: RemovalTest,
  component: TrussComponent,
  rel: Float64Array,
  maxSweeps: number,
  memo: PeelMemo | undefined,
  c: number,
): Pick<PhaseOne, 'order' | 'alive' | 'initialQrScore' | 'checks'> {
  const { nodeAlive, isQuery, support } = state;
  const order = byAscendingRelevance(component.nodes, rel);
  let alive = order.length;
  let sum = 0;
  for (const v of order) sum += rel[v]!;
  const initialQrScore = sum / alive;
  let checks = 0;
  const reached = memo ? new Uint8Array(nodeAlive.length) : undefined;
  const removed: number[] = [];
  let metQuery = false;
  // The live nodes in ascending order: each sweep drops from the part it read the nodes removed, so
  // later sweeps do not read them again.
  const live = new Uint32Array(order);
  let start = 0;
  for (let sweep = 0; sweep < maxSweeps; sweep++) {
    let changed = false;
    let i = start;
    let kept = start;
    for (; i < live.length; i++) {
      const v = live[i]!;
      // Ascending order: once a node does not raise the mean, no later one does.
      if (!(rel[v]! < sum / alive)) break;
      live[kept++] = v;
      if (reached) reached[v] = 1;
      if (isQuery[v] === 1) {
        metQuery = true;
        continue;
      }
      checks++;
      if (!test.removable(v, alive)) continue;
      state.remove(v);
      removed.push(v);
      kept--;
      alive--;
      sum -= rel[v]!;
      changed = true;
    }
    // The nodes read and kept move next to the unread ones (what was removed is left behind).
    live.copyWithin(start + i - kept, start, kept);
    start += i - kept;
    if (!changed) break;
  }
  if (memo && reached && !metQuery) {
    memo.save(c, {
      rel: Float64Array.from(component.nodes, (v) => rel[v]!),
      maxSweeps,
      reached,
      order,
      removed: Uint32Array.from(removed),
      support: component.edges.map((e) => support[e]!),
      alive,
      sum,
      initialQrScore,
      checks,
    });
  }
  return { order, alive, initialQrScore, checks };
}

/**
 * `nodes` (ascending) by ascending relevance, ties by ascending index: the nodes of relevance 0 (most
 * of a large component, whose relevance is the query's) keep their order between the sorted
 * negative and positive ones, so only those are sorted.
 */
export function byAscendingRelevance(nodes: Uint32Array, rel: Float64Array): number[] {
  const negative: number[] = [];
  const zero: number[] = [];
  const positive: number[] = [];
  for (const v of nodes) {
    const r = rel[v]!;
    if (r === 0) zero.push(v);
    else (r < 0 ? negative : positive).push(v);
  }
  const ascending = (a: number, b: number) => rel[a]! - rel[b]! || a - b;
  negative.sort(ascending);
  positive.sort(ascending);
  return negative.concat(zero, positive);
}

/** Mean of `rel` over `nodes`, summed in their order (as `qrScore`). */
function meanOver(nodes: Uint32Array, rel: Float64Array): number {
  let sum = 0;
  for (const v of nodes) sum += rel[v]!;
  return nodes.length === 0 ? Number.NaN : sum / nodes.length;
}
