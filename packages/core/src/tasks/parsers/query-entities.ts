/**
 * Parser of the query-entity task: the entities a question names.
 */

import type { ParseIssue } from '../../contracts/tasks.js';
import { extractJson, isJsonRecord, stripCodeFences } from '../lenient-json.js';
import { cleanFieldText, fieldText, getRecordField } from '../record-fields.js';
import { ENTITY_NAME, hasContent, jsonIssues, noRecords, rawOf, skipped } from './common.js';

const QUERY_ENTITY_LIST = ['entities', 'entity', 'keywords', 'namedentities', 'entitylist', 'terms'];

/** Entities found in a query, with parse issues. */
export interface QueryEntitiesParse {
  entities: string[];
  issues: ParseIssue[];
}

/**
 * Parse a query-entity list: JSON `{"entities": [...]}` (items may be strings or objects with a
 * name) or a bare JSON array, else a bulleted, numbered, line- or comma-separated list. Names are
 * de-duplicated case-insensitively, first spelling kept.
 */
export function parseQueryEntities(raw: string): QueryEntitiesParse {
  const text = String(raw ?? '');
  const issues: ParseIssue[] = [];
  const items: string[] = [];
  // A bare array counts when a line starts with one, of strings or objects (in prose, "[Paris] and
  // [France]" is not JSON).
  const arrayLine = /^[ \t]*\[\s*(?:["'{\]\u201c]|$)/m.exec(text);
  const json =
    extractJson(text, (v) => isJsonRecord(v) && getRecordField(v, QUERY_ENTITY_LIST) !== undefined) ??
    (arrayLine ? extractJson(text.slice(arrayLine.index), (v) => Array.isArray(v)) : undefined);
  if (json) {
    jsonIssues(json, issues, 'entity');
    const list = Array.isArray(json.value)
      ? json.value
      : isJsonRecord(json.value)
        ? getRecordField(json.value, QUERY_ENTITY_LIST)?.value
        : undefined;
    for (const item of Array.isArray(list) ? list : [list]) {
      const name = isJsonRecord(item) ? fieldText(getRecordField(item, ENTITY_NAME)?.value) : fieldText(item);
      if (name) items.push(name);
      else if (item !== undefined) issues.push(skipped('entity without a name', rawOf(item)));
    }
  } else {
    const body = stripCodeFences(text);
    const lines = body
      .split(/\r?\n/)
      .map((l) => l.trim())
      .filter(Boolean);
    for (const line of lines) {
      // Skip lead-in lines ("Here are the entities:"), drop a label ("Entities: ...") and list markers.
      if (line.endsWith(':')) continue;
      const content = line
        .replace(
          /^(?:[\w\s]{0,30}?\b(?:entities|entity|keywords|names|terms|output|answer)\b[\w\s]{0,10}):\s*/i,
          '',
        )
        .replace(/^(?:[-*\u2022]|\d+[.)])\s*/, '');
      const parts = lines.length === 1 || content.includes(',') ? content.split(/\s*[,;]\s*/) : [content];
      items.push(...parts.map(cleanFieldText).filter(Boolean));
    }
  }
  const seen = new Set<string>();
  const entities: string[] = [];
  for (const item of items) {
    const key = item.toLowerCase();
    if (seen.has(key)) continue;
    seen.add(key);
    entities.push(item);
  }
  if (entities.length === 0) issues.push(noRecords(text, 'entities', json === undefined && hasContent(text)));
  return { entities, issues };
}
