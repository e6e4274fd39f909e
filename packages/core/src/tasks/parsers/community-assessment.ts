/**
 * Parser of the community relevance score and report (DA-RAG §5.1).
 */

import type { CommunityAssessment, ParseIssue } from '../../contracts/tasks.js';
import { extractJson, isJsonRecord, stripCodeFences } from '../lenient-json.js';
import { fieldNumber, fieldText, getRecordField } from '../record-fields.js';
import { firstLabelled, hasContent, issue, jsonIssues, labelledLines, noRecords, rawOf } from './common.js';

const SCORE = ['score', 'relevance', 'relevancescore', 'rating', 'relevancerating'];
const REPORT = [
  'report',
  'communityreport',
  'summary',
  'analysis',
  'explanation',
  'reasoning',
  'description',
];

/**
 * Bring a relevance score to the 0-10 scale. `"7/10"` and `"7 out of 10"` use their denominator
 * (`"45/50"` gives 9); `"85%"` gives 8.5. A bare number above 10 and at most 100 is read as a 0-100
 * score and divided by 10; anything else outside 0-10 is clamped. Rescaling and clamping are
 * reported as `'invalid-value'` issues (denominators and percentages are not: they are explicit).
 */
export function normalizeRelevanceScore(
  value: unknown,
  raw: string,
): { score: number; issue?: ParseIssue } | undefined {
  let n = fieldNumber(value);
  if (n === undefined) return undefined;
  if (typeof value === 'string') {
    const outOf = /(?:\/|out of)\s*(\d+(?:\.\d+)?)/i.exec(value);
    const denominator = outOf ? Number(outOf[1]) : undefined;
    if (denominator && denominator > 0) n = (n / denominator) * 10;
    else if (/%/.test(value)) n /= 10;
    else if (denominator === undefined && n > 10 && n <= 100) {
      return {
        score: n / 10,
        issue: issue('invalid-value', `score ${n} read as 0-100 and divided by 10`, raw),
      };
    }
  } else if (n > 10 && n <= 100) {
    return {
      score: n / 10,
      issue: issue('invalid-value', `score ${n} read as 0-100 and divided by 10`, raw),
    };
  }
  if (n < 0 || n > 10) {
    const clamped = Math.min(10, Math.max(0, n));
    return {
      score: clamped,
      issue: issue('invalid-value', `score ${n} is outside 0-10; clamped to ${clamped}`, raw),
    };
  }
  return { score: n };
}

/**
 * Parse a community relevance score and report produced in one call (DA-RAG §5.1): JSON
 * `{"score": 0-10, "report": "..."}`, or labelled lines (`Score: 7/10`, `Report: ...`). The score is
 * normalised by {@link normalizeRelevanceScore}. A missing score becomes 0 and a missing report `''`,
 * each with a `'missing-field'` issue.
 */
export function parseCommunityAssessment(raw: string): CommunityAssessment {
  const text = String(raw ?? '');
  const issues: ParseIssue[] = [];
  let scoreValue: unknown;
  let report: string | undefined;
  const json = extractJson(
    text,
    (v) =>
      isJsonRecord(v) && (getRecordField(v, SCORE) !== undefined || getRecordField(v, REPORT) !== undefined),
  );
  if (json && isJsonRecord(json.value)) {
    jsonIssues(json, issues, 'field');
    scoreValue = getRecordField(json.value, SCORE)?.value;
    const r = getRecordField(json.value, REPORT)?.value;
    report = fieldText(r) ?? (r === undefined ? undefined : rawOf(r));
  } else {
    const body = stripCodeFences(text);
    const lines = labelledLines(body, [...SCORE, ...REPORT]);
    scoreValue = firstLabelled(lines, SCORE);
    report = firstLabelled(lines, REPORT);
    if (scoreValue === undefined) {
      const m =
        /\b(?:score|relevance|rating)\b[^\d\n-]{0,20}(-?\d+(?:\.\d+)?(?:\s*(?:\/|out of)\s*\d+)?%?)/i.exec(
          body,
        );
      if (m) scoreValue = m[1];
    }
    if (report === undefined && scoreValue !== undefined) {
      const rest = body
        .split(/\r?\n/)
        .filter((l) => !/\b(?:score|relevance|rating)\b/i.test(l))
        .join('\n')
        .trim();
      if (rest) report = rest;
    }
  }
  if (scoreValue === undefined && !report) {
    return {
      score: 0,
      report: '',
      issues: [...issues, noRecords(text, 'score or report', hasContent(text))],
    };
  }
  let score = 0;
  const normalized = scoreValue === undefined ? undefined : normalizeRelevanceScore(scoreValue, text);
  if (normalized) {
    score = normalized.score;
    if (normalized.issue) issues.push(normalized.issue);
  } else if (scoreValue === undefined) {
    issues.push(issue('missing-field', 'no relevance score; using 0', text));
  } else {
    issues.push({
      ...issue('invalid-value', `relevance score "${rawOf(scoreValue)}" is not a number; using 0`, text),
      repairable: true,
    });
  }
  if (!report) issues.push(issue('missing-field', "no community report; using ''", text));
  return { score, report: report ?? '', issues };
}
