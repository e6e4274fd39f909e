import { describe } from 'vitest';
import { expectAnswers } from './answer-cases.js';

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

describe('where a thing comes from', () => {
  expectAnswers(notes, [
    // "a folk band from Lowmarsh" says where the band comes from.
    ['Where does Gannet Row come from?', 'Lowmarsh'],
    ['Which county does Gannet Row come from?', 'Estrel'],
    // "home town" and "hometown" alike: where it is from, then the county that place is in.
    ['Which county is the home town of Gannet Row in?', 'Estrel'],
    ['In which county is the hometown of Gannet Row?', 'Estrel'],
    // Nothing says where Ada Wren was born.
    ['Where was Ada Wren born?', 'The context does not contain an answer to the question.'],
  ]);
});
