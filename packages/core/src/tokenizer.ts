import { get_encoding, type Tiktoken } from 'tiktoken';
import { InvalidArgumentError } from './contracts/errors.js';
import type { EncodingName, OffsetTokenizer, Tokenizer } from './contracts/tokenizer.js';
import { RecentMemo } from './recent-memo.js';

/** Ids that `decode` accepts: `0 .. regular-1` plus the special tokens of the encoding. */
const VOCABULARY: Record<EncodingName, { regular: number; special: readonly number[] }> = {
  cl100k_base: { regular: 100_256, special: [100_257, 100_258, 100_259, 100_260, 100_276] },
  o200k_base: { regular: 199_998, special: [199_999, 200_018] },
};

/** UTF-8 length of the code point starting at UTF-16 index `i`, and how many UTF-16 units it takes. */
function utf8Width(text: string, i: number): { bytes: number; units: number } {
  const c = text.charCodeAt(i);
  if (c < 0x80) return { bytes: 1, units: 1 };
  if (c < 0x800) return { bytes: 2, units: 1 };
  if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length) {
    const d = text.charCodeAt(i + 1);
    if (d >= 0xdc00 && d <= 0xdfff) return { bytes: 4, units: 2 };
  }
  // Other BMP characters; a lone surrogate is encoded as U+FFFD (3 bytes), as TextEncoder does.
  return { bytes: 3, units: 1 };
}

function checkMaxTokens(maxTokens: number, name: string): void {
  if (!(Number.isInteger(maxTokens) || maxTokens === Number.POSITIVE_INFINITY) || maxTokens < 0) {
    throw new InvalidArgumentError(
      'maxTokens',
      `Tokenizer.truncate (${name}): maxTokens must be a non-negative integer (or Infinity), got ${String(maxTokens)}.`,
    );
  }
}

/** Texts up to this length have their token counts memoized. */
const COUNT_CACHE_MAX_CHARS = 32_768;
/** How many token counts are memoized per encoding. */
const COUNT_CACHE_ENTRIES = 50_000;

class TiktokenTokenizer implements OffsetTokenizer {
  readonly name: EncodingName;
  readonly #encoding: Tiktoken;
  readonly #special: ReadonlySet<number>;
  readonly #regular: number;
  /** Memoized UTF-8 byte length of each regular token id (0 = not looked up yet). */
  readonly #byteLength: Uint8Array;
  readonly #decoder = new TextDecoder('utf-8', { ignoreBOM: true });

  constructor(name: EncodingName) {
    this.name = name;
    this.#encoding = get_encoding(name);
    const vocabulary = VOCABULARY[name];
    this.#regular = vocabulary.regular;
    this.#special = new Set(vocabulary.special);
    this.#byteLength = new Uint8Array(vocabulary.regular);
  }

  readonly additiveAfterBlankLine = true;
  readonly additiveAfterLineBreak = true;
  readonly additiveBeforeSpace = true;
  /** Recently counted texts (retrieval counts the same passages again and again). */
  readonly #counts = new RecentMemo<string, number>(COUNT_CACHE_ENTRIES);

  count(text: string): number {
    if (text.length > COUNT_CACHE_MAX_CHARS) return this.#encoding.encode_ordinary(text).length;
    return this.#counts.get(text) ?? this.#counts.set(text, this.#encoding.encode_ordinary(text).length);
  }

  /** Special-token text such as `<|endoftext|>` is encoded as ordinary text, never as a special token. */
  encode(text: string): number[] {
    return Array.from(this.#encoding.encode_ordinary(text));
  }

  /** Bytes that do not form whole UTF-8 characters (a cut inside a character) decode to U+FFFD. */
  decode(tokens: ArrayLike<number>): string {
    const ids = new Uint32Array(tokens.length);
    for (let i = 0; i < tokens.length; i++) {
      const id = tokens[i] as number;
      if (!Number.isInteger(id) || id < 0 || (id >= this.#regular && !this.#special.has(id))) {
        throw new InvalidArgumentError(
          'tokens',
          `Tokenizer.decode (${this.name}): ${String(id)} at index ${i} is not a token id of this encoding; ` +
            'decode only tokens produced by the same encoding.',
        );
      }
      ids[i] = id;
    }
    return this.#decoder.decode(this.#encoding.decode(ids));
  }

  #tokenBytes(id: number): number {
    if (id >= this.#regular) return this.#encoding.decode_single_token_bytes(id).length;
    let length = this.#byteLength[id] as number;
    if (length === 0) {
      length = this.#encoding.decode_single_token_bytes(id).length;
      this.#byteLength[id] = length;
    }
    return length;
  }

  encodeWithOffsets(text: string): { tokens: number[]; offsets: number[] } {
    const tokens = this.encode(text);
    const offsets = new Array<number>(tokens.length + 1);
    let tokenByte = 0; // byte offset where the current token starts
    let charIndex = 0; // UTF-16 index of the character that contains `tokenByte`
    let charByte = 0; // byte offset where that character starts
    for (let t = 0; t < tokens.length; t++) {
      for (;;) {
        if (charIndex >= text.length) break;
        const width = utf8Width(text, charIndex);
        if (charByte + width.bytes > tokenByte) break;
        charByte += width.bytes;
        charIndex += width.units;
      }
      offsets[t] = charIndex;
      tokenByte += this.#tokenBytes(tokens[t] as number);
    }
    offsets[tokens.length] = text.length;
    return { tokens, offsets };
  }

  truncate(text: string, maxTokens: number): string {
    checkMaxTokens(maxTokens, this.name);
    if (maxTokens === 0 || text.length === 0) return '';
    const { tokens, offsets } = this.encodeWithOffsets(text);
    if (tokens.length <= maxTokens) return text;
    // Cut at the token boundary (snapped back to a character start). Re-encoding a prefix can, rarely,
    // take more tokens than the prefix of the full encoding; back off until it fits.
    for (let k = maxTokens; k > 0; k--) {
      const prefix = text.slice(0, offsets[k]);
      if (this.count(prefix) <= maxTokens) return prefix;
    }
    return '';
  }
}

const cache = new Map<EncodingName, TiktokenTokenizer>();

/**
 * A tiktoken tokenizer (WASM) for `name`. Tokenizers are cached: one encoder per encoding and process.
 * `encode` and `count` treat special-token text (`<|endoftext|>`) as ordinary text; `truncate` never
 * cuts inside a character. The returned tokenizer also implements {@link OffsetTokenizer}.
 *
 * @param name Encoding. @default 'cl100k_base' (GPT-4 / GPT-3.5 and text-embedding-3; the encoding
 *   GraphRAG counts chunk tokens with). Use `'o200k_base'` for GPT-4o and later.
 * @throws InvalidArgumentError for an encoding grag does not support.
 */
export function getTokenizer(name: EncodingName = 'cl100k_base'): OffsetTokenizer {
  let tokenizer = cache.get(name);
  if (!tokenizer) {
    if (!Object.hasOwn(VOCABULARY, name)) {
      throw new InvalidArgumentError(
        'name',
        `getTokenizer: unknown encoding ${JSON.stringify(name)}; use one of ${Object.keys(VOCABULARY)
          .map((n) => `'${n}'`)
          .join(', ')}.`,
      );
    }
    tokenizer = new TiktokenTokenizer(name);
    cache.set(name, tokenizer);
  }
  return tokenizer;
}

/**
 * `base` counting with `count`, a function that gives `base.count`'s value for every text (from
 * counts known in advance, say): the same name, encoding, truncation and additivity flags, so that
 * `packContext` and the methods' counting shortcuts keep working through it.
 */
export function countingWith(base: Tokenizer, count: (text: string) => number): Tokenizer {
  const flags: Partial<Record<(typeof ADDITIVITY_FLAGS)[number], boolean>> = {};
  for (const flag of ADDITIVITY_FLAGS) if (base[flag] !== undefined) flags[flag] = base[flag];
  return {
    name: base.name,
    ...flags,
    count,
    encode: (text) => base.encode(text),
    decode: (tokens) => base.decode(tokens),
    truncate: (text, maxTokens) => base.truncate(text, maxTokens),
  };
}

/** The {@link Tokenizer} flags that say where counts add up. */
const ADDITIVITY_FLAGS = ['additiveAfterBlankLine', 'additiveAfterLineBreak', 'additiveBeforeSpace'] as const;
