/**
 * A served index whose method counts its queries, over one private document: what the browser-origin
 * tests serve, so a refused request can be shown to have read nothing and run no query. Needs no
 * provider (and so no other package's build state).
 */
import type { Method, Retrieval } from '@grag/core';

/** The private document's text: no refused answer may carry it. */
export const PRIVATE = 'PRIVATE-DIARY-4b1e';
/** The index's name (its method's): no refused answer may carry it either. */
export const INDEX_NAME = 'diary-notes-7c3a';

/** A fresh counting index: `input` for `createGragServer`'s `indexes`, `counter.queries` its queries. */
export function countingIndex() {
  const counter = { queries: 0 };
  const method: Method<object> = {
    name: INDEX_NAME,
    description: 'Counts its queries.',
    capabilities: { uses: [] },
    formatVersion: 1,
    build: async () => ({}),
    retrieve: async (_index, question): Promise<Retrieval> => {
      counter.queries++;
      return {
        context: `[diary] ${PRIVATE}`,
        tokens: 4,
        trace: {},
        items: [
          {
            id: 'diary',
            kind: 'chunk',
            text: `${PRIVATE} (asked: ${question})`,
            score: 1,
            source: { chunkIds: ['diary'], docIds: ['diary'] },
          },
        ],
      };
    },
    save: async () => {},
    load: async () => ({}),
  };
  return {
    counter,
    input: { method, index: {}, documents: [{ id: 'diary', title: 'Diary', text: PRIVATE }] },
  };
}
