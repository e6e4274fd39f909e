import { InvalidArgumentError } from '@grag/core';
import { type Csr, toCsr } from '@grag/core/graph';
import { UndirectedGraph } from 'graphology';
import type { SerializedGraph } from 'graphology-types';
import {
  arraysCsr,
  arraysGraph,
  checkArrays,
  graphArrays,
  type HeteroGraphArrays,
  nodeAttributes,
} from './compact.js';
import {
  ALL_NODE_TYPES,
  type EdgeKind,
  type HeteroEdgeAttributes,
  type HeteroNodeAttributes,
  isNodeType,
  type NodeType,
} from './types.js';

/** What {@link HeteroGraph.addNode} takes besides the key and type. */
export interface NodeInput {
  text: string;
  /** Added to the weight of an existing node. @default 1 */
  weight?: number;
  chunks?: Iterable<string>;
  docs?: Iterable<string>;
  /** Extra attributes (kept from the first call that creates the node). */
  extra?: Record<string, unknown>;
}

/** Node and edge counts of a heterograph (NodeRAG Table 4). */
export interface HeteroGraphStats {
  /** Nodes per type. */
  nodes: Record<NodeType, number>;
  totalNodes: number;
  /** Edges laid by the indexing steps (before HNSW). */
  structuralEdges: number;
  /** Distinct node pairs joined by an HNSW semantic edge. */
  hnswEdges: number;
  /** HNSW pairs that were already joined by a structural edge (their weight went up by 1). */
  hnswOverlap: number;
  /** Edges of the merged graph: `structuralEdges + hnswEdges - hnswOverlap`. */
  totalEdges: number;
}

/**
 * NodeRAG's heterograph G = (V, E, Ψ) (NodeRAG §2.1) on a graphology `UndirectedGraph`: every node
 * carries its type Ψ(v) ∈ {N, R, S, A, H, O, T}, its content and its provenance; every edge its kind
 * and weight. Adding an edge that exists raises its weight by 1 (the default weight of an edge is 1);
 * HNSW semantic edges are counted apart so the "without HNSW" ablation can subtract them.
 *
 * @example
 * const g = new HeteroGraph();
 * g.addNode('N:hinton', 'N', { text: 'Hinton' });
 * g.addNode('S:0', 'S', { text: 'Hinton was awarded the Nobel Prize for inventing backpropagation.' });
 * g.connect('S:0', 'N:hinton', 'd');
 */
export class HeteroGraph {
  #graph: UndirectedGraph<HeteroNodeAttributes, HeteroEdgeAttributes> | undefined;
  /** Until the graph is first changed or read as graphology: its arrays, key index and the attribute objects handed out. */
  #compact:
    | {
        arrays: HeteroGraphArrays;
        index: Map<string, number>;
        attrs: (HeteroNodeAttributes | undefined)[];
        adjacency: Csr;
      }
    | undefined;
  /** The members of the provenance lists {@link HeteroGraph.addNode} merged into, while their length matches. */
  #provenance = new WeakMap<string[], Set<string>>();

  constructor(graph?: UndirectedGraph<HeteroNodeAttributes, HeteroEdgeAttributes>) {
    this.#graph = graph ?? new UndirectedGraph<HeteroNodeAttributes, HeteroEdgeAttributes>();
  }

  /**
   * The heterograph of `arrays` ({@link HeteroGraph.toArrays}' output), read from them as they
   * are: the graphology graph is made on the first read of {@link HeteroGraph.graph} or change, so
   * a loaded graph that is only searched never builds it.
   *
   * @throws InvalidArgumentError when the arrays do not describe a heterograph.
   */
  static fromArrays(arrays: HeteroGraphArrays): HeteroGraph {
    const { index, adjacency } = checkArrays(arrays);
    const hetero = new HeteroGraph();
    hetero.#graph = undefined;
    hetero.#compact = { arrays, index, attrs: new Array(arrays.keys.length), adjacency };
    return hetero;
  }

  /** The nodes and edges as flat arrays, in iteration order (see {@link HeteroGraphArrays}). */
  toArrays(): HeteroGraphArrays {
    return this.#compact && !this.#compact.attrs.some((a) => a !== undefined)
      ? this.#compact.arrays
      : graphArrays(this.graph);
  }

  /** The underlying graphology graph (read it freely; change it through this class). */
  get graph(): UndirectedGraph<HeteroNodeAttributes, HeteroEdgeAttributes> {
    if (!this.#graph) {
      const { arrays, attrs } = this.#compact!;
      this.#graph = arraysGraph(arrays, (i) => attrs[i] ?? nodeAttributes(arrays, i));
      this.#compact = undefined;
    }
    return this.#graph;
  }

  /** Number of nodes. */
  get order(): number {
    return this.#compact ? this.#compact.arrays.keys.length : this.graph.order;
  }

  /** Number of edges. */
  get size(): number {
    return this.#compact ? this.#compact.arrays.edgeA.length : this.graph.size;
  }

  /**
   * The CSR of the graph for the walk, as `toCsr(graph, { weightAttribute })` makes it ('weight':
   * with HNSW edges, 'baseWeight': without), from the arrays when the graph was loaded from them.
   */
  csr(weightAttribute: 'weight' | 'baseWeight'): Csr {
    if (this.#compact) return arraysCsr(this.#compact.arrays, this.#compact.index, weightAttribute);
    return toCsr(this.graph, { weightAttribute });
  }

  /**
   * Add a node, or merge into an existing one of the same type: its weight grows by `weight` and
   * the provenance is united. The text of an existing node is kept.
   *
   * @throws InvalidArgumentError for an unknown type, or a key that exists with another type.
   */
  addNode(key: string, type: NodeType, input: NodeInput): string {
    if (!isNodeType(type)) {
      throw new InvalidArgumentError(
        'type',
        `HeteroGraph.addNode: unknown node type ${JSON.stringify(type)}; use one of ${ALL_NODE_TYPES.join(', ')}.`,
      );
    }
    const weight = input.weight ?? 1;
    if (this.graph.hasNode(key)) {
      const attrs = this.graph.getNodeAttributes(key);
      if (attrs.type !== type) {
        throw new InvalidArgumentError(
          'key',
          `HeteroGraph.addNode: node "${key}" exists with type ${attrs.type}, not ${type}; use distinct keys per type.`,
        );
      }
      attrs.weight += weight;
      this.#mergeInto(attrs.chunks, input.chunks);
      this.#mergeInto(attrs.docs, input.docs);
      return key;
    }
    this.graph.addNode(key, {
      ...input.extra,
      type,
      text: input.text,
      weight,
      chunks: unique(input.chunks),
      docs: unique(input.docs),
    });
    return key;
  }

  hasNode(key: string): boolean {
    return this.#compact ? this.#compact.index.has(key) : this.graph.hasNode(key);
  }

  /** Ψ(v): the type of `key`, or `undefined` when there is no such node. */
  typeOf(key: string): NodeType | undefined {
    if (this.#compact) {
      const i = this.#compact.index.get(key);
      return i === undefined ? undefined : ALL_NODE_TYPES[this.#compact.arrays.types[i]!];
    }
    return this.graph.hasNode(key) ? this.graph.getNodeAttribute(key, 'type') : undefined;
  }

  /** The text of `key`, or `undefined` when there is no such node (reads no attribute object). */
  textOf(key: string): string | undefined {
    if (this.#compact) {
      const i = this.#compact.index.get(key);
      return i === undefined ? undefined : (this.#compact.attrs[i]?.text ?? this.#compact.arrays.texts[i]);
    }
    return this.graph.hasNode(key) ? this.graph.getNodeAttribute(key, 'text') : undefined;
  }

  /** The attributes of `key` (the live object). @throws InvalidArgumentError when there is no such node. */
  node(key: string): HeteroNodeAttributes {
    if (this.#compact) {
      const { arrays, index, attrs } = this.#compact;
      const i = index.get(key);
      if (i !== undefined) {
        attrs[i] ??= nodeAttributes(arrays, i);
        return attrs[i];
      }
    }
    if (!this.graph.hasNode(key)) {
      throw new InvalidArgumentError('key', `HeteroGraph.node: no node "${key}"; check the key.`);
    }
    return this.graph.getNodeAttributes(key);
  }

  /**
   * Join two nodes with a structural edge of `kind`, or raise the weight of the edge between them
   * by `weight` when there is one.
   *
   * @throws InvalidArgumentError when a node is missing or the two keys are equal.
   */
  connect(a: string, b: string, kind: Exclude<EdgeKind, 'hnsw'>, weight = 1): void {
    this.#checkEndpoints('connect', a, b);
    const edge = this.graph.edge(a, b);
    if (edge !== undefined) {
      const attrs = this.graph.getEdgeAttributes(edge);
      attrs.weight += weight;
      attrs.baseWeight += weight;
      return;
    }
    this.graph.addUndirectedEdge(a, b, { kind, weight, baseWeight: weight, hnsw: 0 });
  }

  /**
   * Lay an HNSW semantic edge (NodeRAG §2.4): a new edge of weight 1, or +1 on an existing edge. A
   * pair gets at most one HNSW contribution; a repeated call is ignored.
   *
   * @returns `'added'`, `'reinforced'` (an edge existed) or `'repeated'`.
   */
  addSemanticEdge(a: string, b: string): 'added' | 'reinforced' | 'repeated' {
    this.#checkEndpoints('addSemanticEdge', a, b);
    const edge = this.graph.edge(a, b);
    if (edge === undefined) {
      this.graph.addUndirectedEdge(a, b, { kind: 'hnsw', weight: 1, baseWeight: 0, hnsw: 1 });
      return 'added';
    }
    const attrs = this.graph.getEdgeAttributes(edge);
    if (attrs.hnsw > 0) return 'repeated';
    attrs.hnsw = 1;
    attrs.weight += 1;
    return 'reinforced';
  }

  /** Keys of the nodes of `type` (all nodes when omitted), in insertion order. */
  nodes(type?: NodeType): string[] {
    if (this.#compact) {
      const { keys, types } = this.#compact.arrays;
      if (type === undefined) return keys.slice();
      const code = ALL_NODE_TYPES.indexOf(type);
      return keys.filter((_, i) => types[i] === code);
    }
    if (type === undefined) return this.graph.nodes();
    return this.graph.filterNodes((_, attrs) => attrs.type === type);
  }

  /** Keys of the neighbours of `key`, optionally of one type. */
  neighbors(key: string, type?: NodeType): string[] {
    if (this.#compact) return this.#compactNeighbors(key, type);
    const out: string[] = [];
    this.graph.forEachNeighbor(key, (neighbor, attrs) => {
      if (type === undefined || attrs.type === type) out.push(neighbor);
    });
    return out;
  }

  /** Node counts per type and edge counts (NodeRAG Table 4). */
  stats(): HeteroGraphStats {
    if (this.#compact) return compactStats(this.#compact.arrays);
    const nodes = Object.fromEntries(ALL_NODE_TYPES.map((t) => [t, 0])) as Record<NodeType, number>;
    this.graph.forEachNode((_, attrs) => {
      nodes[attrs.type]++;
    });
    let structural = 0;
    let hnsw = 0;
    let overlap = 0;
    this.graph.forEachEdge((_, attrs) => {
      if (attrs.baseWeight > 0) structural++;
      if (attrs.hnsw > 0) {
        hnsw++;
        if (attrs.baseWeight > 0) overlap++;
      }
    });
    return {
      nodes,
      totalNodes: this.graph.order,
      structuralEdges: structural,
      hnswEdges: hnsw,
      hnswOverlap: overlap,
      totalEdges: this.graph.size,
    };
  }

  /** A JSON-serializable copy (graphology's export format). */
  toJSON(): SerializedGraph<HeteroNodeAttributes, HeteroEdgeAttributes> {
    return this.graph.export();
  }

  /**
   * Rebuild a heterograph from {@link HeteroGraph.toJSON}'s output.
   *
   * @throws InvalidArgumentError when a node has no valid type.
   */
  static fromJSON(data: SerializedGraph<HeteroNodeAttributes, HeteroEdgeAttributes>): HeteroGraph {
    const graph = new UndirectedGraph<HeteroNodeAttributes, HeteroEdgeAttributes>();
    graph.import(data);
    graph.forEachNode((key, attrs) => {
      if (!isNodeType(attrs.type)) {
        throw new InvalidArgumentError(
          'data',
          `HeteroGraph.fromJSON: node "${key}" has type ${JSON.stringify(attrs.type)}; the data is not a heterograph.`,
        );
      }
    });
    return new HeteroGraph(graph);
  }

  /** Neighbours in graphology's order (by the edges touching `key`, in edge order: a CSR row). */
  #compactNeighbors(key: string, type?: NodeType): string[] {
    const compact = this.#compact!;
    const i = compact.index.get(key);
    if (i === undefined) return this.graph.neighbors(key); // graphology's error for an unknown node
    const { offsets, targets } = compact.adjacency;
    const { types, keys } = compact.arrays;
    const code = type === undefined ? -1 : ALL_NODE_TYPES.indexOf(type);
    const out: string[] = [];
    for (let e = offsets[i]!; e < offsets[i + 1]!; e++) {
      const other = targets[e]!;
      if (code < 0 || types[other] === code) out.push(keys[other]!);
    }
    return out;
  }

  /**
   * Append the `values` not in `target` yet, in order. The set of a list's members is kept between
   * merges (a node mentioned in thousands of chunks is merged into thousands of times), and made
   * again when the list's length shows it was changed elsewhere.
   */
  #mergeInto(target: string[], values: Iterable<string> | undefined): void {
    if (values === undefined) return;
    let seen = this.#provenance.get(target);
    if (seen === undefined || seen.size !== target.length) {
      seen = new Set(target);
      this.#provenance.set(target, seen);
    }
    for (const v of values) {
      if (!seen.has(v)) {
        seen.add(v);
        target.push(v);
      }
    }
  }

  #checkEndpoints(fn: string, a: string, b: string): void {
    for (const key of [a, b]) {
      if (!this.graph.hasNode(key)) {
        throw new InvalidArgumentError('key', `HeteroGraph.${fn}: no node "${key}"; add the node first.`);
      }
    }
    if (a === b) {
      throw new InvalidArgumentError('key', `HeteroGraph.${fn}: "${a}" cannot be joined to itself.`);
    }
  }
}

/** {@link HeteroGraph.stats} of a graph's arrays. */
function compactStats(arrays: HeteroGraphArrays): HeteroGraphStats {
  const nodes = Object.fromEntries(ALL_NODE_TYPES.map((t) => [t, 0])) as Record<NodeType, number>;
  for (const code of arrays.types) nodes[ALL_NODE_TYPES[code]!]++;
  let structural = 0;
  let hnsw = 0;
  let overlap = 0;
  for (let e = 0; e < arrays.edgeA.length; e++) {
    if (arrays.edgeBaseWeight[e]! > 0) structural++;
    if (arrays.edgeHnsw[e]! > 0) {
      hnsw++;
      if (arrays.edgeBaseWeight[e]! > 0) overlap++;
    }
  }
  return {
    nodes,
    totalNodes: arrays.keys.length,
    structuralEdges: structural,
    hnswEdges: hnsw,
    hnswOverlap: overlap,
    totalEdges: arrays.edgeA.length,
  };
}

function unique(values: Iterable<string> | undefined): string[] {
  return values === undefined ? [] : [...new Set(values)];
}
