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

  test('is the order of the straightforward scan (every chunk tested after each placed one), seeded cases', () => {
    // The definition, quadratic: after each chunk, every unplaced chunk of `nodes` whose subject it mentions.
    const reference = (nodes: number[], chunkEntities: number[][], subjects: number[]) => {
      const placed = new Set<number>();
      const out: number[] = [];
      for (const c of nodes) {
        if (placed.has(c)) continue;
        placed.add(c);
        out.push(c);
        for (const d of nodes) {
          if (placed.has(d) || subjects[d]! < 0) continue;
          if (chunkEntities[c]!.includes(subjects[d]!)) {
            placed.add(d);
            out.push(d);
          }
        }
      }
      return out;
    };
    let seed = 29;
    const random = () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    for (let trial = 0; trial < 300; trial++) {
      const chunks = 1 + Math.floor(random() * 40);
      const entities = 1 + Math.floor(random() * 15);
      const subjects = Array.from({ length: chunks }, () =>
        random() < 0.3 ? -1 : Math.floor(random() * entities),
      );
      const chunkEntities = Array.from({ length: chunks }, () => {
        const set = new Set<number>();
        const count = Math.floor(random() * 5);
        for (let j = 0; j < count; j++) set.add(Math.floor(random() * entities));
        return [...set].sort((a, b) => a - b);
      });
      // Some orders repeat a chunk.
      const nodes = Array.from({ length: Math.floor(random() * chunks * 1.2) }, () =>
        Math.floor(random() * chunks),
      );
      const typed = chunkEntities.map((list) => Uint32Array.from(list));
      expect(linkedOrder(nodes, typed, subjects)).toEqual(reference(nodes, chunkEntities, subjects));
    }
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
