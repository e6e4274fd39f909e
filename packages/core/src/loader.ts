/**
 * The loader contract: how a file becomes documents whose text segments know where they come from
 * (file, page, heading path, row or record). Core holds the contract, the citation label and the
 * plain-text loader; the format loaders (PDF, HTML, Word, CSV, JSON, Markdown) are `@grag/loaders`.
 */
import { InputError } from './errors.js';
import { decodeText, type TextEncodingName } from './text-decoding.js';
import type { Document, DocumentSegment, SourceLocation } from './types.js';

/** A file or record that was not read, and why, in one line. */
export interface SkippedInput {
  /** The file, or `file:line` / `file row N` for one record of it. */
  path: string;
  reason: string;
}

/** What a loader is given: the file's name (as it should appear in citations) and its bytes. */
export interface LoaderInput {
  /** The file as citations should name it: relative to the corpus root for a folder. */
  path: string;
  bytes: Uint8Array;
}

/** Field names for record formats (CSV, JSON, JSONL): which field holds the text, the title, the id. */
export interface RecordFields {
  /** @default 'text' (CSV: every column, as `column: value` lines, when there is no `text` column) */
  text?: string;
  /** @default 'title' */
  title?: string;
  /** @default 'id' (else `path#row` / `path#record`) */
  id?: string;
}

/** What bounds a loader's work so that no input can make it hang or exhaust memory. */
export interface LoaderLimits {
  /** Largest file read, in bytes. @default 100 MiB */
  maxBytes?: number;
  /** Most PDF pages read. @default 2000 */
  maxPages?: number;
  /** Most bytes a compressed container (DOCX) may expand to. @default 200 MiB */
  maxExpandedBytes?: number;
  /** Most records of a CSV or JSON file. @default 1,000,000 */
  maxRecords?: number;
  /** Longest a single file may take to load, in ms. @default 60,000 */
  timeoutMs?: number;
  /**
   * Most resident memory the parsing workers of `@grag/loaders` (child processes) may use together;
   * past it the largest parse is stopped (and run again alone, or failed). @default 512 MiB
   */
  maxMemoryBytes?: number;
}

export interface LoaderOptions {
  fields?: RecordFields;
  limits?: LoaderLimits;
  signal?: AbortSignal;
}

/** What a loader gives back: the documents of the file, and the records of it it did not read. */
export interface LoadedFile {
  documents: Document[];
  /** Records skipped inside a file that was otherwise read (a ragged CSV row, a JSON record with no text). */
  skipped: SkippedInput[];
  /** Set when the file's text was not UTF-8: the encoding it was decoded from, and why that one. */
  decoded?: { encoding: Exclude<TextEncodingName, 'utf-8'>; reason: string };
}

/**
 * Turns one file into documents with segments. A loader throws an `InputError` naming the file and
 * the reason in one line (damaged, encrypted, no text layer, over a limit) when nothing of the file
 * can be read; the caller reports it and goes on with the other files.
 */
export interface Loader {
  /** E.g. `'pdf'`. */
  name: string;
  /** Lower-case file extensions with the dot, e.g. `['.pdf']`. */
  extensions: readonly string[];
  load(input: LoaderInput, options?: LoaderOptions): Promise<LoadedFile>;
}

/**
 * The label a citation shows for a place in a source file: `report.pdf p. 3`,
 * `guide.html § Install › Linux`, `people.csv row 12`, `notes.json record 4`, or the path alone.
 */
export function formatLocation(location: SourceLocation): string {
  const parts = [location.path];
  if (location.page !== undefined) parts.push(`p. ${location.page}`);
  if (location.section?.length) parts.push(`§ ${location.section.join(' › ')}`);
  if (location.row !== undefined) parts.push(`row ${location.row}`);
  if (location.record !== undefined) parts.push(`record ${location.record}`);
  return parts.join(' ');
}

/** The segment of `doc` that holds character `offset`, if the document has segments. */
export function segmentAt(doc: Pick<Document, 'segments'>, offset: number): DocumentSegment | undefined {
  const segments = doc.segments;
  if (!segments?.length) return undefined;
  let lo = 0;
  let hi = segments.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (segments[mid]!.start <= offset) lo = mid;
    else hi = mid - 1;
  }
  const s = segments[lo]!;
  return offset >= s.start && offset < s.end ? s : undefined;
}

/** The file name without folders and extension, a document's title when it has no better one. */
export function baseTitle(path: string): string {
  const name = path.split(/[\\/]/).pop() ?? path;
  const dot = name.lastIndexOf('.');
  return dot > 0 ? name.slice(0, dot) : name;
}

/**
 * Text in any encoding `decodeText` recognises, as a string, with the encoding when it is not
 * UTF-8. Throws an `InputError` for binary content and for a file with no text.
 */
export function decodeFileText(input: LoaderInput): { text: string; decoded?: LoadedFile['decoded'] } {
  const result = decodeText(input.bytes);
  if (result.binary)
    throw new InputError(input.path, `${input.path}: binary content (${result.reason}), not text`);
  if (result.text.trim() === '') throw new InputError(input.path, `${input.path}: empty file`);
  return result.encoding === 'utf-8'
    ? { text: result.text }
    : { text: result.text, decoded: { encoding: result.encoding, reason: result.reason } };
}

/** Plain text: the whole file is one document (id = the path) with one segment. */
export const textLoader: Loader = {
  name: 'text',
  extensions: ['.txt', '.text'],
  async load(input) {
    const { text, decoded } = decodeFileText(input);
    const doc: Document = {
      id: input.path,
      title: baseTitle(input.path),
      text,
      segments: [{ start: 0, end: text.length, location: { path: input.path } }],
    };
    return { documents: [doc], skipped: [], ...(decoded ? { decoded } : {}) };
  },
};
