import type { Document, DocumentSegment, SourceLocation } from '@grag/core';

/**
 * Builds a document's text from pieces, each with its source location: pieces are joined by a
 * blank line, and each becomes one segment whose `[start, end)` is exactly its text in the result.
 * Empty pieces are dropped.
 */
export class SegmentedText {
  #parts: string[] = [];
  #length = 0;
  readonly segments: DocumentSegment[] = [];

  add(text: string, location: SourceLocation): void {
    const piece = text.trim();
    if (piece === '') return;
    if (this.#parts.length > 0) {
      this.#parts.push('\n\n');
      this.#length += 2;
    }
    const start = this.#length;
    this.#parts.push(piece);
    this.#length += piece.length;
    this.segments.push({ start, end: this.#length, location });
  }

  get empty(): boolean {
    return this.segments.length === 0;
  }

  get text(): string {
    return this.#parts.join('');
  }

  /** The document, or undefined when no piece had text. */
  toDocument(id: string, title: string, meta?: Record<string, unknown>): Document | undefined {
    if (this.empty) return undefined;
    const doc: Document = { id, title, text: this.text, segments: this.segments };
    if (meta && Object.keys(meta).length > 0) doc.meta = meta;
    return doc;
  }
}

/** Runs of spaces, tabs and line breaks become one space; the ends are trimmed. */
export function collapseSpace(text: string): string {
  return text.replace(/[\s\u00a0]+/g, ' ').trim();
}

/** Trailing spaces off every line, at most one blank line in a row, no blank lines at the ends. */
export function tidyLines(text: string): string {
  return text
    .split(/\r\n?|\n/)
    .map((line) => line.replace(/[ \t\u00a0]+$/, ''))
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

/** The file name without folders and extension (core's `baseTitle`, without importing core at run time). */
export function fileTitle(path: string): string {
  const name = path.split(/[\\/]/).pop() ?? path;
  const dot = name.lastIndexOf('.');
  return dot > 0 ? name.slice(0, dot) : name;
}

/** The file name without folders. */
export function fileName(path: string): string {
  return path.split(/[\\/]/).pop() ?? path;
}
