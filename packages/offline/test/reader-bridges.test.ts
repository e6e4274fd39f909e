import { describe, expect, test } from 'vitest';
import { createOfflineTasks } from '../src/index.js';
import { describeAnswers, expectAnswers } from './answer-cases.js';

// Invented encyclopedia entries of a made-up film world (title line, then the entry); the expected
// answers are read off them by hand.
const entry = (title: string, body: string) => ({ id: title, text: `${title}\n${body}` });
const entries = [
  entry(
    'Harrow Vane',
    'Harrow Vane (born 14 March 1961) is a Corvish film director. He is best known for the drama "The Salt Orchard" (1994). Vane was born in Oldmere and studied at the Dunmore Academy of Arts.',
  ),
  entry(
    'The Salt Orchard',
    'The Salt Orchard is a 1994 drama film directed by Harrow Vane and starring Petra Lune and Oskar Brill. It was produced by Lantern Pictures.',
  ),
  entry(
    'Petra Lune',
    'Petra Lune (1958 – 2019) was a Corvish actress. Lune was married to the composer Anselm Rook from 1985 until her death.',
  ),
  entry(
    'Anselm Rook',
    'Anselm Rook (born 1950) is a Corvish composer. He served as principal conductor of the Oldmere Symphony Orchestra from 1988 to 2004.',
  ),
  entry(
    'Dunmore Academy of Arts',
    'The Dunmore Academy of Arts is a private art school in Oldmere. It was founded in 1872 by the painter Ilka Dunmore.',
  ),
  entry(
    'Lantern Pictures',
    'Lantern Pictures is a film production company based in Tessaly. It was established in 1979 by Marta Quell.',
  ),
  entry(
    'Glass Harbour',
    'Glass Harbour is a 2003 thriller film directed by Nadia Orsk. It stars Oskar Brill as a lighthouse keeper. It was filmed on the island of Merrow.',
  ),
  entry(
    'Oskar Brill',
    'Oskar Brill (born 1966) is a Corvish actor. He began his career on stage at the Tessaly Playhouse.',
  ),
];
entries.push(
  entry('Askeby', 'Askeby is a fishing village on the west coast of Corvany, with about 900 inhabitants.'),
  entry('Elin Vass', 'Elin Vass (born 1987) is a Corvish singer. She grew up in Askeby.'),
);
const tasks = createOfflineTasks();
const ask = async (q: string) => (await tasks.answer(q, entries)).answer;

describe('questions through an entity they only describe', () => {
  expectAnswers(entries, [
    // The wh-phrase inside a relative clause: the composer first, then what he conducted.
    ['Petra Lune was married to a composer who conducted which orchestra?', 'Oldmere Symphony Orchestra'],
    [
      'Petra Lune was married to a composer who later conducted which orchestra?',
      'Oldmere Symphony Orchestra',
    ],
    // "the production company of X": the company that produced X.
    ['Where is the production company of The Salt Orchard based?', 'Tessaly'],
    // A relative clause without "that" after a common noun, the main verb after it.
    ['When was the academy Harrow Vane attended founded?', '1872'],
    ['Who founded the academy Harrow Vane attended?', 'Ilka Dunmore'],
    // "the N at which …", "the N in which …": a relative clause after a preposition.
    ['When was the school at which Harrow Vane studied founded?', '1872'],
    // The film found must be one: Harrow Vane, whom the context calls "a Corvish film director",
    // is no film, though "film" stands next to his name.
    ['Who directed the film in which Petra Lune and Oskar Brill starred?', 'Harrow Vane'],
    // The clause ends before the main verb, also when the tagger reads both verbs as other words
    // ("starred" a noun, "married" an adjective).
    ['Who was the woman that starred in The Salt Orchard married to?', 'Anselm Rook'],
  ]);

  test('a name and a verb right after a noun stay the subject and verb of the question', async () => {
    // "the film Glass Harbour filmed …" is no "film that Glass Harbour shot".
    expect(await ask('Where was the film Glass Harbour filmed?')).toBe('Merrow');
  });
});

describeAnswers('what kind of a person or thing', entries, [
  // A kind of a person noun is a common noun ("painter"), not a person's name.
  ['What kind of artist was Ilka Dunmore?', 'painter'],
  ['The founder of the Dunmore Academy of Arts was what kind of artist?', 'painter'],
  // "a thriller film": the words before the noun asked for name the kind.
  ['What type of film is Glass Harbour?', 'thriller'],
]);

describeAnswers('who stands in a role', entries, [
  // The context calls Petra Lune an actress and Anselm Rook a composer.
  ['Which actress was married to a composer?', 'Petra Lune'],
  // A past tense the tagger reads as a noun ("starred") says its verb.
  ['Who starred in Glass Harbour?', 'Oskar Brill'],
  // "It stars X": the film is the subject, its star the object.
  ['Who is the star of Glass Harbour?', 'Oskar Brill'],
  ['The star of Glass Harbour began his career at which theatre?', 'Tessaly Playhouse'],
]);

describe('what two did together', () => {
  const films = [
    // (With two co-writers the chain follows the first named; which one won is not searched.)
    entry('The Long Ferry', 'The Long Ferry is a 1984 drama film co-written by Rosa Vint and Dale Okun.'),
    entry('Rosa Vint', 'Rosa Vint (born 1949) is a Corvish screenwriter. She won the Gull Prize in 1991.'),
    entry('Lantern Row', 'Lantern Row is a 1990 comedy film written by Tomas Brae.'),
    entry('Tomas Brae', 'Tomas Brae (born 1955) is a Corvish writer. He received the Heron Medal in 1995.'),
  ];
  expectAnswers(films, [
    // "co-wrote", "co-writer": who wrote it together wrote it.
    ['Who co-wrote The Long Ferry?', 'Rosa Vint'],
    ['What prize did the co-writer of The Long Ferry win in 1991?', 'Gull Prize'],
    // The writer is who writes ("write"), not a "writ".
    ['What medal did the writer of Lantern Row receive?', 'Heron Medal'],
  ]);
});

describe('how many', () => {
  expectAnswers(entries, [
    // "900 inhabitants" counts people; a population is who lives there.
    ['How many people live in Askeby?', '900'],
    ['What is the population of Askeby?', '900 inhabitants'],
    ['How many people live in the village where Elin Vass grew up?', '900'],
  ]);

  test('"How many times …?" counts "twice" as a number of times', async () => {
    const notes = [
      entry(
        'Ilka Dunmore',
        'Ilka Dunmore was a Corvish painter. She was nominated for the Gull Prize twice and won it in 1890.',
      ),
    ];
    expect(
      (await tasks.answer('How many times was Ilka Dunmore nominated for the Gull Prize?', notes)).answer,
    ).toBe('twice');
  });
});

describe('a song, its singer and its label', () => {
  // Invented entries of a made-up music world.
  const music = [
    entry(
      'Salt Lanterns',
      'Salt Lanterns is a song by Maeve Dunne. It was released in 2016 by Harbour Sound Records.',
    ),
    entry('Maeve Dunne', 'Maeve Dunne (born 1990) is an Irish singer-songwriter from Galway.'),
    entry(
      'Harbour Sound Records',
      'Harbour Sound Records is a record label owned by Corrib Media. It was founded by Ronan Kell in 1994.',
    ),
  ];
  expectAnswers(music, [
    // "What is the N of X?" asks for the N as "What N is X?" does: "Irish" need not say "nationality".
    ['What is the nationality of Maeve Dunne?', 'Irish'],
    // "the (record) label of X": the label that released X.
    ['Who owns the record label of Salt Lanterns?', 'Corrib Media'],
    // A relative clause without "that" in the passive.
    ['Who founded the label Salt Lanterns was released on?', 'Ronan Kell'],
  ]);
});

describe('a town, its mayor and its team', () => {
  // Invented entries of a made-up town.
  const town = [
    entry(
      'Wenna Strand',
      'Wenna Strand (born 1950) is a Corvish politician. She served as Mayor of Kettlemouth from 1996 to 2004.',
    ),
    entry('Kettlemouth', 'Kettlemouth is a port town in Corvany. It has a population of 12,400.'),
    entry('Kettlemouth Herons', 'The Kettlemouth Herons are a professional water polo team founded in 1931.'),
    entry(
      'Slipway Baths',
      'The Slipway Baths are a swimming venue in Kettlemouth, Corvany, home of the Kettlemouth Herons.',
    ),
  ];
  expectAnswers(town, [
    // A name that opens with what the question says ("Mayor of …") also stands as the rest.
    ['Which town was Wenna Strand mayor of?', 'Kettlemouth'],
    ['What is the population of the town that Wenna Strand was mayor of?', '12,400'],
    // "served as" holds an office.
    ['What office did Wenna Strand hold?', 'Mayor of Kettlemouth'],
    // "a water polo team" names the sport, though no sentence says "play" it.
    ['What sport do the Kettlemouth Herons play?', 'water polo'],
    ['What sport does the team based at the Slipway Baths play?', 'water polo'],
    // The place found lies in the one asked: "a port town in Corvany", "… in Kettlemouth, Corvany".
    ['Are the Slipway Baths in Corvany?', 'yes'],
    ['Are the Slipway Baths in Halland?', 'no'],
  ]);
});
