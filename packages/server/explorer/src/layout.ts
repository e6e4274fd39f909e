/**
 * The retrieved subgraph as a laid-out graphology graph, without any DOM: distinct nodes coloured by
 * type, distinct undirected edges between known nodes, sizes by degree (entry points half again as
 * big), and positions from a seeded initial layout refined by a fixed number of ForceAtlas2
 * iterations, so the same subgraph always gives the same picture.
 */
import { UndirectedGraph } from 'graphology';
import * as forceAtlas2Module from 'graphology-layout-forceatlas2';
import { nodeLabel, TypePalette } from './palette.js';
import type { Subgraph } from './types.js';

/** The synchronous ForceAtlas2 layout, as much of it as is used here. */
interface ForceAtlas2 {
  assign(graph: UndirectedGraph, params: { iterations: number; settings: Record<string, unknown> }): void;
  inferSettings(graph: UndirectedGraph): Record<string, unknown>;
}

/**
 * The layout function, a CommonJS `module.exports`: reached through `default` by bundlers and
 * Node alike; unwrapped by hand because its types are read differently under `Bundler` and
 * `NodeNext` resolution.
 */
function unwrapDefault(module: unknown): unknown {
  let value = module;
  while (typeof value === 'object' && value !== null && 'default' in value) value = value.default;
  return value;
}
const forceAtlas2 = unwrapDefault(forceAtlas2Module) as ForceAtlas2;

/** What a node of the drawn graph carries. */
export interface NodeAttrs {
  x: number;
  y: number;
  size: number;
  color: string;
  label: string;
  /** The node's type as the legend says it (not `type`: sigma reads that as the program name). */
  typeLabel: string;
  typeKey: string;
  entry: boolean;
  forceLabel: boolean;
}

/** What an edge of the drawn graph carries: its hover label (given, or its two endpoints). */
export interface EdgeAttrs {
  label: string;
  color: string;
  size: number;
}

/** Colour of edges at rest. */
export const EDGE_COLOR = '#b8c2cf';

/**
 * mulberry32: a small seeded generator (the initial position of a node depends on its id only).
 * A copy of `mulberry32` from `@grag/core`, which this browser bundle cannot import (esbuild would
 * need core's built `dist/` and its Node-only modules); test/explorer-random.test.ts checks that
 * both give the same streams.
 */
export function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** FNV-1a hash of a string. */
export function hash(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

/**
 * The graphology graph of a subgraph: distinct nodes, distinct undirected edges between known nodes,
 * laid out. `texts` gives the text of nodes that are also context items (NodeRAG's `S:12`), which
 * labels a node whose id is only a number.
 */
export function buildGraph(
  subgraph: Subgraph,
  entryPoints: readonly string[] = [],
  texts: ReadonlyMap<string, string> = new Map(),
): UndirectedGraph<NodeAttrs, EdgeAttrs> {
  const palette = new TypePalette();
  const entries = new Set(entryPoints);
  const graph = new UndirectedGraph<NodeAttrs, EdgeAttrs>({ allowSelfLoops: false });
  for (const id of subgraph.nodes) {
    if (graph.hasNode(id)) continue;
    const type = palette.typeOf(id);
    const random = seeded(hash(id));
    graph.addNode(id, {
      x: random() * 100,
      y: random() * 100,
      size: 5,
      color: type.color,
      label: nodeLabel(id, texts.get(id)),
      typeLabel: type.label,
      typeKey: type.key,
      entry: entries.has(id),
      forceLabel: entries.has(id),
    });
  }
  subgraph.edges.forEach(([a, b], i) => {
    if (a === b || !graph.hasNode(a) || !graph.hasNode(b) || graph.hasEdge(a, b)) return;
    const given = subgraph.edgeLabels?.[i];
    const label = given
      ? given
      : `${graph.getNodeAttribute(a, 'label')} — ${graph.getNodeAttribute(b, 'label')}`;
    graph.addEdge(a, b, { label, color: EDGE_COLOR, size: 1.5 });
  });
  graph.forEachNode((id, attrs) => {
    const size = Math.min(16, 5 + 2 * Math.sqrt(graph.degree(id)));
    graph.setNodeAttribute(id, 'size', attrs.entry ? size * 1.5 : size);
  });
  if (graph.order > 1) {
    const iterations = graph.order > 500 ? 100 : 300;
    forceAtlas2.assign(graph, {
      iterations,
      // Strong gravity keeps isolated nodes and small components near the rest instead of drifting off.
      settings: {
        ...forceAtlas2.inferSettings(graph),
        strongGravityMode: true,
        gravity: 1,
        scalingRatio: 10,
      },
    });
  }
  return graph;
}
