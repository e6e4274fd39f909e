/**
 * Text from user data (file names, document ids, titles, passages, answers, messages that quote
 * them) made safe to print on a terminal: a file name or a passage can carry escape sequences that
 * recolour, retitle or rewrite the screen, so control characters never reach it raw.
 */

/** C0 controls, DEL, C1 controls, and the bidirectional overrides and isolates that reorder a line. */
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;
/** The same, keeping line feeds and tabs. */
const UNSAFE_KEEP_LINES = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;

function visible(char: string): string {
  const code = char.charCodeAt(0);
  if (char === '\n') return '\\n';
  if (char === '\r') return '\\r';
  if (char === '\t') return '\\t';
  return code < 0x100
    ? `\\x${code.toString(16).padStart(2, '0')}`
    : `\\u${code.toString(16).padStart(4, '0')}`;
}

/**
 * `text` with every control character replaced by a visible escape: `ESC` (and with it every escape
 * sequence) becomes `\x1b`, other C0 and C1 controls and DEL `\xNN`, bidirectional overrides
 * `\uNNNN`. By default for one line (a file name, an id, an error message): line feeds and carriage
 * returns become `\n` and `\r`, tabs stay. With `lines`, for running text (a passage, an answer):
 * line feeds stay (a CRLF pair becomes one) and so do tabs.
 *
 * @example
 * printable('a\u001b[31mred.md') // 'a\\x1b[31mred.md'
 */
export function printable(text: string, options: { lines?: boolean } = {}): string {
  if (options.lines) return text.replace(/\r\n/g, '\n').replace(UNSAFE_KEEP_LINES, visible);
  return text.replace(UNSAFE, (char) => (char === '\t' ? char : visible(char)));
}

/** What `JSON.stringify` leaves raw that a terminal may act on: DEL, C1 controls, bidirectional controls. */
const UNSAFE_IN_JSON = /[\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;

/**
 * `value` as pretty JSON (two spaces) that is also safe to print: `JSON.stringify` escapes C0
 * controls itself, and the characters it leaves raw (DEL, C1 controls, bidirectional overrides)
 * are written as `\uNNNN` escapes, which parse back to the same text.
 */
export function printableJson(value: unknown): string {
  return JSON.stringify(value, null, 2).replace(
    UNSAFE_IN_JSON,
    (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}
