/**
 * The loader contract: how a file becomes documents whose text segments know where they come from
 * (file, page, heading path, row or record). The plain-text loader and the citation label are in
 * `@grag/core/kit`; the format loaders (PDF, HTML, Word, CSV, JSON, Markdown) are `@grag/loaders`.
 */
import type { Document } from './types.js';

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

/** Options of {@link Loader.load}. */
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
/** Text encodings `decodeText` (`@grag/core/kit`) recognises. */
export type TextEncodingName = 'utf-8' | 'utf-16le' | 'utf-16be' | 'windows-1252' | 'latin1';
