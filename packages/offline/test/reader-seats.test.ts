import { describe } from 'vitest';
import { describeAnswers, expectAnswers } from './answer-cases.js';

const UNKNOWN = 'The context does not contain an answer to the question.';

// Invented notes about an invented country, its provinces and towns, written for these tests.
const province = {
  id: 'lundmark',
  text: 'Lundmark\nLundmark is a province of Veska. Its capital is Kaltern.',
};
const veska = {
  id: 'veska',
  text: 'Veska\nVeska is a small country on the Veskan Strait. Its largest city is Port Halvard.',
};
const ostby = {
  id: 'ostby',
  text: 'Ostby\nOstby is a town in Veska. The Ostby Fair is held there each autumn.',
};
const poet = {
  id: 'gray',
  text: 'Anselm Gray\nAnselm Gray (1902–1977) was a Veskan poet and publisher, born in Ostby.',
};

describeAnswers(
  'a capital no note states is unknown',
  [veska, ostby, province],
  [
    // Lundmark's "its capital" is Lundmark's, though the sentence before names Veska.
    ['What is the capital of Veska?', UNKNOWN],
    ['Which city is the capital of Veska?', UNKNOWN],
    ['What is the capital of Lundmark?', 'Kaltern'],
  ],
);

describe('a capital stated of its country', () => {
  expectAnswers(
    [{ ...veska, text: `${veska.text} Its capital is Ostby.` }, ostby, province, poet],
    [
      ['What is the capital of Veska?', 'Ostby'],
      ['Which city is the capital of Veska?', 'Ostby'],
      // Kinds of place and attributes are read as before.
      ['What is the country of Ostby?', 'Veska'],
      ['What is the nationality of Anselm Gray?', 'Veskan'],
    ],
  );
  expectAnswers(
    [veska, { ...ostby, text: 'Ostby\nOstby, the capital of Veska, lies on the Veskan Strait.' }, province],
    [['What is the capital of Veska?', 'Ostby']],
  );
});
