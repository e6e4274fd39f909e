import { describeAnswers } from './answer-cases.js';

// Invented notes whose answers are long names with small words inside (titles of works, names of
// bodies), written for these tests; the expected answers are read off the notes.
const notes = [
  { id: 'album', text: 'The band released Songs from the Lower Harbour, their third album, in 1986.' },
  {
    id: 'novel',
    text: 'Harbour Lights is based on the novel The Keeper of the Northern Light by Ilka Dorn.',
  },
  { id: 'brill', text: 'Oskar Brill founded the Institute for the Study of Northern Arts in 1971.' },
  { id: 'quist', text: 'Mara Quist is a member of the folk group Salt and the Sea.' },
  { id: 'lund', text: 'Tessa Lund studied at an academy in Kessling before joining the National Theatre.' },
];

describeAnswers('names that run on over small words', notes, [
  ['What was the third album of the band?', 'Songs from the Lower Harbour'],
  ['Which novel is Harbour Lights based on?', 'Keeper of the Northern Light'],
  ['What did Oskar Brill found in 1971?', 'Institute for the Study of Northern Arts'],
  // "and the" joins a name; "A and B" would be two.
  ['Which folk group is Mara Quist a member of?', 'Salt and the Sea'],
  // "in" alone says where: the academy is in Kessling, not "… in Kessling".
  ['In which town did Tessa Lund study?', 'Kessling'],
]);
