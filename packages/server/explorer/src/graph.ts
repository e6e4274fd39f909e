/**
 * The retrieved subgraph drawn with sigma.js (WebGL) from its laid-out graphology graph
 * (`layout.ts`): a legend of node types, entry points ringed, edge and node details on hover.
 */
import type { UndirectedGraph } from 'graphology';
import Sigma from 'sigma';
import type { Settings } from 'sigma/settings';
import { h } from './dom.js';
import { buildGraph, type EdgeAttrs, type NodeAttrs } from './layout.js';
import type { NodeType } from './palette.js';
import type { Subgraph } from './types.js';

/** What a drawn subgraph reports and how to dispose of it. */
export interface GraphView {
  nodes: number;
  edges: number;
  destroy(): void;
}

const EDGE_HOVER = '#1f2933';
const FADED = '#e3e8ee';

/** Node labels with a light halo for contrast over edges, and a ring around entry points. */
const drawLabel: Settings['defaultDrawNodeLabel'] = (ctx, data, settings) => {
  if ((data as { entry?: boolean }).entry) {
    ctx.beginPath();
    ctx.arc(data.x, data.y, data.size + 3, 0, Math.PI * 2);
    ctx.lineWidth = 2.5;
    ctx.strokeStyle = '#1f2933';
    ctx.stroke();
  }
  if (!data.label) return;
  ctx.font = `${settings.labelWeight} ${settings.labelSize}px ${settings.labelFont}`;
  const x = data.x + data.size + 5;
  const y = data.y + settings.labelSize / 3;
  ctx.lineJoin = 'round';
  ctx.lineWidth = 4;
  ctx.strokeStyle = 'rgba(255, 255, 255, 0.92)';
  ctx.strokeText(data.label, x, y);
  ctx.fillStyle = '#1f2933';
  ctx.fillText(data.label, x, y);
};

/** The legend: every type present with its count, and the entry-point mark when there are any. */
function legendOf(graph: UndirectedGraph<NodeAttrs, EdgeAttrs>): HTMLElement {
  const types = new Map<string, NodeType & { count: number }>();
  let entries = 0;
  graph.forEachNode((_, a) => {
    const t = types.get(a.typeKey) ?? { key: a.typeKey, label: a.typeLabel, color: a.color, count: 0 };
    t.count++;
    types.set(a.typeKey, t);
    if (a.entry) entries++;
  });
  const list = h('ul', { class: 'legend', 'aria-label': 'Node types' });
  for (const t of [...types.values()].sort((a, b) => b.count - a.count || a.label.localeCompare(b.label))) {
    const swatch = h('span', { class: 'swatch', 'aria-hidden': 'true' });
    swatch.style.background = t.color;
    list.append(h('li', {}, swatch, `${t.label} (${t.count})`));
  }
  if (entries > 0) {
    list.append(
      h('li', {}, h('span', { class: 'swatch entry', 'aria-hidden': 'true' }), `entry point (${entries})`),
    );
  }
  return list;
}

/**
 * Draw `subgraph` into `container` (which must have a size), its legend into `legend`, and hover
 * details into `status`. Sets `data-node-count` / `data-edge-count` on the container once drawn.
 */
export function renderGraph(
  container: HTMLElement,
  legend: HTMLElement,
  status: HTMLElement,
  subgraph: Subgraph,
  entryPoints: readonly string[] | undefined,
  texts: ReadonlyMap<string, string>,
  onNodeClick: (id: string) => void,
): GraphView {
  const graph = buildGraph(subgraph, entryPoints, texts);
  legend.replaceChildren(legendOf(graph));
  const summary = `${graph.order} nodes, ${graph.size} edges`;
  container.setAttribute('aria-label', `Retrieved subgraph: ${summary}`);
  status.textContent = `${summary}. Hover a node or an edge for details; drag to pan, scroll to zoom.`;
  if (graph.order === 0) {
    container.dataset.nodeCount = '0';
    container.dataset.edgeCount = '0';
    return { nodes: 0, edges: 0, destroy() {} };
  }
  let hoveredNode: string | undefined;
  let hoveredEdge: string | undefined;
  const sigma = new Sigma(graph, container, {
    // Every label of a small graph; the bigger nodes' of a large one (hover shows the rest).
    labelRenderedSizeThreshold: graph.order > 30 ? 9 : 0,
    labelDensity: 0.8,
    labelSize: 12,
    labelWeight: '500',
    labelFont: 'system-ui, -apple-system, "Segoe UI", Roboto, sans-serif',
    enableEdgeEvents: true,
    zIndex: true,
    stagePadding: 40,
    defaultDrawNodeLabel: drawLabel,
    nodeReducer: (node, data) => {
      if (!hoveredNode || node === hoveredNode || graph.areNeighbors(node, hoveredNode)) {
        return { ...data, zIndex: node === hoveredNode ? 2 : 1 };
      }
      return { ...data, color: FADED, label: '', zIndex: 0 };
    },
    edgeReducer: (edge, data) => {
      const lit =
        edge === hoveredEdge || (hoveredNode !== undefined && graph.hasExtremity(edge, hoveredNode));
      return lit ? { ...data, color: EDGE_HOVER, size: 3, zIndex: 1 } : { ...data, zIndex: 0 };
    },
  });
  const tip = h('div', { class: 'graph-tip', role: 'tooltip', hidden: '' });
  container.append(tip);
  const show = (text: string, x: number, y: number) => {
    tip.textContent = text;
    tip.hidden = false;
    // Beside the pointer, kept inside the box.
    tip.style.left = `${Math.max(4, Math.min(x + 12, container.clientWidth - tip.offsetWidth - 4))}px`;
    tip.style.top = `${Math.max(4, Math.min(y + 12, container.clientHeight - tip.offsetHeight - 4))}px`;
    status.textContent = text;
  };
  const hide = () => {
    tip.hidden = true;
    status.textContent = `${summary}.`;
  };
  sigma.on('enterNode', ({ node, event }) => {
    hoveredNode = node;
    const a = graph.getNodeAttributes(node);
    const text = texts.get(node);
    const more = text ? ` — ${text.length > 160 ? `${text.slice(0, 159)}…` : text}` : '';
    show(`${a.typeLabel}${a.entry ? ', entry point' : ''}: ${node}${more}`, event.x, event.y);
    sigma.refresh({ skipIndexation: true });
  });
  sigma.on('leaveNode', () => {
    hoveredNode = undefined;
    hide();
    sigma.refresh({ skipIndexation: true });
  });
  sigma.on('enterEdge', ({ edge, event }) => {
    hoveredEdge = edge;
    show(graph.getEdgeAttribute(edge, 'label'), event.x, event.y);
    sigma.refresh({ skipIndexation: true });
  });
  sigma.on('leaveEdge', () => {
    hoveredEdge = undefined;
    hide();
    sigma.refresh({ skipIndexation: true });
  });
  sigma.on('clickNode', ({ node }) => onNodeClick(node));
  container.dataset.nodeCount = String(graph.order);
  container.dataset.edgeCount = String(graph.size);
  return { nodes: graph.order, edges: graph.size, destroy: () => sigma.kill() };
}
