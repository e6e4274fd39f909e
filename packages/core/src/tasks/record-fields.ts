/**
 * Reading the fields of a record a model wrote: field names matched by their normalized spelling,
 * field values cleaned of quotes and read as text, numbers or lists, and a yes/no answer.
 */
import { type JsonRecord, stripCodeFences } from './lenient-json.js';

/** A field name reduced to lower-case letters and digits: `Entity_Name` and `entity name` give `entityname`. */
export function normalizeFieldName(key: string): string {
  return key.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, '');
}

/**
 * Normalized field names of records already looked at (parsers ask a record for several fields),
 * kept while the record's keys stay the same.
 */
const NORMALIZED_KEYS = new WeakMap<JsonRecord, { signature: string; byKey: Map<string, string> }>();

/**
 * The first field of `record` whose normalized name is one of `aliases` (already normalized, in
 * order of preference), or `undefined`.
 */
export function getRecordField(
  record: JsonRecord,
  aliases: readonly string[],
): { key: string; value: unknown } | undefined {
  const keys = Object.keys(record);
  const signature = keys.join('\u0000');
  let cached = NORMALIZED_KEYS.get(record);
  if (cached?.signature !== signature) {
    const byKey = new Map<string, string>();
    for (const key of keys) {
      const norm = normalizeFieldName(key);
      if (!byKey.has(norm)) byKey.set(norm, key);
    }
    cached = { signature, byKey };
    NORMALIZED_KEYS.set(record, cached);
  }
  const { byKey } = cached;
  for (const alias of aliases) {
    const key = byKey.get(alias);
    if (key !== undefined && record[key] !== undefined && record[key] !== null)
      return { key, value: record[key] };
  }
  return undefined;
}

/** Strip whitespace and one layer of wrapping quotes or backticks from a field. */
export function cleanFieldText(text: string): string {
  let s = text.trim();
  for (let i = 0; i < 2; i++) {
    const m = /^(["'`\u201c\u2018])([\s\S]*)(["'`\u201d\u2019])$/.exec(s);
    if (!m || m[2] === undefined) break;
    s = m[2].trim();
  }
  return s;
}

/** A string from a scalar field value (`undefined` for objects and arrays). */
export function fieldText(value: unknown): string | undefined {
  if (typeof value === 'string') return cleanFieldText(value);
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return undefined;
}

/**
 * A finite number from a field: numbers, numeric strings (`"8"`, `"8.5"`), and the first number of
 * a string such as `"8/10"` or `"strength: 8"`. `undefined` when there is none.
 */
export function fieldNumber(value: unknown): number | undefined {
  if (typeof value === 'number') return Number.isFinite(value) ? value : undefined;
  if (typeof value !== 'string') return undefined;
  const m = /[-+]?(?:\d+(?:\.\d+)?|\.\d+)(?:[eE][-+]?\d+)?/.exec(value);
  if (!m) return undefined;
  const n = Number(m[0]);
  return Number.isFinite(n) ? n : undefined;
}

/** A list of strings from an array of scalars or a comma/semicolon-separated string. */
export function fieldStringList(value: unknown): string[] {
  const items = Array.isArray(value) ? value : typeof value === 'string' ? value.split(/[,;\n]/) : [];
  const out: string[] = [];
  for (const item of items) {
    const text = fieldText(item);
    if (text) out.push(text);
  }
  return out;
}

/**
 * Read a yes/no answer (the gleaning "are there more?" check). Returns `true` for an answer whose
 * first word starts with Y (`YES`, `Yes.`, `"Y"`, `**Yes**`), `false` otherwise (including empty or
 * unclear answers, so an unclear answer stops gleaning rather than spending more calls). Code-fence
 * lines and a leading `Answer:` label are skipped.
 */
export function parseYesNo(raw: string): boolean {
  const text = stripCodeFences(String(raw ?? '')).replace(YES_NO_LABEL, '');
  const first = /[\p{L}]+/u.exec(text);
  return first?.[0].toLowerCase().startsWith('y') ?? false;
}

/** A leading `Answer:` label (possibly in bold) before a yes/no answer. */
const YES_NO_LABEL = /^[\s*_#>"'`]*(?:final\s+)?(?:answer|response|output|reply)[\s*_]*:/i;
