import { type Chunk, type GraphExtraction, InvalidArgumentError, type SourceLocation } from '@grag/core';
import { KnowledgeGraphBuilder } from '@grag/core/graph';
import { stringTable, uniqueLocations } from '@grag/core/kit';

/** One fact of a knowledge graph: `head --relation--> tail`. */
export interface Triple {
  head: string;
  relation: string;
  tail: string;
}

/** An undirected data edge and every directed fact behind it. */
export interface SgEdge {
  /** Node indexes, `a < b`. */
  a: number;
  b: number;
  /** Facts on this pair: relation text and whether it reads `a --relation--> b` (`forward`). */
  facts: { relation: string; forward: boolean }[];
  /** Chunks the facts were extracted from (empty for loaded triples). */
  chunkIds: string[];
  /** Documents the facts come from (empty for loaded triples). */
  docIds: string[];
  /**
   * The distinct source-file locations of those chunks (pages, sections, rows), when their
   * documents were loaded with segments; absent otherwise (loaded triples, indexes saved before).
   */
  locations?: SourceLocation[];
}

/**
 * The data graph SG-RAG indexes: nodes with a label (the text that is embedded and shown) and an
 * optional description, undirected simple edges carrying their directed facts.
 */
export interface SgGraph {
  /** Node ids (entity ids), index = node number. */
  ids: string[];
  /** Node labels ℓ(v): the entity text. */
  labels: string[];
  /** Node descriptions ξ(v) (may be empty). */
  descriptions: string[];
  edges: SgEdge[];
}

/** Adjacency of an {@link SgGraph}: for each node, its neighbours and the edge index to each. */
export interface Adjacency {
  neighbours: number[][];
  edgeOf: Map<number, number>[];
}

/** Key of an undirected node pair. */
export function pairKey(a: number, b: number, n: number): number {
  return a < b ? a * n + b : b * n + a;
}

/** Neighbour lists and pair → edge index maps of a graph. */
export function adjacencyOf(graph: SgGraph): Adjacency {
  const neighbours: number[][] = graph.ids.map(() => []);
  const edgeOf: Map<number, number>[] = graph.ids.map(() => new Map());
  graph.edges.forEach((e, i) => {
    neighbours[e.a]!.push(e.b);
    neighbours[e.b]!.push(e.a);
    edgeOf[e.a]!.set(e.b, i);
    edgeOf[e.b]!.set(e.a, i);
  });
  return { neighbours, edgeOf };
}

/**
 * Exact-label lookup of entity normalization: each node label, trimmed and lower-cased, → the first
 * node that has it.
 */
export function exactLabelIndex(graph: SgGraph): Map<string, number> {
  const exact = new Map<string, number>();
  graph.labels.forEach((l, i) => {
    const key = l.trim().toLowerCase();
    if (!exact.has(key)) exact.set(key, i);
  });
  return exact;
}

/**
 * Builds an {@link SgGraph} from triples. Self-loops are skipped and counted; repeated pairs merge
 * into one undirected edge carrying every fact.
 */
export function graphFromTriples(
  triples: readonly Triple[],
  entityText: ReadonlyMap<string, string> = new Map(),
  relationText: ReadonlyMap<string, string> = new Map(),
): { graph: SgGraph; skippedSelfLoops: number } {
  const { strings: ids, ref: node } = stringTable();
  const edges: SgEdge[] = [];
  const byPair = new Map<string, number>();
  let skippedSelfLoops = 0;
  for (const t of triples) {
    if (typeof t?.head !== 'string' || typeof t.tail !== 'string' || typeof t.relation !== 'string') {
      throw new InvalidArgumentError(
        'triples',
        'sg-rag build: every triple needs string `head`, `relation` and `tail`.',
      );
    }
    if (t.head === t.tail) {
      skippedSelfLoops++;
      continue;
    }
    const h = node(t.head);
    const tl = node(t.tail);
    const a = Math.min(h, tl);
    const b = Math.max(h, tl);
    const key = `${a} ${b}`;
    let e = byPair.get(key);
    if (e === undefined) {
      e = edges.length;
      byPair.set(key, e);
      edges.push({ a, b, facts: [], chunkIds: [], docIds: [] });
    }
    const relation = relationText.get(t.relation) ?? t.relation;
    const facts = edges[e]!.facts;
    if (!facts.some((f) => f.relation === relation && f.forward === (h === a))) {
      facts.push({ relation, forward: h === a });
    }
  }
  const labels = ids.map((id) => entityText.get(id) ?? id);
  return { graph: { ids, labels, descriptions: ids.map(() => ''), edges }, skippedSelfLoops };
}

/**
 * The data graph of per-chunk extractions (in chunk order), merged with core's
 * `KnowledgeGraphBuilder`; relation descriptions become the edge facts (`'related'` when a relation
 * has none), and each edge keeps the chunks, documents and chunk locations its facts come from.
 * Self-loops are dropped; `skipped` counts the records the builder skipped.
 */
export function graphFromExtractions(
  chunks: readonly Pick<Chunk, 'id' | 'docId' | 'location'>[],
  extractions: readonly Pick<GraphExtraction, 'entities' | 'relations'>[],
): { graph: SgGraph; skipped: number } {
  const builder = new KnowledgeGraphBuilder();
  chunks.forEach((chunk, i) => {
    builder.addExtraction(extractions[i]!, { chunkId: chunk.id, docId: chunk.docId });
  });
  const kg = builder.build();
  const locationOf = new Map(chunks.filter((c) => c.location).map((c) => [c.id, c.location!]));
  const ids = [...kg.entities.keys()];
  const index = new Map(ids.map((id, i) => [id, i]));
  const edges: SgEdge[] = [];
  for (const r of kg.relations.values()) {
    const s = index.get(r.source);
    const t = index.get(r.target);
    if (s === undefined || t === undefined || s === t) continue;
    const a = Math.min(s, t);
    const b = Math.max(s, t);
    const descriptions = r.descriptions.length > 0 ? r.descriptions : ['related'];
    const edge: SgEdge = {
      a,
      b,
      facts: descriptions.map((relation) => ({ relation, forward: s === a })),
      chunkIds: [...r.chunkIds],
      docIds: [...new Set(r.chunkIds.map((c) => kg.chunkDocs.get(c)).filter((d): d is string => !!d))],
    };
    const locations = uniqueLocations(r.chunkIds.map((c) => locationOf.get(c)));
    if (locations.length > 0) edge.locations = locations;
    edges.push(edge);
  }
  const entities = [...kg.entities.values()];
  return {
    graph: {
      ids,
      labels: entities.map((e) => e.name),
      descriptions: entities.map((e) => e.descriptions.join(' ')),
      edges,
    },
    skipped: kg.skipped.length,
  };
}

/** The sentence of one fact, as in SG-RAG's relation paragraph (appendix I). */
export function factSentence(head: string, relation: string, tail: string): string {
  return `${head} is related to ${tail} via: ${relation}.`;
}

/** Every fact sentence of an edge. */
export function edgeSentences(graph: SgGraph, edge: SgEdge): string[] {
  const a = graph.labels[edge.a]!;
  const b = graph.labels[edge.b]!;
  return edge.facts.map((f) => (f.forward ? factSentence(a, f.relation, b) : factSentence(b, f.relation, a)));
}

/** Result of {@link enumeratePaths}. */
export interface PathEnumeration {
  /** Paths of `length + 1` node indexes each, flattened. */
  nodes: Int32Array;
  /** Number of paths. */
  count: number;
  /** Middle nodes skipped because their degree exceeds `maxMiddleDegree` (length 2 only). */
  skippedMiddles: number;
}

/**
 * All simple paths of `length` edges (1 or 2), each once: a path and its reverse are the same path,
 * kept in the orientation whose first node index is smaller (SG-RAG §4.2 "reversed duplicates
 * removed"). For length 2, middle nodes of degree above `maxMiddleDegree` are skipped and counted
 * (their deg² paths would dominate the index).
 */
export function enumeratePaths(
  graph: SgGraph,
  adjacency: Adjacency,
  length: 1 | 2,
  maxMiddleDegree = Number.POSITIVE_INFINITY,
): PathEnumeration {
  if (length === 1) {
    const nodes = new Int32Array(graph.edges.length * 2);
    graph.edges.forEach((e, i) => {
      nodes[2 * i] = e.a;
      nodes[2 * i + 1] = e.b;
    });
    return { nodes, count: graph.edges.length, skippedMiddles: 0 };
  }
  if (length !== 2) {
    throw new InvalidArgumentError('pathLength', `sg-rag: pathLength must be 1 or 2, got ${length}.`);
  }
  const out: number[] = [];
  let skippedMiddles = 0;
  adjacency.neighbours.forEach((ns, m) => {
    if (ns.length > maxMiddleDegree) {
      skippedMiddles++;
      return;
    }
    for (let i = 0; i < ns.length; i++) {
      for (let j = i + 1; j < ns.length; j++) {
        const x = ns[i]!;
        const y = ns[j]!;
        out.push(Math.min(x, y), m, Math.max(x, y));
      }
    }
  });
  return { nodes: Int32Array.from(out), count: out.length / 3, skippedMiddles };
}
