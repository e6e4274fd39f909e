import { describe, expect, it } from 'vitest';
import { InvalidArgumentError } from '../src/contracts/errors.js';
import type { EncodingName } from '../src/contracts/tokenizer.js';
import { countingWith, getTokenizer } from '../src/tokenizer.js';

const ENCODINGS: EncodingName[] = ['cl100k_base', 'o200k_base'];

/** A string with an unpaired surrogate or a U+FFFD: what a cut inside a character leaves behind. */
const BROKEN = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]|\uFFFD/u;

const UNICODE_SAMPLES = [
  '🦄🎉 naïve café 日本語のテキスト',
  'family 👩‍👩‍👧 flags 🇫🇷🇯🇵 skin 👍🏽',
  'Ελληνικά, русский, العربية, עברית, हिन्दी',
  'e\u0301 combining, tabs\tand\nnewlines\r\n',
  '\uFEFFa leading byte-order mark is kept',
  'special-token text <|endoftext|> stays ordinary',
];

/** Pieces whose joins the additivity tests try: words, punctuation, spaces, line breaks, digits, unicode. */
const JOIN_PIECES = [
  ...['foo', 'Bar', '.', '!', ' ', '  ', '\n', '\n\n', '/', '(', '"', "'s", '12', '345', 'é', '中文'],
  ...['—', ':', ',', '\t', 'x.y', '\r\n', '...', '-', '🙂', ...UNICODE_SAMPLES],
];

/** Texts of 1 to 8 of `pieces` joined, drawn by a seeded generator (the joins tokenizers split at). */
function seededTexts(pieces: readonly string[], seed: number): () => string {
  const pick = (n: number) => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    return seed % n;
  };
  return () => Array.from({ length: 1 + pick(8) }, () => pieces[pick(pieces.length)]).join('');
}

describe('getTokenizer', () => {
  it('returns one cached tokenizer per encoding, cl100k_base by default', () => {
    expect(getTokenizer()).toBe(getTokenizer('cl100k_base'));
    expect(getTokenizer('o200k_base')).toBe(getTokenizer('o200k_base'));
    expect(getTokenizer('o200k_base')).not.toBe(getTokenizer('cl100k_base'));
    expect(getTokenizer().name).toBe('cl100k_base');
    expect(getTokenizer('o200k_base').name).toBe('o200k_base');
  });

  it('counts what encode gives while its memo of counts turns over several times', () => {
    const tokenizer = getTokenizer('o200k_base');
    // More distinct texts than the memo holds (50,000), each counted, then the early ones again.
    const texts = Array.from({ length: 120_000 }, (_, i) => `item ${i} of ${(i * 7919) % 1000} words`);
    const counts = texts.map((t) => tokenizer.count(t));
    const again = [0, 1, 2, 24_999, 25_000, 60_000, 119_999].map((i) => tokenizer.count(texts[i]!));
    for (const i of [0, 1, 2, 999, 24_999, 25_000, 49_999, 60_000, 119_999]) {
      expect(counts[i]).toBe(tokenizer.encode(texts[i]!).length);
    }
    expect(again).toEqual(
      [0, 1, 2, 24_999, 25_000, 60_000, 119_999].map((i) => tokenizer.encode(texts[i]!).length),
    );
    // Texts whose counts differ, so a count served from the wrong entry would show.
    expect(new Set(counts).size).toBeGreaterThan(1);
  });

  it('throws InvalidArgumentError naming the argument for an unknown encoding', () => {
    const error = (() => {
      try {
        getTokenizer('p50k_base' as EncodingName);
      } catch (e) {
        return e;
      }
    })();
    expect(InvalidArgumentError.isInstance(error)).toBe(true);
    expect((error as InvalidArgumentError).argument).toBe('name');
    expect((error as Error).message).toMatch(/getTokenizer.*p50k_base.*cl100k_base/);
  });
});

describe.each(ENCODINGS)('tokenizer %s', (name) => {
  const tokenizer = getTokenizer(name);

  it('counts known texts', () => {
    // "hello world" is the classic two-token example in both vocabularies ("hello", " world").
    expect(tokenizer.count('hello world')).toBe(2);
    // Each common lower-case English word with its leading space is one token, as are "The" and ".":
    // 9 words + 1 period.
    expect(tokenizer.count('The quick brown fox jumps over the lazy dog.')).toBe(10);
    expect(tokenizer.count('')).toBe(0);
    expect(tokenizer.count('a')).toBe(1);
  });

  it('encodes "hello world" as the two tokens "hello" and " world"', () => {
    const tokens = tokenizer.encode('hello world');
    expect(tokens).toHaveLength(2);
    expect(tokens.map((t) => tokenizer.decode([t]))).toEqual(['hello', ' world']);
  });

  it('round-trips unicode, emoji and special-token text through encode and decode', () => {
    for (const text of UNICODE_SAMPLES) {
      const tokens = tokenizer.encode(text);
      expect(tokens.length).toBe(tokenizer.count(text));
      expect(tokenizer.decode(tokens)).toBe(text);
      expect(tokenizer.decode(Uint32Array.from(tokens))).toBe(text);
    }
  });

  it('encodes special-token text as ordinary text and decodes a special token id', () => {
    const tokens = tokenizer.encode('<|endoftext|>');
    expect(tokens.length).toBeGreaterThan(1);
    const endOfText = name === 'cl100k_base' ? 100_257 : 199_999;
    expect(tokens).not.toContain(endOfText);
    expect(tokenizer.decode([endOfText])).toBe('<|endoftext|>');
  });

  it('rejects ids that are not tokens of the encoding', () => {
    const hole = name === 'cl100k_base' ? 100_256 : 199_998;
    for (const bad of [-1, 1.5, hole, 10_000_000]) {
      expect(() => tokenizer.decode([bad])).toThrow(/not a token id/);
    }
    // The encoder still works after a rejected call.
    expect(tokenizer.decode(tokenizer.encode('still fine'))).toBe('still fine');
  });

  it('truncates to nothing, to the exact budget, and leaves text within budget unchanged', () => {
    const text = 'The quick brown fox jumps over the lazy dog.';
    expect(tokenizer.truncate(text, 0)).toBe('');
    expect(tokenizer.truncate(text, 10)).toBe(text);
    expect(tokenizer.truncate(text, 1000)).toBe(text);
    expect(tokenizer.truncate(text, Number.POSITIVE_INFINITY)).toBe(text);
    expect(tokenizer.truncate(text, 9)).toBe('The quick brown fox jumps over the lazy dog');
    expect(tokenizer.truncate(text, 2)).toBe('The quick');
    expect(tokenizer.truncate('hello world', 1)).toBe('hello');
    expect(tokenizer.truncate('', 5)).toBe('');
  });

  it('truncates to a prefix within budget that never cuts a character, for every budget', () => {
    for (const text of UNICODE_SAMPLES) {
      const total = tokenizer.count(text);
      let previous = '';
      for (let budget = 0; budget <= total; budget++) {
        const prefix = tokenizer.truncate(text, budget);
        expect(text.startsWith(prefix)).toBe(true);
        expect(tokenizer.count(prefix)).toBeLessThanOrEqual(budget);
        expect(prefix).not.toMatch(BROKEN);
        expect(prefix.length).toBeGreaterThanOrEqual(previous.length);
        previous = prefix;
      }
      expect(previous).toBe(text);
    }
  });

  it('keeps a multi-token emoji out of a budget that would split it', () => {
    // Byte-level BPE spells a rare 4-byte emoji with several tokens; decoding only some of them
    // gives U+FFFD, which truncate must not return.
    const unicorn = '🦄';
    const perEmoji = tokenizer.count(unicorn);
    expect(perEmoji).toBeGreaterThan(1);
    expect(tokenizer.decode(tokenizer.encode(unicorn).slice(0, 1))).toContain('\uFFFD');
    expect(tokenizer.truncate(`${unicorn}${unicorn}`, perEmoji - 1)).toBe('');
    expect(tokenizer.truncate(`${unicorn}${unicorn}`, perEmoji)).toBe(unicorn);
    expect(tokenizer.truncate(`${unicorn}${unicorn}`, 2 * perEmoji - 1)).toBe(unicorn);
  });

  it('rejects a negative or fractional budget', () => {
    for (const bad of [-1, 0.5, Number.NaN]) {
      expect(() => tokenizer.truncate('text', bad)).toThrow(InvalidArgumentError);
    }
  });

  it('adds counts up across a line break before a letter or digit (additiveAfterLineBreak), seeded texts', () => {
    expect(tokenizer.additiveAfterLineBreak).toBe(true);
    const text = seededTexts(JOIN_PIECES, 11);
    let tested = 0;
    while (tested < 3000) {
      const a = text();
      const b = text();
      if (!/^[\p{L}\p{N}]/u.test(b)) continue;
      tested++;
      expect(tokenizer.count(`${a}\n${b}`), JSON.stringify([a, b])).toBe(
        tokenizer.count(`${a}\n`) + tokenizer.count(b),
      );
    }
  });

  it('adds counts up before a space after a letter, digit or punctuation mark (additiveBeforeSpace), seeded texts', () => {
    expect(tokenizer.additiveBeforeSpace).toBe(true);
    const extra = [
      'McX',
      'ÉTÉ',
      'naïve',
      '?)',
      '   ',
      "'LL",
      '6789',
      '\u00a0',
      '\u0085',
      '\u2003',
      '\ufeff',
      '\u0301',
    ];
    const text = seededTexts([...JOIN_PIECES, ...extra], 29);
    let tested = 0;
    while (tested < 4000) {
      const a = text();
      const b = ` ${text()}`;
      if (!/[\p{L}\p{N}\p{P}]$/u.test(a)) continue;
      tested++;
      expect(tokenizer.count(a + b), JSON.stringify([a, b])).toBe(tokenizer.count(a) + tokenizer.count(b));
    }
  });

  it('reports token start offsets that cut the text into the decoded tokens', () => {
    const ascii = 'Offsets of ASCII tokens: 12345, well-known words; and punctuation!';
    const { tokens, offsets } = tokenizer.encodeWithOffsets(ascii);
    expect(tokens).toEqual(tokenizer.encode(ascii));
    expect(offsets).toHaveLength(tokens.length + 1);
    // For ASCII every token decodes to whole characters: the offsets are the running sum of lengths.
    let position = 0;
    tokens.forEach((token, i) => {
      expect(offsets[i]).toBe(position);
      position += tokenizer.decode([token]).length;
    });
    expect(offsets[tokens.length]).toBe(ascii.length);

    for (const text of UNICODE_SAMPLES) {
      const result = tokenizer.encodeWithOffsets(text);
      expect(result.offsets[0]).toBe(0);
      expect(result.offsets.at(-1)).toBe(text.length);
      for (let i = 0; i + 1 < result.offsets.length; i++) {
        const from = result.offsets[i] as number;
        const to = result.offsets[i + 1] as number;
        expect(to).toBeGreaterThanOrEqual(from);
        // Never between the two halves of a surrogate pair.
        expect(text.slice(from, to)).not.toMatch(BROKEN);
      }
    }
  });
});

it('counts the two encodings differently where their vocabularies differ', () => {
  // Recorded once with tiktoken 1.0.22: o200k_base has whole tokens for more of the emoji and CJK text.
  const text = '🦄🎉 naïve 日本語';
  expect(getTokenizer('cl100k_base').count(text)).toBe(12);
  expect(getTokenizer('o200k_base').count(text)).toBe(9);
});

describe('countingWith', () => {
  it('keeps the name, the additivity flags and the other methods, and counts with the given function', () => {
    const base = getTokenizer('cl100k_base');
    const seen: string[] = [];
    const wrapped = countingWith(base, (text) => {
      seen.push(text);
      return base.count(text);
    });
    expect(wrapped).toMatchObject({
      name: 'cl100k_base',
      additiveAfterBlankLine: true,
      additiveAfterLineBreak: true,
      additiveBeforeSpace: true,
    });
    expect(wrapped.count('two words')).toBe(2);
    expect(seen).toEqual(['two words']);
    expect(wrapped.decode(wrapped.encode('round trip'))).toBe('round trip');
    expect(wrapped.truncate('one two three', 2)).toBe(base.truncate('one two three', 2));
    // A tokenizer without the flags gives none.
    const plain = {
      name: 'chars',
      count: (t: string) => t.length,
      encode: () => [],
      decode: () => '',
      truncate: (t: string) => t,
    };
    expect(Object.keys(countingWith(plain, plain.count)).filter((key) => key.startsWith('additive'))).toEqual(
      [],
    );
  });
});
