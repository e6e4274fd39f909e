import { describe, expect, test } from 'vitest';
import { createOfflineTasks } from '../src/index.js';
import { analyze } from '../src/nlp.js';
import { polarComparison } from '../src/reader/comparatives.js';
import { describeAnswers, expectAnswers } from './answer-cases.js';

// Invented notes about a harbour town's musicians, papers, ships and bands, written for these tests;
// the expected answers are read off the notes.
const notes = [
  {
    id: 'wren',
    text: 'Tobias Wren\nTobias Wren (born 4 May 1890) is an English composer and organist. Wren died in 1968 in Merrow Falls.',
  },
  { id: 'falk', text: 'Ruben Falk\nRuben Falk (1885 – 1960) was a Danish composer and pianist.' },
  {
    id: 'inst',
    text: 'Lindqvist Institute\nThe Lindqvist Institute is a music school in Ostby, founded in 1911.',
  },
  {
    id: 'yard',
    text: 'Kessler Yard\nThe Kessler Yard is a shipyard in Merrow Falls. It was founded in 1901.',
  },
  { id: 'tern', text: 'Arctic Tern (band)\nArctic Tern is a folk band from Ostby formed in 1999.' },
  { id: 'ravens', text: 'The Ravens\nThe Ravens are a rock band from Lindholm formed in 1987.' },
  {
    id: 'heron',
    text: 'Grey Heron\nThe Grey Heron is a ferry that sails between Merrow Falls and Lindholm.',
  },
];
const tasks = createOfflineTasks();
const ask = async (q: string) => (await tasks.answer(q, notes)).answer;

describe('yes/no questions that compare two things', () => {
  expectAnswers(notes, [
    ['Was the Kessler Yard founded before the Lindqvist Institute?', 'yes'],
    ['Is the Lindqvist Institute older than the Kessler Yard?', 'no'],
    ['Is Tobias Wren older than Ruben Falk?', 'no'],
    ['Did Ruben Falk die before Tobias Wren?', 'yes'],
    ['Were The Ravens formed after Arctic Tern?', 'no'],
    ['Was Arctic Tern formed later than The Ravens?', 'yes'],
  ]);

  test('cites the items of both things compared', async () => {
    const a = await tasks.answer('Was the Kessler Yard founded before the Lindqvist Institute?', notes);
    expect([...a.citations].sort()).toEqual(['inst', 'yard']);
  });

  test('only a name, lower-case words with a comparative, and a name that ends the question', async () => {
    const read = async (q: string) => polarComparison((await analyze(q)).tokens);
    expect(await read('Was the Kessler Yard founded before the Lindqvist Institute?')).toEqual([
      'Kessler Yard',
      'Lindqvist Institute',
    ]);
    expect(await read('Is Tobias Wren older than Ruben Falk?')).toEqual(['Tobias Wren', 'Ruben Falk']);
    // A year, a pronoun, another name in between, or words after the second name: no comparison.
    expect(await read('Did Tobias Wren live in Ostby before 1950?')).toBeNull();
    expect(await read('Was Ruben Falk a pianist before he taught?')).toBeNull();
    expect(await read('Did Ilse Marren work at the Kessler Yard before the Lindqvist Institute?')).toBeNull();
    expect(await read('Was Ruben Falk born before Tobias Wren moved away?')).toBeNull();
    expect(await read('Who was born before Tobias Wren?')).toBeNull();
  });
});

describe('yes/no and choice questions in everyday shapes', () => {
  expectAnswers(notes, [
    // A statement with a tag, or without a verb at all, asked as a question.
    ['Both Tobias Wren and Ruben Falk are composers, right?', 'yes'],
    ["Tobias Wren and Ruben Falk were both Danish, weren't they?", 'no'],
    ['Tobias Wren and Ruben Falk — same nationality?', 'no'],
    ['Tobias Wren and Ruben Falk are both composers?', 'yes'],
    // "Which one of A and B" is "which of A and B".
    ['Which one of Tobias Wren and Ruben Falk was born first?', 'Ruben Falk'],
  ]);

  test('a noun phrase alone asks for it, not yes or no', async () => {
    expect(await ask('The founding year of the Kessler Yard?')).toBe('1901');
  });
});

describeAnswers('a yes/no question about a kind of thing', notes, [
  // Another noun before the same head is another kind: a folk band is no rock band.
  ['Is Arctic Tern a rock band?', 'no'],
  ['Is The Ravens a rock band?', 'yes'],
  ['Are Arctic Tern and The Ravens both rock bands?', 'no'],
  ['Are Arctic Tern and The Ravens both bands?', 'yes'],
  // No modifier in the context, or an adjective in the question, excludes nothing.
  ['Is the Grey Heron a passenger ferry?', 'yes'],
  ['Is Ruben Falk a famous pianist?', 'yes'],
]);

describe('numbers of the thing asked about', () => {
  // Invented notes about two ferries, written for these tests.
  const ferries = [
    { id: 'osprey', text: 'The Osprey carries 80 cars, ten more than the Kittiwake. She was built in 1988.' },
    {
      id: 'kittiwake',
      text: 'The Kittiwake is the older ferry. The Kittiwake carries 70 cars and 300 people.',
    },
    { id: 'trip', text: 'We took the 7:15 Osprey to Lindholm on Saturday. The Osprey seats 200 people.' },
  ];
  expectAnswers(ferries, [
    // "80 cars, ten more than the Kittiwake" is the Osprey's number, not the Kittiwake's.
    ['How many cars does the Kittiwake carry?', '70'],
    ['How many cars does the Osprey carry?', '80'],
    // What a ferry carries or seats, it takes; a time of day counts no people.
    ['The Kittiwake takes how many cars?', '70'],
    ['The Osprey takes how many people?', '200'],
  ]);
});

describe('the year a question names', () => {
  // Invented notes about a town's medal, written for these tests.
  const medal = [
    {
      id: 'medal',
      text: 'The Brandt Medal\nRecipients include the geologist Ruben Falk in 2019 for his maps of the coast, and Ilse Marren in 2022 for her survey of the eelgrass.',
    },
    {
      id: 'marren',
      text: 'Ilse Marren\nIlse Marren is a marine biologist. In 2022 she received the Brandt Medal.',
    },
  ];
  expectAnswers(medal, [
    // A sentence that dates its event to another year does not answer for the year asked.
    ['Who won the Brandt Medal in 2019?', 'Ruben Falk'],
    ['Who received the Brandt Medal in 2022?', 'Ilse Marren'],
  ]);
});

describe('"both" yes/no questions about a property', () => {
  // Invented entries of made-up bands, players and magazines.
  const entries = [
    {
      id: 'orchard',
      text: 'Pale Orchard is an American indie rock band formed in Portland, Oregon in 2004.',
    },
    {
      id: 'anchor',
      text: 'Velvet Anchor were a British rock band from Manchester, active from 1979 to 1988.',
    },
    {
      id: 'vey',
      text: 'Corran Vey (born 1961) is a Scottish footballer who played as a midfielder for Dunmore Rovers.',
    },
    {
      id: 'blaine',
      text: 'Iver Blaine (born 1958) is a retired English footballer. Blaine spent his career at Dunmore Rovers and Kestrel Town.',
    },
    {
      id: 'gannet',
      text: 'The Gannet Review is a quarterly literary magazine published in London since 1952.',
    },
    { id: 'weekly', text: 'Harbour Weekly is a news magazine published in Toronto, Canada.' },
  ];
  expectAnswers(entries, [
    // A nationality or country asked is checked against the countries each item says.
    ['Are Pale Orchard and Velvet Anchor both American bands?', 'no'],
    ['Are Corran Vey and Iver Blaine both from the United Kingdom?', 'yes'],
    ['Are Corran Vey and Iver Blaine both British?', 'yes'],
    ['Are Pale Orchard and Velvet Anchor both rock bands?', 'yes'],
    // "Did … both play for …?" asks an act, not a kind, though the tagger reads "play" as a noun.
    ['Did Corran Vey and Iver Blaine both play for Dunmore Rovers?', 'yes'],
    ['Did Corran Vey and Iver Blaine both play for Kestrel Town?', 'no'],
    // A name the question asks about must be said of each.
    ['Are The Gannet Review and Harbour Weekly both published in London?', 'no'],
    ['Are The Gannet Review and Harbour Weekly both magazines?', 'yes'],
  ]);
});

describe('"longer" of lengths', () => {
  // Invented rivers; "longer" without "has been" compares the lengths, not how long since a start.
  const rivers = [
    {
      id: 'River Tamsel',
      text: 'River Tamsel\nThe River Tamsel is a river in Cornwall, England. It is 41 kilometres long.',
    },
    {
      id: 'River Quell',
      text: 'River Quell\nThe River Quell is a river in Norway. It is 118 kilometres long.',
    },
  ];
  expectAnswers(rivers, [
    ['Which river is longer, the River Tamsel or the River Quell?', 'the River Quell'],
    ['Which river is shorter, the River Tamsel or the River Quell?', 'the River Tamsel'],
  ]);
});

describe('the measure a comparative asks for', () => {
  // Two numbers in one sentence: the one next to "deep" or "tall" is the one compared.
  const lakes = [
    {
      id: 'Orrin Lake',
      text: 'Orrin Lake\nOrrin Lake is a lake in Finland. It covers 84 square kilometres and is 31 metres deep.',
    },
    {
      id: 'Vessa Lake',
      text: 'Vessa Lake\nVessa Lake is a lake in Sweden. It covers 120 square kilometres and is 18 metres deep.',
    },
  ];
  expectAnswers(lakes, [
    ['Which lake is deeper, Orrin Lake or Vessa Lake?', 'Orrin Lake'],
    ['Is Vessa Lake deeper than Orrin Lake?', 'no'],
  ]);
});
