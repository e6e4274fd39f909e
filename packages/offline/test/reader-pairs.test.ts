import { describe } from 'vitest';
import { describeAnswers, expectAnswers } from './answer-cases.js';

// Invented notes about poets, birds and films of a coast, written for these tests; the expected
// answers are read off the notes.
const people = [
  { id: 'fenn', text: 'Ada Fenn\nAda Maria Fenn (born 3 May 1950 in Tressick) is a Welsh poet and editor.' },
  {
    id: 'sele',
    text: 'Jon Sele\nJon Peder Sele (born 1972 in Orrin County) is a Welsh fiddler and composer.',
  },
  { id: 'quist', text: 'Mara Quist\nMara Quist (born 1976) is an Irish poet and singer.' },
  { id: 'brenn', text: 'Orla Brenn\nOrla Brenn (1931–2004) was a Welsh film director and screenwriter.' },
];

describeAnswers('two people asked about together', people, [
  // The nationality after the second name is what is asked, not part of the name.
  ['Are both Ada Fenn and Mara Quist Welsh?', 'no'],
  ['Are both Ada Fenn and Jon Sele Welsh?', 'yes'],
  ['Were Ada Fenn and Mara Quist Welsh poets?', 'no'],
  ['Were Ada Fenn and Orla Brenn Welsh poets, both of them?', 'no'],
  // The nationality before the kind is checked as a nationality; the kind as a kind.
  ['Were Ada Fenn and Orla Brenn both Welsh poets?', 'no'],
  ['Were Ada Fenn and Mara Quist both poets?', 'yes'],
  // "Ada Maria Fenn (…) is a Welsh poet": a middle name between the question's two words.
  ['Are Ada Fenn and Jon Sele both poets?', 'no'],
  ['Are Ada Fenn and Mara Quist both poets?', 'yes'],
  ['Is Jon Sele a composer?', 'yes'],
  ['Is Ada Fenn a screenwriter?', 'no'],
]);

const birds = [
  {
    id: 'wren',
    text: 'Grey Wren\nThe grey wren (Troglodytes cinereus) is a small songbird found in the coastal forests of Veskan.',
  },
  {
    id: 'lark',
    text: 'Dune lark\nThe dune lark (Alauda arenaria) is a songbird that breeds on the dunes of Dorvia.',
  },
  {
    id: 'kestrel',
    text: 'Marsh kestrel\nThe marsh kestrel (Falco palustris) is a bird of prey of the family Falconidae, found in Veskan.',
  },
  { id: 'fern', text: 'Salt fern\nSalt fern (Polypodium salinum) is a species of fern native to Dorvia.' },
];

describeAnswers('two things named in lower case', birds, [
  // Common names the text writes in lower case: "the grey wren … is a small songbird".
  ['Are the grey wren and the dune lark both songbirds?', 'yes'],
  ['Are the grey wren and the marsh kestrel both birds?', 'yes'],
  ['Are the grey wren and the salt fern both birds?', 'no'],
  // "of prey" narrows the kind: a songbird is a bird, not a bird of prey.
  ['Are the grey wren and the marsh kestrel both birds of prey?', 'no'],
  // "found" is no kind the two are, whatever the tagger calls it.
  ['Are the grey wren and the marsh kestrel both found in Veskan?', 'yes'],
  ['Are the dune lark and the marsh kestrel both found in Veskan?', 'no'],
]);

const clubs = [
  { id: 'gulls', text: 'Lindholm Gulls\nThe Lindholm Gulls are an ice hockey team based in Lindholm.' },
  { id: 'owls', text: 'Ostby Owls\nThe Ostby Owls are a football club based in Ostby.' },
  { id: 'rovers', text: 'Harbour Rovers\nHarbour Rovers is an ice hockey club from Lindholm.' },
];

describe('the same questions in other frames', () => {
  expectAnswers(
    [...people, ...clubs],
    [
      // The names first, then the question about both.
      ['Ada Fenn and Jon Sele — are both of them poets?', 'no'],
      ['Ada Fenn and Mara Quist — are both of them poets?', 'yes'],
      ['Is it true that Ada Fenn and Jon Sele are both poets?', 'no'],
      // A capitalised kind after the second name is no part of it: no note is about "Harbour Rovers
      // Ice Hockey".
      ['Were the Lindholm Gulls and Harbour Rovers Ice Hockey teams, both of them?', 'yes'],
      ['Were the Lindholm Gulls and the Ostby Owls Ice Hockey teams, both of them?', 'no'],
      ['Are both the Lindholm Gulls and Harbour Rovers Hockey clubs?', 'yes'],
      // "Lindholm" of "Lindholm-based" is asked of both, though it is a word of the first name.
      ['The Lindholm Gulls and the Ostby Owls — are both of them Lindholm-based clubs?', 'no'],
      ['Are the Lindholm Gulls and Harbour Rovers both Lindholm-based clubs?', 'yes'],
    ],
  );
});

describe('the second name as the notes know it', () => {
  const villages = [
    { id: 'tressick', text: 'Tressick\nTressick is a fishing village on the west coast of Veskan.' },
    { id: 'orrin', text: 'Orrin\nOrrin is a fishing village in the south of Veskan.' },
    { id: 'dunmore', text: 'Dunmore\nDunmore is a market town in the north of Dorvia.' },
    { id: 'brask', text: 'Brask\nBrask is a port town of Veskan.' },
    { id: 'selwyn', text: 'Harbour poets\nBrask Selwyn is a poet from Orrin who writes about the sea.' },
    ...people,
  ];
  expectAnswers(villages, [
    // No note writes "Orrin Fishing": the capital the asker gave "Fishing" makes no name of it.
    ['Are Tressick and Orrin Fishing villages?', 'yes'],
    ['Are Tressick and Dunmore Fishing villages?', 'no'],
    // "Brask Selwyn" is written in the notes: a name of its own, not the town Brask.
    ['Are Ada Fenn and Brask Selwyn both poets?', 'yes'],
  ]);
});
