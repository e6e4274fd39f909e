import { describe, expect, test } from 'vitest';
import { communityText, linkedOrder, subjectEntities } from '../src/members.js';

describe('subjectEntities', () => {
  const entities = [{ name: 'Kessler Shipyard' }, { name: 'Meridian' }, { name: 'kessler shipyard' }];
  const texts = [
    'Meridian\nThe Meridian is a ship.',
    'Kessler Shipyard\nA yard.',
    'no title line',
    'Orsa\nAn island.',
  ];

  test("is the entity named by each chunk's title line (the first such entity), or -1", () => {
    expect(Array.from(subjectEntities({ entities, texts, includeTitle: true }))).toEqual([1, 0, -1, -1]);
  });

  test('is -1 for every chunk when chunk texts carry no title', () => {
    expect(Array.from(subjectEntities({ entities, texts, includeTitle: false }))).toEqual([-1, -1, -1, -1]);
  });
});

describe('linkedOrder', () => {
  test('puts behind each chunk the chunks whose subject it mentions, keeping the given order otherwise', () => {
    // Chunk 5 mentions entity 7 (the subject of chunk 2); chunk 1 mentions entity 8 (the subject of chunk 3).
    const chunkEntities = [[], Uint32Array.of(8), Uint32Array.of(9), Uint32Array.of(), [], Uint32Array.of(7)];
    const subjects = [-1, 9, 7, 8, -1, -1];
    expect(linkedOrder([5, 1, 3, 2], chunkEntities, subjects)).toEqual([5, 2, 1, 3]);
    // Nothing links: the order is kept.
    expect(linkedOrder([3, 2, 1], chunkEntities, [-1, -1, -1, -1, -1, -1])).toEqual([3, 2, 1]);
  });
});

describe('communityText', () => {
  test('writes the report, the members, or both (members alone when there is no report)', () => {
    const c = { report: 'R', members: 'M' };
    expect(communityText(c, 'report')).toBe('R');
    expect(communityText(c, 'members')).toBe('M');
    expect(communityText(c, 'report+members')).toBe('R\n\nM');
    expect(communityText({ report: '', members: 'M' }, 'report')).toBe('M');
  });
});
