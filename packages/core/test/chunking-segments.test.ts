import { describe, expect, it } from 'vitest';
import { semanticChunk } from '../src/chunking/semantic.js';
import {
  type Chunk,
  type Document,
  type DocumentSegment,
  InvalidArgumentError,
  type SourceLocation,
} from '../src/index.js';
import {
  chunkCorpus,
  chunkDocument,
  chunkDocuments,
  documentUnits,
  getTokenizer,
  semanticChunkDocuments,
} from '../src/kit.js';
import { createScriptedEmbedder } from '../src/test/index.js';

/** A document put together from pages (or sections, rows), each a segment with its location. */
function segmented(id: string, parts: [SourceLocation, string][], separator = '\n\n'): Document {
  let text = '';
  const segments: DocumentSegment[] = [];
  parts.forEach(([location, part], i) => {
    if (i > 0) text += separator;
    segments.push({ start: text.length, end: text.length + part.length, location });
    text += part;
  });
  return { id, text, segments };
}

const sentence = (topic: string, i: number) => `The ${topic} note number ${i} says ${topic} things again. `;
const page = (topic: string, n: number) =>
  Array.from({ length: n }, (_, i) => sentence(topic, i))
    .join('')
    .trim();

const report = segmented('report.pdf', [
  [{ path: 'report.pdf', page: 1 }, page('harbour', 12)],
  [{ path: 'report.pdf', page: 2 }, page('museum', 3)],
  [{ path: 'report.pdf', page: 3 }, page('observatory', 9)],
]);

/** Every chunk lies inside one segment and carries that segment's location; offsets are exact. */
function expectWithinSegments(doc: Document, chunks: readonly Chunk[]): void {
  for (const chunk of chunks) {
    expect(doc.text.slice(chunk.start, chunk.end)).toBe(chunk.text);
    const segment = doc.segments!.find((s) => s.start <= chunk.start && chunk.end <= s.end);
    expect(segment, `${chunk.id} [${chunk.start}, ${chunk.end}) crosses a segment boundary`).toBeDefined();
    expect(chunk.location).toEqual(segment!.location);
  }
}

describe('chunking documents with segments', () => {
  it('never crosses a segment boundary in fixed windows, and gives each chunk its segment location', () => {
    const chunks = chunkDocument(report, { chunkSize: 40, overlap: 8 });
    expectWithinSegments(report, chunks);
    expect(chunks.map((c) => c.id)).toEqual(chunks.map((_, i) => `report.pdf#${i}`));
    expect(chunks.map((c) => c.order)).toEqual(chunks.map((_, i) => i));
    // Every page is covered, and page 2 (shorter than a window) is one chunk of its own.
    const pages = chunks.map((c) => c.location!.page);
    expect([...new Set(pages)]).toEqual([1, 2, 3]);
    expect(pages.filter((p) => p === 2)).toHaveLength(1);
    const two = chunks.find((c) => c.location!.page === 2)!;
    expect(two.text).toBe(page('museum', 3));
    for (const chunk of chunks) expect(chunk.tokens).toBeLessThanOrEqual(40);
  });

  it('windows each segment as the whole text of a document without segments would be windowed', () => {
    const options = { chunkSize: 30, overlap: 5 };
    const pageThree = report.segments![2]!;
    const alone = chunkDocument(
      { id: 'p3', text: report.text.slice(pageThree.start, pageThree.end) },
      options,
    );
    const within = chunkDocument(report, options).filter((c) => c.location!.page === 3);
    expect(within.map((c) => [c.text, c.tokens, c.start - pageThree.start])).toEqual(
      alone.map((c) => [c.text, c.tokens, c.start]),
    );
  });

  it('is deterministic: an unchanged file gives the same chunks, ids and locations', () => {
    const copy = structuredClone(report);
    expect(chunkDocuments([copy], { chunkSize: 50, overlap: 10 })).toEqual(
      chunkDocuments([report], { chunkSize: 50, overlap: 10 }),
    );
  });

  it('leaves documents without segments exactly as before (an empty segment list is none)', () => {
    const plain = { id: 'plain', text: report.text };
    const chunks = chunkDocument(plain, { chunkSize: 40, overlap: 8 });
    expect(chunks.every((c) => c.location === undefined)).toBe(true);
    expect(chunkDocument({ ...plain, segments: [] }, { chunkSize: 40, overlap: 8 })).toEqual(chunks);
    // The whole text's windows, not page by page: some chunk crosses a page boundary.
    const boundary = report.segments![0]!.end;
    expect(chunks.some((c) => c.start < boundary && c.end > boundary)).toBe(true);
  });

  it('skips blank segments, and chunks text outside every segment on its own, located by the file', () => {
    const text = 'Preface words here.\n\nFirst page text.\n\n   \n\nThird page text.';
    const doc: Document = {
      id: 'r.pdf',
      text,
      segments: [
        { start: 21, end: 37, location: { path: 'r.pdf', page: 1 } },
        { start: 39, end: 42, location: { path: 'r.pdf', page: 2 } },
        { start: 44, end: 60, location: { path: 'r.pdf', page: 3 } },
      ],
    };
    const chunks = chunkDocument(doc, { chunkSize: 100, overlap: 0 });
    expect(chunks.map((c) => [c.id, c.text, c.location])).toEqual([
      ['r.pdf#0', 'Preface words here.\n\n', { path: 'r.pdf' }],
      ['r.pdf#1', 'First page text.', { path: 'r.pdf', page: 1 }],
      ['r.pdf#2', 'Third page text.', { path: 'r.pdf', page: 3 }],
    ]);
  });

  it('refuses segments out of order, overlapping or outside the text, naming the document', () => {
    const bad = (segments: DocumentSegment[]) => () =>
      chunkDocument({ id: 'bad.pdf', text: 'abcdefghij', segments });
    const at = (start: number, end: number) => ({ start, end, location: { path: 'bad.pdf' } });
    expect(bad([at(0, 5), at(3, 8)])).toThrow(InvalidArgumentError);
    expect(bad([at(5, 8), at(0, 3)])).toThrow(/segment 1 of document "bad.pdf"/);
    expect(bad([at(0, 11)])).toThrow(/after the end of its text \(10 characters\)/);
    expect(bad([at(4, 2)])).toThrow(/not a span of the text/);
  });
});

describe("chunkCorpus in 'document' mode with segments", () => {
  const tokenizer = getTokenizer();

  it('gives one unit per segment, with ids docId#order, offsets and locations', () => {
    const units = chunkCorpus([report], { chunking: 'document' });
    expect(units.map((u) => [u.id, u.order, u.location])).toEqual([
      ['report.pdf#0', 0, { path: 'report.pdf', page: 1 }],
      ['report.pdf#1', 1, { path: 'report.pdf', page: 2 }],
      ['report.pdf#2', 2, { path: 'report.pdf', page: 3 }],
    ]);
    expectWithinSegments(report, units);
    units.forEach((u, i) => {
      const s = report.segments![i]!;
      expect([u.start, u.end]).toEqual([s.start, s.end]);
      expect(u.tokens).toBe(tokenizer.count(u.text));
    });
  });

  it('keeps the document id and whole text for a document of one segment (a plain-text file)', () => {
    const text = 'Plain notes.\n';
    const doc: Document = {
      id: 'notes.txt',
      text,
      segments: [{ start: 0, end: 12, location: { path: 'notes.txt' } }],
    };
    expect(chunkCorpus([doc], { chunking: 'document' })).toEqual([
      {
        id: 'notes.txt',
        docId: 'notes.txt',
        order: 0,
        text,
        tokens: tokenizer.count(text),
        start: 0,
        end: text.length,
        location: { path: 'notes.txt' },
      },
    ]);
    expect(
      documentUnits({ id: 'blank', text: '  ', segments: [{ start: 0, end: 2, location: { path: 'b' } }] }),
    ).toEqual([]);
  });

  it('leaves documents without segments as one unit each, id = document id', () => {
    expect(
      chunkCorpus([{ id: 'a', text: 'Alpha.' }], { chunking: 'document' }).map((u) => [u.id, u.location]),
    ).toEqual([['a', undefined]]);
  });
});

/** Embeds a text as one of two directions: museum notes, and everything else. */
const topicEmbedder = createScriptedEmbedder({
  dimensions: 2,
  embed: (text) => (/museum/.test(text) ? [0, 1] : [1, 0]),
});

describe('semantic chunking with segments', () => {
  it('breaks at every segment boundary, keeps windows within a segment, and locates each chunk', async () => {
    const chunks = await semanticChunk(report, {
      embedder: topicEmbedder,
      breakpoint: { type: 'threshold', value: 0.5 },
      windowSize: 2,
    });
    expectWithinSegments(report, chunks);
    // One chunk per page: no topic change inside a page, a forced break between pages.
    expect(chunks.map((c) => [c.id, c.location!.page])).toEqual([
      ['report.pdf#0', 1],
      ['report.pdf#1', 2],
      ['report.pdf#2', 3],
    ]);
    // Pages of one topic: one chunk without the segments, one per page with them.
    const sameTopic = segmented(
      'same.pdf',
      [1, 2, 3].map((n) => [{ path: 'same.pdf', page: n }, page('harbour', 4)]),
    );
    const options = { embedder: topicEmbedder, breakpoint: { type: 'threshold', value: 0.5 } as const };
    expect(await semanticChunk({ id: 'same.pdf', text: sameTopic.text }, options)).toHaveLength(1);
    const paged = await semanticChunk(sameTopic, options);
    expect(paged.map((c) => c.location!.page)).toEqual([1, 2, 3]);
    expectWithinSegments(sameTopic, paged);
  });

  it('breaks at segment boundaries even below minTokens, and chunks several documents alike', async () => {
    const small = segmented('s.html', [
      [{ path: 's.html', section: ['Install'] }, 'Run the installer. Then reboot.'],
      [{ path: 's.html', section: ['Install', 'Linux'] }, 'Use the package. It is signed.'],
    ]);
    const chunks = await semanticChunkDocuments([small, report], { embedder: topicEmbedder, minTokens: 500 });
    expect(chunks.filter((c) => c.docId === 's.html').map((c) => c.location!.section)).toEqual([
      ['Install'],
      ['Install', 'Linux'],
    ]);
    expectWithinSegments(
      report,
      chunks.filter((c) => c.docId === 'report.pdf'),
    );
  });

  it('leaves documents without segments exactly as before', async () => {
    const plain = { id: 'plain', text: report.text };
    const options = { embedder: topicEmbedder, breakpoint: { type: 'threshold', value: 0.5 } as const };
    const chunks = await semanticChunk(plain, options);
    expect(chunks.every((c) => c.location === undefined)).toBe(true);
    expect(await semanticChunk({ ...plain, segments: [] }, options)).toEqual(chunks);
  });
});
