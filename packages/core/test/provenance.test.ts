import { describe, expect, it } from 'vitest';
import { IndexFormatError } from '../src/index.js';
import {
  chunkItem,
  chunkSchema,
  citedSources,
  formatLocation,
  mergeProvenance,
  provenanceOf,
  sourceLabel,
  uniqueLocations,
  withLocations,
} from '../src/kit.js';
import { validate } from '../src/validate.js';

const p3 = { path: 'report.pdf', page: 3 };
const linux = { path: 'guide.html', section: ['Install', 'Linux'] };

describe('provenance of retrieved items', () => {
  it('collects distinct chunk ids, documents and locations in first-seen order', () => {
    expect(
      provenanceOf([
        { id: 'report.pdf#4', docId: 'report.pdf', location: p3 },
        { id: 'guide.html#1', docId: 'guide.html', location: linux },
        { id: 'report.pdf#5', docId: 'report.pdf', location: { page: 3, path: 'report.pdf' } },
        { id: 'report.pdf#4', docId: 'report.pdf', location: p3 },
      ]),
    ).toEqual({
      chunkIds: ['report.pdf#4', 'guide.html#1', 'report.pdf#5'],
      docIds: ['report.pdf', 'guide.html'],
      locations: [p3, linux],
    });
  });

  it('leaves locations out when no chunk has one (documents without segments, older indexes)', () => {
    expect(provenanceOf([{ id: 'a#0', docId: 'a' }])).toEqual({ chunkIds: ['a#0'], docIds: ['a'] });
    expect(chunkItem({ id: 'a#0', docId: 'a' }, 'text', 1).source).toEqual({
      chunkIds: ['a#0'],
      docIds: ['a'],
    });
    expect(withLocations({ chunkIds: [], docIds: [] }, [undefined])).toEqual({ chunkIds: [], docIds: [] });
  });

  it('gives a chunk item its chunk location', () => {
    expect(chunkItem({ id: 'report.pdf#4', docId: 'report.pdf', location: p3 }, 'text', 0.5)).toEqual({
      id: 'report.pdf#4',
      kind: 'chunk',
      text: 'text',
      score: 0.5,
      source: { chunkIds: ['report.pdf#4'], docIds: ['report.pdf'], locations: [p3] },
    });
  });

  it('merges provenances and dedupes locations whatever the order of their fields', () => {
    expect(
      mergeProvenance([
        { chunkIds: ['x'], docIds: ['report.pdf'], locations: [p3] },
        { chunkIds: ['y', 'x'], docIds: ['report.pdf'] },
        { chunkIds: ['z'], docIds: ['guide.html'], locations: [linux, { page: 3, path: 'report.pdf' }] },
      ]),
    ).toEqual({ chunkIds: ['x', 'y', 'z'], docIds: ['report.pdf', 'guide.html'], locations: [p3, linux] });
    expect(
      uniqueLocations([
        { path: 'a', section: ['A', 'B'] },
        { path: 'a', section: ['A'] },
      ]),
    ).toHaveLength(2);
  });

  it('labels a source by its locations, else by its documents', () => {
    expect(sourceLabel({ docIds: ['report.pdf'], locations: [p3] })).toBe('report.pdf p. 3');
    expect(sourceLabel({ docIds: ['report.pdf', 'guide.html'], locations: [p3, linux] })).toBe(
      `report.pdf p. 3; ${formatLocation(linux)}`,
    );
    expect(formatLocation(linux)).toBe('guide.html § Install › Linux');
    expect(sourceLabel({ docIds: ['a', 'b'] })).toBe('a, b');
    expect(sourceLabel({ docIds: ['a', 'b'], locations: [] })).toBe('a, b');
    expect(sourceLabel({ docIds: [] })).toBe('');
    const rows = [2, 3, 4, 5].map((row) => ({ path: 'people.csv', row }));
    expect(sourceLabel({ docIds: ['people.csv'], locations: rows }, 2)).toBe(
      'people.csv row 2; people.csv row 3 (+2 more)',
    );
  });
});

describe('chunkSchema', () => {
  const chunk = { id: 'r#0', docId: 'r', order: 0, text: 't', tokens: 1, start: 0, end: 1 };

  it('reads chunks with a location and chunks saved before chunks had one', () => {
    expect(validate(chunkSchema, { ...chunk, location: linux }, 'chunks.json')).toEqual({
      ...chunk,
      location: linux,
    });
    expect(validate(chunkSchema, chunk, 'chunks.json')).toEqual(chunk);
  });

  it('refuses a location of another shape, naming the field', () => {
    expect(() => validate(chunkSchema, { ...chunk, location: { page: 3 } }, 'chunks.json')).toThrow(
      IndexFormatError,
    );
    expect(() =>
      validate(chunkSchema, { ...chunk, location: { path: 'r', page: 0 } }, 'chunks.json'),
    ).toThrow(/location\.page/);
  });
});

describe('citedSources', () => {
  it("gives each cited id its item's documents, locations and label, in citation order", () => {
    const items = [
      chunkItem({ id: 'a#0', docId: 'a' }, 'A', 1),
      chunkItem({ id: 'report.pdf#4', docId: 'report.pdf', location: p3 }, 'P3', 0.5),
    ];
    expect(citedSources(['report.pdf#4', 'a#0', 'ghost'], items)).toEqual([
      { id: 'report.pdf#4', docIds: ['report.pdf'], locations: [p3], label: 'report.pdf p. 3' },
      { id: 'a#0', docIds: ['a'], label: 'a' },
      { id: 'ghost', docIds: [], label: '' },
    ]);
  });
});
