import { describe } from 'vitest';
import { createOfflineTasks, NO_ANSWER } from '../src/index.js';
import { describeAnswers, expectAnswers } from './answer-cases.js';

// Invented notes of a harbour town, written for these tests; the expected answers are read off them.
const notes = [
  {
    id: 'town',
    text: 'Port Halvard\nSince 2019 the council has been led by Mayor Odile Brandt, a former harbour engineer who rebuilt the breakwater.',
  },
  {
    id: 'institute',
    text: 'Lindqvist Institute\nThe Lindqvist Institute is a research institute on Orsa. Since 2015 the institute has been directed by the biologist Ilse Marren. Every summer the institute runs a field school for students from Halvard College.',
  },
];
const _tasks = createOfflineTasks();

describeAnswers('who leads, and what someone was', notes, [
  // An institute "directed by" someone is led and run by them.
  ['Who runs the Lindqvist Institute?', 'Ilse Marren'],
  ['Who leads the Lindqvist Institute?', 'Ilse Marren'],
  ['Who directs the Lindqvist Institute?', 'Ilse Marren'],
  // A clause of time after an identity question leaves it an identity question.
  ['What was Odile Brandt’s job before she became mayor?', 'former harbour engineer'],
  ['What did Odile Brandt do before she became mayor?', 'former harbour engineer'],
]);

describe('a description made by a participle and a preposition', () => {
  const people = [
    {
      id: 'wren',
      text: 'Tobias Wren\nTobias Wren is a composer. He is married to Ilse Marren. Wren wrote the Harbour Suite.',
    },
    { id: 'marren', text: 'Ilse Marren\nIlse Marren is a marine biologist born in Merrow Falls in 1971.' },
  ];
  expectAnswers(people, [
    ['What piece did the composer married to Ilse Marren write?', 'Harbour Suite'],
    ['Where was the biologist married to Tobias Wren born?', 'Merrow Falls'],
  ]);
});

describe('a relative named from the other side', () => {
  // An invented family of a fishing village, written for these tests.
  const family = [
    {
      id: 'holt',
      text: 'Anna Holt is the daughter of Peter Holt, a fisherman. Mia Holt is Peter Holt’s granddaughter.',
    },
    { id: 'berg', text: 'Lars Berg is the grandson of Nils Berg. Ella Berg is the niece of Sven Berg.' },
  ];
  expectAnswers(family, [
    ['Who is Mia Holt’s grandfather?', 'Peter Holt'],
    ['Who is the grandfather of Lars Berg?', 'Nils Berg'],
    ['Who is Ella Berg’s uncle?', 'Sven Berg'],
    // Nothing names Anna's grandmother.
    ['Who is Anna Holt’s grandmother?', NO_ANSWER],
  ]);
});
