import { describe, expect, test } from 'vitest';
import { createOfflineTasks } from '../src/index.js';
import { contextPassages, passagesOf } from '../src/reader/passages.js';
import { expectAnswers } from './answer-cases.js';

// Invented passages of a coast's atlases and surveys, written for these tests.
const atlas =
  'Ferry of Talby\nFerry of Talby is an atlas by Jakob Brin, published in 1998 by the Veston Press. It is set in Orrin Bay.';
const ledger =
  'The Salt Ledger\nThe Salt Ledger is a survey of the harbour, published in 2001 by the Orrin Ferry Company.';
const ledgerMore = 'The Salt Ledger\nWilma Sorr wrote it while working for the Orrin Ferry Company.';
const gull = 'Gull of Selby\nGull of Selby is a novel by Petra Marr.';
const gullMore = 'Gull of Selby\nPetra Marr wrote it while working for the Veston Press.';

describe('passagesOf', () => {
  test('a community of chunks: a passage per block that opens with its title line', () => {
    const text = [atlas, ledger, ledgerMore].join('\n\n');
    expect(passagesOf(text)).toEqual([atlas, ledger, ledgerMore]);
  });

  test('a block without a title line stays with the passage before it', () => {
    const more = 'Critics in Selby praised its maps. A second edition followed in 2004.';
    expect(passagesOf([atlas, more, ledger].join('\n\n'))).toEqual([`${atlas}\n\n${more}`, ledger]);
  });

  test('a document of paragraphs is one passage', () => {
    const text =
      'Ilse Marren\nIlse Marren is a ferry captain born in Veskan Bay.\n\nIn 1950 Marren joined the Kessler Shipyard.\n\nMarren lives in Orrin.';
    expect(passagesOf(text)).toEqual([text]);
  });

  test('labelled lines of entities and relations: a passage per line', () => {
    const lines = [
      'Ilse Marren: Ilse Marren is a ferry captain born in Veskan Bay.',
      'Kessler Shipyard: The Kessler Shipyard builds ferries.',
      'Ilse Marren — Kessler Shipyard: Ilse Marren joined Kessler Shipyard.',
    ];
    expect(passagesOf(lines.join('\n'))).toEqual(lines);
    // A note with one "Label: text" line among others is no list.
    const note = 'Trip log\nNote: the ferry left at noon.\nWe reached Orrin by dusk.';
    expect(passagesOf(note)).toEqual([note]);
  });

  test('contextPassages keeps each passage’s item, and an item of one passage as it is', () => {
    const passages = contextPassages([
      { id: 'community', text: [atlas, ledger].join('\n\n') },
      { id: 'gull', text: gull },
    ]);
    expect(passages).toEqual([
      { id: 'community', text: atlas, item: 0 },
      { id: 'community', text: ledger, item: 0 },
      { id: 'gull', text: gull, item: 1 },
    ]);
  });
});

describe('a community item is read as its passages', () => {
  // "Petra Marr wrote it" is about Gull of Selby, the title of its own passage: the community's
  // other passages do not make it about Ferry of Talby.
  const community = [{ id: 'community', text: [atlas, ledger, ledgerMore, gull, gullMore].join('\n\n') }];
  expectAnswers(community, [
    ['Who wrote the atlas Ferry of Talby?', 'Jakob Brin'],
    ['Who wrote The Salt Ledger?', 'Wilma Sorr'],
    ['Which organisation published The Salt Ledger?', 'Orrin Ferry Company'],
  ]);

  test('the answer cites the community once', async () => {
    const { citations } = await createOfflineTasks().answer('Who wrote The Salt Ledger?', community);
    expect(citations).toEqual(['community']);
  });
});
