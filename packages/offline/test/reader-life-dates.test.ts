import { describeAnswers } from './answer-cases.js';

// Invented notes about two film directors and their films, written for these tests; the expected
// answers are read off the notes. Oskar Lindell's dates stand in one life-span bracket; Hana
// Brevik's birth is in a bracket and her death in a sentence of its own that calls her "she".
const notes = [
  {
    id: 'orchard',
    text: 'The Glass Orchard\nThe Glass Orchard is a 1962 drama film directed by Oskar Lindell. It was shot in Merrow Falls.',
  },
  {
    id: 'ferry',
    text: 'Night Ferry to Ostby\nNight Ferry to Ostby is a 1971 thriller film directed by Hana Brevik and starring Ilse Marren.',
  },
  {
    id: 'lindell',
    text: 'Oskar Lindell\nOskar Lindell (12 March 1921 – 3 June 1988) was a Swedish film director and screenwriter.',
  },
  {
    id: 'brevik',
    text: 'Hana Brevik\nHana Brevik (born 8 October 1934) is a Norwegian film director. She died on 2 January 2011 in Oslo.',
  },
];

describeAnswers('a death told in a sentence of its own', notes, [
  // 1988 against 2011: the second date is in "She died on 2 January 2011".
  ['Which director died first, Oskar Lindell or Hana Brevik?', 'Oskar Lindell'],
  ['Who died later, Oskar Lindell or Hana Brevik?', 'Hana Brevik'],
  // 67 years against 76: her birth and death from two sentences.
  ['Who lived longer, Oskar Lindell or Hana Brevik?', 'Hana Brevik'],
  // A phrasal verb is one event: "passed away" is a death.
  ['Who passed away first, Oskar Lindell or Hana Brevik?', 'Oskar Lindell'],
]);

describeAnswers('a comparison in a clause about the compared things', notes, [
  // "a director who died later" is what the two films are compared on, not a person to find first.
  [
    'Which film was made by a director who died later, The Glass Orchard or Night Ferry to Ostby?',
    'Night Ferry to Ostby',
  ],
  [
    'Which of these films was made by a director who passed away later, The Glass Orchard or Night Ferry to Ostby?',
    'Night Ferry to Ostby',
  ],
  ["Which movie's director died first, The Glass Orchard or Night Ferry to Ostby?", 'The Glass Orchard'],
  // The options named first.
  [
    'The Glass Orchard or Night Ferry to Ostby: which one was made by a director born first?',
    'The Glass Orchard',
  ],
]);
