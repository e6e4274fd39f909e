import { describeAnswers } from './answer-cases.js';

// Invented notes about a novel, its author, a film made of it and the places around them, written
// for these tests; the expected answers are read off the notes.
const notes = [
  {
    id: 'keepers',
    text: 'The Lantern Keepers\nThe Lantern Keepers is a 2011 novel by the Veskan writer Ilse Dorrow. It won the Harbour Prize in 2012.',
  },
  {
    id: 'dorrow',
    text: 'Ilse Dorrow\nIlse Dorrow (born 14 March 1968 in Kessa) is a Veskan novelist. She studied history at the University of Lindholm and later taught there.',
  },
  {
    id: 'kessa',
    text: 'Kessa\nKessa is a fishing town in the county of Norhold, on the north coast of Veskan.',
  },
  {
    id: 'university',
    text: 'University of Lindholm\nThe University of Lindholm is a public university in Lindholm, the capital of Veskan, established in 1841.',
  },
  {
    id: 'film',
    text: 'Salt Harbour (film)\nSalt Harbour is a 2015 drama film directed by Marten Vell, based on the novel The Lantern Keepers.',
  },
  { id: 'vell', text: 'Marten Vell\nMarten Vell (born 1975) is a Danish film director.' },
  {
    id: 'veskan',
    text: 'Veskan\nVeskan is a country in northern Europe. Its capital and largest city is Lindholm.',
  },
];

describeAnswers('a place named inside a longer name', notes, [
  // "in Lindholm, the capital of Veskan": the city, not the university whose name ends in it.
  ['What is the capital of Veskan?', 'Lindholm'],
  ['What is the capital of the country where Kessa is?', 'Lindholm'],
]);

describeAnswers('a request instead of a question', notes, [
  ['Name the capital of the country where Kessa is.', 'Lindholm'],
  ['Tell me the capital of Veskan.', 'Lindholm'],
  ['Name the director of Salt Harbour.', 'Marten Vell'],
  ['Give the year the University of Lindholm was founded.', '1841'],
  ['Please name the town where Ilse Dorrow was born.', 'Kessa'],
]);

describeAnswers('the kind named right before a title', notes, [
  // "based on the novel The Lantern Keepers": the novel, not the director named before it.
  ['Which novel is Salt Harbour based on?', 'Lantern Keepers'],
  ['Name the novel Salt Harbour is based on', 'Lantern Keepers'],
]);

describeAnswers('the object a question asks for', notes, [
  // "studied history at the University of Lindholm": what was studied is the verb's object.
  ['What did Ilse Dorrow study?', 'history'],
  ['What did the author of The Lantern Keepers study?', 'history'],
  // Where is asked of the place behind the preposition.
  ['Where did Ilse Dorrow study?', 'University of Lindholm'],
  ['What did The Lantern Keepers win in 2012?', 'Harbour Prize'],
]);
