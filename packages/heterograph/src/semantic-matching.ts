/**
 * Semantic matching within community (NodeRAG §2.3, appendix C.3, Algorithm 2): k-means over the
 * embeddings of the S, A and H nodes, and an edge between members and high-level elements that share
 * a community and a cluster.
 */
import { InvalidArgumentError } from '@grag/core';
import { KMEANS_DEFAULTS, type KMeansOptions, kMeans } from './kmeans.js';
import { kMeansOffThread } from './kmeans-thread.js';

/** A node taking part in {@link semanticMatching}. */
export interface MatchingNode {
  id: string;
  /** `'H'` for a high-level element; `'S'` or `'A'` for the nodes it may be matched with. */
  type: 'S' | 'A' | 'H';
  /** Community of the node (for an H node, the community it summarizes). */
  community: number | string;
  vector: ArrayLike<number>;
}

/** Options of {@link semanticMatching}. */
export interface SemanticMatchingOptions extends KMeansOptions {
  /** Clusters; `undefined` uses K = ⌈√n⌉ (NodeRAG appendix C.3). @default undefined */
  k: number | undefined;
}

/** Defaults of {@link semanticMatching}. */
export const SEMANTIC_MATCHING_DEFAULTS: SemanticMatchingOptions = { ...KMEANS_DEFAULTS, k: undefined };

/** What {@link semanticMatching} returns. */
export interface SemanticMatching {
  /** Semantic edges e_h as `[member (S or A), high-level element (H)]`. */
  edges: [string, string][];
  /** Cluster of every node. */
  clusters: Map<string, number>;
  /** Clusters used. */
  k: number;
}

/**
 * Semantic matching within community (NodeRAG §2.3 and appendix C.3, Algorithm 2): k-means on the
 * embeddings of the S, A and H nodes with K = ⌈√|V_{S,A,H}|⌉, then an edge between an S or A node and
 * an H node whenever both are in the same community and the same cluster.
 *
 * @example
 * const { edges } = semanticMatching(nodes, { seed: 7 });
 * for (const [member, h] of edges) hetero.connect(member, h, 'h');
 */
export function semanticMatching(
  nodes: readonly MatchingNode[],
  options: Partial<SemanticMatchingOptions> = {},
): SemanticMatching {
  const o = { ...SEMANTIC_MATCHING_DEFAULTS, ...options };
  if (nodes.length === 0) return { edges: [], clusters: new Map(), k: 0 };
  const k = Math.min(o.k ?? Math.ceil(Math.sqrt(nodes.length)), nodes.length);
  checkTypes(nodes);
  const { labels } = kMeans(
    nodes.map((node) => node.vector),
    k,
    o,
  );
  return matchByClusters(nodes, labels, k);
}

/**
 * {@link semanticMatching} with its k-means on a worker thread (see `kMeansOffThread`), so the
 * caller's thread is free meanwhile: the same edges, clusters and K.
 * @throws InvalidArgumentError as {@link semanticMatching} does (synchronously).
 */
export function semanticMatchingOffThread(
  nodes: readonly MatchingNode[],
  options: Partial<SemanticMatchingOptions> = {},
): Promise<SemanticMatching> {
  const o = { ...SEMANTIC_MATCHING_DEFAULTS, ...options };
  if (nodes.length === 0) return Promise.resolve({ edges: [], clusters: new Map(), k: 0 });
  const k = Math.min(o.k ?? Math.ceil(Math.sqrt(nodes.length)), nodes.length);
  checkTypes(nodes);
  const { k: _, ...kMeansOptions } = o;
  return kMeansOffThread(
    nodes.map((node) => node.vector),
    k,
    kMeansOptions,
  ).then(({ labels }) => matchByClusters(nodes, labels, k));
}

function checkTypes(nodes: readonly MatchingNode[]): void {
  for (const node of nodes) {
    if (node.type !== 'H' && node.type !== 'S' && node.type !== 'A') {
      throw new InvalidArgumentError(
        'nodes',
        `semanticMatching: node "${node.id}" has type ${String(node.type)}; only S, A and H nodes take part.`,
      );
    }
  }
}

/** The edges of Algorithm 2 given the cluster of every node (`labels`, in node order). */
function matchByClusters(nodes: readonly MatchingNode[], labels: Int32Array, k: number): SemanticMatching {
  const clusters = new Map<string, number>();
  // Group H nodes and members by (community, cluster).
  const groups = new Map<string, { members: string[]; high: string[] }>();
  nodes.forEach((node, i) => {
    clusters.set(node.id, labels[i]!);
    const key = `${typeof node.community}:${String(node.community)}\u0000${labels[i]}`;
    let group = groups.get(key);
    if (!group) {
      group = { members: [], high: [] };
      groups.set(key, group);
    }
    if (node.type === 'H') group.high.push(node.id);
    else group.members.push(node.id);
  });
  const edges: [string, string][] = [];
  for (const { members, high } of groups.values()) {
    for (const h of high) for (const member of members) edges.push([member, h]);
  }
  return { edges, clusters, k };
}
