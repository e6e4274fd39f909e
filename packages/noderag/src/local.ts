/**
 * The local form of NodeRAG's two graph-wide G2/G3 choices for an update: which entities are
 * important, and which community each node is in. A build makes both over the whole graph; an
 * update (unless `full`) keeps the previous choice for every node the change does not reach, so
 * attribute summaries and community descriptions are asked again only where the corpus changed.
 */
import { type HeteroGraph, type LeidenResult, leidenUpdate } from '@grag/heterograph';
import { attributeMaterial } from './elements.js';

/** What an update keeps of the index it changes, to place the changed graph's nodes. */
export interface PreviousStructures {
  /** The index's graph. */
  graph: HeteroGraph;
  /** Its important entities. */
  important: readonly string[];
  /** The community of every node Leiden partitioned, by key of `graph`. */
  communities: readonly (readonly [key: string, community: number])[];
}

/**
 * The identity a node keeps from one index of a changing corpus to the next: its key, except for a
 * semantic unit, whose key is its position in the corpus and which is known by its text.
 */
function identity(graph: HeteroGraph, key: string): string {
  return graph.typeOf(key) === 'S' ? `S\u0000${graph.node(key).text}` : key;
}

const sameList = (a: readonly string[], b: readonly string[]) =>
  a.length === b.length && a.every((x, i) => x === b[i]);

/**
 * Important entities of `graph` after a change: an entity whose attribute material (the texts of its
 * semantic units and relationships, in order) is what it was keeps its previous status; an entity
 * that is new or whose material changed takes the status `computed` (the selection over the whole
 * changed graph) gives it. Candidates only, in graph order, as `importantEntities` lists them.
 */
export function localImportant(
  previous: PreviousStructures,
  graph: HeteroGraph,
  computed: readonly string[],
  isCandidate: (key: string) => boolean,
): string[] {
  const was = new Set(previous.important);
  const now = new Set(computed);
  const old = previous.graph;
  const touched = (entity: string) =>
    old.typeOf(entity) !== 'N' || !sameList(attributeMaterial(old, entity), attributeMaterial(graph, entity));
  return graph
    .nodes('N')
    .filter((entity) => isCandidate(entity) && (touched(entity) ? now.has(entity) : was.has(entity)));
}

/**
 * Communities of `graph` (S, N, R and A nodes, before H and T are laid) from the previous ones by
 * `leidenUpdate`: nodes the previous graph had keep their community unless the local moving that
 * starts at the change moves them. The moving starts at the new nodes, their neighbours, the nodes
 * whose weight changed and the nodes that were linked to a removed node.
 */
export function localCommunities(
  previous: PreviousStructures,
  graph: HeteroGraph,
  options: { seed: number; resolution: number },
): LeidenResult {
  const old = previous.graph;
  const before = new Map<string, number>();
  const oldKey = new Map<string, string>();
  for (const [key, community] of previous.communities) {
    if (!old.hasNode(key)) continue;
    before.set(identity(old, key), community);
    oldKey.set(identity(old, key), key);
  }
  const newKey = new Map(graph.nodes().map((key) => [identity(graph, key), key]));
  const start = new Map<string, number>();
  const affected = new Set<string>();
  for (const [id, key] of newKey) {
    const community = before.get(id);
    if (community === undefined) {
      affected.add(key);
      for (const neighbor of graph.neighbors(key)) affected.add(neighbor);
      continue;
    }
    start.set(key, community);
    if (old.node(oldKey.get(id)!).weight !== graph.node(key).weight) affected.add(key);
  }
  for (const [id, key] of oldKey) {
    if (newKey.has(id)) continue;
    for (const neighbor of old.neighbors(key)) {
      const now = newKey.get(identity(old, neighbor));
      if (now !== undefined) affected.add(now);
    }
  }
  return leidenUpdate(graph.graph, start, affected, options);
}
