import type { Tokenizer } from '@grag/core';

/** `base` under its name, its counts and codes as they are, without its additivity flags: every text counted whole. */
export function wholeTextTokenizer(base: Tokenizer): Tokenizer {
  return {
    name: base.name,
    count: (text) => base.count(text),
    encode: (text) => base.encode(text),
    decode: (tokens) => base.decode(tokens),
    truncate: (text, maxTokens) => base.truncate(text, maxTokens),
  };
}
