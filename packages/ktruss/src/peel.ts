/**
 * The peeling engine behind `peelTruss` and `TrussIndex.qPeel` (internal: not exported from the
 * package). See `peelPrepared`.
 */
import { BoundedPeel } from './bounded-peel.js';
import type { TrussComponent } from './decomposition.js';
import type { PeelMemo, PhaseOne } from './peel-memo.js';
import { PeelState } from './peel-state.js';
import type { Community, PreparedTruss, QPeelResult } from './qpeel.js';
import { RemovalTest } from './removal-test.js';
import { boundFromRelevant, settleWithoutPhase, type T0Result } from './shortcut.js';
import { edgeTriangles } from './triangles.js';

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
  prepared.triangles ??= edgeTriangles(g, maskOf(g.m, truss.edges), prepared.support);
  const querySet = new Set(keep);
  const communities: Community[] = [];
  let engine: Engine | undefined;
  for (let c = 0; c < truss.components.length; c++) {
    const component = truss.components[c]!;
    if (keep.length > 0 && !component.nodes.some((v) => querySet.has(v))) continue;
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
  communities.sort(
    (x, y) => y.qrScore - x.qrScore || y.nodes.length - x.nodes.length || x.nodes[0]! - y.nodes[0]!,
  );
  result.communities = communities.slice(0, top);
  return result;
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
  for (let sweep = 0; sweep < maxSweeps; sweep++) {
    let changed = false;
    for (const v of order) {
      if (nodeAlive[v] !== 1) continue;
      // Ascending order: once a node does not raise the mean, no later one does.
      if (!(rel[v]! < sum / alive)) break;
      if (reached) reached[v] = 1;
      if (isQuery[v] === 1) {
        metQuery = true;
        continue;
      }
      checks++;
      if (!test.removable(v, alive)) continue;
      state.remove(v);
      removed.push(v);
      alive--;
      sum -= rel[v]!;
      changed = true;
    }
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

function maskOf(m: number, edges: ArrayLike<number>): Uint8Array {
  const mask = new Uint8Array(m);
  for (let i = 0; i < edges.length; i++) mask[edges[i]!] = 1;
  return mask;
}

/** Mean of `rel` over `nodes`, summed in their order (as `qrScore`). */
function meanOver(nodes: Uint32Array, rel: Float64Array): number {
  let sum = 0;
  for (const v of nodes) sum += rel[v]!;
  return nodes.length === 0 ? Number.NaN : sum / nodes.length;
}
