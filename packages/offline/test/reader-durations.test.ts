import { describeAnswers } from './answer-cases.js';

// Invented notes about ships, a lighthouse, a diplomat and a composer, written for these tests; the
// expected lengths of time are worked out from the years in the notes.
const notes = [
  {
    id: 'meridian',
    text: 'Meridian\nThe Meridian is a research vessel. It sailed for the Orsa Marine Institute from 1965 to 2001, when it was sold to a salvage firm.',
  },
  {
    id: 'solberg',
    text: 'Ingrid Solberg\nIngrid Solberg is a Veskan oceanographer. She directed the Orsa Marine Institute between 1990 and 1998.',
  },
  {
    id: 'light',
    text: 'Halvard Light\nThe Halvard Light is a lighthouse in Port Halvard. It was in service from 1871 until 1954.',
  },
  {
    id: 'kessler',
    text: 'Kessler Shipyard\nKessler Shipyard (1902–1989) was a shipbuilder in Port Halvard.',
  },
  { id: 'nordlys', text: 'Nordlys\nThe Nordlys is a ferry. It has crossed the Veskan Strait since 1978.' },
  {
    id: 'holt',
    text: 'Mira Holt\nMira Holt is a Veskan diplomat. She was ambassador to Norway from 3 September 2004 to 1 August 2009, and ambassador to Chile between 2011 and 2016.',
  },
  {
    id: 'wren',
    text: 'Tobias Wren\nTobias Wren (4 May 1890 – 2 March 1968) was an English composer. He conducted the Halvard Orchestra for twelve years.',
  },
  {
    id: 'bridge',
    text: 'Harbour Bridge\nThe Harbour Bridge in Port Halvard is 420 metres long. It opened in 1932.',
  },
  {
    id: 'fair',
    text: 'Ostby Fair\nThe Ostby Fair is held each autumn. It drew between 1200 and 1500 visitors a year. It was held in the old market hall from 1950 to 1987.',
  },
  {
    id: 'crossing',
    text: 'Ostby crossing\nThe ferry crossing from Port Halvard to Ostby takes forty minutes.',
  },
];

describeAnswers('lengths of time from the years of a range', notes, [
  // 2001 − 1965.
  ['For how many years did the Meridian sail for the Orsa Marine Institute?', '36 years'],
  ['How long did Ingrid Solberg direct the Orsa Marine Institute?', '8 years'],
  // Another verb than the note's: the one range of her notes.
  ['How many years did Ingrid Solberg lead the institute?', '8 years'],
  ['How many years was the Halvard Light in service?', '83 years'],
  // A bracketed span answers how long a thing existed or lived.
  ['How long did the Kessler Shipyard exist?', '87 years'],
  // To the day: 2 March 1968 falls before his 78th birthday.
  ['How many years did Tobias Wren live?', '77 years'],
  // What still goes on.
  ['How long has the Nordlys crossed the Veskan Strait?', 'since 1978'],
  // Two ranges in one sentence: the one beside what is asked. Full dates count to the day.
  ['How long was Mira Holt ambassador to Norway?', '4 years'],
  ['For how many years was Mira Holt ambassador to Chile?', '5 years'],
]);

describeAnswers('what is not a range of years', notes, [
  // A length stated as such is read as before.
  ['How long did Tobias Wren conduct the Halvard Orchestra?', 'twelve years'],
  // A length in metres, not a time.
  ['How long is the Harbour Bridge?', '420 metres'],
  // A range of counts is no time: the range of years is.
  ['For how many years was the Ostby Fair held in the old market hall?', '37 years'],
  // The name is no subject of the verb here ("the crossing to Ostby"): the fair's years do not answer.
  ['How long does the ferry crossing to Ostby take?', 'forty minutes'],
  // A life span does not say how long he taught.
  [
    'How long did Tobias Wren teach at the Ostby Conservatory?',
    'The context does not contain an answer to the question.',
  ],
]);
