import { describeAnswers } from './answer-cases.js';

const UNKNOWN = 'The context does not contain an answer to the question.';

// Invented notes about two poets and a composer, written for these tests; the expected ages are
// worked out from the dates in the notes.
const notes = [
  {
    id: 'gray',
    text: 'Anselm Gray\nAnselm Gray (1902–1977) was a Veskan poet and publisher, born in Ostby. He founded the Tidewater Society in 1951.',
  },
  {
    id: 'quist',
    text: 'Mara Quist\nMara Quist (born 3 April 1976) is an Irish poet. She married the painter Tomas Reyes on 12 June 2004. Her first book, Salt Lines, was published in 1999.',
  },
  {
    id: 'wren',
    text: 'Tobias Wren\nTobias Wren (4 May 1890 – 2 March 1968) was an English composer. He became conductor of the Halvard Orchestra in 1931.',
  },
];

describeAnswers('an age at an event: from the birth to the date of the event', notes, [
  // 1951 − 1902.
  ['How old was Anselm Gray when he founded the Tidewater Society?', '49'],
  ['At what age did Anselm Gray found the Tidewater Society?', '49'],
  // 12 June 2004 is after her 28th birthday on 3 April.
  ['How old was Mara Quist when she married Tomas Reyes?', '28'],
  ['How old was Mara Quist when her first book was published?', '23'],
  ['How old was Tobias Wren when he became conductor of the Halvard Orchestra?', '41'],
  // A year the question gives.
  ['How old was Anselm Gray in 1940?', '38'],
]);

describeAnswers('an age no date gives', notes, [
  // An age now: the notes give no date of now.
  ['How old is Mara Quist?', UNKNOWN],
  // Before her birth.
  ['How old was Mara Quist in 1970?', UNKNOWN],
]);
