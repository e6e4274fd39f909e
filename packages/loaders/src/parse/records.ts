import type { Document, SkippedInput, SourceLocation } from '@grag/core';
import { parse as parseCsvSync } from 'csv-parse/sync';
import { LoadFailure, oneLine } from '../failure.js';
import type { ParseResult, ParseTask } from '../task.js';
import { fileName } from '../text.js';

interface Fields {
  text: string;
  title: string;
  id: string;
}

function fieldsOf(task: ParseTask): Fields {
  return {
    text: task.fields.text ?? 'text',
    title: task.fields.title ?? 'title',
    id: task.fields.id ?? 'id',
  };
}

/** Receives each record's document as it is made (the worker sends them on in batches). */
export type Emit = (doc: Document) => void;

/** Where a record parser puts documents: `emit` when given, else the result's array. */
function sink(emit: Emit | undefined): { documents: Document[]; push: Emit } {
  const documents: Document[] = [];
  return { documents, push: emit ?? ((doc) => documents.push(doc)) };
}

/**
 * Where a JSON or JSONL file's record documents go: `take` keeps a document unless its id was
 * taken before, and reports a record that gave no document (its reason) or a duplicate id.
 */
function recordSink(emit: Emit | undefined) {
  const { documents, push } = sink(emit);
  const skipped: SkippedInput[] = [];
  const ids = new Set<string>();
  const take = (doc: Document | string, where: string): void => {
    if (typeof doc === 'string') skipped.push({ path: where, reason: doc });
    else if (ids.has(doc.id)) skipped.push({ path: where, reason: `duplicate id "${doc.id}"` });
    else {
      ids.add(doc.id);
      push(doc);
    }
  };
  return { documents, skipped, take };
}

function tooMany(limit: number): LoadFailure {
  return new LoadFailure(`more than limits.maxRecords (${limit}) records; raise the limit or split the file`);
}

/** One record's document: its whole text is one segment at `location`. */
function recordDocument(
  id: string,
  text: string,
  location: SourceLocation,
  title?: string,
  meta?: Record<string, unknown>,
): Document {
  const doc: Document = { id, text, segments: [{ start: 0, end: text.length, location }] };
  if (title) doc.title = title;
  if (meta && Object.keys(meta).length > 0) doc.meta = meta;
  return doc;
}

/** A scalar as text; arrays of scalars joined by commas; anything else as compact JSON. */
function valueText(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'string') return value.trim();
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (Array.isArray(value) && value.every((v) => v === null || typeof v !== 'object'))
    return value.map(valueText).filter(Boolean).join(', ');
  return JSON.stringify(value);
}

/** `key: value` lines of every non-empty field: a record's text when it has no text field. */
function fieldLines(entries: Iterable<[string, unknown]>): string {
  const lines: string[] = [];
  for (const [key, value] of entries) {
    const text = valueText(value);
    if (text !== '') lines.push(`${key}: ${text}`);
  }
  return lines.join('\n');
}

/**
 * CSV or TSV → one document per record. The first row is the header. A record's text is its text
 * column, or else every non-empty column as `column: value` lines; its id the id column, or else
 * `${path}#row${row}`; `location.row` is the row a spreadsheet shows (the header is row 1). Rows
 * whose field count differs from the header's, unparseable rows and duplicate ids are reported in
 * `skipped` as `path row N`; the rest is read.
 */
export function parseCsv(task: ParseTask, delimiter: ',' | '\t', emit?: Emit): ParseResult {
  const fields = fieldsOf(task);
  const { documents, push } = sink(emit);
  const skipped: SkippedInput[] = [];
  const ids = new Set<string>();
  let header: string[] | undefined;
  let row = 0;
  let records = 0;
  const skip = (reason: string) => skipped.push({ path: `${task.path} row ${row}`, reason });
  const onRecord = (record: string[]) => {
    row++;
    if (!header) {
      header = record.map((name, i) => name.trim() || `column ${i + 1}`);
      return null;
    }
    if (record.every((value) => value.trim() === '')) return null; // a blank row: nothing to read
    if (++records > task.limits.maxRecords) throw tooMany(task.limits.maxRecords);
    if (record.length !== header.length) {
      skip(`${record.length} field${record.length === 1 ? '' : 's'} where the header has ${header.length}`);
      return null;
    }
    const values = new Map(header.map((name, i) => [name, record[i]!.trim()] as [string, string]));
    const hasText = values.has(fields.text);
    const text = hasText ? values.get(fields.text)! : fieldLines(values);
    if (text === '') {
      skip(hasText ? `empty "${fields.text}"` : 'every field is empty');
      return null;
    }
    const id = values.get(fields.id) || `${task.path}#row${row}`;
    if (ids.has(id)) {
      skip(`duplicate id "${id}"`);
      return null;
    }
    ids.add(id);
    const meta: Record<string, string> = {};
    if (hasText)
      for (const [name, value] of values)
        if (name !== fields.text && name !== fields.title && name !== fields.id && value !== '')
          meta[name] = value;
    push(recordDocument(id, text, { path: task.path, row }, values.get(fields.title), meta));
    return null;
  };
  try {
    parseCsvSync(task.text ?? '', {
      delimiter,
      bom: true,
      relax_column_count: true,
      relax_quotes: true,
      skip_empty_lines: false,
      skip_records_with_error: true,
      on_record: onRecord,
      on_skip: (error) => {
        row++;
        skip(
          `not valid ${delimiter === ',' ? 'CSV' : 'TSV'} (${oneLine(error?.message ?? 'unreadable row', 120)})`,
        );
        return undefined;
      },
    });
  } catch (error) {
    if (error instanceof LoadFailure) throw error;
    throw new LoadFailure(
      `not valid ${delimiter === ',' ? 'CSV' : 'TSV'} (${oneLine((error as Error).message, 120)})`,
    );
  }
  if (!header) throw new LoadFailure('empty file (no header row)');
  return { documents, skipped };
}

/** The document of one JSON or JSONL record, or the reason it has none. */
function jsonRecord(
  value: unknown,
  fields: Fields,
  location: SourceLocation,
  fallbackId: string,
  lenient: boolean,
): Document | string {
  if (typeof value === 'string' && lenient) {
    return value.trim() === '' ? 'empty string' : recordDocument(fallbackId, value, location);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    return lenient ? 'not an object or a string' : `no "${fields.text}" string field`;
  const record = value as Record<string, unknown>;
  const raw = record[fields.text];
  let text: string;
  if (typeof raw === 'string') {
    if (raw.trim() === '') return `empty "${fields.text}"`;
    text = raw;
  } else if (lenient && raw === undefined) {
    text = fieldLines(Object.entries(record));
    if (text === '') return 'every field is empty';
  } else return `no "${fields.text}" string field`;
  const rawId = record[fields.id];
  const id = typeof rawId === 'string' || typeof rawId === 'number' ? String(rawId) : fallbackId;
  const rawTitle = record[fields.title];
  const title = typeof rawTitle === 'string' && rawTitle.trim() !== '' ? rawTitle : undefined;
  return recordDocument(id, text, location, title);
}

/**
 * JSON → one document per record: an array of records, or one object as one record. A record's
 * text is its text field, or else every non-empty field as `key: value` lines; a string element is
 * a record of text alone. Ids come from the id field, or else `${path}#record${n}`;
 * `location.record` counts from 1.
 */
export function parseJson(task: ParseTask, emit?: Emit): ParseResult {
  const fields = fieldsOf(task);
  let value: unknown;
  try {
    value = JSON.parse(task.text ?? '');
  } catch (error) {
    throw new LoadFailure(`not valid JSON (${oneLine((error as Error).message, 120)})`);
  }
  const records = Array.isArray(value) ? value : [value];
  if (!Array.isArray(value) && (typeof value !== 'object' || value === null))
    throw new LoadFailure('not a JSON record or array of records');
  if (records.length > task.limits.maxRecords) throw tooMany(task.limits.maxRecords);
  const { documents, skipped, take } = recordSink(emit);
  records.forEach((record, i) => {
    records[i] = undefined; // the parsed record can go once its document is made
    const n = i + 1;
    const doc = jsonRecord(record, fields, { path: task.path, record: n }, `${task.path}#record${n}`, true);
    take(doc, `${task.path} record ${n}`);
  });
  return { documents, skipped };
}

/**
 * JSON Lines → one document per line holding an object with a text string field (as `grag index`
 * has always read `.jsonl`): id from the id field or `${file name}:${line}`; invalid lines,
 * records without text and duplicate ids are reported in `skipped` as `path:line`;
 * `location.record` is the line number.
 */
export function parseJsonl(task: ParseTask, emit?: Emit): ParseResult {
  const fields = fieldsOf(task);
  const { documents, skipped, take } = recordSink(emit);
  const base = fileName(task.path);
  let records = 0;
  const lines = (task.text ?? '').split(/\r?\n/);
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (line.trim() === '') continue;
    if (++records > task.limits.maxRecords) throw tooMany(task.limits.maxRecords);
    const n = i + 1;
    const where = `${task.path}:${n}`;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      skipped.push({ path: where, reason: 'not valid JSON' });
      continue;
    }
    take(jsonRecord(value, fields, { path: task.path, record: n }, `${base}:${n}`, false), where);
  }
  return { documents, skipped };
}
