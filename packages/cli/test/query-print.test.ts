/**
 * `grag query`'s printout for people: where each item comes from stays one short line, even for a
 * graph community drawn from many documents.
 */
import { describe, expect, test } from 'vitest';
import { printQuery, type QueryResult } from '../src/query-command.js';
import { captureIO } from './helpers.js';

function result(docIds: string[]): QueryResult {
  const item = {
    id: 'c1',
    kind: 'community',
    score: 0.5,
    text: 'The Kessler Shipyard built the Meridian.',
    source: { docIds },
  };
  return {
    question: 'Who built the Meridian?',
    method: 'da-rag',
    answer: 'the Kessler Shipyard [c1]',
    citations: ['c1'],
    retrieval: { items: [item], context: item.text, tokens: 9 } as unknown as QueryResult['retrieval'],
    timings: { retrieveMs: 1 },
  };
}

describe('printQuery', () => {
  test('an item from many documents names the first three and how many more', () => {
    const io = captureIO('.');
    printQuery(io, result(['kessler', 'meridian', 'orsa', 'nordlys', 'halvard']));
    expect(io.out()).toContain('[c1] community 0.500 from kessler, meridian, orsa (+2 more): The Kessler');
    expect(io.out()).toContain('sources: [c1] kessler, meridian, orsa (+2 more)');
  });

  test('an item from three documents or fewer names them all', () => {
    const io = captureIO('.');
    printQuery(io, result(['kessler', 'meridian']));
    expect(io.out()).toContain('from kessler, meridian: The Kessler');
  });
});
