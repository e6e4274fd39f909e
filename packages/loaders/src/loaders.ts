import {
  InputError,
  type LoadedFile,
  type Loader,
  type LoaderInput,
  type LoaderLimits,
  type LoaderOptions,
} from '@grag/core';
import { decodeFileText } from '@grag/core/kit';
import { formatBytes, LoadFailure } from './failure.js';
import { resolveLimits } from './limits.js';
import { runInWorker } from './pool.js';
import { describe, sniff } from './sniff.js';
import type { ParseFormat, ParseTask } from './task.js';

/** How a built-in loader checks its input before parsing: as text of a format, or as PDF or DOCX bytes. */
type Content = { text: string } | { binary: 'pdf' | 'docx' };

const builtIns = new WeakSet<Loader>();

/** Whether `loader` is one of this package's loaders (they enforce limits and check content themselves). */
export function isBuiltInLoader(loader: Loader): boolean {
  return builtIns.has(loader);
}

/** Refuses a file over `limits.maxBytes` before anything reads it. */
export function checkSize(input: LoaderInput, limits: Required<LoaderLimits>): void {
  if (input.bytes.byteLength > limits.maxBytes)
    throw new InputError(
      input.path,
      `${input.path}: ${formatBytes(input.bytes.byteLength)}, more than limits.maxBytes (${formatBytes(limits.maxBytes)}); raise the limit or split the file`,
    );
}

function defineLoader(
  name: string,
  extensions: readonly string[],
  content: Content,
  format: (path: string) => ParseFormat,
): Loader {
  const loader: Loader = {
    name,
    extensions,
    async load(input: LoaderInput, options: LoaderOptions = {}): Promise<LoadedFile> {
      const limits = resolveLimits(options);
      checkSize(input, limits);
      let decoded: LoadedFile['decoded'];
      // The task is not kept in a variable: once the worker has its copy, none stays here. A parse
      // stopped to keep the workers within their memory budget is run again from a new one.
      const task = (): ParseTask => ({
        format: format(input.path),
        path: input.path,
        ...prepare(input, content, (d) => {
          decoded = d;
        }),
        fields: options.fields ?? {},
        limits: {
          maxPages: limits.maxPages,
          maxExpandedBytes: limits.maxExpandedBytes,
          maxRecords: limits.maxRecords,
        },
      });
      try {
        const result = await runInWorker(task(), task, {
          timeoutMs: limits.timeoutMs,
          maxMemoryBytes: limits.maxMemoryBytes,
          signal: options.signal,
        });
        return decoded ? { ...result, decoded } : result;
      } catch (error) {
        if (error instanceof LoadFailure)
          throw new InputError(input.path, `${input.path}: ${error.message}`, { cause: error });
        throw error;
      }
    },
  };
  builtIns.add(loader);
  return loader;
}

/** The text or bytes a parser gets, checked against what the loader reads. */
function prepare(
  input: LoaderInput,
  content: Content,
  onDecoded: (decoded: NonNullable<LoadedFile['decoded']>) => void,
): Pick<ParseTask, 'text' | 'bytes'> {
  if ('binary' in content) {
    checkBinary(input, content.binary);
    // A view into a larger buffer would be copied whole to the worker: copy just the view.
    const { bytes } = input;
    return { bytes: bytes.byteLength === bytes.buffer.byteLength ? bytes : bytes.slice() };
  }
  const { text, decoded } = readText(input, content.text);
  if (decoded) onDecoded(decoded);
  // One line-break convention for every parser (a CSV field or a code block keeps no \r).
  return { text: text.replace(/\r\n?/g, '\n') };
}

/** The file's text (any encoding `decodeText` knows); binary content named by its kind when known. */
function readText(input: LoaderInput, label: string): { text: string; decoded?: LoadedFile['decoded'] } {
  try {
    return decodeFileText(input);
  } catch (error) {
    const kind = sniff(input.bytes);
    if (InputError.isInstance(error) && kind && kind !== 'rtf')
      throw new InputError(input.path, `${input.path}: the content is ${describe(kind)}, not ${label} text`);
    throw error;
  }
}

function checkBinary(input: LoaderInput, expected: 'pdf' | 'docx'): void {
  const kind = sniff(input.bytes);
  if (expected === 'pdf' && kind === 'pdf') return;
  if (expected === 'docx' && kind === 'zip') return;
  const wanted = expected === 'pdf' ? 'a PDF' : 'a DOCX (Word) file';
  let reason: string;
  if (input.bytes.byteLength === 0) reason = 'empty file';
  else if (kind === 'ole' && expected === 'docx')
    reason =
      'the content is an OLE2 compound file, not a DOCX: an encrypted Word document (save it without a password) or a legacy .doc (save it as .docx)';
  else if (kind) reason = `the content is ${describe(kind)}, not ${wanted}`;
  else if (expected === 'pdf') reason = 'not a PDF (no %PDF- header in the first 1 KiB)';
  else reason = 'not a DOCX (Word) file (the content is not a ZIP archive)';
  throw new InputError(input.path, `${input.path}: ${reason}`);
}

const lower = (path: string) => path.toLowerCase();

/**
 * Markdown (`.md`, `.markdown`, `.mdx`): one document (id = the path), one segment per section with
 * the heading path as `location.section`; title = the first `#` heading, else the front matter's
 * `title`, else the file name.
 */
export const markdownLoader: Loader = defineLoader(
  'markdown',
  ['.md', '.markdown', '.mdx'],
  { text: 'Markdown' },
  (path) => (lower(path).endsWith('.mdx') ? 'mdx' : 'markdown'),
);

/**
 * HTML (`.html`, `.htm`): the page's main content (Readability, after dropping nav, header, footer
 * and asides) as one document, one segment per section with the heading path as
 * `location.section`. A page with no main content is an `InputError` ("no main content").
 */
export const htmlLoader: Loader = defineLoader('html', ['.html', '.htm'], { text: 'HTML' }, () => 'html');

/**
 * PDF (`.pdf`): one document, one segment per page with `location.page` (from 1); pages without
 * text are listed in `skipped`. Encrypted, damaged and image-only PDFs ("no text layer; OCR is not
 * supported") are `InputError`s.
 */
export const pdfLoader: Loader = defineLoader('pdf', ['.pdf'], { binary: 'pdf' }, () => 'pdf');

/**
 * Word (`.docx`): one document, one segment per section with the heading path (Heading 1, 2, …)
 * as `location.section`; tables as text rows. Not-a-ZIP files, ZIP bombs (over
 * `limits.maxExpandedBytes`) and encrypted or legacy `.doc` files are `InputError`s.
 */
export const docxLoader: Loader = defineLoader('docx', ['.docx'], { binary: 'docx' }, () => 'docx');

/**
 * CSV and TSV (`.csv`, `.tsv`): one document per record with `location.row` (the header is row 1).
 * Text from the `fields.text` column, else `column: value` lines; id from `fields.id`, else
 * `${path}#row${row}`. Ragged and unparseable rows are listed in `skipped` as `path row N`.
 */
export const csvLoader: Loader = defineLoader('csv', ['.csv', '.tsv'], { text: 'CSV' }, (path) =>
  lower(path).endsWith('.tsv') ? 'tsv' : 'csv',
);

/**
 * JSON (`.json`): an array of records, or one object as one record; one document per record with
 * `location.record` (from 1). Text from `fields.text`, else `key: value` lines; id from
 * `fields.id`, else `${path}#record${n}`.
 */
export const jsonLoader: Loader = defineLoader('json', ['.json'], { text: 'JSON' }, () => 'json');

/**
 * JSON Lines (`.jsonl`): one document per line with a `fields.text` string, `location.record` = the
 * line number; id from `fields.id`, else `${file name}:${line}`. Invalid lines are listed in
 * `skipped` as `path:line`.
 */
export const jsonlLoader: Loader = defineLoader('jsonl', ['.jsonl'], { text: 'JSON Lines' }, () => 'jsonl');
