/** The tokenizer contract: counting, encoding and truncating text in model tokens. */
/** Tiktoken encodings grag supports. */
export type EncodingName = 'cl100k_base' | 'o200k_base';

/** Counts, encodes, decodes and truncates text in model tokens. */
export interface Tokenizer {
  readonly name: EncodingName | string;
  count(text: string): number;
  encode(text: string): number[];
  decode(tokens: ArrayLike<number>): string;
  /**
   * True when counts add up across a blank line: `count(a + '\n\n' + b) === count(a + '\n\n') + count(b)`
   * for every `b` that starts with a non-whitespace character. tiktoken's pre-tokenizer always ends a
   * piece at such a boundary, so BPE never merges across it; `packContext` relies on it to count a
   * context from its parts.
   */
  readonly additiveAfterBlankLine?: boolean;
  /**
   * True when counts add up across a line break before a letter or digit: `count(a + '\n' + b) ===
   * count(a + '\n') + count(b)` for every `b` whose first character is a letter or a digit (`\p{L}`,
   * `\p{N}`). tiktoken's pre-tokenizers (cl100k_base, o200k_base) end a piece at a line break that such
   * a character follows, so BPE never merges across it; lines joined by single line breaks are then
   * counted from their memoized counts.
   */
  readonly additiveAfterLineBreak?: boolean;
  /**
   * True when counts add up before a space that follows a letter, digit or punctuation mark:
   * `count(a + b) === count(a) + count(b)` for every `a` whose last character is one (`\p{L}`, `\p{N}`,
   * `\p{P}`) and every `b` that starts with a space (U+0020). tiktoken's pre-tokenizers (cl100k_base,
   * o200k_base) take a space only as the first character of a piece, and a run of whitespace
   * cannot start at a character that is not whitespace, so a piece starts at that space; `packContext`
   * then counts an item followed by its separator from the item's count and its last word's.
   */
  readonly additiveBeforeSpace?: boolean;
  /** The longest prefix of `text` that ends at a token boundary (snapped back to a whole character) with at most `maxTokens` tokens. */
  truncate(text: string, maxTokens: number): string;
}

/**
 * A {@link Tokenizer} that can also say where each token starts in the text. Every tokenizer made by
 * `getTokenizer` (`@grag/core/kit`) is one; the chunkers use it to map token windows back to character offsets
 * exactly (other tokenizers go through a slower decode-based mapping).
 */
export interface OffsetTokenizer extends Tokenizer {
  /**
   * The tokens of `text` (as `encode` returns them) and `offsets`, of length `tokens.length + 1`:
   * `offsets[i]` is the UTF-16 index in `text` where token `i` starts, and `offsets[tokens.length]`
   * is `text.length`. A byte-level token may start inside a multi-byte character; its offset is then
   * snapped back to the start of that character, so every offset is a valid place to cut `text`.
   */
  encodeWithOffsets(text: string): { tokens: number[]; offsets: number[] };
}

/** Whether `tokenizer` implements {@link OffsetTokenizer}. */
export function hasTokenOffsets(tokenizer: Tokenizer): tokenizer is OffsetTokenizer {
  return typeof (tokenizer as Partial<OffsetTokenizer>).encodeWithOffsets === 'function';
}
