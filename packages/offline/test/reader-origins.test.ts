import { describe } from 'vitest';
import { describeAnswers, expectAnswers } from './answer-cases.js';

// Invented notes about a folk band, its label and the places around them, written for these tests;
// the expected answers are read off the notes.
const notes = [
  {
    id: 'label',
    text: 'Brinefield Records\nBrinefield Records is an independent record label founded in 1994 by Cora Hale in Ostby.',
  },
  {
    id: 'band',
    text: 'Gannet Row\nGannet Row is a folk band from Lowmarsh, formed in 2003 by the singer Ada Wren and the fiddler Tomas Kell.',
  },
  { id: 'village', text: 'Lowmarsh\nLowmarsh is a village in the county of Estrel, about 20 km from Ostby.' },
];

describeAnswers('where a thing comes from', notes, [
  // "a folk band from Lowmarsh" says where the band comes from.
  ['Where does Gannet Row come from?', 'Lowmarsh'],
  ['Which county does Gannet Row come from?', 'Estrel'],
  // "home town" and "hometown" alike: where it is from, then the county that place is in.
  ['Which county is the home town of Gannet Row in?', 'Estrel'],
  ['In which county is the hometown of Gannet Row?', 'Estrel'],
  // Nothing says where Ada Wren was born.
  ['Where was Ada Wren born?', 'The context does not contain an answer to the question.'],
]);

describe('a kind a role is named for', () => {
  const players = [
    ...notes,
    { id: 'sele', text: 'Jon Sele\nJon Sele (born 1972) is a Welsh cellist and composer.' },
    { id: 'brask', text: 'Ola Brask\nOla Brask (born 1990) is a Veskan footballer who plays for Ostby.' },
  ];
  expectAnswers(players, [
    // "the fiddler Tomas Kell": a fiddler plays the fiddle (WordNet derives one from the other).
    ['What instrument does Tomas Kell play?', 'fiddle'],
    ['Which instrument does Jon Sele play?', 'cello'],
    ['What sport does Ola Brask play?', 'football'],
  ]);
});
