/**
 * The Documents tab: the indexes the token may see, one picked; its documents, a page at a time,
 * each opened or deleted; files uploaded (every format the server's loaders read) or a text pasted;
 * a new index created (name, method, a first text or files) and the picked one deleted. Every write
 * is a job whose status shows on the page's job line; files are sent with their bytes counted there.
 */
import type { GragClient } from './api.js';
import { failureMessage } from './api.js';
import { h } from './dom.js';
import type { JobLine } from './jobs.js';
import type { IndexInfo, Job } from './types.js';
import type { PassageDialog } from './view.js';

/** Documents listed per page. */
const PAGE = 50;
/** The file types the server's loaders read (`@grag/loaders`). */
export const UPLOAD_TYPES = '.md,.markdown,.mdx,.txt,.text,.html,.htm,.pdf,.docx,.csv,.tsv,.json,.jsonl';

const $ = <T extends HTMLElement>(selector: string) => document.querySelector<T>(selector)!;

/** The Documents tab. */
export class DocumentsTab {
  private readonly list = $<HTMLElement>('#index-list');
  private readonly createForm = $<HTMLFormElement>('#create-index');
  private readonly methodSelect = $<HTMLSelectElement>('#new-method');
  private readonly docsTitle = $<HTMLElement>('#docs-title');
  private readonly docsMeta = $<HTMLElement>('#docs-meta');
  private readonly docList = $<HTMLElement>('#doc-list');
  private readonly prev = $<HTMLButtonElement>('#docs-prev');
  private readonly next = $<HTMLButtonElement>('#docs-next');
  private readonly indexBox = $<HTMLElement>('#index-detail');
  private readonly uploadForm = $<HTMLFormElement>('#upload-files');
  private readonly files = $<HTMLInputElement>('#files');
  private readonly createFiles = $<HTMLInputElement>('#new-files');
  private readonly textForm = $<HTMLFormElement>('#add-text');
  private indexes: IndexInfo[] = [];
  private picked: string | undefined;
  private offset = 0;
  /** The number of the last page asked for: an earlier one's answer, coming late, is dropped. */
  private pages = 0;

  constructor(
    private readonly api: GragClient,
    private readonly jobs: JobLine,
    private readonly passage: PassageDialog,
    /** Reads the index list again (after a write) and shows it in every tab. */
    private readonly refresh: () => Promise<void>,
  ) {
    this.files.accept = UPLOAD_TYPES;
    this.createFiles.accept = UPLOAD_TYPES;
    this.createForm.addEventListener('submit', (event) => {
      event.preventDefault();
      void this.create();
    });
    this.uploadForm.addEventListener('submit', (event) => {
      event.preventDefault();
      void this.upload();
    });
    this.textForm.addEventListener('submit', (event) => {
      event.preventDefault();
      void this.addText();
    });
    $('#delete-index').addEventListener('click', () => void this.deleteIndex());
    this.prev.addEventListener('click', () => void this.showDocuments(Math.max(0, this.offset - PAGE)));
    this.next.addEventListener('click', () => void this.showDocuments(this.offset + PAGE));
  }

  /** Show the methods new indexes are built with (or why none can be made). */
  async loadMethods(): Promise<void> {
    try {
      const { create, methods } = await this.api.methods();
      this.methodSelect.replaceChildren(
        ...methods.map((m) => h('option', { value: m.name, title: m.description }, m.name)),
      );
      const note = $<HTMLElement>('#create-note');
      if (!create || methods.length === 0) {
        this.createForm.querySelector<HTMLButtonElement>('button[type=submit]')!.disabled = true;
        note.textContent = 'This server does not create indexes (serve a folder: grag serve --dir <folder>).';
      }
    } catch (error) {
      $<HTMLElement>('#create-note').textContent = failureMessage(error);
    }
  }

  /** Show `indexes`, keeping the picked one when it is still there. */
  showIndexes(indexes: readonly IndexInfo[]): void {
    this.indexes = [...indexes];
    if (this.picked === undefined || !indexes.some((ix) => ix.name === this.picked)) {
      this.picked = indexes[0]?.name;
      this.offset = 0;
    }
    this.list.replaceChildren(...indexes.map((ix) => this.indexRow(ix)));
    if (indexes.length === 0) this.list.append(h('li', { class: 'muted' }, 'No index yet: create one.'));
    void this.showDocuments(this.offset);
  }

  private indexRow(ix: IndexInfo): HTMLElement {
    const id = `pick-${ix.name}`;
    const radio = h('input', { type: 'radio', name: 'index-pick', id, value: ix.name });
    radio.checked = ix.name === this.picked;
    radio.addEventListener('change', () => {
      this.picked = ix.name;
      void this.showDocuments(0);
    });
    return h(
      'li',
      { 'data-testid': 'index-row', 'data-name': ix.name },
      h(
        'label',
        { for: id },
        radio,
        h('span', { class: 'name' }, ix.name),
        h(
          'span',
          { class: 'muted' },
          ` ${ix.method} · ${ix.documents} documents${ix.writable ? '' : ' · read-only'}`,
        ),
      ),
    );
  }

  /** The page of documents of the picked index from `offset`. */
  private async showDocuments(offset: number): Promise<void> {
    const name = this.picked;
    this.indexBox.hidden = name === undefined;
    if (name === undefined) return;
    const info = this.indexes.find((ix) => ix.name === name);
    this.docsTitle.textContent = `Documents of ${name}`;
    this.uploadForm.querySelector('button')!.disabled = info?.writable === false;
    this.textForm.querySelector<HTMLButtonElement>('button[type=submit]')!.disabled =
      info?.writable === false;
    const mine = ++this.pages;
    try {
      const page = await this.api.documents(name, { offset, limit: PAGE });
      if (mine !== this.pages) return;
      this.offset = offset;
      const end = offset + page.documents.length;
      this.docsMeta.textContent =
        page.total === 0
          ? `No documents · version ${page.version}`
          : `${offset + 1}–${end} of ${page.total} · version ${page.version}${info?.writable === false ? ' · this index cannot be written' : ''}`;
      this.docList.dataset.version = page.version;
      this.docList.replaceChildren(...page.documents.map((d) => this.docRow(name, d.id, d.title)));
      this.prev.disabled = offset === 0;
      this.next.disabled = end >= page.total;
    } catch (error) {
      this.docsMeta.textContent = failureMessage(error);
    }
  }

  private docRow(index: string, id: string, title: string | undefined): HTMLElement {
    const open = h(
      'button',
      { type: 'button', class: 'doc-open', title: 'Open the document' },
      h('code', {}, id),
    );
    open.addEventListener('click', () => void this.passage.open(index, id));
    const remove = h(
      'button',
      { type: 'button', class: 'danger small', 'aria-label': `Delete document ${id}` },
      'Delete',
    );
    remove.addEventListener('click', () => void this.deleteDocument(index, id));
    return h(
      'li',
      { 'data-testid': 'doc-row', 'data-doc-id': id },
      open,
      title ? h('span', { class: 'muted' }, ` ${title}`) : '',
      remove,
    );
  }

  /** Run a write: send it, follow its job on the job line, then show the lists again. */
  private async write(what: string, submit: () => Promise<Job>): Promise<Job | undefined> {
    this.jobs.sending(what);
    let job: Job;
    try {
      job = await submit();
    } catch (error) {
      this.jobs.fail(what, error);
      return undefined;
    }
    const final = await this.jobs.follow(what, job);
    await this.refresh();
    return final;
  }

  /** Send the form of a multipart route with the bytes sent shown on the job line. */
  /** The client's call options that show the bytes of an upload sent on the job line. */
  private progress(what: string): { onUploadProgress: (sent: number, total: number) => void } {
    return { onUploadProgress: (sent, total) => this.jobs.uploading(what, sent, total) };
  }

  private async create(): Promise<void> {
    const form = new FormData(this.createForm);
    const name = String(form.get('name') ?? '').trim();
    const method = String(form.get('method') ?? '');
    const id = String(form.get('id') ?? '').trim() || 'note-1';
    const text = String(form.get('text') ?? '');
    const files = [...(this.createFiles.files ?? [])];
    const documents = text.trim() === '' ? [] : [{ id, text }];
    const what = `Creating index ${name} (${method})`;
    if (files.length === 0 && documents.length === 0) {
      return this.jobs.fail(what, new Error('paste a first text or choose files.'));
    }
    const job = await this.write(what, () => {
      if (files.length === 0) return this.api.createIndex({ name, method, documents });
      // The text fields and the files in one request (multipart), with the bytes sent shown.
      return this.api.createIndex(
        { name, method, files, ...(documents.length > 0 ? { documents } : {}) },
        this.progress(what),
      );
    });
    if (job?.status === 'done') {
      this.createForm.reset();
      this.picked = name;
      await this.refresh();
    }
  }

  private async upload(): Promise<void> {
    const name = this.picked;
    const files = [...(this.files.files ?? [])];
    if (name === undefined) return;
    if (files.length === 0) return this.jobs.fail('Uploading', new Error('choose one or more files first.'));
    const what = `Uploading ${files.length === 1 ? files[0]!.name : `${files.length} files`} to ${name}`;
    const job = await this.write(what, () => this.api.uploadDocuments(name, { files }, this.progress(what)));
    if (job?.status === 'done') this.uploadForm.reset();
  }

  private async addText(): Promise<void> {
    const name = this.picked;
    if (name === undefined) return;
    const form = new FormData(this.textForm);
    const id = String(form.get('id') ?? '').trim();
    const title = String(form.get('title') ?? '').trim();
    const text = String(form.get('text') ?? '');
    const job = await this.write(`Adding ${id} to ${name}`, () =>
      this.api.uploadDocuments(name, { documents: [{ id, text, ...(title ? { title } : {}) }] }),
    );
    if (job?.status === 'done') this.textForm.reset();
  }

  private async deleteDocument(index: string, id: string): Promise<void> {
    if (!confirm(`Delete document ${id} from ${index}?`)) return;
    await this.write(`Deleting ${id} from ${index}`, () => this.api.deleteDocument(index, id));
  }

  private async deleteIndex(): Promise<void> {
    const name = this.picked;
    if (name === undefined || !confirm(`Delete index ${name} and its files?`)) return;
    await this.write(`Deleting index ${name}`, () => this.api.deleteIndex(name));
  }
}
