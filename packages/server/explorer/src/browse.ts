/**
 * The Graph tab: the whole graph of an index, browsed a piece at a time. Search an entity by name
 * (or list the communities, where the method keeps them), open one to draw it with its
 * neighbourhood, click a node to expand its neighbours into the drawing. The server answers every
 * call with a bounded page (`GET /v1/indexes/:name/graph`, `…/graph/nodes/:id`), and the drawing
 * keeps at most {@link MAX_SHOWN} nodes, so an index of 100k nodes stays as quick as a small one.
 */
import { failureMessage, type GragClient } from './api.js';
import { h } from './dom.js';
import { type GraphView, renderGraph } from './graph.js';
import type { GraphNeighbourhood, GraphNode, IndexInfo } from './types.js';

/** Matches listed per page. */
const MATCHES = 20;
/** Neighbours fetched per expansion. */
const NEIGHBOURS = 30;
/** Most nodes drawn at once. */
export const MAX_SHOWN = 300;

const $ = <T extends HTMLElement>(selector: string) => document.querySelector<T>(selector)!;

/** The Graph tab. */
export class GraphTab {
  private readonly form = $<HTMLFormElement>('#graph-search');
  private readonly select = $<HTMLSelectElement>('#graph-index');
  private readonly query = $<HTMLInputElement>('#graph-q');
  private readonly communities = $<HTMLButtonElement>('#graph-communities');
  private readonly meta = $<HTMLElement>('#graph-meta');
  private readonly matches = $<HTMLElement>('#graph-matches');
  private readonly prev = $<HTMLButtonElement>('#matches-prev');
  private readonly next = $<HTMLButtonElement>('#matches-next');
  private readonly detail = $<HTMLElement>('#graph-node');
  private readonly canvas = $<HTMLElement>('#graph-canvas');
  private readonly legend = $<HTMLElement>('#graph-legend');
  private readonly status = $<HTMLElement>('#graph-status');
  private communityType: string | null = null;
  private search: { q: string; type?: string; offset: number } = { q: '', offset: 0 };
  private nodes = new Map<string, GraphNode>();
  private edges = new Map<string, [string, string]>();
  /** Neighbours fetched so far of each expanded node. */
  private expanded = new Map<string, number>();
  private focus: string | undefined;
  private view: GraphView | undefined;
  /** The number of the last search sent: an earlier one's answer, coming late, is dropped. */
  private searches = 0;
  /** Bumped when the drawing starts afresh: a neighbourhood asked for before is then dropped. */
  private generation = 0;

  constructor(private readonly api: GragClient) {
    this.form.addEventListener('submit', (event) => {
      event.preventDefault();
      void this.find({ q: this.query.value, offset: 0 });
    });
    this.communities.addEventListener('click', () => {
      if (this.communityType) void this.find({ q: '', type: this.communityType, offset: 0 });
    });
    this.select.addEventListener('change', () => {
      this.clear();
      void this.find({ q: '', offset: 0 });
    });
    this.prev.addEventListener(
      'click',
      () => void this.find({ ...this.search, offset: Math.max(0, this.search.offset - MATCHES) }),
    );
    this.next.addEventListener(
      'click',
      () => void this.find({ ...this.search, offset: this.search.offset + MATCHES }),
    );
  }

  private get index(): string {
    return this.select.value;
  }

  /** Show `indexes` to pick from, keeping the picked one. */
  showIndexes(indexes: readonly IndexInfo[]): void {
    const before = this.select.value;
    this.select.replaceChildren(
      ...indexes.map((ix) => h('option', { value: ix.name }, `${ix.name} (${ix.method})`)),
    );
    if (indexes.some((ix) => ix.name === before)) this.select.value = before;
  }

  /** The tab was opened: list the best connected nodes of the picked index the first time. */
  opened(): void {
    if (this.index && this.matches.childElementCount === 0) void this.find({ q: '', offset: 0 });
  }

  private clear(): void {
    this.generation++;
    this.view?.destroy();
    this.view = undefined;
    this.nodes.clear();
    this.edges.clear();
    this.expanded.clear();
    this.focus = undefined;
    this.canvas.replaceChildren();
    this.legend.replaceChildren();
    this.detail.replaceChildren();
    this.status.textContent = '';
  }

  /** Search the graph and list a page of the matches. */
  private async find(search: { q: string; type?: string; offset: number }): Promise<void> {
    const index = this.index;
    if (!index) return;
    this.search = search;
    const mine = ++this.searches;
    this.matches.dataset.state = 'loading';
    try {
      const page = await this.api.searchGraph(index, {
        q: search.q,
        ...(search.type ? { type: search.type } : {}),
        offset: search.offset,
        limit: MATCHES,
      });
      if (mine !== this.searches) return;
      this.communityType = page.communityType;
      this.communities.hidden = page.communityType === null;
      const types = page.types.map((t) => `${t.count} ${t.type}`).join(', ');
      const one = page.total === 1;
      const what = search.type
        ? one
          ? 'community'
          : 'communities'
        : search.q.trim()
          ? `${one ? 'match' : 'matches'} of “${search.q.trim()}”`
          : 'nodes, best connected first';
      const range = page.total ? `: ${search.offset + 1}–${search.offset + page.matches.length}` : '';
      this.meta.textContent = `${page.nodes} nodes (${types}), ${page.edges} edges. ${page.total} ${what}${range}.`;
      this.matches.replaceChildren(...page.matches.map((node) => this.matchRow(node)));
      this.prev.disabled = search.offset === 0;
      this.next.disabled = search.offset + page.matches.length >= page.total;
    } catch (error) {
      if (mine !== this.searches) return;
      this.matches.replaceChildren();
      this.meta.textContent = failureMessage(error);
    }
    this.matches.dataset.query = search.type ? `type:${search.type}` : search.q.trim();
    this.matches.dataset.state = 'done';
  }

  private matchRow(node: GraphNode): HTMLElement {
    const open = h(
      'button',
      { type: 'button', class: 'match', 'data-testid': 'graph-match', 'data-node-id': node.id },
      h('span', { class: 'name' }, node.label),
      h('span', { class: 'muted' }, ` ${node.type} · ${node.degree} links`),
    );
    open.addEventListener('click', () => void this.open(node.id));
    return h('li', {}, open);
  }

  /** Draw `id` with its neighbourhood, starting afresh. */
  private async open(id: string): Promise<void> {
    this.clear();
    await this.expand(id);
  }

  /** Add the next page of the neighbours of `id` to the drawing, and show `id`'s details. */
  private async expand(id: string): Promise<void> {
    const index = this.index;
    const generation = this.generation;
    const offset = this.expanded.get(id) ?? 0;
    this.status.textContent = 'Loading…';
    let near: GraphNeighbourhood;
    try {
      near = await this.api.graphNode(index, id, { offset, limit: NEIGHBOURS });
    } catch (error) {
      this.status.textContent = failureMessage(error);
      return;
    }
    if (index !== this.index || generation !== this.generation) return;
    this.focus = id;
    this.nodes.set(near.node.id, near.node);
    let dropped = 0;
    for (const n of near.neighbours) {
      if (!this.nodes.has(n.id) && this.nodes.size >= MAX_SHOWN) {
        dropped++;
        continue;
      }
      this.nodes.set(n.id, n);
    }
    for (const [a, b] of near.edges) {
      if (this.nodes.has(a) && this.nodes.has(b)) this.edges.set(a < b ? `${a}\n${b}` : `${b}\n${a}`, [a, b]);
    }
    this.expanded.set(id, offset + near.neighbours.length);
    this.showDetail(near);
    this.draw();
    if (dropped)
      this.status.textContent = `${MAX_SHOWN} nodes drawn at most: ${dropped} neighbours left out. Open a node to start again from it.`;
  }

  private showDetail(near: GraphNeighbourhood): void {
    const node = near.node;
    const shown = this.expanded.get(node.id) ?? 0;
    const children: (Node | string)[] = [
      h('h3', {}, node.label),
      h(
        'p',
        { class: 'muted' },
        `${node.type}${node.community !== undefined ? ` · community ${node.community}` : ''} · ${near.total} neighbours, ${Math.min(shown, near.total)} drawn`,
      ),
    ];
    if (near.text) children.push(h('p', { class: 'node-text' }, near.text));
    // The neighbours as buttons too: what a click on a node does, by keyboard.
    const list = h('ul', { class: 'neighbours', 'aria-label': `Neighbours of ${node.label}` });
    for (const n of near.neighbours.slice(0, 12)) {
      const b = h(
        'button',
        { type: 'button', class: 'match', 'data-testid': 'graph-neighbour', 'data-node-id': n.id },
        n.label,
      );
      b.addEventListener('click', () => void this.expand(n.id));
      list.append(h('li', {}, b));
    }
    if (near.neighbours.length) children.push(list);
    if (shown < near.total) {
      const more = h(
        'button',
        { type: 'button', 'data-testid': 'graph-more' },
        `Show ${Math.min(NEIGHBOURS, near.total - shown)} more neighbours`,
      );
      more.addEventListener('click', () => void this.expand(node.id));
      children.push(more);
    }
    this.detail.dataset.nodeId = node.id;
    this.detail.replaceChildren(...children);
  }

  private draw(): void {
    this.view?.destroy();
    this.canvas.replaceChildren();
    const labels = new Map([...this.nodes.values()].map((n) => [n.id, n.label]));
    try {
      this.view = renderGraph(
        this.canvas,
        this.legend,
        this.status,
        { nodes: [...this.nodes.keys()], edges: [...this.edges.values()] },
        this.focus ? [this.focus] : [],
        labels,
        (id) => void this.expand(id),
      );
    } catch (error) {
      this.canvas.textContent = `The graph could not be drawn: ${(error as Error).message}`;
    }
  }
}
