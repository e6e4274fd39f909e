/**
 * The loader contract: how a file becomes documents whose text segments know where they come from
 * (file, page, heading path, row or record). Core holds the contract, the citation label and the
 * plain-text loader; the format loaders (PDF, HTML, Word, CSV, JSON, Markdown) are `@grag/loaders`.
 */
import { InputError } from './contracts/errors.js';
import type { LoadedFile, Loader, LoaderInput } from './contracts/loader.js';
import type { Document, DocumentSegment, SourceLocation } from './contracts/types.js';
import { decodeText } from './text-decoding.js';

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
