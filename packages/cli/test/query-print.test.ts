/**
 * `grag query`'s printout for people: where each item comes from stays one short line, even for a
 * graph community drawn from many documents.
 */
import { Writable } from 'node:stream';
import { describe, expect, test } from 'vitest';
import type { CliIO } from '../src/cli.js';
import { printQuery, type QueryResult } from '../src/query-command.js';

function capture(): { io: CliIO; text: () => string } {
  let out = '';
  const sink = new Writable({
    write(chunk, _enc, cb) {
      out += String(chunk);
      cb();
    },
  });
  return { io: { stdout: sink, stderr: sink, env: {}, cwd: '.' }, text: () => out };
}

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
    const { io, text } = capture();
    printQuery(io, result(['kessler', 'meridian', 'orsa', 'nordlys', 'halvard']));
    expect(text()).toContain('[c1] community 0.500 from kessler, meridian, orsa (+2 more): The Kessler');
    expect(text()).toContain('sources: [c1] kessler, meridian, orsa (+2 more)');
  });

  test('an item from three documents or fewer names them all', () => {
    const { io, text } = capture();
    printQuery(io, result(['kessler', 'meridian']));
    expect(text()).toContain('from kessler, meridian: The Kessler');
  });
});
