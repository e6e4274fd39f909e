/**
 * The Ask tab: a question asked of one or several indexes (side by side), each one's answer with
 * citations, its context items and its retrieved subgraph.
 */
import { ask as askIndex, failureMessage, GragApiError, type GragClient } from './api.js';
import { h } from './dom.js';
import type { IndexInfo, QueryResponse } from './types.js';
import { type PassageDialog, ResultColumn } from './view.js';

function optionalNumber(input: HTMLInputElement): number | undefined {
  const value = input.value.trim();
  return value === '' ? undefined : Number(value);
}

/** The Ask tab's form and results. */
export class AskTab {
  private readonly form = document.querySelector<HTMLFormElement>('#ask')!;
  private readonly question = document.querySelector<HTMLTextAreaElement>('#question')!;
  private readonly methodsBox = document.querySelector<HTMLElement>('#methods')!;
  private readonly topK = document.querySelector<HTMLInputElement>('#topk')!;
  private readonly budget = document.querySelector<HTMLInputElement>('#budget')!;
  private readonly status = document.querySelector<HTMLElement>('#status')!;
  private readonly results = document.querySelector<HTMLElement>('#results')!;
  private columns: ResultColumn[] = [];
  private running: AbortController | undefined;
  private listed = false;

  constructor(
    private readonly api: GragClient,
    private readonly passage: PassageDialog,
  ) {
    this.form.addEventListener('submit', (event) => {
      event.preventDefault();
      const text = this.question.value.trim();
      const methods = this.selected();
      if (!text) return this.setStatus('Type a question first.', true);
      if (methods.length === 0) return this.setStatus('Pick at least one method.', true);
      void this.ask(text, methods);
    });
    this.question.addEventListener('keydown', (event) => {
      if (event.key === 'Enter' && !event.shiftKey) {
        event.preventDefault();
        this.form.requestSubmit();
      }
    });
  }

  setStatus(text: string, error = false): void {
    this.status.textContent = text;
    this.status.classList.toggle('error', error);
    this.status.setAttribute('role', error ? 'alert' : 'status');
  }

  /**
   * Show `indexes` as the methods to pick, keeping what was picked (the first, or `wanted`, the
   * first time); the form is ready once there is one.
   */
  showIndexes(indexes: readonly IndexInfo[], wanted?: readonly string[]): void {
    const before = new Set(this.selected());
    const first = !this.listed;
    this.listed = true;
    this.methodsBox.replaceChildren(
      ...indexes.map((index, i) =>
        this.choice(
          index,
          i,
          first ? (wanted ? wanted.includes(index.name) : i === 0) : before.has(index.name),
        ),
      ),
    );
    if (indexes.length === 0) {
      delete this.form.dataset.ready;
      this.methodsBox.replaceChildren(h('span', { class: 'muted' }, 'No index yet.'));
      this.setStatus('The server has no index yet: create one in the Documents tab.', true);
      return;
    }
    if (!this.methodsBox.querySelector('input:checked')) {
      this.methodsBox.querySelector<HTMLInputElement>('input')!.checked = true;
    }
    this.form.dataset.ready = 'true';
    if (first) {
      this.setStatus(
        `${indexes.length} ${indexes.length === 1 ? 'index' : 'indexes'} loaded. Pick two to compare them side by side.`,
      );
    }
  }

  /** Ask `text` right away (the page's `?q=`). */
  askNow(text: string): void {
    this.question.value = text;
    this.form.requestSubmit();
  }

  private choice(index: IndexInfo, i: number, checked: boolean): HTMLElement {
    const id = `method-${i}`;
    const input = h('input', { type: 'checkbox', id, name: 'method', value: index.name });
    input.checked = checked;
    const docs = `${index.documents} documents${index.chunks != null ? `, ${index.chunks} chunks` : ''}`;
    return h(
      'label',
      { class: 'method', for: id, title: index.description },
      input,
      h('span', { class: 'name' }, index.name),
      h('span', { class: 'muted' }, index.method !== index.name ? ` (${index.method}) ${docs}` : ` ${docs}`),
    );
  }

  private selected(): string[] {
    return [...this.methodsBox.querySelectorAll<HTMLInputElement>('input[name=method]:checked')].map(
      (i) => i.value,
    );
  }

  /** One column's query: the answer streamed, or the retrieval alone where answers are off. */
  private async askOne(column: ResultColumn, text: string, signal: AbortSignal): Promise<boolean> {
    const k = optionalNumber(this.topK);
    const b = optionalNumber(this.budget);
    const body = {
      question: text,
      method: column.method,
      ...(k !== undefined ? { topK: k } : {}),
      ...(b !== undefined ? { budget: b } : {}),
    };
    const events = {
      onRetrieval: (r: QueryResponse) => column.showRetrieval(r),
      onDelta: (d: string) => column.appendDelta(d),
    };
    try {
      let res: QueryResponse;
      try {
        res = await askIndex(this.api, body, events, { answer: true, signal });
      } catch (error) {
        // A server (or index) that gives no answers still retrieves.
        if (!(GragApiError.isInstance(error) && error.code === 'answer_unavailable')) throw error;
        res = await askIndex(this.api, body, events, { answer: false, signal });
        column.showAnswer(res, error.message);
        return true;
      }
      column.showAnswer(res);
      return true;
    } catch (error) {
      if (signal.aborted) return false;
      column.showError(failureMessage(error));
      return false;
    }
  }

  private async ask(text: string, methods: string[]): Promise<void> {
    this.running?.abort();
    const controller = new AbortController();
    this.running = controller;
    for (const c of this.columns) c.destroy();
    this.columns = methods.map((m) => new ResultColumn(m, this.passage));
    this.results.style.setProperty('--columns', String(this.columns.length));
    this.results.replaceChildren(...this.columns.map((c) => c.root));
    this.results.dataset.state = 'running';
    this.setStatus(`Asking ${methods.join(' and ')}…`);
    const started = performance.now();
    const outcomes = await Promise.all(
      this.columns.map((column) => this.askOne(column, text, controller.signal)),
    );
    if (this.running !== controller) return;
    const failed = outcomes.filter((ok) => !ok).length;
    this.results.dataset.state = 'done';
    this.setStatus(
      failed
        ? `${failed} of ${methods.length} queries failed.`
        : `Answered in ${((performance.now() - started) / 1000).toFixed(2)} s.`,
      failed > 0,
    );
  }
}
