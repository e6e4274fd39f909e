import { describe, expect, test } from 'vitest';
import { createOfflineTasks } from '../src/index.js';
import { isKindByWordNet } from '../src/wordnet.js';
import { expectAnswers } from './answer-cases.js';

// Invented notes of a harbour town; the expected answers are read off them.
const notes = [
  {
    id: 'cello',
    text: 'Ilse Marren plays the cello in the Merrow Falls chamber orchestra. She moved to the town in 2011.',
  },
  {
    id: 'quill',
    text: 'Tomas Quill is a retired schoolteacher who coaches rowing at the Gig Club on weekends.',
  },
  {
    id: 'gull',
    text: 'The Brannock Gull is a small tern that nests on the cliffs north of the harbour. Its eggs are speckled.',
  },
  {
    id: 'film',
    text: 'Harbour Lights is a 2016 documentary about the lighthouse keepers of the coast, directed by Nell Ardry.',
  },
  { id: 'pell', text: 'Jory Pell speaks Danish at home and teaches German at the Brinemark Institute.' },
];
const tasks = createOfflineTasks();
const ask = async (q: string) => (await tasks.answer(q, notes)).answer;

describe('questions that ask for a kind of thing', () => {
  expectAnswers(notes, [
    ['What instrument does Ilse Marren play?', 'cello'],
    ['Which instrument is played by Ilse Marren?', 'cello'],
    ['What sport does Tomas Quill coach?', 'rowing'],
    ['What type of film is Harbour Lights?', 'documentary'],
    ['What language does Jory Pell teach?', 'German'],
  ]);

  test('"what kind of X" asks for a kind of X, which the answer sentence need not name', async () => {
    expect(await ask('What kind of bird is the Brannock Gull?')).toMatch(/\btern$/);
  });

  test('a named answer still wins where the question asks for one ("which film")', async () => {
    expect(await ask('Which film did Nell Ardry direct?')).toBe('Harbour Lights');
  });
});

describe('yes/no questions about a kind', () => {
  const more = [
    ...notes,
    { id: 'heron', text: 'The Grey Heron is a passenger ferry that sails from Merrow Falls to Gullhaven.' },
    { id: 'kittiwake', text: 'The Kittiwake is a seabird of the northern coasts.' },
    { id: 'tamblin', text: 'Osric Tamblin is a Danish painter known for his harbour scenes.' },
    { id: 'rusk', text: 'Alma Rusk is a screenwriter and a former ferry pilot.' },
    { id: 'ode', text: 'Bertil Ode is a Danish author of sea stories.' },
  ];
  expectAnswers(more, [
    // What the context calls the subject ("a small tern") is a kind of what is asked, or is not.
    ['Is the Brannock Gull a bird?', 'yes'],
    // The name says heron; the context says ferry.
    ['Is the Grey Heron a bird?', 'no'],
    ['Are the Brannock Gull and the Kittiwake both birds?', 'yes'],
    ['Are the Brannock Gull and the Grey Heron both birds?', 'no'],
    ['Is Osric Tamblin a musician?', 'no'],
    // Two agent nouns of one verb are not kinds of each other: a screenwriter is no novelist.
    ['Is Alma Rusk a novelist?', 'no'],
    ['Is Alma Rusk a writer?', 'yes'],
    // One WordNet concept: an author is a writer.
    ['Is Bertil Ode a writer?', 'yes'],
  ]);
});

describe('chains through a kind of thing, and relation verbs wink counts as stop words', () => {
  const orchestra = [
    { id: 'plays', text: 'Ilse Marren plays a cello in the Merrow Falls orchestra.' },
    { id: 'maker', text: 'Her cello was made by Aldo Ferri in 1921.' },
    { id: 'founded', text: 'The Merrow Falls orchestra was founded by Tomas Quill.' },
  ];
  expectAnswers(orchestra, [
    // "made" says the relation asked about (wink lists it as a stop word).
    ['Who made the cello?', 'Aldo Ferri'],
    // The instrument she plays is the cello (a kind of instrument), then who made it.
    ['Who made the instrument that Ilse Marren plays?', 'Aldo Ferri'],
  ]);
});

describe('WordNet kinds', () => {
  test.each([
    ['cello', 'instrument', true],
    ['tern', 'bird', true],
    ['rowing', 'sport', true],
    ['german', 'language', true],
    ['oak', 'tree', true],
    // A phrase WordNet does not list is a kind of what its last word is.
    ['steel trawler', 'vessel', true],
    ['orchestra', 'instrument', false],
    ['cello', 'bird', false],
    // A word is not a kind of itself; an unknown word is a kind of nothing.
    ['bird', 'bird', false],
    ['zzxqv', 'bird', false],
  ])('%s is a kind of %s: %s', (word, kind, expected) => {
    expect(isKindByWordNet(word, kind)).toBe(expected);
  });
});
