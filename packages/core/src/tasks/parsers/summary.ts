/**
 * Parser of the summarization task (E2GraphRAG §3.1).
 */
import { extractJson, isJsonRecord, stripCodeFences } from '../lenient-json.js';
import { fieldText, getRecordField } from '../record-fields.js';

const SUMMARY_FIELD = ['summary', 'description', 'text', 'content'];
/** A JSON object whose first key is a summary field, anywhere in the text. */
const SUMMARY_JSON = /\{\s*["']?(?:summary|description|text|content)["']?\s*:/i;
/** A lead-in line such as `Here is the summary:` or `Summary of the passages:`. */
const SUMMARY_LEAD_IN = /^[^\n]{0,120}\b(?:summary|summari[sz]ed|here is|here's)\b[^\n]{0,120}:[*_\s]*\n/i;
/** A `Summary:` label, possibly as a heading or in bold. */
const SUMMARY_LABEL = /^\s*(?:#+\s*)?(?:\*\*|__)?summary(?:\*\*|__)?\s*(?::|\n)\s*(?:\*\*|__)?\s*/i;

/**
 * Clean a summary: code fences, a lead-in line (`Here is the summary:`) and a leading `Summary:`
 * label removed; the `summary` field taken when the model answered in JSON (`{"summary": ...}`,
 * possibly after prose). Returns `''` when nothing is left.
 */
export function parseSummary(raw: string): string {
  const text = String(raw ?? '');
  const trimmed = text.trim();
  if (trimmed.startsWith('{') || trimmed.startsWith('```') || SUMMARY_JSON.test(text)) {
    const json = extractJson(text, (v) => isJsonRecord(v) && getRecordField(v, SUMMARY_FIELD) !== undefined);
    if (json && isJsonRecord(json.value)) {
      const value = fieldText(getRecordField(json.value, SUMMARY_FIELD)?.value);
      if (value !== undefined) return value;
    }
  }
  const body = stripCodeFences(text);
  const withoutLeadIn = body.replace(SUMMARY_LEAD_IN, '');
  return (withoutLeadIn.trim() ? withoutLeadIn : body).replace(SUMMARY_LABEL, '').trim();
}
