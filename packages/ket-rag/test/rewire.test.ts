import { describe, expect, it } from 'vitest';
import { entityUnits, homeUnits, rewire, subChunksByChunk, unitTitleEntities } from '../src/rewire.js';

// Two documents: a has chunks a0 (sub-chunks a0/0, a0/1) and a1 (a1/0); b has b0 (b0/0).
const chunks = [
  { id: 'a0', docId: 'a' },
  { id: 'a1', docId: 'a' },
  { id: 'b0', docId: 'b' },
];
const subChunks = [
  { id: 'a0/0', chunkId: 'a0' },
  { id: 'a0/1', chunkId: 'a0' },
  { id: 'a1/0', chunkId: 'a1' },
  { id: 'b0/0', chunkId: 'b0' },
];

describe('rewiring text units to sub-chunks', () => {
  const subIdsOf = subChunksByChunk(subChunks);

  it('groups sub-chunks by chunk, in order', () => {
    expect([...subIdsOf]).toEqual([
      ['a0', ['a0/0', 'a0/1']],
      ['a1', ['a1/0']],
      ['b0', ['b0/0']],
    ]);
  });

  it('replaces each chunk by all its sub-chunks, chunk by chunk; unknown chunks add none', () => {
    expect(rewire(['b0', 'a0', 'zz'], subIdsOf)).toEqual(['b0/0', 'a0/0', 'a0/1']);
  });

  it("gives a title entity every sub-chunk of its documents' chunks, documents in title order", () => {
    const home = homeUnits({
      chunks,
      titleEntities: [
        ['b', 'beta'],
        ['a', 'alpha'],
        ['a2', 'alpha'], // a document without chunks adds nothing
      ],
      subIdsOf,
    });
    expect([...home]).toEqual([
      ['beta', ['b0/0']],
      ['alpha', ['a0/0', 'a0/1', 'a1/0']],
    ]);
    // Two documents with one title entity: both documents' units, in titleEntities order.
    const shared = homeUnits({
      chunks,
      titleEntities: [
        ['b', 'x'],
        ['a', 'x'],
      ],
      subIdsOf,
    });
    expect(shared.get('x')).toEqual(['b0/0', 'a0/0', 'a0/1', 'a1/0']);
  });

  it('puts home units first and drops the rewired units already among them', () => {
    expect(entityUnits(['a0/0', 'a1/0'], ['b0/0', 'a1/0', 'a0/1'])).toEqual(['a0/0', 'a1/0', 'b0/0', 'a0/1']);
    expect(entityUnits(undefined, ['b0/0', 'a0/0'])).toEqual(['b0/0', 'a0/0']);
  });

  it('maps each unit to the title entities listing it, by entity position', () => {
    const entities = [
      { id: 'alpha', textUnitIds: ['a0/0', 'b0/0'] },
      { id: 'plain', textUnitIds: ['a0/0'] },
      { id: 'beta', textUnitIds: ['b0/0'] },
    ];
    expect([...unitTitleEntities(entities, new Set(['alpha', 'beta']))]).toEqual([
      ['a0/0', [0]],
      ['b0/0', [0, 2]],
    ]);
  });
});
