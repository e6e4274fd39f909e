import { describe, expect, test } from 'vitest';
import { analyze } from '../src/nlp.js';
import { readQuestion } from '../src/reader/question.js';
import { describeAnswers } from './answer-cases.js';

// Invented notes about two composers and two cities, written for these tests; the expected answers
// are read off the notes.
const notes = [
  {
    id: 'wren',
    text: 'Tobias Wren\nTobias Wren (born 4 May 1890) is an English composer. Wren died in 1968.',
  },
  { id: 'falk', text: 'Ruben Falk\nRuben Falk (1885 – 1960) was a Danish composer and pianist.' },
  { id: 'lindholm', text: 'Lindholm\nLindholm is the capital of Veskan, with a population of 410,000.' },
  { id: 'ostby', text: 'Ostby\nOstby is a port city in eastern Veskan with 96,000 inhabitants.' },
];

describeAnswers('options joined by "and" where the question names them', notes, [
  // "between" / "among" after the wh-word, with a comparative outside the names.
  ['Who was born first between Tobias Wren and Ruben Falk?', 'Ruben Falk'],
  ['Who among Tobias Wren and Ruben Falk died first?', 'Ruben Falk'],
  ['Which is the larger city among Lindholm and Ostby?', 'Lindholm'],
  // Named first, then a dash and the comparison.
  ['Tobias Wren and Ruben Falk — who is older?', 'Ruben Falk'],
  // "Comparing A with B".
  ['Comparing Tobias Wren with Ruben Falk, who died later?', 'Tobias Wren'],
]);

describe('names joined by "and" that are no options', () => {
  test('"between A and B" without a comparative is no choice', async () => {
    const read = async (q: string) => readQuestion((await analyze(q)).tokens);
    expect((await read('Which city lies between Lindholm and Ostby?')).kind).not.toBe('choice');
    expect((await read('Lindholm and Ostby — which county are they in?')).kind).not.toBe('choice');
    expect((await read('Which city is larger between Lindholm and Ostby?')).options).toEqual([
      'Lindholm',
      'Ostby',
    ]);
  });
});

describeAnswers('options named before the question in other frames', notes, [
  // "Out of A and B, …" and "From A and B, …" open the options as "Of A and B" does.
  ['Out of Tobias Wren and Ruben Falk, who was born first?', 'Ruben Falk'],
  ['From Lindholm and Ostby, which city is larger?', 'Lindholm'],
  // Two names with a comma between them, then a dash and the comparison.
  ['Tobias Wren, Ruben Falk — who died later?', 'Tobias Wren'],
  // No comparative: the one whose notes say the country asked ("a Danish composer").
  ['Out of Tobias Wren and Ruben Falk, which composer is from Denmark?', 'Ruben Falk'],
  ['Of Tobias Wren and Ruben Falk, who came from England?', 'Tobias Wren'],
]);
