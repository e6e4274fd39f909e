/**
 * Lenient parsing helpers for model output. Models wrap JSON in prose or code fences, leave trailing
 * commas, use single quotes or bare keys, get cut off at the token limit, and bend tuple formats.
 * These helpers recover what can be recovered and say what was lost; they never throw on model text.
 */

/** A JSON-like record: a plain object with string keys. */
export type JsonRecord = Record<string, unknown>;

/** Whether `value` is a plain (non-array, non-null) object. */
export function isJsonRecord(value: unknown): value is JsonRecord {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * An array of objects that lost elements (malformed or cut off), one of them an object at least: a
 * list of records partly unreadable, rather than a bracket in prose. For `extractJson` acceptors,
 * so that such a list is read (and its losses reported) even when none of its records is usable.
 */
export function lostRecords(value: unknown, found: LenientJson): boolean {
  return (
    Array.isArray(value) && value.every(isJsonRecord) && found.dropped.some((d) => d.raw.startsWith('{'))
  );
}

/** An element of a JSON array that could not be kept, with the text it came from. */
export interface DroppedElement {
  /** Text of the element, from its start to where parsing gave up (the end of input when truncated). */
  raw: string;
  /** `'truncated'`: the input ended inside the element; `'malformed'`: a syntax error inside it. */
  reason: 'truncated' | 'malformed';
}

/** What {@link parseLenientJson} and {@link extractJson} recovered. */
export interface LenientJson {
  /** The parsed value: an object, array, string, number, boolean or null (partial when truncated). */
  value: unknown;
  /** Offset of the first character of the value in the text that was parsed. */
  start: number;
  /** Offset just past the value (the end of input when truncated). */
  end: number;
  /** The input ended before the value was closed; incomplete trailing array elements were dropped. */
  truncated: boolean;
  /** A syntax error stopped parsing of some container early (its earlier members are kept). */
  malformed: boolean;
  /** Array elements that were dropped, in order. */
  dropped: DroppedElement[];
  /** The text of the value, `text.slice(start, end)`. */
  text: string;
}

type Scan = { ok: true; value: unknown } | { ok: false; value: unknown; eof: boolean };

const OPEN_QUOTES: Record<string, string> = { '"': '"', "'": "'", '\u201c': '\u201d', '\u2018': '\u2019' };
const NUMBER = /[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?/y;
const WORD = /[A-Za-z_$][\w$]*/y;
const BARE_KEY = /[^\s:{}[\],"'=][^:{}[\],"'=\n]*/y;
const MAX_DEPTH = 64;
const ESCAPES: Record<string, string> = { n: '\n', t: '\t', r: '\r', b: '\b', f: '\f' };
const KEYWORDS: Record<string, unknown> = {
  true: true,
  false: false,
  null: null,
  True: true,
  False: false,
  None: null,
  undefined: null,
};

/**
 * A forgiving recursive-descent JSON reader. Accepts: single or curly quotes, bare keys, bare words
 * as string values, trailing/missing commas, `//` and block comments, Python `True/False/None`,
 * unescaped quotes inside strings (a quote only closes a string when followed by `,`, `}`, `]`,
 * `:`, a newline or the end). At the end of input, the open containers are returned with what they
 * held; an array drops an element that was cut off (objects keep a partial last value).
 */
class LenientJsonReader {
  pos: number;
  depth = 0;
  truncated = false;
  malformed = false;
  readonly dropped: DroppedElement[] = [];

  constructor(
    readonly text: string,
    start: number,
  ) {
    this.pos = start;
  }

  get eof(): boolean {
    return this.pos >= this.text.length;
  }

  skipSpace(): void {
    const t = this.text;
    while (this.pos < t.length) {
      const c = t[this.pos]!;
      if (c === ' ' || c === '\n' || c === '\r' || c === '\t' || c === '\u00a0' || c === '\ufeff') {
        this.pos++;
      } else if (c === '/' && t[this.pos + 1] === '/') {
        const nl = t.indexOf('\n', this.pos);
        this.pos = nl < 0 ? t.length : nl + 1;
      } else if (c === '/' && t[this.pos + 1] === '*') {
        const close = t.indexOf('*/', this.pos + 2);
        this.pos = close < 0 ? t.length : close + 2;
      } else {
        return;
      }
    }
  }

  value(): Scan {
    this.skipSpace();
    if (this.eof) return { ok: false, value: undefined, eof: true };
    const c = this.text[this.pos]!;
    if (c === '{' || c === '[') {
      // Deeper nesting than any task output needs is treated as malformed (and keeps the stack safe).
      if (this.depth >= MAX_DEPTH) return { ok: false, value: undefined, eof: false };
      this.depth++;
      const scan = c === '{' ? this.object() : this.array();
      this.depth--;
      return scan;
    }
    if (c in OPEN_QUOTES) return this.string();
    NUMBER.lastIndex = this.pos;
    if (NUMBER.test(this.text)) return this.number();
    WORD.lastIndex = this.pos;
    if (WORD.test(this.text)) return this.word();
    return { ok: false, value: undefined, eof: false };
  }

  object(): Scan {
    this.pos++;
    const obj: JsonRecord = {};
    for (;;) {
      this.skipSpace();
      if (this.eof) return { ok: false, value: obj, eof: true };
      const c = this.text[this.pos]!;
      if (c === '}') {
        this.pos++;
        return { ok: true, value: obj };
      }
      if (c === ',' || c === ';') {
        this.pos++;
        continue;
      }
      const key = this.key();
      if (key === undefined) return { ok: false, value: obj, eof: this.eof };
      this.skipSpace();
      if (this.eof) return { ok: false, value: obj, eof: true };
      const sep = this.text[this.pos];
      if (sep !== ':' && sep !== '=') return { ok: false, value: obj, eof: false };
      this.pos++;
      const v = this.value();
      if (v.value !== undefined) {
        // defineProperty: a `__proto__` key becomes a plain field, as with JSON.parse (plain
        // assignment elsewhere: defineProperty on every key makes objects slow).
        if (key === '__proto__') {
          Object.defineProperty(obj, key, {
            value: v.value,
            enumerable: true,
            writable: true,
            configurable: true,
          });
        } else {
          obj[key] = v.value;
        }
      }
      if (!v.ok) return { ok: false, value: obj, eof: v.eof };
    }
  }

  key(): string | undefined {
    const c = this.text[this.pos]!;
    if (c in OPEN_QUOTES) {
      const s = this.string();
      return s.ok ? (s.value as string) : undefined;
    }
    BARE_KEY.lastIndex = this.pos;
    const m = BARE_KEY.exec(this.text);
    if (!m) return undefined;
    this.pos += m[0].length;
    return m[0].trim();
  }

  array(): Scan {
    this.pos++;
    const arr: unknown[] = [];
    for (;;) {
      this.skipSpace();
      if (this.eof) return { ok: false, value: arr, eof: true };
      const c = this.text[this.pos]!;
      if (c === ']') {
        this.pos++;
        return { ok: true, value: arr };
      }
      if (c === ',' || c === ';') {
        this.pos++;
        continue;
      }
      const start = this.pos;
      const v = this.value();
      if (v.ok) {
        arr.push(v.value);
        continue;
      }
      if (v.eof) {
        this.dropped.push({ raw: this.text.slice(start), reason: 'truncated' });
        return { ok: false, value: arr, eof: true };
      }
      // A malformed element: skip to the start of the next element and go on.
      const resume = this.resync(start);
      this.dropped.push({
        raw: this.text.slice(start, resume ?? this.text.length).trim(),
        reason: 'malformed',
      });
      this.malformed = true;
      if (resume === undefined) return { ok: false, value: arr, eof: false };
      this.pos = resume;
    }
  }

  /**
   * Where the element after a malformed one starts. For an object: after its matching `}` (braces
   * counted outside double-quoted strings) and a comma; at a closing bracket that does not match
   * (the element was never closed; the array ends there); else after the next `},{`. For other
   * values: after the next `,`, or at the `]`.
   */
  resync(start: number): number | undefined {
    const from = Math.max(this.pos, start + 1);
    const t = this.text;
    if (t[start] === '{') {
      const end = this.matchingClose(start);
      if (end !== undefined) {
        let i = end;
        while (i < t.length && /\s/.test(t[i]!)) i++;
        return t[i] === ',' || t[i] === ';' ? i + 1 : i;
      }
      const re = /\}\s*,?\s*(?=\{)/g;
      re.lastIndex = from;
      const m = re.exec(t);
      return m ? m.index + m[0].length : undefined;
    }
    const re = /[,\]]/g;
    re.lastIndex = from;
    const m = re.exec(this.text);
    if (!m) return undefined;
    return m[0] === ',' ? m.index + 1 : m.index;
  }

  /**
   * Just past the `}` closing the object that opens at `start`, or the position of a closing
   * bracket that closes an enclosing container instead (the object was left open); `undefined` when
   * the text ends first. Double-quoted strings are skipped (single quotes are too often apostrophes).
   */
  matchingClose(start: number): number | undefined {
    const t = this.text;
    const stack: string[] = [];
    let inString = false;
    for (let i = start; i < t.length; i++) {
      const c = t[i]!;
      if (inString) {
        if (c === '\\') i++;
        else if (c === '"' || c === '\n') inString = false;
        continue;
      }
      if (c === '"') inString = true;
      else if (c === '{' || c === '[') stack.push(c === '{' ? '}' : ']');
      else if (c === '}' || c === ']') {
        if (stack[stack.length - 1] !== c) return stack.length === 1 && c === ']' ? i : undefined;
        stack.pop();
        if (stack.length === 0) return i + 1;
      }
    }
    return undefined;
  }

  string(): Scan {
    const t = this.text;
    const close = OPEN_QUOTES[t[this.pos]!]!;
    this.pos++;
    let out = '';
    while (this.pos < t.length) {
      const c = t[this.pos]!;
      if (c === '\\') {
        const n = t[this.pos + 1];
        if (n === undefined) {
          this.pos++;
          break;
        }
        if (n === 'u') {
          const hex = t.slice(this.pos + 2, this.pos + 6);
          if (/^[0-9a-fA-F]{4}$/.test(hex)) {
            out += String.fromCharCode(Number.parseInt(hex, 16));
            this.pos += 6;
            continue;
          }
          if (this.pos + 6 > t.length) {
            this.pos = t.length;
            break;
          }
        }
        out += ESCAPES[n] ?? n;
        this.pos += 2;
        continue;
      }
      if (c === close && this.closesString(this.pos + 1)) {
        this.pos++;
        return { ok: true, value: out };
      }
      out += c;
      this.pos++;
    }
    return { ok: false, value: out, eof: true };
  }

  /** A quote closes a string only when what follows can follow a string in JSON. */
  closesString(after: number): boolean {
    const t = this.text;
    let i = after;
    while (i < t.length && (t[i] === ' ' || t[i] === '\t' || t[i] === '\r')) i++;
    if (i >= t.length) return true;
    const c = t[i]!;
    return c === ',' || c === '}' || c === ']' || c === ':' || c === '\n' || c === ';' || c === '=';
  }

  number(): Scan {
    NUMBER.lastIndex = this.pos;
    const m = NUMBER.exec(this.text)!;
    const end = this.pos + m[0].length;
    if (this.endsBareValue(end)) {
      this.pos = end;
      return { ok: true, value: Number(m[0]) };
    }
    // `8/10`, `7 out of 10`, `12px`: keep the text, callers coerce.
    return { ok: true, value: this.bare() };
  }

  word(): Scan {
    WORD.lastIndex = this.pos;
    const m = WORD.exec(this.text)!;
    const end = this.pos + m[0].length;
    if (m[0] in KEYWORDS && this.endsBareValue(end)) {
      this.pos = end;
      return { ok: true, value: KEYWORDS[m[0]] };
    }
    return { ok: true, value: this.bare() };
  }

  endsBareValue(at: number): boolean {
    const t = this.text;
    let i = at;
    while (i < t.length && (t[i] === ' ' || t[i] === '\t' || t[i] === '\r')) i++;
    if (i >= t.length) return true;
    const c = t[i]!;
    return c === ',' || c === '}' || c === ']' || c === '\n' || c === ';';
  }

  /** A bare (unquoted) value: everything up to `,`, `}`, `]` or a newline. */
  bare(): string {
    const t = this.text;
    const start = this.pos;
    while (this.pos < t.length && !',}]\n'.includes(t[this.pos]!)) this.pos++;
    return t.slice(start, this.pos).trim();
  }
}

/**
 * Read one JSON-like value starting at `start` (default: the first non-space character) with the
 * leniency of {@link extractJson}. Returns `undefined` when no value starts there.
 */
export function parseLenientJson(text: string, start = 0): LenientJson | undefined {
  const reader = new LenientJsonReader(text, start);
  reader.skipSpace();
  const from = reader.pos;
  const scan = reader.value();
  if (scan.value === undefined) return undefined;
  if (!scan.ok) {
    if (scan.eof) reader.truncated = true;
    else reader.malformed = true;
  }
  const end = scan.ok ? reader.pos : scan.eof ? text.length : reader.pos;
  return {
    value: scan.value,
    start: from,
    end,
    truncated: reader.truncated,
    malformed: reader.malformed,
    dropped: reader.dropped,
    text: text.slice(from, end),
  };
}

/**
 * Contents of the Markdown code fences in `text` (```json ... ```, ``` ... ```, ~~~), in order.
 * An unclosed fence (output cut off) runs to the end of the text.
 */
export function codeFenceBlocks(text: string): string[] {
  const blocks: string[] = [];
  const re = /(```|~~~)[^\n]*\n?([\s\S]*?)(?:\1|$)/g;
  for (let m = re.exec(text); m !== null; m = re.exec(text)) {
    blocks.push(m[2] ?? '');
    if (m[0].length === 0) re.lastIndex++;
  }
  return blocks;
}

/**
 * `text` without Markdown code-fence lines (the content of the fences is kept), including a
 * closing fence cut short at the end of the text (a last line of one or two backticks or tildes).
 */
export function stripCodeFences(text: string): string {
  return text
    .replace(/^[ \t]*(```|~~~)[^\n]*$/gm, '')
    .replace(/\n[ \t]*(?:`{1,2}|~{1,2})[ \t]*$/, '')
    .trim();
}

/** How many start positions {@link extractJson} tries before giving up. */
const MAX_JSON_STARTS = 64;

/**
 * Find a JSON object or array in model output: inside a code fence when there is one, else
 * anywhere in the text (prose before and after is ignored). Tries each `{` / `[` in turn and returns
 * the first value that `accept` likes (default: any object or non-empty array; it also sees what
 * was dropped, e.g. to take an array all of whose elements were malformed or cut off), with
 * {@link parseLenientJson}'s leniency and truncation recovery. Offsets are relative to the text the
 * value was found in (a fence's content or `raw`).
 */
export function extractJson(
  raw: string,
  accept: (value: unknown, found: LenientJson) => boolean = (v) =>
    isJsonRecord(v) || (Array.isArray(v) && v.length > 0),
): LenientJson | undefined {
  const texts = [...codeFenceBlocks(raw), raw];
  for (const text of texts) {
    let tries = 0;
    for (let i = 0; i < text.length && tries < MAX_JSON_STARTS; i++) {
      const c = text[i];
      if (c !== '{' && c !== '[') continue;
      tries++;
      const found = parseLenientJson(text, i);
      if (found && accept(found.value, found)) return found;
    }
  }
  return undefined;
}

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

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
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
