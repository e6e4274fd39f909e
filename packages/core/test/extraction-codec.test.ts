import { describe, expect, it } from 'vitest';
import { IndexFormatError } from '../src/index.js';
import { packExtractions, stringTable, unpackExtractions } from '../src/kit.js';

const extractions = [
  {
    entities: [
      { name: 'Ilse Marren', type: 'person', description: 'a cellist' },
      { name: 'Merrow Falls', type: 'place', description: 'a harbour town' },
    ],
    relations: [
      {
        source: 'Ilse Marren',
        target: 'Merrow Falls',
        description: 'lives in',
        weight: 7,
        keywords: ['home'],
      },
      { source: 'Merrow Falls', target: 'Ilse Marren', description: 'is home of', weight: 0.5, keywords: [] },
    ],
  },
  { entities: [], relations: [] },
  {
    entities: [{ name: 'Sable Gull', type: 'ship', description: 'a ferry' }],
    relations: [{ source: 'Sable Gull', target: 'Merrow Falls', description: 'sails from', weight: 3 }],
  },
];

describe('extraction codec', () => {
  it('gives back the extractions it stored, each string once, keywords absent or empty as they were', () => {
    const { strings, ref } = stringTable();
    const arrays = packExtractions(extractions, ref);
    // 'Ilse Marren' and 'Merrow Falls' stand in entities and relations: stored once each.
    expect(strings.filter((s) => s === 'Merrow Falls')).toHaveLength(1);
    expect([...(arrays.entityOffsets as Int32Array)]).toEqual([0, 2, 2, 3]);
    expect([...(arrays.relationOffsets as Int32Array)]).toEqual([0, 2, 2, 3]);
    expect([...(arrays.relationHasKeywords as Uint8Array)]).toEqual([1, 1, 0]);
    const back = unpackExtractions(new Map(Object.entries(arrays)), 3, strings, 'update.bin');
    expect(back).toEqual(extractions);
    expect('keywords' in back[2]!.relations[0]!).toBe(false);
  });

  it('refuses arrays that do not fit their table, naming the file and the array', () => {
    const { strings, ref } = stringTable();
    const arrays = new Map(Object.entries(packExtractions(extractions, ref)));
    arrays.set('entityType', Int32Array.of(0, 1, strings.length));
    expect(() => unpackExtractions(arrays, 3, strings, 'idx/update.bin')).toThrow(IndexFormatError);
    expect(() => unpackExtractions(arrays, 3, strings, 'idx/update.bin')).toThrow(
      /idx\/update\.bin.*entityType/,
    );
    const short = new Map(Object.entries(packExtractions(extractions, stringTable().ref)));
    short.delete('relationWeight');
    expect(() => unpackExtractions(short, 3, strings, 'update.bin')).toThrow(/relationWeight/);
  });
});
