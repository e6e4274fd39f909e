import { describe } from 'vitest';
import { describeAnswers, expectAnswers } from './answer-cases.js';

// Invented notes about clubs, people and places of a coast, written for these tests; the expected
// answers are read off the notes.
const notes = [
  {
    id: 'gulls',
    text: 'Lindholm Gulls\nThe Lindholm Gulls are an ice hockey team based in Lindholm, founded in 1961.',
  },
  {
    id: 'owls',
    text: 'Ostby Owls\nThe Ostby Owls are an ice hockey club from Ostby. The club was established in 1948.',
  },
  {
    id: 'rovers',
    text: 'Merrow Falls Rovers\nMerrow Falls Rovers is a football club that plays in the Veskan Premier League.',
  },
  {
    id: 'fenn',
    text: 'Ada Fenn\nAda Fenn (born 1950 in Tressick) is a Veskan poet and editor. She founded the Tidewater Review.',
  },
  { id: 'sele', text: 'Jon Sele\nJon Sele (born 1972 in Orrin County) is a Veskan fiddler and composer.' },
  { id: 'quist', text: 'Mara Quist\nMara Quist (born 1976) is a Veskan poet and singer.' },
  {
    id: 'tressick',
    text: 'Tressick\nTressick is a fishing village on the west coast of Veskan, in the county of Norhold.',
  },
  { id: 'orrin', text: 'Orrin County\nOrrin County is a rural area in the south of Veskan.' },
];

describeAnswers('the same kind of thing', notes, [
  // "an ice hockey team" and "an ice hockey club" play one sport; a football club another.
  ['Do the Lindholm Gulls and the Ostby Owls play the same sport?', 'yes'],
  ['Do the Ostby Owls and Merrow Falls Rovers play the same sport?', 'no'],
  // "a Veskan poet and editor", "a Veskan poet and singer": one profession; a fiddler another.
  ['Do Ada Fenn and Mara Quist have the same profession?', 'yes'],
  ['Do Ada Fenn and Jon Sele have the same profession?', 'no'],
]);

describeAnswers('the county or country a place is in', notes, [
  // Born in Tressick, which the notes call a village, in the county of Norhold.
  ['In which county was Ada Fenn born?', 'Norhold'],
  ['Which county was the founder of the Tidewater Review born in?', 'Norhold'],
  // "Orrin County" is a county by its name, though the notes call it a rural area.
  ['In which county was Jon Sele born?', 'Orrin County'],
]);

describe('a kind the tagger reads as an adjective', () => {
  const films = [
    { id: 'salt', text: 'Salt Roads\nSalt Roads is a 1999 documentary film about the salt trade.' },
    { id: 'tide', text: 'Tide Clock\nTide Clock is a 2003 documentary directed by Ines Calder.' },
    { id: 'glass', text: 'The Glass Orchard\nThe Glass Orchard is a 1962 drama film.' },
  ];
  // "documentary" (tagged an adjective in the question) is a kind of film, so "a drama film" is
  // another kind; "a famous film" would not be.
  expectAnswers(films, [
    ['Is The Glass Orchard a documentary film?', 'no'],
    ['Are Salt Roads and The Glass Orchard both documentary films?', 'no'],
    ['Are Salt Roads and Tide Clock both documentary films?', 'yes'],
  ]);
});

describe('a title that shares words with the one asked about names another work', () => {
  // "Bell of Selkan Harbour" is not "Bell of Quenton Harbour": the list that names it says nothing
  // of the painting asked about, though it says "published by" next to a club.
  const works = [
    {
      id: 'club',
      text: 'Orrin Rowing Club\nWorks published by the Orrin Rowing Club include Bell of Selkan Harbour by Petra Marr, The Amber Shore by Jonas Wren.',
    },
    {
      id: 'bell',
      text: 'Bell of Quenton Harbour\nBell of Quenton Harbour is a painting by Signe Lind, published in 2014 by the Kessler Press. It is set in Morgarth Bay.',
    },
  ];
  expectAnswers(works, [
    ['Which organisation published Bell of Quenton Harbour?', 'Kessler Press'],
    ['Which organisation brought out Bell of Quenton Harbour?', 'Kessler Press'],
    ['Who painted Bell of Quenton Harbour?', 'Signe Lind'],
  ]);
});
