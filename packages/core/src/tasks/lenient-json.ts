/**
 * Lenient JSON for model output. Models wrap JSON in prose or code fences, leave trailing commas,
 * use single quotes or bare keys and get cut off at the token limit; these helpers recover what can
 * be recovered and say what was lost. They never throw on model text.
 */

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
      const end = this.endOf('}', obj);
      if (end) return end;
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

  /**
   * Skips white space and separators (`,` or `;`) before the next member of `value`, an object or
   * array being read: the scan that ends it (past its `close`, or at the end of the text), or
   * `undefined` at the start of a member.
   */
  endOf(close: '}' | ']', value: unknown): Scan | undefined {
    for (;;) {
      this.skipSpace();
      if (this.eof) return { ok: false, value, eof: true };
      const c = this.text[this.pos]!;
      if (c === close) {
        this.pos++;
        return { ok: true, value };
      }
      if (c !== ',' && c !== ';') return undefined;
      this.pos++;
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
      const end = this.endOf(']', arr);
      if (end) return end;
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
    const c = this.nextInLine(after);
    if (c === undefined) return true;
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
    const c = this.nextInLine(at);
    if (c === undefined) return true;
    return c === ',' || c === '}' || c === ']' || c === '\n' || c === ';';
  }

  /** The first character from `at` on that is not a space, tab or CR; `undefined` at the end of the text. */
  nextInLine(at: number): string | undefined {
    const t = this.text;
    let i = at;
    while (i < t.length && (t[i] === ' ' || t[i] === '\t' || t[i] === '\r')) i++;
    return t[i];
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
