/**
 * Decoding text files whose encoding is not declared anywhere (corpus files, dataset files).
 *
 * The rule, in order (see {@link decodeText}):
 *
 * 1. A byte-order mark decides: `EF BB BF` is UTF-8, `FF FE` UTF-16 LE, `FE FF` UTF-16 BE. The mark
 *    is removed from the text.
 * 2. A file with NUL bytes is UTF-16 without a byte-order mark only when the NULs sit almost all in
 *    the high byte of each 16-bit unit (the pattern of mostly-ASCII text in UTF-16), the other byte
 *    of those units is (nearly) always a printable Latin-1 character, and the whole file is valid UTF-16;
 *    otherwise it is binary. A short file (under 32 units) needs half its units in that pattern.
 * 3. A file that is valid UTF-8 is UTF-8 (pure ASCII included).
 * 4. Otherwise it is a single-byte legacy encoding (a file of fewer than 64 bytes only when at
 *    least half of them are ASCII text; else binary): Windows-1252 when it has bytes 0x80–0x9F
 *    (curly quotes, dashes, the euro sign…; the five bytes Windows-1252 leaves undefined become the
 *    C1 control characters, as in the WHATWG Encoding Standard), else ISO-8859-1 (Latin-1), which is
 *    identical to Windows-1252 on every other byte.
 *
 * Whatever the encoding, text with a NUL character or with more than 2% control characters (C0
 * other than tab, line feed, vertical tab, form feed, carriage return and escape; DEL; C1) is
 * binary. Two stray control characters are tolerated in a text of 100 characters or more, and a
 * final DOS end-of-file mark (0x1A) in any; a shorter text has no room for noise.
 *
 * The single-byte tables are written out here rather than taken from `TextDecoder`: Node 20's
 * `TextDecoder('windows-1252')` decodes as Latin-1 (0x93 becomes U+0093, not “).
 */
import type { TextEncodingName } from './contracts/loader.js';

/** Bytes decoded as text. */
export interface DecodedText {
  binary?: false;
  text: string;
  encoding: TextEncodingName;
  /** Whether the bytes started with a byte-order mark (removed from `text`). */
  bom: boolean;
  /** Why this encoding was assumed, e.g. `not valid UTF-8` or `byte-order mark`. */
  reason: string;
}

/** Bytes that are not text in any encoding {@link decodeText} recognises. */
export interface BinaryBytes {
  binary: true;
  /** What gave it away, e.g. `NUL bytes` or `control characters`. */
  reason: string;
}

/** Windows-1252 code points of bytes 0x80–0x9F; `undefined` where Windows-1252 defines none. */
const CP1252_HIGH: readonly (number | undefined)[] = [
  0x20ac,
  undefined,
  0x201a,
  0x0192,
  0x201e,
  0x2026,
  0x2020,
  0x2021,
  0x02c6,
  0x2030,
  0x0160,
  0x2039,
  0x0152,
  undefined,
  0x017d,
  undefined,
  undefined,
  0x2018,
  0x2019,
  0x201c,
  0x201d,
  0x2022,
  0x2013,
  0x2014,
  0x02dc,
  0x2122,
  0x0161,
  0x203a,
  0x0153,
  undefined,
  0x017e,
  0x0178,
];

/** Share of control characters above which text is taken for binary data. */
const MAX_CONTROL_SHARE = 0.02;
/** Stray control characters tolerated in a text of {@link TOLERANT_LENGTH} characters or more. */
const TOLERATED_CONTROLS = 2;
/** Length from which {@link TOLERATED_CONTROLS} apply: in a few bytes, a control character is no stray. */
const TOLERANT_LENGTH = 100;
/** Below this many bytes, a file that is not UTF-8 must be mostly ASCII to be text. */
const SHORT_LEGACY_BYTES = 64;
/** Units a BOM-less UTF-16 file needs before one NUL-pattern unit in ten is evidence enough. */
const UTF16_SHORT_UNITS = 32;
/** How much of a NUL-bearing file is inspected for the UTF-16 NUL pattern. */
const UTF16_SAMPLE = 8192;

/** A control character that does not belong in text. */
function isSuspectControl(code: number): boolean {
  if (code < 0x20) return code < 0x09 || (code > 0x0d && code !== 0x1b);
  return code === 0x7f || (code >= 0x80 && code <= 0x9f);
}

/** `text` as a {@link DecodedText}, or binary when it holds NUL or too many control characters. */
function checkText(
  text: string,
  encoding: TextEncodingName,
  bom: boolean,
  reason: string,
): DecodedText | BinaryBytes {
  let controls = 0;
  // A DOS end-of-file mark ends many old text files.
  const end = text.endsWith('\u001a') ? text.length - 1 : text.length;
  for (let i = 0; i < end; i++) {
    const code = text.charCodeAt(i);
    if (code === 0) return { binary: true, reason: 'NUL characters' };
    if (isSuspectControl(code)) controls++;
  }
  const tolerated = text.length >= TOLERANT_LENGTH ? TOLERATED_CONTROLS : 0;
  if (controls > Math.max(tolerated, text.length * MAX_CONTROL_SHARE))
    return { binary: true, reason: 'control characters' };
  return { text, encoding, bom, reason };
}

/** Strict decode; `undefined` when `bytes` are not valid in `encoding`. A leading BOM is removed. */
function strictDecode(bytes: Uint8Array, encoding: 'utf-8' | 'utf-16le' | 'utf-16be'): string | undefined {
  try {
    return new TextDecoder(encoding, { fatal: true }).decode(bytes);
  } catch {
    return undefined;
  }
}

/** The low byte of a Latin-1 text character: printable (ASCII or U+00A0–U+00FF), or tab, line feed, carriage return. */
const isTextByte = (b: number) =>
  (b >= 0x20 && b < 0x7f) || b >= 0xa0 || b === 0x09 || b === 0x0a || b === 0x0d;

/**
 * UTF-16 byte order of BOM-less bytes whose NULs sit (nearly) all at odd offsets (LE) or all at
 * even offsets (BE), in units whose other byte is (nearly) always Latin-1 text, making up at least a
 * tenth of the 16-bit units (half, in a file of fewer than 32 units); `undefined` otherwise.
 */
function utf16ByNulPattern(bytes: Uint8Array): 'utf-16le' | 'utf-16be' | undefined {
  if (bytes.length < 2 || bytes.length % 2 !== 0) return undefined;
  const end = Math.min(bytes.length, UTF16_SAMPLE);
  let evenNul = 0;
  let oddNul = 0;
  /** Units `00 xx` (BE) and `xx 00` (LE) whose `xx` is a Latin-1 text character. */
  let beText = 0;
  let leText = 0;
  for (let i = 0; i + 1 < end; i += 2) {
    const a = bytes[i] as number;
    const b = bytes[i + 1] as number;
    if (a === 0) {
      evenNul++;
      if (isTextByte(b)) beText++;
    }
    if (b === 0) {
      oddNul++;
      if (isTextByte(a)) leText++;
    }
  }
  const units = Math.floor(end / 2);
  const share = units < UTF16_SHORT_UNITS ? 0.5 : 0.1;
  if (oddNul >= units * share && evenNul * 8 <= oddNul && leText >= oddNul * 0.9) return 'utf-16le';
  if (evenNul >= units * share && oddNul * 8 <= evenNul && beText >= evenNul * 0.9) return 'utf-16be';
  return undefined;
}

/** Bytes as Windows-1252 (when `cp1252`) or Latin-1: one character per byte. */
function decodeSingleByte(bytes: Uint8Array, cp1252: boolean): string {
  const parts: string[] = [];
  const chunk = new Uint16Array(Math.min(bytes.length, 8192));
  for (let start = 0; start < bytes.length; start += chunk.length) {
    const end = Math.min(bytes.length, start + chunk.length);
    for (let i = start; i < end; i++) {
      const b = bytes[i] as number;
      chunk[i - start] = cp1252 && b >= 0x80 && b <= 0x9f ? (CP1252_HIGH[b - 0x80] ?? b) : b;
    }
    parts.push(String.fromCharCode(...chunk.subarray(0, end - start)));
  }
  return parts.join('');
}

/**
 * Decode the bytes of a text file whose encoding is not declared: UTF-8 (with or without a
 * byte-order mark), UTF-16 LE/BE (with a byte-order mark, or without one when its NUL bytes show it),
 * Windows-1252 or ISO-8859-1, detected by content; or report the bytes as binary.
 *
 * The rule: a byte-order mark decides; NUL bytes mean UTF-16 if they fit its pattern and the file is
 * valid UTF-16, else binary; valid UTF-8 is UTF-8; anything else is Windows-1252 if it uses bytes
 * 0x80–0x9F, else Latin-1. Decoded text with a NUL or more than 2% control characters is binary.
 * A byte-order mark is never part of `text`.
 *
 * @example
 * decodeText(Uint8Array.from([0x63, 0x61, 0x66, 0xe9])) // { text: 'café', encoding: 'latin1', … }
 */
export function decodeText(bytes: Uint8Array): DecodedText | BinaryBytes {
  const [b0, b1, b2] = bytes;
  if (b0 === 0xef && b1 === 0xbb && b2 === 0xbf) {
    const text = strictDecode(bytes, 'utf-8');
    if (text !== undefined) return checkText(text, 'utf-8', true, 'byte-order mark');
    // A UTF-8 mark on bytes that are not UTF-8: judge the rest by content.
    return decodeWithoutBom(bytes.subarray(3));
  }
  if ((b0 === 0xff && b1 === 0xfe) || (b0 === 0xfe && b1 === 0xff)) {
    const encoding = b0 === 0xff ? 'utf-16le' : 'utf-16be';
    const text = strictDecode(bytes, encoding);
    if (text === undefined) return { binary: true, reason: `invalid ${encoding.toUpperCase()}` };
    return checkText(text, encoding, true, 'byte-order mark');
  }
  return decodeWithoutBom(bytes);
}

function decodeWithoutBom(bytes: Uint8Array): DecodedText | BinaryBytes {
  if (bytes.includes(0)) {
    const encoding = utf16ByNulPattern(bytes);
    const text = encoding && strictDecode(bytes, encoding);
    if (encoding === undefined || text === undefined) return { binary: true, reason: 'NUL bytes' };
    return checkText(text, encoding, false, 'no byte-order mark; NUL-byte pattern');
  }
  const utf8 = strictDecode(bytes, 'utf-8');
  if (utf8 !== undefined) return checkText(utf8, 'utf-8', false, 'valid UTF-8');
  let c1 = false;
  let ascii = 0;
  for (const b of bytes) {
    if (b >= 0x80 && b <= 0x9f) c1 = true;
    if (b < 0x80 && isTextByte(b)) ascii++;
  }
  // A few bytes that are not UTF-8 are text only when most are ASCII ("café", not noise).
  if (bytes.length < SHORT_LEGACY_BYTES && ascii * 2 < bytes.length)
    return { binary: true, reason: 'not text (short, not UTF-8, mostly non-ASCII bytes)' };
  return checkText(decodeSingleByte(bytes, c1), c1 ? 'windows-1252' : 'latin1', false, 'not valid UTF-8');
}
