import { describe } from 'vitest';
import { describeAnswers, expectAnswers } from './answer-cases.js';

// Invented notes about a folk band, its album, its label and a newspaper, written for these tests;
// the expected answers are read off the notes.
const notes = [
  {
    id: 'album',
    text: 'Harbour Lights (album)\nHarbour Lights is the second studio album by the Ostby folk band Arctic Tern, released in 2004 on Gullwing Records.',
  },
  {
    id: 'band',
    text: 'Arctic Tern (band)\nArctic Tern is a folk band formed in Ostby in 1999 by singer Mara Quist and fiddler Jon Sele.',
  },
  {
    id: 'label',
    text: 'Gullwing Records\nGullwing Records is an independent record label based in Lindholm. It was founded in 1988 by producer Evan Marsh.',
  },
  {
    id: 'calder',
    text: 'Ines Calder\nInes Calder (1941 – 2019) was a Veskan novelist and journalist who worked for the Ostby Courier.',
  },
  {
    id: 'courier',
    text: 'Ostby Courier\nThe Ostby Courier is a daily newspaper published in Ostby since 1872. Its current editor is Rolf Amsel.',
  },
];

describeAnswers('a work "by" its maker', notes, [
  // "an album by X" says who made or recorded it, though no sentence says "recorded".
  ['Who recorded Harbour Lights?', 'Arctic Tern'],
  ['Which band made Harbour Lights?', 'Arctic Tern'],
  // The band found first, then when it was formed (not the label's founding).
  ['When was the band that made Harbour Lights formed?', '1999'],
  // "by the Ostby folk band Arctic Tern": the band, then where it is from.
  ['Harbour Lights was recorded by a band from what town?', 'Ostby'],
]);

describeAnswers('a name before the noun asked', notes, [
  // "Which Arctic Tern album": an album, of Arctic Tern; "the second studio album" calls it one.
  ['Which Arctic Tern album was released in 2004?', 'Harbour Lights'],
  ['What is the name of the Arctic Tern album released in 2004?', 'Harbour Lights'],
]);

describeAnswers('a verb in -s after "who"', notes, [
  // wink tags "edits" a plural noun; after "who" it is the verb ("Its current editor is …").
  ['Who edits the Ostby Courier?', 'Rolf Amsel'],
  ['Who edits the newspaper Ines Calder worked for?', 'Rolf Amsel'],
]);

describe('a kind of work before its name', () => {
  const film = [
    {
      id: 'ferry',
      text: 'Night Ferry to Ostby\nNight Ferry to Ostby is a 1971 thriller film directed by Hana Brevik.',
    },
    { id: 'brevik', text: 'Hana Brevik\nHana Brevik (born 1934) is a film director based in Lindholm.' },
  ];
  // "the thriller X": "thriller" types X (though an agent noun in -er, as "director" is), so the
  // director of X is found first.
  expectAnswers(film, [
    ['The director of the thriller Night Ferry to Ostby is based in what city?', 'Lindholm'],
    ['Where is the director of the thriller Night Ferry to Ostby based?', 'Lindholm'],
  ]);
});

describe('the maker of a work, named by "a <work> by"', () => {
  // "an atlas by Jakob Brin" says who made the atlas, as "wrote" or "penned" asks; another work's
  // note that says "Wilma Sorr wrote it" is about that work.
  const works = [
    {
      id: 'atlas',
      text: 'Ferry of Talby\nFerry of Talby is an atlas by Jakob Brin, published in 1998 by the Veston Press.',
    },
    { id: 'ledger', text: 'The Salt Ledger\nWilma Sorr wrote it while working for the Orrin Ferry Company.' },
    {
      id: 'suite',
      text: 'Suite of Orrin Bay\nSuite of Orrin Bay is a symphony by Saga Lind, first played in 1931.',
    },
    { id: 'lind', text: 'Saga Lind\nSaga Lind is a composer born in Orrin Bay.' },
  ];
  expectAnswers(works, [
    ['Who penned Ferry of Talby?', 'Jakob Brin'],
    ['Who wrote the atlas Ferry of Talby?', 'Jakob Brin'],
    ['Who composed Suite of Orrin Bay?', 'Saga Lind'],
    ['Who wrote The Salt Ledger?', 'Wilma Sorr'],
  ]);
});
