import type { Chunk, SourceLocation } from '@grag/core';
import { provenanceOf } from '@grag/core/kit';
import { describe, expect, test } from 'vitest';
import { chunkProvenance, memberTables } from '../src/member-tables.js';
import type { DaRagIndex } from '../src/types.js';

describe('chunkProvenance', () => {
  test("is core's provenanceOf of the chunks at the positions (seeded cases: repeats, shared documents and locations, chunks without one)", () => {
    let seed = 7;
    const random = () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    const pick = (n: number) => Math.floor(random() * n);
    for (let trial = 0; trial < 200; trial++) {
      const chunks: Chunk[] = Array.from({ length: 1 + pick(30) }, (_, i) => {
        const location: SourceLocation | undefined =
          random() < 0.3
            ? undefined
            : random() < 0.5
              ? { path: `f${pick(3)}.jsonl`, record: 1 + pick(4) }
              : // The same place with its fields in another order.
                { record: 1 + pick(4), path: `f${pick(3)}.jsonl` };
        const chunk: Chunk = {
          id: `c${i}`,
          docId: `d${pick(8)}`,
          order: i,
          text: '',
          tokens: 0,
          start: 0,
          end: 0,
        };
        return location ? { ...chunk, location } : chunk;
      });
      const index = {
        chunks,
        chunkLayer: { index: new Map() },
        entities: [],
        relations: [],
        cache: {},
      } as unknown as DaRagIndex;
      const tables = memberTables(index);
      // Several calls on the same tables: each starts with nothing marked.
      for (let call = 0; call < 3; call++) {
        const positions = Array.from({ length: pick(2 * chunks.length) }, () => pick(chunks.length));
        expect(chunkProvenance(index, tables, positions)).toEqual(
          provenanceOf(positions.map((i) => chunks[i]!)),
        );
      }
    }
  });
});
