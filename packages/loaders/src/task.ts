import type { Document, RecordFields, SkippedInput } from '@grag/core';

/** The formats whose parsers run in the loader worker. */
export type ParseFormat = 'markdown' | 'mdx' | 'html' | 'pdf' | 'docx' | 'csv' | 'tsv' | 'json' | 'jsonl';

/** The limits a parser itself enforces (bytes and time are enforced around it). */
export interface ParseLimits {
  maxPages: number;
  maxExpandedBytes: number;
  maxRecords: number;
}

/** One file for a parser: text formats arrive decoded, binary formats (PDF, DOCX) as bytes. */
export interface ParseTask {
  format: ParseFormat;
  path: string;
  text?: string;
  bytes?: Uint8Array;
  fields: RecordFields;
  limits: ParseLimits;
}

export interface ParseResult {
  documents: Document[];
  skipped: SkippedInput[];
}
