/**
 * The grag explorer page: ask a question of one or several loaded indexes (side by side), and see
 * each one's answer with citations, its context items and its retrieved subgraph.
 */
import './explorer.css';
import { ask as askIndex, failureMessage, GragApiError, pageClient, tokenFromHash } from './api.js';
import { h } from './dom.js';
import type { IndexInfo, QueryResponse } from './types.js';
import { PassageDialog, ResultColumn } from './view.js';

const api = pageClient(tokenFromHash(location.hash));
const form = document.querySelector<HTMLFormElement>('#ask')!;
const question = document.querySelector<HTMLTextAreaElement>('#question')!;
const methodsBox = document.querySelector<HTMLElement>('#methods')!;
const topK = document.querySelector<HTMLInputElement>('#topk')!;
const budget = document.querySelector<HTMLInputElement>('#budget')!;
const status = document.querySelector<HTMLElement>('#status')!;
const results = document.querySelector<HTMLElement>('#results')!;
const passage = new PassageDialog(api);
document.body.append(passage.dialog);

let columns: ResultColumn[] = [];
let running: AbortController | undefined;

function setStatus(text: string, error = false): void {
  status.textContent = text;
  status.classList.toggle('error', error);
  status.setAttribute('role', error ? 'alert' : 'status');
}

function methodChoice(index: IndexInfo, i: number, checked: boolean): HTMLElement {
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

function selectedMethods(): string[] {
  return [...methodsBox.querySelectorAll<HTMLInputElement>('input[name=method]:checked')].map((i) => i.value);
}

function optionalNumber(input: HTMLInputElement): number | undefined {
  const value = input.value.trim();
  return value === '' ? undefined : Number(value);
}

async function ask(text: string, methods: string[]): Promise<void> {
  running?.abort();
  const controller = new AbortController();
  running = controller;
  for (const c of columns) c.destroy();
  columns = methods.map((m) => new ResultColumn(m, passage));
  results.style.setProperty('--columns', String(columns.length));
  results.replaceChildren(...columns.map((c) => c.root));
  results.dataset.state = 'running';
  setStatus(`Asking ${methods.join(' and ')}…`);
  const k = optionalNumber(topK);
  const b = optionalNumber(budget);
  const started = performance.now();
  const outcomes = await Promise.all(
    columns.map(async (column) => {
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
          res = await askIndex(api, body, events, { answer: true, signal: controller.signal });
        } catch (error) {
          // A server (or index) that gives no answers still retrieves.
          if (!(GragApiError.isInstance(error) && error.code === 'answer_unavailable')) throw error;
          res = await askIndex(api, body, events, { answer: false, signal: controller.signal });
          column.showAnswer(res, error.message);
          return true;
        }
        column.showAnswer(res);
        return true;
      } catch (error) {
        if (controller.signal.aborted) return false;
        column.showError(failureMessage(error));
        return false;
      }
    }),
  );
  if (running !== controller) return;
  const failed = outcomes.filter((ok) => !ok).length;
  results.dataset.state = 'done';
  setStatus(
    failed
      ? `${failed} of ${methods.length} queries failed.`
      : `Answered in ${((performance.now() - started) / 1000).toFixed(2)} s.`,
    failed > 0,
  );
}

form.addEventListener('submit', (event) => {
  event.preventDefault();
  const text = question.value.trim();
  const methods = selectedMethods();
  if (!text) return setStatus('Type a question first.', true);
  if (methods.length === 0) return setStatus('Pick at least one method.', true);
  void ask(text, methods);
});

question.addEventListener('keydown', (event) => {
  if (event.key === 'Enter' && !event.shiftKey) {
    event.preventDefault();
    form.requestSubmit();
  }
});

async function start(): Promise<void> {
  const params = new URLSearchParams(location.search);
  try {
    const indexes = await api.indexes();
    const wanted = params.get('methods')?.split(',').filter(Boolean);
    methodsBox.replaceChildren(
      ...indexes.map((index, i) => methodChoice(index, i, wanted ? wanted.includes(index.name) : i === 0)),
    );
    if (indexes.length === 0) return setStatus('The server has no index loaded.', true);
    form.dataset.ready = 'true';
    setStatus(
      `${indexes.length} ${indexes.length === 1 ? 'index' : 'indexes'} loaded. Pick two to compare them side by side.`,
    );
    const q = params.get('q');
    if (q) {
      question.value = q;
      form.requestSubmit();
    }
  } catch (error) {
    setStatus(failureMessage(error), true);
  }
}

void start();
