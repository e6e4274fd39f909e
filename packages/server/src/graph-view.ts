/**
 * The whole graph of an index, for browsing: read once per served version from what the index
 * keeps in memory (like documents.ts reads its documents), laid out as compressed adjacency lists,
 * and asked in bounded pieces — a page of the nodes that match a name, a page of a node's
 * neighbours — so that an index of 100k nodes answers as fast as a small one.
 *
 * What is read, by the shape of the index (no method is imported):
 * - a graphology graph under `graph.graph` (NodeRAG's heterograph): its nodes with their `type`
 *   (N R S A H O T) and `text`, H nodes being communities (their `community` attribute);
 * - an entity graph with `entities` and `neighbors(id)` under `graph` (E2GraphRAG);
 * - `graph.ids` / `labels` / `descriptions` / `edges` of `{a, b}` (SG-RAG);
 * - `entities` (`{id, name}`) and `relations` (`{source, target}`) (DA-RAG's knowledge graph), or
 *   the same as `skeleton.entities` / `skeleton.relationships` (KET-RAG).
 * An index with none of them (the passage baselines) has no graph.
 */
import { HttpError } from './errors.js';
import type { ServedIndex } from './indexes.js';
import type { GraphNode } from './schema-graph.js';

type Rec = Record<string, unknown>;

function isRecord(value: unknown): value is Rec {
  return typeof value === 'object' && value !== null;
}

/** A graph as the adapters read it: nodes by position, edges as pairs of positions. */
interface GraphData {
  ids: string[];
  labels: string[];
  /** The type of each node, or one for all. */
  types: string[] | string;
  /** Flat pairs `a, b` of node positions. */
  edges: number[];
  texts?: (i: number) => string | undefined;
  communities?: (string | undefined)[];
  communityType: string | null;
}

/** The label of a text node: its first line, cut to 80 characters. */
function shortLabel(text: string): string {
  const line = text.trim().split('\n')[0] ?? '';
  return line.length > 80 ? `${line.slice(0, 79)}…` : line;
}

interface GraphologyLike {
  order: number;
  forEachNode(fn: (key: string, attrs: Rec) => void): void;
  forEachEdge(fn: (edge: string, attrs: Rec, source: string, target: string) => void): void;
}

function fromGraphology(g: GraphologyLike): GraphData {
  const ids: string[] = [];
  const labels: string[] = [];
  const types: string[] = [];
  const texts: string[] = [];
  const communities: (string | undefined)[] = [];
  const at = new Map<string, number>();
  g.forEachNode((key, attrs) => {
    at.set(key, ids.length);
    ids.push(key);
    const text = typeof attrs.text === 'string' ? attrs.text : '';
    texts.push(text);
    labels.push(shortLabel(text) || key);
    types.push(typeof attrs.type === 'string' ? attrs.type : 'node');
    const c = attrs.community;
    communities.push(typeof c === 'string' || typeof c === 'number' ? String(c) : undefined);
  });
  const edges: number[] = [];
  g.forEachEdge((_edge, _attrs, source, target) => {
    const a = at.get(source);
    const b = at.get(target);
    if (a !== undefined && b !== undefined && a !== b) edges.push(a, b);
  });
  return {
    ids,
    labels,
    types,
    edges,
    texts: (i) => texts[i],
    communities,
    communityType: types.includes('H') ? 'H' : null,
  };
}

interface EntityGraphLike {
  entities: readonly string[];
  neighbors(id: number): { ids: ArrayLike<number> };
}

function fromEntityGraph(g: EntityGraphLike): GraphData {
  const ids = [...g.entities];
  const edges: number[] = [];
  for (let a = 0; a < ids.length; a++) {
    const { ids: next } = g.neighbors(a);
    for (let k = 0; k < next.length; k++) if (a < next[k]!) edges.push(a, next[k]!);
  }
  return { ids, labels: ids, types: 'entity', edges, communityType: null };
}

function fromLabelledGraph(g: Rec): GraphData {
  const ids = (g.ids as unknown[]).map(String);
  const labels = Array.isArray(g.labels) ? g.labels.map(String) : ids;
  const descriptions = Array.isArray(g.descriptions) ? g.descriptions : [];
  const edges: number[] = [];
  for (const e of g.edges as unknown[]) {
    if (isRecord(e) && Number.isInteger(e.a) && Number.isInteger(e.b) && e.a !== e.b)
      edges.push(e.a as number, e.b as number);
  }
  return {
    ids,
    labels,
    types: 'entity',
    edges,
    texts: (i) => (typeof descriptions[i] === 'string' ? (descriptions[i] as string) : undefined),
    communityType: null,
  };
}

function fromEntityList(entities: unknown[], relations: unknown[]): GraphData {
  const ids: string[] = [];
  const labels: string[] = [];
  const texts: string[] = [];
  const at = new Map<string, number>();
  for (const e of entities) {
    if (!isRecord(e) || typeof e.id !== 'string' || at.has(e.id)) continue;
    at.set(e.id, ids.length);
    ids.push(e.id);
    labels.push(typeof e.name === 'string' && e.name !== '' ? e.name : e.id);
    const d = Array.isArray(e.descriptions) ? e.descriptions.join('\n') : e.description;
    texts.push(typeof d === 'string' ? d : '');
  }
  const edges: number[] = [];
  for (const r of relations) {
    if (!isRecord(r)) continue;
    const a = at.get(r.source as string);
    const b = at.get(r.target as string);
    if (a !== undefined && b !== undefined && a !== b) edges.push(a, b);
  }
  return { ids, labels, types: 'entity', edges, texts: (i) => texts[i] || undefined, communityType: null };
}

/** The graph `index` keeps, by its shape (see the module comment), or undefined. */
function graphData(index: unknown): GraphData | undefined {
  if (!isRecord(index)) return undefined;
  const graph = index.graph;
  if (isRecord(graph)) {
    const inner = graph.graph;
    if (isRecord(inner) && typeof inner.forEachNode === 'function' && typeof inner.forEachEdge === 'function')
      return fromGraphology(inner as unknown as GraphologyLike);
    if (Array.isArray(graph.entities) && typeof graph.neighbors === 'function')
      return fromEntityGraph(graph as unknown as EntityGraphLike);
    if (Array.isArray(graph.ids) && Array.isArray(graph.edges)) return fromLabelledGraph(graph);
  }
  if (Array.isArray(index.entities) && Array.isArray(index.relations))
    return fromEntityList(index.entities, index.relations);
  const skeleton = index.skeleton;
  if (isRecord(skeleton) && Array.isArray(skeleton.entities) && Array.isArray(skeleton.relationships))
    return fromEntityList(skeleton.entities, skeleton.relationships);
  return undefined;
}

/** Neighbours of a node listed between two neighbours of a neighbourhood, at most this many per listed node. */
const LINKS_PER_NODE = 4;

/** An index's graph, ready to be searched and walked in bounded pieces. */
export class GraphView {
  readonly order: number;
  readonly size: number;
  readonly communityType: string | null;
  readonly #data: GraphData;
  readonly #at = new Map<string, number>();
  readonly #offsets: Uint32Array;
  readonly #targets: Uint32Array;
  readonly #folded: string[];
  #types: { type: string; count: number }[] | undefined;

  constructor(data: GraphData) {
    this.#data = data;
    this.communityType = data.communityType;
    const n = data.ids.length;
    this.order = n;
    for (const [i, id] of data.ids.entries()) this.#at.set(id, i);
    // Distinct undirected pairs, both directions, as CSR.
    const seen = new Set<number>();
    const pairs: number[] = [];
    for (let k = 0; k < data.edges.length; k += 2) {
      const a = Math.min(data.edges[k]!, data.edges[k + 1]!);
      const b = Math.max(data.edges[k]!, data.edges[k + 1]!);
      const key = a * n + b;
      if (seen.has(key)) continue;
      seen.add(key);
      pairs.push(a, b);
    }
    this.size = pairs.length / 2;
    const degree = new Uint32Array(n + 1);
    for (const v of pairs) degree[v + 1]!++;
    for (let i = 0; i < n; i++) degree[i + 1]! += degree[i]!;
    this.#offsets = degree;
    this.#targets = new Uint32Array(pairs.length);
    const fill = this.#offsets.slice(0, n);
    for (let k = 0; k < pairs.length; k += 2) {
      const a = pairs[k]!;
      const b = pairs[k + 1]!;
      this.#targets[fill[a]!++] = b;
      this.#targets[fill[b]!++] = a;
    }
    this.#folded = data.labels.map((l) => l.toLowerCase());
  }

  degree(i: number): number {
    return this.#offsets[i + 1]! - this.#offsets[i]!;
  }

  typeOf(i: number): string {
    const t = this.#data.types;
    return typeof t === 'string' ? t : (t[i] ?? 'node');
  }

  /** The node at position `i` as the routes list it. */
  node(i: number): GraphNode {
    const community = this.#data.communities?.[i];
    return {
      id: this.#data.ids[i]!,
      label: this.#data.labels[i]!,
      type: this.typeOf(i),
      degree: this.degree(i),
      ...(community !== undefined ? { community } : {}),
    };
  }

  /** Node types with their counts, most frequent first. */
  types(): { type: string; count: number }[] {
    if (!this.#types) {
      const counts = new Map<string, number>();
      for (let i = 0; i < this.order; i++) counts.set(this.typeOf(i), (counts.get(this.typeOf(i)) ?? 0) + 1);
      this.#types = [...counts].map(([type, count]) => ({ type, count })).sort((a, b) => b.count - a.count);
    }
    return this.#types.map((t) => ({ ...t }));
  }

  /**
   * The nodes whose label or id holds `query` (every node when it is blank), of `type` when given:
   * exact labels first, then labels starting with it, then the rest, each group by degree; `limit`
   * of them from `offset`, and how many matched.
   */
  search(query: string, type: string | undefined, offset: number, limit: number) {
    const q = query.trim().toLowerCase();
    const ranked: [rank: number, degree: number, i: number][] = [];
    for (let i = 0; i < this.order; i++) {
      if (type !== undefined && this.typeOf(i) !== type) continue;
      const label = this.#folded[i]!;
      let rank = 3;
      if (q !== '') {
        if (label === q) rank = 0;
        else if (label.startsWith(q)) rank = 1;
        else if (label.includes(q) || this.#data.ids[i]!.toLowerCase().includes(q)) rank = 2;
        else continue;
      }
      ranked.push([rank, this.degree(i), i]);
    }
    const page = topRanked(ranked, offset + limit).slice(offset);
    return { total: ranked.length, matches: page.map(([, , i]) => this.node(i)) };
  }

  /** The position of node `id`, or a 404 naming it. */
  find(id: string, index: string): number {
    const i = this.#at.get(id);
    if (i === undefined)
      throw new HttpError(
        404,
        'not_found',
        `No node ${JSON.stringify(id.slice(0, 200))} in the graph of index "${index}".`,
      );
    return i;
  }

  /**
   * Node `i`, `limit` of its neighbours from `offset` (best connected first), and the edges among
   * them: node to each, and between listed neighbours at most {@link LINKS_PER_NODE} per neighbour.
   */
  neighbourhood(i: number, offset: number, limit: number) {
    const from = this.#offsets[i]!;
    const to = this.#offsets[i + 1]!;
    const all: [number, number, number][] = [];
    for (let k = from; k < to; k++) {
      const j = this.#targets[k]!;
      all.push([0, this.degree(j), j]);
    }
    const listed = topRanked(all, offset + limit)
      .slice(offset)
      .map(([, , j]) => j);
    const shown = new Set(listed);
    const id = (j: number) => this.#data.ids[j]!;
    const edges: [string, string][] = listed.map((j) => [id(i), id(j)]);
    for (const j of listed) {
      let links = 0;
      // A neighbour's adjacency is read only as far as it takes to find its links (bounded work).
      const end = Math.min(this.#offsets[j + 1]!, this.#offsets[j]! + 64 * LINKS_PER_NODE);
      for (let k = this.#offsets[j]!; k < end && links < LINKS_PER_NODE; k++) {
        const m = this.#targets[k]!;
        if (m > j && shown.has(m)) {
          edges.push([id(j), id(m)]);
          links++;
        }
      }
    }
    const text = this.#data.texts?.(i);
    return {
      node: this.node(i),
      ...(text ? { text: text.length > 2000 ? `${text.slice(0, 1999)}…` : text } : {}),
      neighbours: listed.map((j) => this.node(j)),
      total: to - from,
      edges,
    };
  }
}

/** The first `n` of `ranked` by rank ascending, then degree descending, then position. */
function topRanked(ranked: [number, number, number][], n: number): [number, number, number][] {
  const order = (a: [number, number, number], b: [number, number, number]) =>
    a[0] - b[0] || b[1] - a[1] || a[2] - b[2];
  if (ranked.length <= n * 4) return ranked.sort(order).slice(0, n);
  // A bounded selection: keep the best n seen so far, sorted, and drop the rest.
  let best: [number, number, number][] = [];
  for (const r of ranked) {
    if (best.length === n && order(r, best[n - 1]!) >= 0) continue;
    best.push(r);
    if (best.length > 2 * n) best = best.sort(order).slice(0, n);
  }
  return best.sort(order).slice(0, n);
}

const VIEWS = new WeakMap<object, GraphView | null>();

/** The graph of a served version (read once and kept with it), or a 404 saying its method has none. */
export function graphOf(served: ServedIndex): GraphView {
  const key = (isRecord(served.index) ? served.index : served) as object;
  let view = VIEWS.get(key);
  if (view === undefined) {
    const data = graphData(served.index);
    view = data ? new GraphView(data) : null;
    VIEWS.set(key, view);
  }
  if (!view) {
    throw new HttpError(
      404,
      'no_graph',
      `Index "${served.name}" (${served.method.name}) keeps no graph to browse: its method retrieves passages only.`,
    );
  }
  return view;
}
