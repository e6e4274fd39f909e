/**
 * What the task parsers share: the field names each field may go by, the issues a parser reports
 * (with the raw text they come from), and `Label: value` lines. Not exported from the package.
 */

import type { ParseIssue } from '../../contracts/tasks.js';
import { extractJson, type LenientJson, stripCodeFences } from '../lenient-json.js';
import { cleanFieldText, normalizeFieldName } from '../record-fields.js';

export const ENTITY_LIST = ['entities', 'entity', 'nodes', 'entitylist', 'namedentities'];
export const RELATION_LIST = [
  'relationships',
  'relations',
  'relationship',
  'relation',
  'edges',
  'links',
  'triples',
];
export const ENTITY_NAME = ['name', 'entityname', 'entity', 'title', 'label', 'id'];
export const ENTITY_TYPE = ['type', 'entitytype', 'category', 'kind', 'class'];
export const DESCRIPTION = [
  'description',
  'entitydescription',
  'relationshipdescription',
  'relationdescription',
  'desc',
  'summary',
  'details',
];
export const RELATION_LABEL = ['relation', 'relationship', 'predicate', 'relationtype', 'label'];
export const SOURCE = [
  'source',
  'sourceentity',
  'sourcename',
  'src',
  'from',
  'head',
  'subject',
  'entity1',
  'sourceid',
];
export const TARGET = [
  'target',
  'targetentity',
  'targetname',
  'tgt',
  'to',
  'tail',
  'object',
  'entity2',
  'targetid',
];
export const WEIGHT = [
  'strength',
  'weight',
  'relationshipstrength',
  'relationstrength',
  'score',
  'confidence',
];
export const KEYWORDS = ['keywords', 'relationshipkeywords', 'relationkeywords'];

/** The raw text of a record, or a function that makes it (only called when there is an issue). */
export type Raw = string | (() => string);

export function issue(kind: ParseIssue['kind'], reason: string, raw: Raw): ParseIssue {
  return { kind, reason, raw: typeof raw === 'function' ? raw() : raw };
}

/** A record that could not be read and was skipped: a repair retry may recover it. */
export function skipped(reason: string, raw: Raw): ParseIssue {
  return { ...issue('skipped-record', reason, raw), repairable: true };
}

export function rawOf(value: unknown): string {
  if (typeof value === 'string') return value;
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}

/**
 * Report what {@link extractJson} had to drop or could not finish. Malformed elements are
 * repairable unless `repairable` is false.
 */
export function jsonIssues(json: LenientJson, issues: ParseIssue[], what: string, repairable = true): void {
  for (const d of json.dropped) {
    if (d.reason === 'truncated') {
      issues.push(
        issue('truncated', `the output ends inside a ${what}; the incomplete ${what} was dropped`, d.raw),
      );
    } else {
      const reason = `a ${what} is not valid JSON and was skipped`;
      issues.push(repairable ? skipped(reason, d.raw) : issue('skipped-record', reason, d.raw));
    }
  }
  if (json.truncated && !json.dropped.some((d) => d.reason === 'truncated')) {
    issues.push(
      issue('truncated', 'the output ends before the JSON is closed; later fields may be missing', json.text),
    );
  }
}

/**
 * No records at all. Repairable when `repairable` says so: the output had text the parser could
 * not read (not blank, and not a well-formed empty answer such as `{"entities": []}`).
 */
export function noRecords(raw: string, what: string, repairable = false): ParseIssue {
  const out = issue('no-records', `no ${what} found in the model output`, raw);
  if (repairable) out.repairable = true;
  return out;
}

/** Whether `text` has content besides whitespace and code-fence lines. */
export function hasContent(text: string): boolean {
  return stripCodeFences(text).trim() !== '';
}

/**
 * `Label: value` lines by normalized label; a line without a label continues the previous value.
 * A last line that is only the start of one of `labels` (`**Desc`: output cut inside the next
 * label) is left out rather than taken for a continuation.
 */
export function labelledLines(text: string, labels: readonly string[] = []): Map<string, string> {
  const out = new Map<string, string>();
  let current: string | undefined;
  const lines = text.split(/\r?\n/);
  const last = lines[lines.length - 1] ?? '';
  if (!/[:=]/.test(last) && /^[\s*_#>-]*[A-Za-z _-]*[\s*_]*$/.test(last)) {
    const start = normalizeFieldName(last);
    if (lines.length > 1 && labels.some((label) => label.startsWith(start))) lines.pop();
  }
  for (const line of lines) {
    const m = /^\s*[*_#>-]*\s*([A-Za-z][A-Za-z _-]{0,30}?)\s*[*_]*\s*[:=]\s*[*_]*\s*(.*)$/.exec(line);
    const key = m ? normalizeFieldName(m[1]!) : undefined;
    if (m && key) {
      current = key;
      out.set(key, cleanFieldText(m[2] ?? ''));
    } else if (current && line.trim()) {
      out.set(current, `${out.get(current) ?? ''} ${line.trim()}`.trim());
    }
  }
  return out;
}

export function firstLabelled(lines: Map<string, string>, aliases: readonly string[]): string | undefined {
  for (const alias of aliases) {
    const v = lines.get(alias);
    if (v !== undefined) return v;
  }
  return undefined;
}
