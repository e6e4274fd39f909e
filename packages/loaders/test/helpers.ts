import type { Document, SourceLocation } from '@grag/core';
import { expect } from 'vitest';

export const utf8 = (text: string) => new TextEncoder().encode(text);

/**
 * Asserts the segment contract: every segment is a non-empty span of the text, in text order, not
 * overlapping, and names the file.
 */
export function expectWellFormed(doc: Document, path: string): void {
  const segments = doc.segments ?? [];
  expect(segments.length).toBeGreaterThan(0);
  let end = 0;
  for (const s of segments) {
    expect(s.start).toBeGreaterThanOrEqual(end);
    expect(s.end).toBeGreaterThan(s.start);
    expect(s.end).toBeLessThanOrEqual(doc.text.length);
    expect(doc.text.slice(s.start, s.end).trim()).not.toBe('');
    expect(s.location.path).toBe(path);
    end = s.end;
  }
}

/** The locations of the segments whose text contains `needle`. */
export function locationsOf(doc: Document, needle: string): SourceLocation[] {
  return (doc.segments ?? [])
    .filter((s) => doc.text.slice(s.start, s.end).includes(needle))
    .map((s) => s.location);
}

/** The text of the segment at `location`, or undefined. */
export function segmentText(doc: Document, location: SourceLocation): string | undefined {
  const s = (doc.segments ?? []).find((x) => JSON.stringify(x.location) === JSON.stringify(location));
  return s && doc.text.slice(s.start, s.end);
}
