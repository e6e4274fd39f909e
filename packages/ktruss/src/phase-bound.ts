/**
 * A lower bound on the nodes of relevance 0 that Q-Peel's QRScore phase leaves alive (internal: not
 * exported from the package). With it, a search can show without running the phase that the phase
 * removes no relevant node. See {@link liveLowBound}.
 */
import { IntStack } from './int-stack.js';
import type { PreparedTruss } from './prepared.js';

/** Rounds of pins forced by requirements in {@link liveLowBound} (fewer pins only weaken the bound). */
const FORCED_ROUNDS = 3;

/**
 * What pins nodes in a prepared truss, made once per truss: for each node `x`, the pairs `{a, b}`
 * with which it makes a triangle whose edge `{a, b}` is at the truss's minimum support `k − 2`
 * (`pairs[2i], pairs[2i + 1]` for `i` in `offsets[x] .. offsets[x + 1] − 1`); and `selfPinned`, the
 * largest set `X` in which every node has such a pair inside `X` (a greatest fixed point, by deleting
 * nodes without one until none is left). While `a`, `b` and `x` live, the QRScore phase cannot remove
 * `x` (it would leave `{a, b}` in too few triangles; supports never rise there), so while all of `X`
 * lives none of it goes: none ever does.
 */
export interface Pinning {
  offsets: Uint32Array;
  pairs: Uint32Array;
  selfPinned: Uint8Array;
}

/** The {@link Pinning} of a prepared truss. O(triangles) plus O(rounds · pairs). */
export function pinningOf(prepared: PreparedTruss): Pinning {
  const { truss, support } = prepared;
  const tri = prepared.triangles!;
  const { k, graph: g } = truss;
  const n = prepared.offsets.length - 1;
  const offsets = new Uint32Array(n + 1);
  const minEdges: number[] = [];
  for (const e of truss.edges) {
    if (support[e] !== k - 2) continue;
    minEdges.push(e);
    for (let q = tri.offsets[e]!; q < tri.offsets[e + 1]!; q++) offsets[tri.entries[3 * q]! + 1]!++;
  }
  for (let v = 0; v < n; v++) offsets[v + 1]! += offsets[v]!;
  const pairs = new Uint32Array(2 * offsets[n]!);
  const cursor = offsets.slice(0, n);
  for (const e of minEdges) {
    for (let q = tri.offsets[e]!; q < tri.offsets[e + 1]!; q++) {
      const at = 2 * cursor[tri.entries[3 * q]!]!++;
      pairs[at] = g.sources[e]!;
      pairs[at + 1] = g.targets[e]!;
    }
  }
  const inX = new Uint8Array(n);
  for (const v of truss.nodes) inX[v] = 1;
  const pinning: Pinning = { offsets, pairs, selfPinned: inX };
  for (let changed = true; changed; ) {
    changed = false;
    for (const v of truss.nodes) {
      if (inX[v] === 1 && !pinnedBy(pinning, v, inX)) {
        inX[v] = 0;
        changed = true;
      }
    }
  }
  return pinning;
}

/** Whether `x` makes a triangle with two nodes of `set` whose edge is at the minimum support. */
function pinnedBy(pinning: Pinning, x: number, set: Uint8Array): boolean {
  const { offsets, pairs } = pinning;
  for (let i = offsets[x]!; i < offsets[x + 1]!; i++) {
    if (set[pairs[2 * i]!] === 1 && set[pairs[2 * i + 1]!] === 1) return true;
  }
  return false;
}

/**
 * A lower bound on the live nodes outside `high` during the QRScore phase of a component, as long as
 * no node of `high` is removed (the caller shows that none is). Three kinds of nodes count, each at
 * most once:
 *
 * - pinned nodes: `selfPinned` ones, and by closure every node with a triangle on a minimum-support
 *   edge between two pinned nodes (`high` pinned from the start): none is ever removed;
 * - for each edge between two pinned nodes, at least `k − 2` of its triangles stay (the edge stays,
 *   and the phase keeps every edge in `k − 2` triangles), so that many of its third nodes live;
 * - each pinned node keeps at least `k − 1` live neighbours (it has a live edge, in `k − 2` triangles).
 *
 * The last two are requirements on sets of unpinned nodes; taken greedily, smallest set first, each
 * adds what it needs beyond the nodes of earlier sets it shares (at least that many of its own live).
 */
export function liveLowBound(
  prepared: PreparedTruss,
  pinning: Pinning,
  componentNodes: ArrayLike<number>,
  componentEdges: ArrayLike<number>,
  high: readonly number[],
): number {
  const pinned = pinning.selfPinned.slice();
  for (const v of high) pinned[v] = 1;
  closePinned(prepared, pinning, pinned, high.slice());
  const found = scratchOf(pinning);
  requirements(prepared, pinned, componentNodes, componentEdges, found);
  const { starts, needs, members } = found;
  // A requirement on as many nodes as it names pins them all: each must live while its pinned edge
  // or node does, and removing one would leave that edge or node short. A few rounds (each a pass
  // over the component's edges); fewer pins only weaken the bound.
  for (let round = 0; round < FORCED_ROUNDS; round++) {
    const queue: number[] = [];
    for (let i = 0; i < starts.length; i++) {
      const end = i + 1 < starts.length ? starts.data[i + 1]! : members.length;
      if (needs.data[i]! < end - starts.data[i]!) continue;
      for (let j = starts.data[i]!; j < end; j++) {
        const x = members.data[j]!;
        if (pinned[x] !== 1) {
          pinned[x] = 1;
          queue.push(x);
        }
      }
    }
    if (queue.length === 0) break;
    closePinned(prepared, pinning, pinned, queue);
    requirements(prepared, pinned, componentNodes, componentEdges, found);
  }
  let bound = 0;
  const isHigh = new Set(high);
  for (let i = 0; i < componentNodes.length; i++) {
    const v = componentNodes[i]!;
    if (pinned[v] === 1 && !isHigh.has(v)) bound++;
  }
  const start = starts.data;
  const need = needs.data;
  const member = members.data;
  const sizeOf = (i: number) => (i + 1 < starts.length ? start[i + 1]! : members.length) - start[i]!;
  // Two greedy orders (smallest set first; most needed per node first); each gives a valid bound.
  const ids = Array.from({ length: starts.length }, (_, i) => i);
  const bySize = ids.slice().sort((a, b) => sizeOf(a) - sizeOf(b) || a - b);
  const byDensity = ids
    .slice()
    .sort((a, b) => need[b]! * sizeOf(a) - need[a]! * sizeOf(b) || sizeOf(a) - sizeOf(b) || a - b);
  const used = new Uint8Array(pinned.length);
  let best = 0;
  for (const order of [bySize, byDensity]) {
    used.fill(0);
    let gained = 0;
    for (const i of order) {
      const end = start[i]! + sizeOf(i);
      let shared = 0;
      for (let j = start[i]!; j < end; j++) shared += used[member[j]!]!;
      gained += Math.max(0, need[i]! - shared);
      for (let j = start[i]!; j < end; j++) used[member[j]!] = 1;
    }
    best = Math.max(best, gained);
  }
  bound += best;
  return bound;
}

/** Pin, from the nodes of `queue` on, every node with a triangle on a minimum-support edge between two pinned nodes. */
function closePinned(prepared: PreparedTruss, pinning: Pinning, pinned: Uint8Array, queue: number[]): void {
  const { offsets, neighbors } = prepared;
  for (let head = 0; head < queue.length; head++) {
    const u = queue[head]!;
    for (let p = offsets[u]!; p < offsets[u + 1]!; p++) {
      const w = neighbors[p]!;
      if (pinned[w] !== 1 && pinnedBy(pinning, w, pinned)) {
        pinned[w] = 1;
        queue.push(w);
      }
    }
  }
}

/** The requirements {@link requirements} finds, on typed stacks kept per pinning and reused. */
interface Requirements {
  starts: IntStack;
  needs: IntStack;
  members: IntStack;
}

const scratch = new WeakMap<Pinning, Requirements>();

/** The requirement stacks of `pinning` (made on first use; each search's bound refills them). */
function scratchOf(pinning: Pinning): Requirements {
  let found = scratch.get(pinning);
  if (found === undefined) {
    found = { starts: new IntStack(), needs: new IntStack(), members: new IntStack() };
    scratch.set(pinning, found);
  }
  return found;
}

/**
 * What the pinned edges and nodes require of the unpinned nodes, into `out` (emptied first): for
 * each, the unpinned nodes it names (`members[starts[i]] ..`) and how many of them must live
 * (`needs[i]`, positive).
 */
function requirements(
  prepared: PreparedTruss,
  pinned: Uint8Array,
  componentNodes: ArrayLike<number>,
  componentEdges: ArrayLike<number>,
  out: Requirements,
): void {
  const { truss, offsets, neighbors } = prepared;
  const tri = prepared.triangles!;
  const { k, graph: g } = truss;
  const { starts, needs, members } = out;
  starts.clear();
  needs.clear();
  members.clear();
  // Keep the members pushed since `start` as one requirement of `need` nodes (none when nothing to need).
  const close = (start: number, need: number) => {
    if (need > 0 && members.length > start) {
      starts.push(start);
      needs.push(need);
    } else members.length = start;
  };
  for (let i = 0; i < componentEdges.length; i++) {
    const e = componentEdges[i]!;
    if (pinned[g.sources[e]!] !== 1 || pinned[g.targets[e]!] !== 1) continue;
    let pinnedThird = 0;
    for (let q = tri.offsets[e]!; q < tri.offsets[e + 1]!; q++) pinnedThird += pinned[tri.entries[3 * q]!]!;
    const start = members.length;
    for (let q = tri.offsets[e]!; q < tri.offsets[e + 1]!; q++) {
      const x = tri.entries[3 * q]!;
      if (pinned[x] !== 1) members.push(x);
    }
    close(start, k - 2 - pinnedThird);
  }
  for (let i = 0; i < componentNodes.length; i++) {
    const v = componentNodes[i]!;
    if (pinned[v] !== 1) continue;
    let pinnedNeighbours = 0;
    for (let p = offsets[v]!; p < offsets[v + 1]!; p++) pinnedNeighbours += pinned[neighbors[p]!]!;
    const start = members.length;
    for (let p = offsets[v]!; p < offsets[v + 1]!; p++) {
      if (pinned[neighbors[p]!] !== 1) members.push(neighbors[p]!);
    }
    close(start, k - 1 - pinnedNeighbours);
  }
}
