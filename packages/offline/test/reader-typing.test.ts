import { describe, expect, test } from 'vitest';
import { createOfflineTasks } from '../src/index.js';
import { recaseQuestion } from '../src/reader/recase.js';
import { expectAnswers } from './answer-cases.js';
import { USER_NOTES } from './fixtures/user-notes.js';

// Invented notes of a harbour town, written for these tests; the expected answers are read off them.
const notes = [
  {
    id: 'institute',
    text: 'The Brinemark Institute was founded in 1978 by Cordelia Brinemark. The institute has 27 staff.',
  },
  { id: 'bakery', text: 'Marit Vance opened the Tidewell Bakery on Quay Street in April 2009.' },
];
const tasks = createOfflineTasks();
const _ask = async (q: string) => (await tasks.answer(q, notes)).answer;

describe('questions as people type them', () => {
  expectAnswers(notes, [
    // In lower case: the context's names are found in their capitals.
    ['who founded the brinemark institute', 'Cordelia Brinemark'],
    ['when did marit vance open the tidewell bakery?', 'April 2009'],
    // Inside a polite frame.
    ['Can you tell me how many staff the Brinemark Institute has?', '27'],
    ['Do you know who founded the Brinemark Institute?', 'Cordelia Brinemark'],
    ["I'd like to know when the Tidewell Bakery opened.", 'April 2009'],
  ]);

  test('a question in lower case over many notes finds the name it means', async () => {
    const all = USER_NOTES.map((n) => ({ id: n.id, text: n.text }));
    for (const q of ['who founded the brinemark institute', 'Who founded the Brinemark Institute?'])
      expect((await tasks.answer(q, all)).answer).toBe('Cordelia Brinemark');
  });

  test('names are put back only in a question typed without capitals, longest first', () => {
    const texts = ['The Brinemark Institute has a boat. Brinemark is a family name. The institute is old.'];
    expect(recaseQuestion('who runs the brinemark institute?', texts)).toBe(
      'who runs the Brinemark Institute?',
    );
    // "Institute" alone is also written "institute": a single word is put back only when never lower.
    expect(recaseQuestion('how old is the institute?', texts)).toBe('how old is the institute?');
    // Only its first letter capitalised counts as typed without capitals; a later capital is kept.
    expect(recaseQuestion('Who runs the brinemark institute?', texts)).toBe(
      'Who runs the Brinemark Institute?',
    );
    expect(recaseQuestion('Who runs the brinemark Institute?', texts)).toBe(
      'Who runs the brinemark Institute?',
    );
  });
});

describe('a name typed by its head word', () => {
  // A shipyard is a business: "which organisation" or "which company" takes it over a club a
  // note only says published guides.
  const publishers = [
    {
      id: 'atlas',
      text: 'Harbour of Morlin Reach\nHarbour of Morlin Reach is an atlas by Ruben Sorr, published in 1990 by the Kessler Shipyard.',
    },
    {
      id: 'club',
      text: 'Lindholm Rowing Club\nThe Lindholm Rowing Club published many guides to the coast, among them an atlas of the reach.',
    },
  ];
  expectAnswers(publishers, [
    ['Which organisation published Harbour of Morlin Reach?', 'Kessler Shipyard'],
    ['Which company brought out Harbour of Morlin Reach?', 'Kessler Shipyard'],
  ]);
});
