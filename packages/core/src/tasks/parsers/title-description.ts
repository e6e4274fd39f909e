/**
 * Parser of the chunk title-and-description task (DA-RAG §3).
 */

import type { ParseIssue, TitleDescription } from '../../contracts/tasks.js';
import { extractJson, isJsonRecord, stripCodeFences } from '../lenient-json.js';
import { cleanFieldText, fieldText, getRecordField } from '../record-fields.js';
import { firstLabelled, hasContent, issue, jsonIssues, labelledLines, noRecords } from './common.js';

const TITLE = ['title', 'heading', 'name', 'chunktitle'];
const DESCRIPTION_TEXT = [
  'description',
  'summary',
  'desc',
  'abstract',
  'chunkdescription',
  'concisedescription',
];

/**
 * Parse a chunk title and concise description (DA-RAG §3): JSON `{"title": ..., "description": ...}`,
 * or labelled lines (`Title: ...` / `Description: ...`), or else the first line as the title and the
 * rest as the description. A missing part becomes `''` with a `'missing-field'` issue.
 */
export function parseTitleDescription(raw: string): TitleDescription {
  const text = String(raw ?? '');
  const issues: ParseIssue[] = [];
  let title: string | undefined;
  let description: string | undefined;
  const json = extractJson(
    text,
    (v) =>
      isJsonRecord(v) &&
      (getRecordField(v, TITLE) !== undefined || getRecordField(v, DESCRIPTION_TEXT) !== undefined),
  );
  if (json && isJsonRecord(json.value)) {
    jsonIssues(json, issues, 'field');
    title = fieldText(getRecordField(json.value, TITLE)?.value);
    description = fieldText(getRecordField(json.value, DESCRIPTION_TEXT)?.value);
  } else {
    const body = stripCodeFences(text);
    const lines = labelledLines(body, [...TITLE, ...DESCRIPTION_TEXT]);
    title = firstLabelled(lines, TITLE);
    description = firstLabelled(lines, DESCRIPTION_TEXT);
    // First line as the title, unless the answer is JSON the parser could not use.
    if (title === undefined && description === undefined && body && !/^[{[]/.test(body)) {
      const [first = '', ...rest] = body.split(/\r?\n/);
      title = cleanFieldText(first.replace(/^\s*#+\s*|\*\*/g, ''));
      description = rest.join(' ').replace(/\s+/g, ' ').trim() || undefined;
    }
  }
  if (!title && !description) {
    return {
      title: '',
      description: '',
      issues: [...issues, noRecords(text, 'title or description', hasContent(text))],
    };
  }
  if (!title) issues.push(issue('missing-field', "no title; using ''", text));
  if (!description) issues.push(issue('missing-field', "no description; using ''", text));
  return { title: title ?? '', description: description ?? '', issues };
}
