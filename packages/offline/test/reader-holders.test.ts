import { describe } from 'vitest';
import { describeAnswers, expectAnswers } from './answer-cases.js';

// Invented notes about a football club and its stadium, a university, a shipyard, a band and an
// actress, written for these tests; the expected answers are read off the notes.
const notes = [
  {
    id: 'club',
    text: 'Harrowgate Rovers F.C. is a professional football club based in Kessling, Veldmark. The club plays its home matches at the Saltmarsh Arena, which it has occupied since 1994.',
  },
  {
    id: 'arena',
    text: 'The Saltmarsh Arena is a multi-purpose stadium located in Norbridge, a suburb of Kessling. It has a capacity of 31,200 and was designed by the architect Odile Fenwick.',
  },
  {
    id: 'fenwick',
    text: 'Odile Fenwick (born 1948) is a Veldish architect known for sports venues. She studied at the Royal Academy of Brask and later taught at Ostby Polytechnic.',
  },
  {
    id: 'uni',
    text: 'The University of Lannister Vale is a public research university whose main campus is in Corrow, Veldmark. It was founded in 1867. Its athletic teams are the Corrow Herons.',
  },
  {
    id: 'actress',
    text: 'Maren Solvik (born 1961) is a Veldish actress and politician. She portrayed the explorer Ada Wrenn in the 1990 film "Ice Road North". After leaving acting she served as Minister of Culture of Veldmark from 2009 to 2013.',
  },
  {
    id: 'band',
    text: 'The Lantern Pilots are an indie rock band from Ostby. The band formed in 2003 and released their debut album "Paper Harbour" in 2006 on Gullwing Records.',
  },
  {
    id: 'album',
    text: '"Paper Harbour" is the debut studio album by the Lantern Pilots. It was produced by Tobias Arne and reached number four on the Veldish album chart.',
  },
  {
    id: 'ship',
    text: 'The MS Corrow Star was a passenger ferry built by Brask Shipyards in 1972. She sailed between Vireton and Ostby until 2001.',
  },
  {
    id: 'shipyard',
    text: 'Brask Shipyards is a shipbuilding company headquartered in Brask, the capital of the province of Eastmere. It was founded in 1888 by the engineer Piet Halloran.',
  },
];

describeAnswers('the thing found first is in the place asked', notes, [
  // The ground is a stadium, not a suburb: the suburb it is in.
  ['Harrowgate Rovers play at a ground in what suburb?', 'Norbridge'],
  // "Brask" is part of the question's "Brask Shipyards" and still the answer.
  ['Where is Brask Shipyards headquartered?', 'Brask'],
  // The capital first, then the province it is the capital of.
  [
    'The company that built the MS Corrow Star is headquartered in the capital of which province?',
    'Eastmere',
  ],
  // …but a part of the question's name written inside that name is no answer.
  ['When was the University of Lannister Vale founded?', '1867'],
]);

describeAnswers('descriptions by what a thing has or where it is from', notes, [
  ['The university with its main campus in Corrow was founded in what year?', '1867'],
  // The band from Ostby, its debut album, then the label: "Records" names a label.
  ['Which label put out the first album of the indie band from Ostby?', 'Gullwing Records'],
  ['On which label was Paper Harbour released?', 'Gullwing Records'],
]);

describeAnswers('relations by meaning', notes, [
  // A stadium's capacity is how many it holds.
  ['How many people can the home stadium of Harrowgate Rovers hold?', '31,200'],
  // "played" a part is "portrayed" it; the office she served in.
  [
    'The woman who played Ada Wrenn in Ice Road North later held what government post?',
    'Minister of Culture',
  ],
]);

describe('the place something is in', () => {
  const places = [
    { id: 'lamp', text: 'Lamp Street\nLamp Street is a 1992 comedy film shot at Pellow Studios in Cardiff.' },
    {
      id: 'brask',
      text: 'Brask Shipyards\nIn 1921, Brask Shipyards bought the Harwick Docks, then a small yard, in Ostby, from the city council.',
    },
  ];
  expectAnswers(places, [
    // "at Pellow Studios in Cardiff": the city is the name after "in", not the studio's.
    ['In which city was Lamp Street shot?', 'Cardiff'],
    ['Where were the docks that Brask Shipyards bought in 1921?', 'Ostby'],
  ]);
});
