/**
 * The context of a NodeRAG retrieval: the best-scored retrievable nodes that fit the token budget,
 * written in groups of a fixed type order, each with a heading.
 */
import type { Chunk, Retrieval, RetrievedItem, SourceLocation, Tokenizer } from '@grag/core';
import { packContext, uniqueLocations, withLocations } from '@grag/core/kit';
import { type HeteroGraph, NODE_TYPES, type NodeType, RETRIEVABLE_TYPES } from '@grag/heterograph';

/** Order of the node-type groups in the context. */
export const CONTEXT_TYPE_ORDER: readonly NodeType[] = ['H', 'A', 'S', 'R', 'T'];

/** Heading written before each node-type group of the context. */
const GROUP_HEADINGS: Record<NodeType, string> = {
  N: 'Entities',
  O: 'Overviews',
  H: 'High-level elements',
  A: 'Entity attributes',
  S: 'Semantic units',
  R: 'Relationships',
  T: 'Source text',
};

/** Tokens reserved per group heading and per item separator when choosing what fits the budget. */
const HEADING_TOKENS = 8;
const SEPARATOR_TOKENS = 2;

/** A node ranked by retrieval. */
export interface RankedNode {
  key: string;
  type: NodeType;
  score: number;
}

/**
 * The keys of the nodes chosen by score (highest first; ties in input order) while their cost fits
 * `budget`: a node costs its `tokens` plus `separatorTokens`, plus `headingTokens` when it is the
 * first of its type. A node too large for what is left is passed over and smaller ones after it may
 * still fit; the best node is always chosen.
 */
export function chooseNodes(input: {
  nodes: readonly RankedNode[];
  budget: number;
  tokens: (node: RankedNode) => number;
  headingTokens: number;
  separatorTokens: number;
}): Set<string> {
  const chosen = new Set<string>();
  const groups = new Set<NodeType>();
  let used = 0;
  for (const node of [...input.nodes].sort((a, b) => b.score - a.score)) {
    const cost =
      input.tokens(node) + input.separatorTokens + (groups.has(node.type) ? 0 : input.headingTokens);
    if (used + cost > input.budget && chosen.size > 0) continue;
    chosen.add(node.key);
    groups.add(node.type);
    used += cost;
  }
  return chosen;
}

/** The chosen nodes grouped by type in `order`, by score (highest first) within each group. */
export function orderByType(
  nodes: readonly RankedNode[],
  chosen: ReadonlySet<string>,
  order: readonly NodeType[],
): RankedNode[] {
  return order.flatMap((type) =>
    nodes.filter((n) => n.type === type && chosen.has(n.key)).sort((a, b) => b.score - a.score),
  );
}

/** The nodes `keys` and the edges of `graph` among them (each once, smaller key first). */
export function subgraphOf(
  graph: HeteroGraph,
  keys: readonly string[],
): { nodes: string[]; edges: [string, string][] } {
  const inside = new Set(keys);
  const edges: [string, string][] = [];
  for (const key of inside) {
    for (const other of graph.neighbors(key)) {
      if (key < other && inside.has(other)) edges.push([key, other]);
    }
  }
  return { nodes: [...inside], edges };
}

/** How often each value occurs. */
export function countBy(values: readonly string[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const v of values) out[v] = (out[v] ?? 0) + 1;
  return out;
}

/** The location of each chunk of `chunks` that has one (documents loaded with segments). */
export function chunkLocations(chunks: readonly Chunk[]): ReadonlyMap<string, SourceLocation> {
  const out = new Map<string, SourceLocation>();
  for (const chunk of chunks) if (chunk.location) out.set(chunk.id, chunk.location);
  return out;
}

/** Tokens of each node's `[key] text` by graph, for one tokenizer (node texts do not change). */
const tokenCounts = new WeakMap<HeteroGraph, { tokenizer: Tokenizer; counts: Map<string, number> }>();

function nodeTokens(graph: HeteroGraph, tokenizer: Tokenizer, key: string): number {
  let cache = tokenCounts.get(graph);
  if (!cache || cache.tokenizer !== tokenizer) {
    cache = { tokenizer, counts: new Map() };
    tokenCounts.set(graph, cache);
  }
  let count = cache.counts.get(key);
  if (count === undefined) {
    count = tokenizer.count(`[${key}] ${graph.node(key).text}`);
    cache.counts.set(key, count);
  }
  return count;
}

/** The distinct locations of each node's chunks, by the chunk-location map of an index (they do not change). */
const nodeLocations = new WeakMap<
  ReadonlyMap<string, SourceLocation>,
  Map<string, readonly SourceLocation[]>
>();

/**
 * The provenance of a node: its chunks, documents and the distinct locations of its chunks (as
 * `withLocations` makes it; the locations are found once per node and index).
 */
function provenanceOf(
  key: string,
  attrs: { chunks: readonly string[]; docs: readonly string[] },
  locations: ReadonlyMap<string, SourceLocation> | undefined,
): RetrievedItem['source'] {
  const source = { chunkIds: [...attrs.chunks], docIds: [...attrs.docs] };
  if (!locations) return withLocations(source, []);
  let byNode = nodeLocations.get(locations);
  if (!byNode) {
    byNode = new Map();
    nodeLocations.set(locations, byNode);
  }
  let unique = byNode.get(key);
  if (!unique) {
    unique = uniqueLocations(attrs.chunks.map((id) => locations.get(id)));
    byNode.set(key, unique);
  }
  return unique.length > 0 ? { ...source, locations: [...unique] } : source;
}

/**
 * The {@link Retrieval} of ranked nodes: the retrievable ones (T, S, A, H, R) chosen by
 * {@link chooseNodes}, written grouped by type ({@link CONTEXT_TYPE_ORDER}) under a heading each and
 * packed into `budget`; `subgraph` when `subgraphNodes` is given. Each item's provenance is its
 * node's chunks and documents, with the locations of those chunks found in `locations`.
 */
export function nodeRetrieval(input: {
  graph: HeteroGraph;
  tokenizer: Tokenizer;
  nodes: readonly RankedNode[];
  budget: number;
  trace: Record<string, unknown>;
  subgraphNodes?: readonly string[];
  /** Chunk id → its location ({@link chunkLocations}). @default none */
  locations?: ReadonlyMap<string, SourceLocation>;
}): Retrieval {
  const { graph, tokenizer, budget } = input;
  const retrievable = input.nodes.filter((n) => RETRIEVABLE_TYPES.includes(n.type));
  const chosen = chooseNodes({
    nodes: retrievable,
    budget,
    tokens: (node) => nodeTokens(graph, tokenizer, node.key),
    headingTokens: HEADING_TOKENS,
    separatorTokens: SEPARATOR_TOKENS,
  });
  const ordered: RetrievedItem[] = orderByType(retrievable, chosen, CONTEXT_TYPE_ORDER).map((node) => {
    const attrs = graph.node(node.key);
    return {
      id: node.key,
      kind: NODE_TYPES[node.type].kind,
      text: attrs.text,
      score: node.score,
      source: provenanceOf(node.key, attrs, input.locations),
    };
  });
  let previous: string | undefined;
  const packed = packContext(ordered, budget, {
    tokenizer,
    render: (item) => {
      const type = item.id.slice(0, 1) as NodeType;
      const heading = type !== previous ? `## ${GROUP_HEADINGS[type]}\n` : '';
      previous = type;
      return `${heading}[${item.id}] ${item.text}`;
    },
  });
  const retrieval: Retrieval = {
    context: packed.context,
    items: packed.items,
    tokens: packed.tokens,
    trace: {
      ...input.trace,
      types: countBy(packed.items.map((i) => i.id.slice(0, 1))),
      ranked: retrievable.length,
      packed: packed.items.length,
      dropped: retrievable.length - packed.items.length,
      truncated: packed.truncated,
    },
  };
  if (input.subgraphNodes) retrieval.subgraph = subgraphOf(graph, input.subgraphNodes);
  return retrieval;
}
