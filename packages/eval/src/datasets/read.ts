/** Reading JSONL / JSON / TSV files with errors that name the file and line. */
import { createHash } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import { InputError } from '@grag/core';
import { decodeText } from '@grag/core/kit';
import type { LoadOptions, SkippedRecord } from './types.js';

/** A parsed record and where it was. */
export interface SourceRecord {
  value: unknown;
  /** 1-based line (JSONL) or position (JSON array). */
  line: number;
}

/**
 * Read a whole text file, decoded by content (UTF-8, UTF-16 with or without a byte-order mark,
 * Windows-1252 / Latin-1: see `decodeText` in @grag/core). A missing, unreadable or binary file is
 * an {@link InputError} naming it.
 */
export function readText(path: string, what = 'file'): string {
  let bytes: Buffer;
  try {
    bytes = readFileSync(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new InputError(
      path,
      code === 'ENOENT'
        ? `@grag/eval: ${what} ${path} does not exist; check the path.`
        : `@grag/eval: cannot read ${what} ${path} (${code ?? (error as Error).message}).`,
      { cause: error },
    );
  }
  const decoded = decodeText(bytes);
  if (decoded.binary === true)
    throw new InputError(
      path,
      `@grag/eval: ${what} ${path} is not text (${decoded.reason}); check the path.`,
    );
  return decoded.text;
}

/** Whether `path` exists and is a directory / a file. */
export function pathKind(path: string): 'dir' | 'file' | 'missing' {
  try {
    return statSync(path).isDirectory() ? 'dir' : 'file';
  } catch {
    return 'missing';
  }
}

/**
 * Records of a JSONL file (one JSON value per non-blank line) or a JSON file holding an array
 * (or an object whose values are the records). A line that is not JSON throws an
 * {@link InputError} naming `path:line`, or with `malformed: 'skip'` is skipped and counted.
 */
export function readRecords(
  path: string,
  options: Pick<LoadOptions, 'malformed'> = {},
): { records: SourceRecord[]; skipped: SkippedRecord[] } {
  const text = readText(path);
  const records: SourceRecord[] = [];
  const skipped: SkippedRecord[] = [];
  const trimmed = text.trimStart();
  const isJsonFile = /\.json$/i.test(path) && (trimmed.startsWith('[') || trimmed.startsWith('{'));
  if (isJsonFile) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch (error) {
      throw new InputError(
        path,
        `@grag/eval: ${path} is not valid JSON (${(error as Error).message}); fix the file or convert it to JSONL.`,
        { cause: error },
      );
    }
    const values = Array.isArray(parsed) ? parsed : Object.values(parsed as Record<string, unknown>);
    values.forEach((value, i) => {
      records.push({ value, line: i + 1 });
    });
    return { records, skipped };
  }
  const lines = text.split('\n');
  lines.forEach((raw, i) => {
    const line = raw.trim();
    if (line === '') return;
    try {
      records.push({ value: JSON.parse(line), line: i + 1 });
    } catch (error) {
      const reason = `not valid JSON (${(error as Error).message})`;
      if (options.malformed === 'skip') skipped.push({ path, line: i + 1, reason });
      else
        throw new InputError(
          path,
          `@grag/eval: ${path}:${i + 1}: ${reason}. Fix or remove the line, or load with malformed: 'skip'.`,
          { cause: error },
        );
    }
  });
  return { records, skipped };
}

/** A JSON object, or `undefined`. */
export function asRecord(value: unknown): Record<string, unknown> | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}

/** The first field of `record` among `names` that is a non-empty string (numbers are converted). */
export function stringField(record: Record<string, unknown>, names: readonly string[]): string | undefined {
  for (const name of names) {
    const v = record[name];
    if (typeof v === 'string' && v.trim() !== '') return v;
    if (typeof v === 'number' && Number.isFinite(v)) return String(v);
  }
  return undefined;
}

/** The first field among `names` as a list of non-empty strings (a string becomes a one-item list). */
export function stringListField(
  record: Record<string, unknown>,
  names: readonly string[],
): string[] | undefined {
  for (const name of names) {
    const v = record[name];
    if (v === undefined || v === null) continue;
    if (typeof v === 'string' || typeof v === 'number') return String(v).trim() === '' ? [] : [String(v)];
    if (Array.isArray(v))
      return v
        .filter((x) => typeof x === 'string' || typeof x === 'number')
        .map(String)
        .filter((x) => x.trim() !== '');
  }
  return undefined;
}

/** Content-hash passage id used by the shared slices: `<prefix>-<first 12 hex of sha1(title + "\x1f" + text)>`. */
export function passageId(prefix: string, title: string, text: string): string {
  return `${prefix}-${createHash('sha1').update(`${title}\u001f${text}`).digest('hex').slice(0, 12)}`;
}

/** Remove repeated strings, keeping the first of each. */
export function unique(values: readonly string[]): string[] {
  return [...new Set(values)];
}
