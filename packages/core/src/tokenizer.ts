// Interface only; the implementation is written next (see getTokenizer below).
/** Tiktoken encodings grag supports. */
export type EncodingName = 'cl100k_base' | 'o200k_base';

/** Counts, encodes, decodes and truncates text in model tokens. */
export interface Tokenizer {
  readonly name: EncodingName | string;
  count(text: string): number;
  encode(text: string): number[];
  decode(tokens: ArrayLike<number>): string;
  /** The longest prefix of `text` with at most `maxTokens` tokens. */
  truncate(text: string, maxTokens: number): string;
}
