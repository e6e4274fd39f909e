/**
 * One result column: the answer (streamed text, then cited ids as links), the citations, the drawn
 * subgraph and the context items; and the passage dialog that opens a cited or listed item's source
 * document with the item's text marked.
 */
import { failureMessage, type GragClient } from './api.js';
import { h } from './dom.js';
import { type GraphView, renderGraph } from './graph.js';
import { quotedRanges } from './passage.js';
import { placesLabel } from './places.js';
import type { QueryResponse, RetrievedItem } from './types.js';

const PREVIEW = 220;
/** Items shown before "Show all". */
const SHOWN_ITEMS = 8;

/** The dialog that shows a passage in its source document. */
export class PassageDialog {
  readonly dialog = h('dialog', {
    class: 'passage',
    'data-testid': 'passage',
    'aria-labelledby': 'passage-title',
  });
  private readonly title = h('h2', { id: 'passage-title' });
  private readonly meta = h('p', { class: 'meta', 'data-testid': 'passage-meta' });
  private readonly body = h('div', { class: 'passage-text', 'data-testid': 'passage-text', tabindex: '0' });

  constructor(private readonly api: GragClient) {
    const close = h('button', { type: 'button', class: 'close', 'aria-label': 'Close passage' }, '×');
    close.addEventListener('click', () => this.dialog.close());
    this.dialog.addEventListener('click', (e) => {
      if (e.target === this.dialog) this.dialog.close();
    });
    this.dialog.append(h('header', {}, this.title, close), this.meta, this.body);
  }

  /** Open the source document `docId` (of index `method`), marking `passage` in it when found. */
  async open(method: string, docId: string | undefined, passage?: RetrievedItem): Promise<void> {
    this.title.textContent = docId ?? passage?.id ?? 'Passage';
    this.meta.textContent = 'Loading…';
    this.body.replaceChildren();
    this.dialog.dataset.docId = docId ?? '';
    if (!this.dialog.open) this.dialog.showModal();
    if (docId === undefined) {
      this.meta.textContent = `${method} · ${passage?.kind ?? 'item'} without a source document`;
      this.body.textContent = passage?.text ?? '';
      return;
    }
    try {
      const doc = await this.api.document(docId, { method });
      this.title.textContent = doc.title ?? doc.id;
      const places = placesLabel(passage?.source.locations);
      this.meta.textContent = `${doc.id} · ${method}${passage ? ` · item ${passage.id} (${passage.kind})` : ''}${places ? ` · ${places}` : ''}`;
      this.body.replaceChildren(...marked(doc.text, passage?.text));
      this.body.querySelector('mark')?.scrollIntoView({ block: 'center' });
    } catch (error) {
      this.meta.textContent = failureMessage(error);
    }
  }
}

/** `text` with the parts of it that `passage` quotes ({@link quotedRanges}) wrapped in `<mark>`. */
function marked(text: string, passage: string | undefined): Node[] {
  const out: Node[] = [];
  let last = 0;
  for (const [start, end] of passage ? quotedRanges(text, passage) : []) {
    out.push(document.createTextNode(text.slice(last, start)));
    out.push(h('mark', { 'data-testid': 'passage-mark' }, text.slice(start, end)));
    last = end;
  }
  out.push(document.createTextNode(text.slice(last)));
  return out;
}

/** The result column of one method for one question. */
export class ResultColumn {
  readonly root: HTMLElement;
  private readonly meta = h('p', { class: 'meta' }, 'Retrieving…');
  private readonly answer = h('div', { class: 'answer', 'data-testid': 'answer', 'aria-live': 'polite' });
  private readonly citations = h('ol', { class: 'citations', 'data-testid': 'citations' });
  private readonly graphBox = h('div', { class: 'graph', 'data-testid': 'graph', role: 'img' });
  private readonly legend = h('div', { class: 'legend-box' });
  private readonly graphStatus = h('p', { class: 'graph-status', 'aria-live': 'polite' });
  private readonly items = h('ol', { class: 'items', 'data-testid': 'items' });
  private readonly itemsHeading = h('h3', {}, 'Context items');
  private response: QueryResponse | undefined;
  private graph: GraphView | undefined;
  private moreItems: HTMLElement | undefined;

  constructor(
    readonly method: string,
    private readonly passage: PassageDialog,
  ) {
    this.root = h(
      'section',
      {
        class: 'column',
        'data-testid': 'result',
        'data-method': method,
        'aria-label': `Results of ${method}`,
      },
      h('header', {}, h('h2', {}, method), this.meta),
      h('h3', {}, 'Answer'),
      this.answer,
      h('h3', {}, 'Citations'),
      this.citations,
      h('h3', {}, 'Retrieved subgraph'),
      this.graphBox,
      this.graphStatus,
      this.legend,
      this.itemsHeading,
      this.items,
    );
    this.answer.classList.add('pending');
    this.answer.textContent = '…';
  }

  /** Show the retrieval: items, subgraph and timing; the answer is still to come. */
  showRetrieval(res: QueryResponse): void {
    this.response = res;
    const r = res.retrieval;
    this.meta.textContent = `${r.items.length} items · ${r.tokens} tokens · ${Math.round(res.ms)} ms`;
    this.itemsHeading.textContent = `Context items (${r.items.length})`;
    const rows = r.items.map((item, i) => this.itemRow(item, i));
    for (const row of rows.slice(SHOWN_ITEMS)) row.hidden = true;
    this.items.replaceChildren(...rows);
    this.items.dataset.count = String(rows.length);
    this.moreItems?.remove();
    if (rows.length > SHOWN_ITEMS) {
      const more = h('button', { type: 'button', class: 'more' }, `Show all ${rows.length} items`);
      more.addEventListener('click', () => {
        for (const row of rows) row.hidden = false;
        more.remove();
      });
      this.items.after(more);
      this.moreItems = more;
    }
    this.graph?.destroy();
    if (r.subgraph) {
      const texts = new Map(r.items.map((it) => [it.id, it.text]));
      try {
        this.graph = renderGraph(
          this.graphBox,
          this.legend,
          this.graphStatus,
          r.subgraph,
          r.entryPoints,
          texts,
          (id) => this.openNode(id),
        );
      } catch (error) {
        // No WebGL, most often: say so where the graph would be.
        this.graphBox.classList.add('empty');
        this.graphBox.textContent = `The subgraph (${r.subgraph.nodes.length} nodes) could not be drawn: ${(error as Error).message}`;
      }
    } else {
      this.graphBox.classList.add('empty');
      this.graphBox.dataset.nodeCount = '0';
      this.graphBox.dataset.edgeCount = '0';
      this.graphBox.setAttribute('aria-label', `${res.method} returns no subgraph`);
      this.graphBox.textContent = `${res.method} returns no subgraph (it retrieves passages only).`;
    }
  }

  /** Append streamed answer text. */
  appendDelta(text: string): void {
    if (this.answer.classList.contains('pending')) {
      this.answer.classList.remove('pending');
      this.answer.textContent = '';
    }
    this.answer.append(text);
  }

  /** Show the final answer with its citations as links to their passages (or why there is none). */
  showAnswer(res: QueryResponse, noAnswer = 'No answer was generated.'): void {
    this.response = res;
    this.answer.classList.remove('pending');
    const answer = res.answer;
    if (!answer) {
      this.answer.classList.add('none');
      this.answer.textContent = noAnswer;
      this.citations.replaceChildren(h('li', { class: 'muted' }, 'No citations.'));
      return;
    }
    const order = new Map(answer.citations.map((id, i) => [id, i + 1]));
    this.answer.replaceChildren(...this.linkify(answer.text, order));
    this.answer.dataset.done = 'true';
    this.citations.replaceChildren(
      ...answer.citations.map((id, i) => {
        const item = res.retrieval.items.find((it) => it.id === id);
        // Where the cited passage comes from: the server's label (its places in the source files,
        // else its documents), or, from an older server, the item's documents.
        const from =
          answer.sources?.[i]?.id === id
            ? answer.sources[i]!.label
            : placesLabel(item?.source.locations) || (item?.source.docIds ?? []).join(', ');
        const button = h(
          'button',
          { type: 'button', class: 'citation', 'data-testid': 'citation', 'data-item-id': id },
          h('span', { class: 'num' }, `[${i + 1}]`),
          ` ${id}`,
          from ? h('span', { class: 'muted', 'data-testid': 'citation-source' }, ` · ${from}`) : '',
        );
        button.addEventListener('click', () => void this.openItem(id));
        return h('li', {}, button);
      }),
    );
    if (answer.citations.length === 0) this.citations.append(h('li', { class: 'muted' }, 'No citations.'));
  }

  /** Show a failure in place of the answer. */
  showError(message: string): void {
    this.answer.classList.remove('pending');
    this.answer.classList.add('error');
    this.answer.setAttribute('role', 'alert');
    this.answer.textContent = message;
    this.meta.textContent = 'Failed';
  }

  /** Free the renderer. */
  destroy(): void {
    this.graph?.destroy();
    this.root.remove();
  }

  /** Answer text with `[id]` / `[id1, id2]` markers of cited items turned into buttons. */
  private linkify(text: string, order: Map<string, number>): (Node | string)[] {
    const out: (Node | string)[] = [];
    let last = 0;
    for (const m of text.matchAll(/\[([^\]\n]{1,200})\]/g)) {
      const ids = m[1]!.split(/\s*[,;]\s*/);
      if (!ids.every((id) => order.has(id))) continue;
      out.push(text.slice(last, m.index));
      for (const id of ids) {
        const ref = h(
          'button',
          { type: 'button', class: 'ref', title: id, 'aria-label': `Source ${id}` },
          `[${order.get(id)}]`,
        );
        ref.addEventListener('click', () => void this.openItem(id));
        out.push(ref);
      }
      last = m.index + m[0].length;
    }
    out.push(text.slice(last));
    return out;
  }

  private itemRow(item: RetrievedItem, i: number): HTMLElement {
    const docs = item.source.docIds ?? [];
    const text = item.text.replace(/\s+/g, ' ').trim();
    const open = h(
      'button',
      { type: 'button', class: 'item-open', 'aria-label': `Open item ${item.id}` },
      h('span', { class: 'num' }, `${i + 1}.`),
      h('span', { class: `kind kind-${item.kind.replace(/[^\w-]/g, '')}` }, item.kind),
      h('span', { class: 'score', title: 'score' }, item.score.toFixed(3)),
      h('code', { class: 'id' }, item.id),
    );
    open.addEventListener('click', () => void this.openItem(item.id));
    const row = h(
      'li',
      { class: 'item', 'data-testid': 'item', 'data-item-id': item.id, 'data-kind': item.kind },
      open,
      h('p', { class: 'preview' }, text.length > PREVIEW ? `${text.slice(0, PREVIEW - 1)}…` : text),
    );
    const places = placesLabel(item.source.locations);
    if (places) {
      row.append(
        h('p', { class: 'places', 'data-testid': 'item-places', title: 'Where in the source files' }, places),
      );
    }
    if (docs.length) {
      const list = h('p', { class: 'docs' }, 'from ');
      docs.slice(0, 6).forEach((doc, k) => {
        const b = h('button', { type: 'button', class: 'doc-link', 'data-doc-id': doc }, doc);
        b.addEventListener('click', () => void this.passage.open(this.indexName(), doc, item));
        list.append(k ? ', ' : '', b);
      });
      if (docs.length > 6) list.append(` and ${docs.length - 6} more`);
      row.append(list);
    }
    return row;
  }

  private indexName(): string {
    return this.response?.index ?? this.method;
  }

  /** Open the passage of a context item (first source document, item text marked). */
  private async openItem(id: string): Promise<void> {
    const item = this.response?.retrieval.items.find((it) => it.id === id);
    await this.passage.open(this.indexName(), item ? item.source.docIds?.[0] : id, item);
  }

  /** A click on a graph node: open the item of that node when there is one. */
  private openNode(node: string): void {
    const items = this.response?.retrieval.items ?? [];
    const rest = node.includes(':') ? node.slice(node.indexOf(':') + 1) : node;
    const item = items.find((it) => it.id === node) ?? items.find((it) => it.id === rest);
    if (item) void this.openItem(item.id);
  }
}
