/**
 * GraphRAG-style tuple output (`("entity"<|>ALICE<|>PERSON<|>...)##...<|COMPLETE|>`): its delimiters,
 * a lenient splitter into records and fields, and the escaping that lets a field be written back.
 * Models drop parentheses, change delimiters, run descriptions over several lines and get cut off
 * inside a delimiter; the splitter recovers what can be recovered and never throws.
 */
import { stripCodeFences } from './lenient-json.js';
import { cleanFieldText } from './record-fields.js';
import { escapeRegExp } from './repair.js';

/** Delimiters of a GraphRAG-style tuple output. */
export interface TupleDelimiters {
  /** Between fields of a record. @default '<|>' (GraphRAG) */
  tupleDelimiter: string;
  /** Between records. @default '##' (GraphRAG) */
  recordDelimiter: string;
  /** After the last record. @default '<|COMPLETE|>' (GraphRAG) */
  completionDelimiter: string;
}

/** GraphRAG's tuple delimiters. */
export const TUPLE_DELIMITER_DEFAULTS: TupleDelimiters = {
  tupleDelimiter: '<|>',
  recordDelimiter: '##',
  completionDelimiter: '<|COMPLETE|>',
};

/** One record of a tuple output, split into fields. */
export interface TupleRecord {
  /** Cleaned fields, the record kind first (e.g. `['entity', 'ALICE', 'PERSON', '...']`). */
  fields: string[];
  /** The record's text as found. */
  raw: string;
  /** Whether the record looks cut off: it is the last, the output has no completion marker, and it is not closed. */
  cutOff: boolean;
}

/** What {@link splitTupleRecords} found. */
export interface TupleSplit {
  records: TupleRecord[];
  /** Whether the completion marker was seen. */
  completed: boolean;
}

/** Completion markers recognised besides the configured one (GraphRAG's and common variants). */
export const COMPLETION_MARKERS: readonly string[] = [
  '<|COMPLETE|>',
  '<COMPLETE>',
  '<|complete|>',
  '[COMPLETE]',
];

/**
 * `text` without a trailing proper prefix of one of `tokens` that follows a closing parenthesis
 * (`...)<|COMP` or `...)#`: the output was cut inside the delimiter after a complete record).
 */
function dropPartialSuffix(text: string, tokens: readonly string[]): string {
  const trimmed = text.trimEnd();
  let best = 0;
  for (const token of tokens) {
    for (let n = Math.min(token.length - 1, trimmed.length); n > best; n--) {
      if (trimmed.endsWith(token.slice(0, n)) && /\)\s*$/.test(trimmed.slice(0, -n))) {
        best = n;
        break;
      }
    }
  }
  return best > 0 ? trimmed.slice(0, -best) : text;
}

/** Field separators tried when the configured one is absent: `<|>` variants, `|`, tabs. */
const FALLBACK_FIELD_SPLIT = /\s*(?:<\s*\|{1,3}\s*>|<\s*>|\|{1,3}|\t+)\s*/;
const RECORD_KINDS =
  'entity|entities|relationship|relationships|relation|relations|edge|node|content_keywords';

/**
 * A field made safe for a tuple record written with `delimiters`, so that {@link splitTupleRecords}
 * reads it back as one field: runs of whitespace (line breaks included) become one space; the
 * delimiters, `##` and the completion markers become spaces; a parenthesis that would start a record
 * (`(entity,`) becomes a bracket and `)(` gets a space; trimmed, and without a trailing start of a
 * self-overlapping field delimiter (`a;` with `;;`).
 */
export function tupleFieldText(value: unknown, delimiters: Partial<TupleDelimiters> = {}): string {
  const d = { ...TUPLE_DELIMITER_DEFAULTS, ...delimiters };
  const tokens = [d.tupleDelimiter, d.recordDelimiter, d.completionDelimiter, '##', ...COMPLETION_MARKERS]
    .filter((t) => t !== '')
    .sort((a, b) => b.length - a.length);
  let s = String(value ?? '');
  for (let changed = true; changed; ) {
    changed = false;
    for (const token of tokens) {
      if (s.includes(token)) {
        s = s.split(token).join(' ');
        changed = true;
      }
    }
  }
  s = s
    .replace(RECORD_START_INLINE, (m) => `[${m.slice(1)}`)
    .replace(/\)(?=\()/g, ') ')
    .replace(/\s+/g, ' ')
    .trim();
  // A field may not end with the start of a delimiter that overlaps itself: with `;;`, a field `a;`
  // followed by `;;` would split as `a` and `;...`.
  const t = d.tupleDelimiter;
  for (let j = 1; j < t.length; j++) {
    if (t.slice(-j) !== t.slice(0, j)) continue;
    const start = t.slice(0, t.length - j);
    while (s.endsWith(start)) s = s.slice(0, -start.length).trimEnd();
  }
  return s;
}

/** A piece that starts with a record kind. */
const RECORD_KIND_START = new RegExp(`^[("'\\s]*(?:${RECORD_KINDS})\\b`, 'i');
/** A record start inside a line: `("entity"<|>`, `(relationship|`. */
const RECORD_START_INLINE = new RegExp(`\\(\\s*["']?(?:${RECORD_KINDS})["']?\\s*(?=[^\\s\\w])`, 'gi');
/** A record of a known kind whose fields are separated by `;`. */
const SEMICOLON_RECORD = new RegExp(`^[("'\\s]*(?:${RECORD_KINDS})["']?\\s*;`, 'i');
const RECORD_SPLITTERS = new Map<string, RegExp>();

/** Splits records at the record delimiter, at `##` and at line breaks. */
function recordSplitter(recordDelimiter: string): RegExp {
  let re = RECORD_SPLITTERS.get(recordDelimiter);
  if (!re) {
    re = new RegExp(`${recordDelimiter ? `${escapeRegExp(recordDelimiter)}|` : ''}##|\\r?\\n`);
    if (RECORD_SPLITTERS.size < 32) RECORD_SPLITTERS.set(recordDelimiter, re);
  }
  return re;
}

/** Split by commas or semicolons outside quotes (for `("entity", "A", "B", "c")` style records). */
function splitQuotedCsv(text: string): string[] | undefined {
  const fields: string[] = [];
  let cur = '';
  let quote: string | null = null;
  let sep: string | null = null;
  for (const c of text) {
    if (quote) {
      if (c === quote) quote = null;
      cur += c;
    } else if (c === '"' || c === '\u201c' || c === '\u201d') {
      quote = c === '\u201c' ? '\u201d' : '"';
      cur += c;
    } else if ((c === ',' || c === ';') && (sep === null || sep === c)) {
      sep = c;
      fields.push(cur);
      cur = '';
    } else {
      cur += c;
    }
  }
  fields.push(cur);
  return fields.length > 1 ? fields : undefined;
}

function splitFields(record: string, delimiter: string): string[] | undefined {
  if (delimiter && record.includes(delimiter)) return record.split(delimiter);
  if (FALLBACK_FIELD_SPLIT.test(record)) return record.split(FALLBACK_FIELD_SPLIT);
  return splitQuotedCsv(record);
}

/** A piece of text that starts like a tuple record (an opening parenthesis or a record kind word). */
function looksLikeRecordStart(piece: string): boolean {
  return RECORD_KIND_START.test(piece) || piece.startsWith('(');
}

/**
 * Split a GraphRAG-style tuple output into records and fields. Tolerates: a missing or different
 * record delimiter (records on separate lines, or back to back `)(`), missing parentheses, list
 * markers, code fences, other field delimiters (`<||>`, `|`, tabs, `;`, or quoted comma-separated
 * fields), descriptions that run over several lines, and output cut inside the delimiter after a
 * record. Text that is neither a record nor the continuation of an open parenthesised record
 * (prose) is ignored. The last record is `cutOff` when the output has no completion marker and the
 * record's parentheses are not closed. Never throws.
 */
export function splitTupleRecords(raw: string, delimiters: Partial<TupleDelimiters> = {}): TupleSplit {
  const { tupleDelimiter, recordDelimiter, completionDelimiter } = {
    ...TUPLE_DELIMITER_DEFAULTS,
    ...delimiters,
  };
  let text = stripCodeFences(String(raw ?? ''));
  // Everything after the completion marker is ignored.
  const markers = [completionDelimiter, ...COMPLETION_MARKERS].filter(Boolean);
  let completed = false;
  let cut = text.length;
  for (const marker of markers) {
    const at = text.indexOf(marker);
    if (at >= 0 && at < cut) {
      cut = at;
      completed = true;
    }
  }
  text = text.slice(0, cut);
  // Output cut off inside a record delimiter or the completion marker that follows a closed record.
  if (!completed) text = dropPartialSuffix(text, [recordDelimiter, '##', ...markers]);
  // Records written back to back: break before each `("entity"` / `(relationship` start.
  text = text.replace(RECORD_START_INLINE, (m, offset: number) => (offset === 0 ? m : `\n${m}`));
  // Any record written back to back with the previous one, whatever its kind: `...)(`.
  text = text.replace(/\)(?=\()/g, ')\n');
  const recordSplit = recordSplitter(recordDelimiter);
  const pieces = text.split(recordSplit).map((p) => p.trim());

  const unlist = (piece: string) => piece.replace(/^(?:[-*\u2022]|\d+[.)])\s+/, '');
  // Records whose fields are separated by `;` (`"entity";ALICE;person;...`): then a line with `;`
  // is a record too, even of an unknown kind (it is reported, not silently taken for prose).
  const semicolons = pieces.some((p) => SEMICOLON_RECORD.test(unlist(p)));
  const open: { raw: string }[] = [];
  for (const piece of pieces) {
    if (!piece) continue;
    const unlisted = unlist(piece);
    const last = open[open.length - 1];
    const hasDelimiter =
      (tupleDelimiter !== '' && unlisted.includes(tupleDelimiter)) ||
      FALLBACK_FIELD_SPLIT.test(unlisted) ||
      (semicolons && unlisted.includes(';'));
    if (looksLikeRecordStart(unlisted) || (hasDelimiter && !last)) {
      open.push({ raw: unlisted });
    } else if (last?.raw.startsWith('(') && !/\)\s*$/.test(last.raw)) {
      // A description that runs over several lines (inside a record's open parenthesis).
      last.raw += ` ${unlisted}`;
    } else if (hasDelimiter) {
      open.push({ raw: unlisted });
    }
  }

  const records: TupleRecord[] = [];
  open.forEach(({ raw: rec }, i) => {
    const endsWithParen = /\)\s*$/.test(rec);
    // The last record counts as complete only when its final `)` also balances its parentheses:
    // `("entity"<|>A<|>x (b)` was cut off right after the `)` of `(b`.
    const balanced = rec.split(')').length >= rec.split('(').length;
    let body = rec.trim();
    // Only a record that opened with a parenthesis closes with one: `(since 1920)` ending a
    // description of a record written without parentheses keeps its own.
    if (body.startsWith('(')) {
      body = body.slice(1);
      if (endsWithParen) body = body.slice(0, -1);
    }
    const fields = (splitFields(body, tupleDelimiter) ?? [body]).map(cleanFieldText);
    while (fields.length > 1 && fields[fields.length - 1] === '') fields.pop();
    const cutOff = i === open.length - 1 && !completed && rec.startsWith('(') && !(endsWithParen && balanced);
    records.push({ fields, raw: rec, cutOff });
  });
  return { records, completed };
}
