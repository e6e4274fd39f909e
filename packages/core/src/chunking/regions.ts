import { InvalidArgumentError } from '../contracts/errors.js';
import type { Document, SourceLocation } from '../contracts/types.js';

/**
 * A stretch `[start, end)` of a document's text that no chunk crosses: a segment with its
 * location, or text between segments.
 */
export interface TextRegion {
  start: number;
  end: number;
  /** The segment's location; for text between segments, the file alone (`{ path }`). */
  location?: SourceLocation;
}

/** True when the document has segments (a loader made it); without them it is chunked as one text. */
export function hasSegments(doc: Pick<Document, 'segments'>): boolean {
  return (doc.segments?.length ?? 0) > 0;
}

const isBlank = (text: string, start: number, end: number): boolean => !/\S/.test(text.slice(start, end));

/**
 * The regions chunking keeps apart in `doc`: the whole text (no location) for a document without
 * segments; else every segment whose text is not blank, with its location, and every stretch of
 * non-blank text outside the segments (before, between or after them), located by the file alone —
 * the path of the segment before it, or of the first segment for text before it. Blank segments
 * and blank stretches between segments give no region.
 *
 * @throws InvalidArgumentError when the segments are not in text order, overlap, or reach outside
 * the text (`caller` names the public function).
 */
export function textRegions(doc: Document, caller: string): TextRegion[] {
  const text = doc.text;
  const segments = doc.segments ?? [];
  if (segments.length === 0) return [{ start: 0, end: text.length }];
  const out: TextRegion[] = [];
  let at = 0;
  let path = segments[0]!.location?.path;
  segments.forEach((segment, i) => {
    const { start, end } = segment;
    if (!Number.isSafeInteger(start) || !Number.isSafeInteger(end) || start < at || end < start) {
      throw new InvalidArgumentError(
        'docs',
        `${caller}: segment ${i} of document ${JSON.stringify(doc.id)} spans [${String(start)}, ${String(end)}), ` +
          `${start < at ? 'before the end of the previous one' : 'not a span of the text'}; segments must be ` +
          'in text order and not overlap.',
      );
    }
    if (end > text.length) {
      throw new InvalidArgumentError(
        'docs',
        `${caller}: segment ${i} of document ${JSON.stringify(doc.id)} ends at ${end}, after the end of its text ` +
          `(${text.length} characters).`,
      );
    }
    if (start > at && !isBlank(text, at, start)) out.push(gap(at, start, path));
    if (!isBlank(text, start, end)) out.push({ start, end, location: segment.location });
    path = segment.location?.path ?? path;
    at = end;
  });
  if (at < text.length && !isBlank(text, at, text.length)) out.push(gap(at, text.length, path));
  return out;
}

function gap(start: number, end: number, path: string | undefined): TextRegion {
  return path === undefined ? { start, end } : { start, end, location: { path } };
}
