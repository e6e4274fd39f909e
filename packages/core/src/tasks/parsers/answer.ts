/**
 * Parser of the answer-with-citations task: the answer text and the context ids it cites.
 */

import type { AnswerWithCitations, ParseIssue } from '../../contracts/tasks.js';
import { extractJson, isJsonRecord, stripCodeFences } from '../lenient-json.js';
import { cleanFieldText, fieldStringList, fieldText, getRecordField } from '../record-fields.js';
import { issue, jsonIssues, noRecords } from './common.js';

const ANSWER = ['answer', 'response', 'finalanswer', 'text'];
const CITATIONS = ['citations', 'sources', 'references', 'citedids', 'ids', 'contextids'];
const CITE_PREFIX =
  /^(?:sources?|refs?|references?|citations?|cited|context(?:\s+items?)?|items?|ids?|chunks?|docs?|documents?|passages?)\b(?:\s*[:#]\s*|\s+)/i;
/** A parenthesis that announces citations: `(source: c1)`, `(sources: c1, c2)`. */
const PAREN_PREFIX = /^(?:sources?|refs?|references?|citations?|cited|context|ids?|chunks?|see)\b\s*:/i;

interface CitationScan {
  ids: string[];
  issues: ParseIssue[];
}

function resolveCitation(
  token: string,
  knownIds: readonly string[],
  lowerIds: Map<string, string>,
  byPosition = true,
): string | undefined {
  if (knownIds.includes(token)) return token;
  const ci = lowerIds.get(token.toLowerCase());
  if (ci !== undefined) return ci;
  // `[2]`: the second context item, when no id is itself a number.
  if (byPosition && /^\d+$/.test(token) && !knownIds.some((id) => /^\d+$/.test(id))) {
    const n = Number(token);
    if (n >= 1 && n <= knownIds.length) return knownIds[n - 1];
  }
  return undefined;
}

function scanCitations(text: string, knownIds: readonly string[]): CitationScan {
  const lowerIds = new Map<string, string>();
  for (const id of knownIds) if (!lowerIds.has(id.toLowerCase())) lowerIds.set(id.toLowerCase(), id);
  const groups: { at: number; body: string; strict: boolean }[] = [];
  // [c1], [c1, c2], [source: c1]; not Markdown links [text](url).
  for (const m of text.matchAll(/\[([^[\]\n]{1,200})\](?!\()|\u3010([^\u3011\n]{1,200})\u3011/g)) {
    groups.push({ at: m.index, body: m[1] ?? m[2] ?? '', strict: false });
  }
  // (source: c1), (sources: c1, c2); plain (c1) only when every part is a known id.
  for (const m of text.matchAll(/\(([^()\n]{1,200})\)/g)) {
    const body = m[1]!;
    groups.push({ at: m.index, body, strict: !PAREN_PREFIX.test(body.trim()) });
  }
  groups.sort((a, b) => a.at - b.at);
  const ids: string[] = [];
  const issues: ParseIssue[] = [];
  for (const group of groups) {
    const body = cleanFieldText(group.body);
    // Plain parentheses never cite by position: "(1) first, (2) second" is an enumeration.
    const byPosition = !group.strict;
    const resolveToken = (t: string): string | undefined =>
      resolveCitation(t, knownIds, lowerIds, byPosition) ??
      resolveCitation(t.replace(CITE_PREFIX, ''), knownIds, lowerIds, byPosition);
    const whole = resolveToken(body);
    const tokens = whole
      ? [body]
      : body
          .replace(CITE_PREFIX, '')
          .split(/\s*[,;]\s*|\s+and\s+/)
          .map((t) => cleanFieldText(t).replace(/^\[|\]$/g, ''))
          .filter(Boolean);
    if (tokens.length === 0) continue;
    const resolved = tokens.map(resolveToken);
    if (group.strict && resolved.some((r) => r === undefined)) continue;
    tokens.forEach((token, i) => {
      const id = resolved[i];
      if (id === undefined) {
        issues.push(
          issue('invalid-value', `the answer cites "${token}", which is not a context id`, `[${group.body}]`),
        );
      } else if (!ids.includes(id)) {
        ids.push(id);
      }
    });
  }
  return { ids, issues };
}

/**
 * Parse an answer with citations to context items. Citations are read from the text (`[c1]`,
 * `[c1, c2]`, `[c1][c2]`, `(source: c1)`, `(c1)` when `c1` is a known id) and, when the model
 * answered in JSON (`{"answer": ..., "citations": [...]}`), from the citation list too. An id
 * matches a known id exactly or case-insensitively; a number `n` that is not itself an id names the
 * n-th context item. A cited id that is not in `knownIds` is reported as an `'invalid-value'` issue
 * and left out. The answer text is returned as written, citation markers included.
 */
export function parseAnswer(raw: string, knownIds: readonly string[]): AnswerWithCitations {
  const text = String(raw ?? '');
  const issues: ParseIssue[] = [];
  let answer: string | undefined;
  const listed: string[] = [];
  const json = extractJson(text, (v) => isJsonRecord(v) && getRecordField(v, ANSWER) !== undefined);
  if (json && isJsonRecord(json.value)) {
    jsonIssues(json, issues, 'citation', false);
    answer = fieldText(getRecordField(json.value, ANSWER)?.value);
    const cites = getRecordField(json.value, CITATIONS)?.value;
    listed.push(...fieldStringList(cites));
  }
  if (answer === undefined) {
    answer = stripCodeFences(text).replace(/^\s*(?:\*\*)?answer(?:\*\*)?\s*:\s*/i, '');
  }
  answer = answer.trim();
  const scan = scanCitations(answer, knownIds);
  const lowerIds = new Map(knownIds.map((id) => [id.toLowerCase(), id] as const));
  const citations: string[] = [];
  for (const token of listed) {
    const id =
      resolveCitation(token, knownIds, lowerIds) ??
      resolveCitation(token.replace(CITE_PREFIX, ''), knownIds, lowerIds);
    if (id === undefined)
      issues.push(issue('invalid-value', `the answer cites "${token}", which is not a context id`, token));
    else if (!citations.includes(id)) citations.push(id);
  }
  for (const id of scan.ids) if (!citations.includes(id)) citations.push(id);
  issues.push(...scan.issues);
  if (!answer) issues.push(noRecords(text, 'answer'));
  return { answer, citations, issues };
}
