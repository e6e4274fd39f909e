import { mulberry32 } from '@grag/core/test';
import { UndirectedGraph } from 'graphology';

/**
 * A planted-partition graph: `groups` communities of `size` nodes; each pair inside a community is
 * joined with probability `pIn`, each pair across with `pOut`. Node keys are `g<group>-<i>`.
 */
export function plantedPartition(
  groups: number,
  size: number,
  pIn: number,
  pOut: number,
  seed: number,
): { graph: UndirectedGraph; truth: Map<string, number> } {
  const rand = mulberry32(seed);
  const graph = new UndirectedGraph();
  const truth = new Map<string, number>();
  const keys: string[] = [];
  for (let g = 0; g < groups; g++) {
    for (let i = 0; i < size; i++) {
      const key = `g${g}-${i}`;
      graph.addNode(key);
      truth.set(key, g);
      keys.push(key);
    }
  }
  for (let a = 0; a < keys.length; a++) {
    for (let b = a + 1; b < keys.length; b++) {
      const same = truth.get(keys[a]!) === truth.get(keys[b]!);
      if (rand() < (same ? pIn : pOut)) graph.addEdge(keys[a]!, keys[b]!);
    }
  }
  return { graph, truth };
}

/** An Erdős–Rényi graph G(n, p) with keys `'0'` … `'n-1'`. */
export function randomGraph(n: number, p: number, seed: number): UndirectedGraph {
  const rand = mulberry32(seed);
  const graph = new UndirectedGraph();
  for (let i = 0; i < n; i++) graph.addNode(String(i));
  for (let a = 0; a < n; a++) {
    for (let b = a + 1; b < n; b++) if (rand() < p) graph.addEdge(String(a), String(b));
  }
  return graph;
}

/** Whether the nodes of `members` induce a connected subgraph of `graph`. */
export function isConnected(graph: UndirectedGraph, members: readonly string[]): boolean {
  if (members.length <= 1) return true;
  const inside = new Set(members);
  const seen = new Set([members[0]!]);
  const stack = [members[0]!];
  while (stack.length > 0) {
    const v = stack.pop()!;
    graph.forEachNeighbor(v, (u) => {
      if (inside.has(u) && !seen.has(u)) {
        seen.add(u);
        stack.push(u);
      }
    });
  }
  return seen.size === inside.size;
}

/** Members of each community. */
export function groupsOf(communities: ReadonlyMap<string, number>): Map<number, string[]> {
  const out = new Map<number, string[]>();
  for (const [node, c] of communities) {
    const list = out.get(c) ?? [];
    list.push(node);
    out.set(c, list);
  }
  return out;
}
