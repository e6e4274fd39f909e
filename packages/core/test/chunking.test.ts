import { createScriptedEmbedder } from '@grag/core/test';
import { describe, expect, it } from 'vitest';
import {
  CHUNK_DEFAULTS,
  chunkDocument,
  chunkDocuments,
  SEMANTIC_CHUNK_DEFAULTS,
  semanticChunk,
  semanticChunkDocuments,
  splitSentences,
  splitTextByTokens,
} from '../src/chunking/index.js';
import { InvalidArgumentError, ModelOutputError } from '../src/contracts/errors.js';
import type { Embedder } from '../src/contracts/models.js';
import type { Tokenizer } from '../src/contracts/tokenizer.js';
import type { Chunk, Document } from '../src/contracts/types.js';
import { getTokenizer } from '../src/tokenizer.js';

const tokenizer = getTokenizer();

/** A string with an unpaired surrogate: what a cut inside a surrogate pair leaves behind. */
const BROKEN = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]|\uFFFD/u;

/** Seeded ASCII prose, so runs are identical. */
function generatedText(words: number, seed = 7): string {
  const vocabulary =
    'graph retrieval augmented generation index chunk entity relation community summary query answer ' +
    'the a of to in and with from model token embedding vector search node edge path tree keyword';
  const pool = vocabulary.split(' ');
  let state = seed;
  const next = (): number => {
    state = (Math.imul(state, 1103515245) + 12345) >>> 0;
    return state >>> 8;
  };
  const out: string[] = [];
  for (let i = 0; i < words; i++) {
    let word = pool[next() % pool.length] as string;
    if (i === 0 || out[out.length - 1]?.endsWith('.')) word = word[0]?.toUpperCase() + word.slice(1);
    out.push(next() % 11 === 0 ? `${word}.` : word);
  }
  return `${out.join(' ')}.`;
}

/** Offsets exact, order and ids right, chunks cover the text without gaps. */
function expectWellFormed(doc: Document, chunks: Chunk[]): void {
  chunks.forEach((chunk, i) => {
    expect(chunk.order).toBe(i);
    expect(chunk.id).toBe(`${doc.id}#${i}`);
    expect(chunk.docId).toBe(doc.id);
    expect(doc.text.slice(chunk.start, chunk.end)).toBe(chunk.text);
    expect(chunk.text.length).toBeGreaterThan(0);
  });
}

function expectCovers(doc: Document, chunks: Chunk[]): void {
  expect(chunks[0]?.start).toBe(0);
  expect(chunks.at(-1)?.end).toBe(doc.text.length);
  for (let i = 1; i < chunks.length; i++) {
    const previous = chunks[i - 1] as Chunk;
    const chunk = chunks[i] as Chunk;
    expect(chunk.start).toBeGreaterThan(previous.start);
    expect(chunk.start).toBeLessThanOrEqual(previous.end);
    expect(chunk.end).toBeGreaterThan(previous.end);
  }
}

function caught(fn: () => unknown): unknown {
  try {
    fn();
  } catch (error) {
    return error;
  }
  throw new Error('expected a throw');
}

async function caughtAsync(fn: () => Promise<unknown>): Promise<unknown> {
  try {
    await fn();
  } catch (error) {
    return error;
  }
  throw new Error('expected a rejection');
}

describe('chunkDocument (fixed-size token windows)', () => {
  const doc: Document = { id: 'doc', text: generatedText(1500) };
  const all = tokenizer.encode(doc.text);

  it('cuts windows of chunkSize tokens advancing chunkSize - overlap tokens, as decoding the windows gives', () => {
    const chunkSize = 200;
    const overlap = 30;
    const chunks = chunkDocument(doc, { chunkSize, overlap });
    // Oracle: for ASCII text, window i is the decoded tokens [i*stride, i*stride + chunkSize).
    const stride = chunkSize - overlap;
    const expected: string[] = [];
    for (let a = 0; ; a += stride) {
      expected.push(tokenizer.decode(all.slice(a, a + chunkSize)));
      if (a + chunkSize >= all.length) break;
    }
    expect(chunks.map((c) => c.text)).toEqual(expected);
    expectWellFormed(doc, chunks);
    expectCovers(doc, chunks);
  });

  it('keeps every chunk within chunkSize tokens with the recorded count, and overlaps by about overlap tokens', () => {
    const chunks = chunkDocument(doc, { chunkSize: 128, overlap: 16 });
    expect(chunks.length).toBeGreaterThan(5);
    for (const chunk of chunks) {
      expect(chunk.tokens).toBe(tokenizer.count(chunk.text));
      expect(chunk.tokens).toBeLessThanOrEqual(128);
    }
    for (let i = 1; i < chunks.length; i++) {
      const shared = doc.text.slice((chunks[i] as Chunk).start, (chunks[i - 1] as Chunk).end);
      expect(Math.abs(tokenizer.count(shared) - 16)).toBeLessThanOrEqual(1);
    }
    // All chunks but the last are full windows.
    for (const chunk of chunks.slice(0, -1)) expect(chunk.tokens).toBeGreaterThanOrEqual(127);
  });

  it('partitions the text exactly when overlap is 0', () => {
    const chunks = chunkDocument(doc, { chunkSize: 100, overlap: 0 });
    expect(chunks.map((c) => c.text).join('')).toBe(doc.text);
    expect(chunks.length).toBe(Math.ceil(all.length / 100));
    for (let i = 1; i < chunks.length; i++)
      expect((chunks[i] as Chunk).start).toBe((chunks[i - 1] as Chunk).end);
  });

  it('uses 1200-token chunks with a 100-token overlap by default', () => {
    expect(CHUNK_DEFAULTS).toEqual({ chunkSize: 1200, overlap: 100 });
    const long: Document = { id: 'long', text: generatedText(4000, 3) };
    const n = tokenizer.count(long.text);
    const chunks = chunkDocument(long);
    expect(chunks.length).toBe(Math.ceil((n - 1200) / 1100) + 1);
    expect(chunks[0]?.tokens).toBe(1200);
    expect(chunks[0]?.text).toBe(tokenizer.decode(tokenizer.encode(long.text).slice(0, 1200)));
    expect(chunks[1]?.text).toBe(tokenizer.decode(tokenizer.encode(long.text).slice(1100, 2300)));
  });

  it('returns the whole text as one chunk when it fits, and nothing for empty text', () => {
    const small: Document = { id: 's', text: 'A short document.' };
    expect(chunkDocument(small)).toEqual([
      { id: 's#0', docId: 's', order: 0, text: 'A short document.', tokens: 4, start: 0, end: 17 },
    ]);
    expect(chunkDocument({ id: 'e', text: '' })).toEqual([]);
  });

  it('never splits a character in unicode text and keeps offsets exact', () => {
    const text = 'Ünïcödé 🦄 tëxt 日本語のテキスト。 👩‍👩‍👧 مرحبا بالعالم '.repeat(30);
    const unicode: Document = { id: 'u', text };
    for (const name of ['cl100k_base', 'o200k_base'] as const) {
      const t = getTokenizer(name);
      for (const [chunkSize, overlap] of [
        [7, 2],
        [16, 0],
        [33, 10],
      ] as const) {
        const chunks = chunkDocument(unicode, { chunkSize, overlap, tokenizer: t });
        expectWellFormed(unicode, chunks);
        expectCovers(unicode, chunks);
        for (const chunk of chunks) {
          expect(chunk.text).not.toMatch(BROKEN);
          expect(chunk.tokens).toBe(t.count(chunk.text));
          expect(chunk.tokens).toBeLessThanOrEqual(chunkSize);
        }
      }
    }
  });

  it('keeps a character whole even when it alone takes more than chunkSize tokens', () => {
    const unicorns: Document = { id: 'x', text: '🦄🦄' };
    const perEmoji = tokenizer.count('🦄');
    expect(perEmoji).toBeGreaterThan(1);
    const chunks = chunkDocument(unicorns, { chunkSize: 1, overlap: 0 });
    expect(chunks.map((c) => c.text)).toEqual(['🦄', '🦄']);
    expect(chunks.map((c) => c.tokens)).toEqual([perEmoji, perEmoji]);
  });

  it('rejects invalid sizes with InvalidArgumentError naming the option', () => {
    const cases: [Partial<{ chunkSize: number; overlap: number }>, string][] = [
      [{ chunkSize: 0 }, 'chunkSize'],
      [{ chunkSize: -5 }, 'chunkSize'],
      [{ chunkSize: 10.5 }, 'chunkSize'],
      [{ chunkSize: 100, overlap: 100 }, 'overlap'],
      [{ chunkSize: 100, overlap: 150 }, 'overlap'],
      [{ chunkSize: 100, overlap: -1 }, 'overlap'],
      [{ chunkSize: 100, overlap: 2.5 }, 'overlap'],
    ];
    for (const [options, argument] of cases) {
      const error = caught(() => chunkDocument(doc, options));
      expect(InvalidArgumentError.isInstance(error)).toBe(true);
      expect((error as InvalidArgumentError).argument).toBe(argument);
      expect((error as Error).message).toContain('chunkDocument');
    }
    // The default overlap (100) does not fit a smaller chunk.
    expect(() => chunkDocument(doc, { chunkSize: 50 })).toThrow(/overlap/);
  });

  it('works with any lossless tokenizer, mapping tokens that split characters back to whole characters', () => {
    // One token per UTF-8 byte: every non-ASCII character spans several tokens.
    const encoder = new TextEncoder();
    const decoder = new TextDecoder();
    const bytes: Tokenizer = {
      name: 'bytes',
      encode: (text) => Array.from(encoder.encode(text)),
      count: (text) => encoder.encode(text).length,
      decode: (tokens) => decoder.decode(Uint8Array.from(Array.from(tokens))),
      truncate: () => {
        throw new Error('not used');
      },
    };
    const text: Document = { id: 'b', text: 'aé🦄b日c' }; // 1 + 2 + 4 + 1 + 3 + 1 bytes
    const chunks = chunkDocument(text, { chunkSize: 3, overlap: 0, tokenizer: bytes });
    // Windows of 3 bytes snap back to character starts: [a é] [🦄] [b 日] [c]
    expect(chunks.map((c) => c.text)).toEqual(['aé', '🦄', 'b', '日', 'c']);
    expect(chunks.map((c) => c.tokens)).toEqual([3, 4, 1, 3, 1]);
    expectWellFormed(text, chunks);
  });

  it('refuses a tokenizer that cannot reproduce the text', () => {
    const lossy: Tokenizer = {
      name: 'words',
      encode: (text) => text.split(/\s+/).map((w) => w.length),
      count: (text) => text.split(/\s+/).length,
      decode: (tokens) => Array.from(tokens, (n) => 'x'.repeat(n)).join(' '),
      truncate: (text) => text,
    };
    const error = caught(() => chunkDocument({ id: 'l', text: 'some words here' }, { tokenizer: lossy }));
    expect(InvalidArgumentError.isInstance(error)).toBe(true);
    expect((error as InvalidArgumentError).argument).toBe('tokenizer');
  });
});

describe('chunkDocuments', () => {
  it('chunks every document in input order with per-document orders and ids', () => {
    const docs: Document[] = [
      { id: 'b', text: generatedText(300, 1) },
      { id: 'a', text: '' },
      { id: 'c', text: generatedText(200, 2) },
    ];
    const chunks = chunkDocuments(docs, { chunkSize: 64, overlap: 8 });
    const expected = docs.flatMap((d) => chunkDocument(d, { chunkSize: 64, overlap: 8 }));
    expect(chunks).toEqual(expected);
    expect(chunks.filter((c) => c.docId === 'a')).toEqual([]);
    expect(chunks.findIndex((c) => c.docId === 'c')).toBeGreaterThan(
      chunks.findLastIndex((c) => c.docId === 'b'),
    );
  });

  it('refuses two documents with the same id', () => {
    const error = caught(() =>
      chunkDocuments([
        { id: 'x', text: 'one' },
        { id: 'x', text: 'two' },
      ]),
    );
    expect((error as InvalidArgumentError).argument).toBe('docs');
  });
});

describe('splitTextByTokens', () => {
  it('returns spans with offsets into the text and their token counts', () => {
    const text = 'alpha beta gamma delta epsilon zeta eta theta';
    const spans = splitTextByTokens(text, { chunkSize: 3, overlap: 1 });
    for (const span of spans) {
      expect(text.slice(span.start, span.end)).toBe(span.text);
      expect(span.tokens).toBe(tokenizer.count(span.text));
      expect(span.tokens).toBeLessThanOrEqual(3);
    }
    expect(spans[0]?.start).toBe(0);
    expect(spans.at(-1)?.end).toBe(text.length);
  });
});

describe('splitSentences', () => {
  const cases: [string, string[]][] = [
    [
      "Mr. Smith went to Washington. He met Dr. Jones at St. Mary's Hospital.",
      ['Mr. Smith went to Washington.', "He met Dr. Jones at St. Mary's Hospital."],
    ],
    [
      'J. R. R. Tolkien wrote The Hobbit. It was published in 1937.',
      ['J. R. R. Tolkien wrote The Hobbit.', 'It was published in 1937.'],
    ],
    [
      "Pi is about 3.14. Euler's number is about 2.72!",
      ['Pi is about 3.14.', "Euler's number is about 2.72!"],
    ],
    [
      'Capitals, e.g. Paris and Rome, are old. The U.S. Congress met.',
      ['Capitals, e.g. Paris and Rome, are old.', 'The U.S. Congress met.'],
    ],
    ['Use a separator, i.e. A comma. Done.', ['Use a separator, i.e. A comma.', 'Done.']],
    ['"Stop!" she said. "Why?" He asked.', ['"Stop!" she said.', '"Why?"', 'He asked.']],
    ['It rained (a lot.) Then it stopped.', ['It rained (a lot.)', 'Then it stopped.']],
    [
      'Title without a period\n\nFirst paragraph starts here. Second sentence.',
      ['Title without a period', 'First paragraph starts here.', 'Second sentence.'],
    ],
    ['A line\nwraps here. But continues.', ['A line\nwraps here.', 'But continues.']],
    ['He said hi. and left.', ['He said hi. and left.']],
    ['Steps:\n1. Open the box.\n2. Take it out.', ['Steps:\n1. Open the box.', '2. Take it out.']],
    ['No. 5 was retired. Fig. 3 shows it.', ['No. 5 was retired.', 'Fig. 3 shows it.']],
    ['The year was over. 2024 began.', ['The year was over.', '2024 began.']],
    ['I saw him. Mr. Smith left at 5 p.m. yesterday.', ['I saw him.', 'Mr. Smith left at 5 p.m. yesterday.']],
    ['Really?! Yes. Wait... What happened?', ['Really?!', 'Yes.', 'Wait...', 'What happened?']],
    ['今日は晴れです。明日は雨です。', ['今日は晴れです。', '明日は雨です。']],
    ['Visit example.com today. Then leave.', ['Visit example.com today.', 'Then leave.']],
  ];

  it.each(cases)('splits %j', (text, expected) => {
    const spans = splitSentences(text);
    expect(spans.map((s) => s.text)).toEqual(expected);
    for (const span of spans) expect(text.slice(span.start, span.end)).toBe(span.text);
  });

  it('returns trimmed, ordered, non-overlapping spans with exact offsets', () => {
    const text = '  First one.   Second one!\n\n\n  Third?  ';
    expect(splitSentences(text)).toEqual([
      { text: 'First one.', start: 2, end: 12 },
      { text: 'Second one!', start: 15, end: 26 },
      { text: 'Third?', start: 31, end: 37 },
    ]);
  });

  it('returns nothing for empty or whitespace-only text', () => {
    expect(splitSentences('')).toEqual([]);
    expect(splitSentences(' \n\t ')).toEqual([]);
  });
});

const COOKING = [
  'Knead the dough for ten minutes until it is smooth.',
  'Let the dough rise in a warm kitchen for an hour.',
  'Shape the loaves and dust them with flour.',
  'Bake the bread in a hot oven until the crust is brown.',
  'Cool the bread on a rack before slicing it.',
  'Serve the bread with butter and jam.',
];
const ASTRONOMY = [
  'Jupiter is the largest planet in the solar system.',
  'Its moons orbit the planet in stable resonances.',
  'Telescopes reveal storms in the atmosphere of the planet.',
  'The Great Red Spot is a storm larger than Earth.',
  'Saturn has rings made of ice and rock.',
  'Astronomers study the planets with space probes.',
];
const TOPICS = {
  cooking: /dough|bread|loaves|bake|flour|butter/i,
  astronomy: /planet|moons|storm|saturn|astronom/i,
};

/** An embedder that places a text by how many sentences of each topic it holds. */
function topicEmbedder(): ReturnType<typeof createScriptedEmbedder> {
  return createScriptedEmbedder({
    dimensions: 2,
    embed: (text) => {
      const sentences = splitSentences(text).map((s) => s.text);
      return [
        sentences.filter((s) => TOPICS.cooking.test(s)).length,
        sentences.filter((s) => TOPICS.astronomy.test(s)).length,
      ];
    },
  });
}

describe('semanticChunk', () => {
  const doc: Document = { id: 'topics', text: [...COOKING, ...ASTRONOMY].join(' ') };
  const cookingEnd = COOKING.join(' ').length;
  const astronomyStart = cookingEnd + 1;

  it('splits exactly at the topic change', async () => {
    const embedder = topicEmbedder();
    const chunks = await semanticChunk(doc, { embedder });
    expect(chunks.map((c) => c.text)).toEqual([COOKING.join(' '), ASTRONOMY.join(' ')]);
    expect(chunks.map((c) => [c.start, c.end])).toEqual([
      [0, cookingEnd],
      [astronomyStart, doc.text.length],
    ]);
    expectWellFormed(doc, chunks);
    for (const chunk of chunks) expect(chunk.tokens).toBe(tokenizer.count(chunk.text));
    // One sentence per window by default: 12 sentences embedded once each, in one batch.
    expect(embedder.calls.flatMap((c) => c.values)).toHaveLength(12);
  });

  it('splits at the topic change with wider windows too', async () => {
    const embedder = topicEmbedder();
    const chunks = await semanticChunk(doc, { embedder, windowSize: 3 });
    expect(chunks.map((c) => c.text)).toEqual([COOKING.join(' '), ASTRONOMY.join(' ')]);
    // Windows hold up to three sentences.
    const embedded = embedder.calls.flatMap((c) => c.values);
    expect(embedded).toContain(COOKING.slice(3).join(' '));
    expect(embedded).toContain(ASTRONOMY.slice(0, 3).join(' '));
  });

  it('breaks wherever the distance exceeds a fixed threshold', async () => {
    const three: Document = {
      id: 'three',
      text: [...COOKING.slice(0, 3), ...ASTRONOMY.slice(0, 3), ...COOKING.slice(3)].join(' '),
    };
    const chunks = await semanticChunk(three, {
      embedder: topicEmbedder(),
      breakpoint: { type: 'threshold', value: 0.5 },
    });
    expect(chunks.map((c) => c.text)).toEqual([
      COOKING.slice(0, 3).join(' '),
      ASTRONOMY.slice(0, 3).join(' '),
      COOKING.slice(3).join(' '),
    ]);
  });

  it('closes a chunk before it would exceed maxTokens', async () => {
    const long: Document = { id: 'long', text: [...COOKING, ...COOKING, ...COOKING, ...COOKING].join(' ') };
    const sentences = splitSentences(long.text);
    // Every window embeds alike: no semantic breakpoint, only the token limit.
    const chunks = await semanticChunk(long, {
      embedder: createScriptedEmbedder({ embed: () => [1, 0] }),
      maxTokens: 40,
    });
    expect(chunks.length).toBeGreaterThan(3);
    expectWellFormed(long, chunks);
    const ends = new Set(sentences.map((s) => s.end));
    const starts = new Set(sentences.map((s) => s.start));
    for (const [i, chunk] of chunks.entries()) {
      expect(chunk.tokens).toBe(tokenizer.count(chunk.text));
      expect(chunk.tokens).toBeLessThanOrEqual(40);
      expect(starts.has(chunk.start) && ends.has(chunk.end)).toBe(true);
      // Greedy: the next sentence would not have fit.
      const next = sentences.find((s) => s.start >= chunk.end);
      if (i < chunks.length - 1) {
        expect(next?.start).toBe(chunks[i + 1]?.start);
        expect(tokenizer.count(long.text.slice(chunk.start, next?.end))).toBeGreaterThan(40);
      }
    }
    expect(chunks.map((c) => c.text).join(' ')).toBe(long.text);
  });

  it('cuts a sentence longer than maxTokens into fixed-size pieces', async () => {
    const runOn = `Intro sentence here. ${generatedText(120, 5).replaceAll('.', '')} and it ends.`;
    const chunks = await semanticChunk(
      { id: 'r', text: runOn },
      { embedder: topicEmbedder(), maxTokens: 25 },
    );
    expect(chunks.length).toBeGreaterThan(4);
    for (const chunk of chunks) expect(chunk.tokens).toBeLessThanOrEqual(25);
    expect(chunks[0]?.text).toBe('Intro sentence here.');
    // Pieces of the run-on sentence are contiguous (no overlap) and rebuild it.
    const rest = chunks.slice(1);
    for (let i = 1; i < rest.length; i++) expect(rest[i]?.start).toBe(rest[i - 1]?.end);
    expect(rest.map((c) => c.text).join('')).toBe(runOn.slice('Intro sentence here. '.length));
  });

  it('honours minTokens by ignoring breakpoints while the chunk is smaller', async () => {
    // A negative threshold makes every gap a breakpoint.
    const options = { embedder: topicEmbedder(), breakpoint: { type: 'threshold', value: -1 } } as const;
    const perSentence = await semanticChunk(doc, options);
    expect(perSentence.map((c) => c.text)).toEqual([...COOKING, ...ASTRONOMY]);
    const merged = await semanticChunk(doc, { ...options, minTokens: 25 });
    expect(merged.length).toBeLessThan(perSentence.length);
    for (const chunk of merged.slice(0, -1)) expect(chunk.tokens).toBeGreaterThanOrEqual(25);
    // Each chunk stayed open only while it was below minTokens: without its last sentence it is too small.
    for (const chunk of merged) {
      const last = splitSentences(chunk.text).at(-1);
      expect(tokenizer.count(chunk.text.slice(0, last?.start).trimEnd())).toBeLessThan(25);
    }
  });

  it('gives no chunks for empty text and one chunk for one sentence, without embedding', async () => {
    const embedder = topicEmbedder();
    expect(await semanticChunk({ id: 'e', text: '' }, { embedder })).toEqual([]);
    expect(await semanticChunk({ id: 'w', text: '  \n ' }, { embedder })).toEqual([]);
    expect(await semanticChunk({ id: 'one', text: ' Only one sentence. ' }, { embedder })).toEqual([
      { id: 'one#0', docId: 'one', order: 0, text: 'Only one sentence.', tokens: 4, start: 1, end: 19 },
    ]);
    expect(embedder.calls).toEqual([]);
  });

  it('is deterministic', async () => {
    const first = createScriptedEmbedder();
    const second = createScriptedEmbedder();
    const text = generatedText(600, 11);
    const a = await semanticChunk({ id: 'd', text }, { embedder: first, maxTokens: 120 });
    const b = await semanticChunk({ id: 'd', text }, { embedder: second, maxTokens: 120 });
    expect(a.length).toBeGreaterThan(1);
    expect(b).toEqual(a);
    expect(second.calls).toEqual(first.calls);
  });

  it('documents the percentile-95 default', () => {
    expect(SEMANTIC_CHUNK_DEFAULTS).toEqual({
      maxTokens: 1200,
      windowSize: 1,
      breakpoint: { type: 'percentile', value: 95 },
      minTokens: 0,
      windowsPerPass: 8192,
    });
  });

  it('rejects a missing embedder and invalid options', async () => {
    const embedder = topicEmbedder();
    const cases: [Record<string, unknown>, string][] = [
      [{}, 'embedder'],
      [{ embedder, maxTokens: 0 }, 'maxTokens'],
      [{ embedder, windowSize: 0 }, 'windowSize'],
      [{ embedder, minTokens: 5000 }, 'minTokens'],
      [{ embedder, breakpoint: { type: 'percentile', value: 101 } }, 'breakpoint'],
      [{ embedder, breakpoint: { type: 'threshold', value: Number.NaN } }, 'breakpoint'],
      [{ embedder, breakpoint: { type: 'median' } }, 'breakpoint'],
    ];
    for (const [options, argument] of cases) {
      const error = await caughtAsync(() => semanticChunk(doc, options as never));
      expect(InvalidArgumentError.isInstance(error)).toBe(true);
      expect((error as InvalidArgumentError).argument).toBe(argument);
    }
  });

  it('reports an embedder that returns the wrong number of vectors', async () => {
    const broken: Embedder = {
      specificationVersion: 'v1',
      provider: 'test',
      modelId: 'short',
      dimensions: 2,
      doEmbed: async ({ values }) => ({ embeddings: values.slice(1).map(() => Float32Array.of(1, 0)) }),
    };
    const error = await caughtAsync(() => semanticChunk(doc, { embedder: broken }));
    expect(ModelOutputError.isInstance(error)).toBe(true);
  });
});

describe('semanticChunkDocuments', () => {
  it('chunks several documents in order and embeds their windows together', async () => {
    const embedder = topicEmbedder();
    const docs: Document[] = [
      { id: 'x', text: [...ASTRONOMY, ...COOKING].join(' ') },
      { id: 'y', text: [...COOKING, ...ASTRONOMY].join(' ') },
    ];
    const chunks = await semanticChunkDocuments(docs, { embedder });
    expect(chunks.map((c) => [c.id, c.text])).toEqual([
      ['x#0', ASTRONOMY.join(' ')],
      ['x#1', COOKING.join(' ')],
      ['y#0', COOKING.join(' ')],
      ['y#1', ASTRONOMY.join(' ')],
    ]);
    // Identical sentences across documents are embedded once, in a single call.
    expect(embedder.calls).toHaveLength(1);
    expect(embedder.calls[0]?.values).toHaveLength(12);
  });

  it('embeds in passes of about windowsPerPass window texts, with the same chunks', async () => {
    // Documents of both topics in several orders and lengths (each a different mix of sentences).
    const docs: Document[] = Array.from({ length: 9 }, (_, d) => ({
      id: `d${d}`,
      text: [...ASTRONOMY.slice(d % 3), ...COOKING.slice((d * 2) % 5), ...ASTRONOMY.slice(0, d % 4)].join(
        ' ',
      ),
    }));
    const whole = topicEmbedder();
    const expected = await semanticChunkDocuments(docs, { embedder: whole });
    expect(whole.calls).toHaveLength(1);
    const windows = whole.calls[0]!.values.length;
    for (const windowsPerPass of [1, 5, 12]) {
      const embedder = topicEmbedder();
      const chunks = await semanticChunkDocuments(docs, { embedder, windowsPerPass, batchSize: 1000 });
      expect(chunks).toEqual(expected);
      // One call per pass (the batch size is larger than any pass). A pass closes once it holds
      // windowsPerPass texts, so it holds fewer than that plus one document's windows.
      const sizes = embedder.calls.map((c) => c.values.length);
      expect(sizes.length).toBeGreaterThan(1);
      for (const size of sizes) expect(size).toBeLessThan(windowsPerPass + 13);
      // A text repeated in two passes is embedded in each.
      expect(sizes.reduce((a, b) => a + b, 0)).toBeGreaterThanOrEqual(windows);
    }
  });

  it('refuses a windowsPerPass that is not a positive integer, naming it', async () => {
    await expect(
      semanticChunkDocuments([{ id: 'a', text: ASTRONOMY.join(' ') }], {
        embedder: topicEmbedder(),
        windowsPerPass: 0,
      }),
    ).rejects.toThrow(/windowsPerPass/);
  });
});
