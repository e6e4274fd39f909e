/**
 * The grag explorer page: three tabs over the server's indexes — Ask (a question asked of one or
 * several indexes side by side: answers with citations, context items, retrieved subgraphs),
 * Documents (indexes and their documents: upload, paste, delete, create, with the job status on one
 * line) and Graph (an index's whole graph, searched and expanded a page at a time).
 */
import './explorer.css';
import { failureMessage, pageClient, tokenFromHash } from './api.js';
import { AskTab } from './ask.js';
import { GraphTab } from './browse.js';
import { DocumentsTab } from './documents.js';
import { JobLine } from './jobs.js';
import { PassageDialog } from './view.js';

const token = tokenFromHash(location.hash);
const api = pageClient(token);
const passage = new PassageDialog(api);
document.body.append(passage.dialog);
const jobs = new JobLine(api);
const askTab = new AskTab(api, passage);
const graphTab = new GraphTab(api);

type Tab = 'ask' | 'documents' | 'graph';
const tabs = [...document.querySelectorAll<HTMLButtonElement>('[role=tab]')];

function showTab(tab: Tab): void {
  for (const button of tabs) {
    const on = button.dataset.tab === tab;
    button.setAttribute('aria-selected', String(on));
    button.tabIndex = on ? 0 : -1;
    document.querySelector<HTMLElement>(`#panel-${button.dataset.tab}`)!.hidden = !on;
  }
  document.body.dataset.tab = tab;
  if (tab === 'graph') graphTab.opened();
}
for (const [i, button] of tabs.entries()) {
  button.addEventListener('click', () => showTab(button.dataset.tab as Tab));
  // The tab list as ARIA's tabs pattern has it: arrow keys, Home and End move between tabs.
  button.addEventListener('keydown', (event) => {
    const to = { ArrowRight: i + 1, ArrowLeft: i - 1, Home: 0, End: tabs.length - 1 }[event.key];
    if (to === undefined) return;
    event.preventDefault();
    const next = tabs[(to + tabs.length) % tabs.length]!;
    showTab(next.dataset.tab as Tab);
    next.focus();
  });
}

let wanted: string[] | undefined = new URLSearchParams(location.search)
  .get('methods')
  ?.split(',')
  .filter(Boolean);

/** Read the indexes the token may see and show them in every tab. */
async function refresh(): Promise<void> {
  try {
    const indexes = await api.indexes();
    askTab.showIndexes(indexes, wanted);
    wanted = undefined;
    documentsTab.showIndexes(indexes);
    graphTab.showIndexes(indexes);
  } catch (error) {
    askTab.setStatus(failureMessage(error), true);
  }
}
const documentsTab = new DocumentsTab(api, jobs, passage, refresh);

async function start(): Promise<void> {
  void documentsTab.loadMethods();
  await refresh();
  document.body.dataset.ready = 'true';
  const q = new URLSearchParams(location.search).get('q');
  if (q) askTab.askNow(q);
}

void start();
