import { describeAnswers } from './answer-cases.js';

// Invented notes about composers, a poet and a prize, written for these tests; the expected answers
// are worked out from the dates in the notes.
const notes = [
  {
    id: 'gray',
    text: 'Anselm Gray\nAnselm Gray (1902–1977) was a Veskan poet and publisher, born in Ostby.',
  },
  { id: 'wren', text: 'Tobias Wren\nTobias Wren (4 May 1890 – 2 March 1968) was an English composer.' },
  {
    id: 'falk',
    text: 'Ruben Falk\nRuben Falk (12 June 1885 – 20 June 1960) was a Danish composer and pianist.',
  },
  {
    id: 'prize',
    text: 'Harbour Prize\nThe Harbour Prize is a literary award given by the Tidewater Society, founded in 1951 by the poet Anselm Gray.',
  },
  { id: 'quist', text: 'Mara Quist\nMara Quist (born 1976) is an Irish poet.' },
];

describeAnswers('the age at death', notes, [
  // 1977 − 1902.
  ['How old was Anselm Gray when he died?', '75'],
  // Died on 2 March 1968, before his 78th birthday on 4 May.
  ['At what age did Tobias Wren die?', '77'],
  // Died on 20 June 1960, after his 75th birthday on 12 June.
  ['How old was Ruben Falk at the time of his death?', '75'],
  // Through a relation: the founder of the society is Anselm Gray.
  ['How old was the founder of the Tidewater Society when he died?', '75'],
  // The notes give no death.
  ['How old was Mara Quist when she died?', 'The context does not contain an answer to the question.'],
]);
