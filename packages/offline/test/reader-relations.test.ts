import { describe, expect, test } from 'vitest';
import { createOfflineTasks, NO_ANSWER } from '../src/index.js';
import { analyze } from '../src/nlp.js';
import { findRelationPhrase } from '../src/reader/chain.js';
import { findDescription } from '../src/reader/decompose.js';
import { findEventPlace } from '../src/reader/events.js';
import { describedName } from '../src/reader/polar.js';
import { normalizeWording } from '../src/reader/wording.js';

// Invented notes about an invented mill town, written for these tests: family relations said in
// several ways, spans of time, numbers with units, and facts the notes do not hold. The expected
// answers are read off the notes.
const notes = [
  {
    id: 'family',
    text: [
      'Orme family notes, kept by Wenna Orme.',
      'Petra and Hollis Orme had three children, Bran (born 1960), Wenna (born 1963) and Lise (born 1966).',
      'In 1990 Wenna married Arvo Pell, a glassblower, and their son Tam was born in 1994.',
      "Arvo's sister, Saskia, keeps the tea room on Mill Lane.",
      'She says her brother Arvo was always the better glassblower.',
    ].join(' '),
  },
  {
    id: 'walk',
    text: [
      'Walk log, Wenna. Sunday 4 May 2025.',
      'Tam and I climbed to the old weir house, where my grandfather Ansel kept the sluices.',
      'The weir house was built in 1872, and my grandfather Ansel kept it until 1968.',
    ].join(' '),
  },
  {
    id: 'mill',
    text: [
      'A short history of the Kestry Mill.',
      'Ansel Orme ran the Kestry Mill from 1931 until 1968.',
      'The new turbine is about 70 percent installed, and the three gearboxes came in March.',
      'The mill trust now has 418 members; 52 members came to the spring meeting.',
      'Until 1970 the grain was carried by the Heron, a barge built in 1932.',
    ].join(' '),
  },
];
const tasks = createOfflineTasks();
const ask = (q: string) => tasks.answer(q, notes);
const tokensOf = async (q: string) => (await analyze(q)).tokens;

describe('kinship the notes state in several ways', () => {
  test('a kinship noun said outright ("my grandfather Ansel") resolves a two-step relation', async () => {
    const phrase = findRelationPhrase(await tokensOf("Who is Wenna Orme's grandpa?"));
    expect(phrase?.noun).toBe('grandfather');
    expect((await ask("Who is Wenna Orme's grandfather?")).answer).toBe('Ansel');
  });

  test('children listed together are siblings, and a sibling-in-law is the spouse’s sibling', async () => {
    expect((await ask("Who is Wenna's brother?")).answer).toBe('Bran');
    expect((await ask("Who is Arvo Pell's brother-in-law?")).answer).toBe('Bran');
  });

  test('the parent the notes call a man is the father; his sister is the aunt on that side', async () => {
    expect((await ask("Who is Tam's father?")).answer).toMatch(/^Arvo( Pell)?$/);
    expect((await ask("Who is Tam's aunt on his father's side?")).answer).toBe('Saskia');
    expect((await ask('Which aunt does Tam have through his dad?')).answer).toBe('Saskia');
  });

  test('"Which R does X have" is read as "Who is X\'s R"', () => {
    expect(normalizeWording('Which aunt does Tam have through his dad?')).toBe(
      "Who is Tam's aunt through his dad?",
    );
    // Not a kinship noun: left as it is.
    expect(normalizeWording('Which boat does Tam have?')).toBe('Which boat does Tam have?');
  });

  test('a relative nobody names is unknown, not someone reached through a shared name', async () => {
    const a = await ask("Who is Saskia's husband?");
    expect(a.answer).toBe(NO_ANSWER);
    expect(a.citations).toEqual([]);
  });
});

describe('time, numbers and voice', () => {
  test('"stop" asks for the end of a span of time, "start" for its beginning', async () => {
    expect((await ask('In which year did Ansel Orme stop running the Kestry Mill?')).answer).toBe('1968');
    expect((await ask('In which year did Ansel Orme start running the Kestry Mill?')).answer).toBe('1931');
  });

  test('a unit named last picks the number in that unit', async () => {
    expect((await ask('How far along is the new turbine, in percent?')).answer).toMatch(
      /^(about )?70 percent$/,
    );
  });

  test('"now" prefers what holds now over what held at a meeting', async () => {
    expect((await ask("What's the membership of the mill trust now?")).answer).toMatch(/^418( members)?$/);
  });

  test('a date right after another verb ("revised March 2024") is not when something started', async () => {
    const list = [
      {
        id: 'staff',
        text: 'Volunteers of the Kestry Mill trust, for new starters (revised March 2024). Bran Orme: guide on Saturdays.',
      },
    ];
    expect((await tasks.answer('When did Bran Orme start at the Kestry Mill trust?', list)).answer).toBe(
      NO_ANSWER,
    );
  });

  test('a passive without "by" names nobody who did it, nor "by" another verb', async () => {
    for (const q of [
      'Who built the weir house?',
      'The weir house was built by whom?',
      'Who built the Heron?',
    ])
      expect((await ask(q)).answer, q).toBe(NO_ANSWER);
  });
});

describe('measures', () => {
  const pond = [
    {
      id: 'pond',
      text: 'The Kestry mill pond is about forty metres wide and rarely deeper than three metres. Two sluices feed it.',
    },
  ];
  test('"how wide / deep" is a number with its unit of measure; a count or a year is no measure', async () => {
    expect((await tasks.answer('How wide is the Kestry mill pond?', pond)).answer).toBe('forty metres');
    expect((await tasks.answer('How deep is the Kestry mill pond?', pond)).answer).toBe('three metres');
    // Not stated: "two sluices" counts sluices, it does not measure the pond.
    expect((await tasks.answer('How long is the Kestry mill pond?', pond)).answer).toBe(NO_ANSWER);
  });
});

describe('descriptions', () => {
  test('a participle after its auxiliary stays in the clause ("where the barge was built")', async () => {
    const d = findDescription(await tokensOf('When was the yard where the Heron was built started?'));
    expect(d?.question).toBe('Which yard is where the Heron was built?');
  });
});

describe('a name against a description', () => {
  test('"Is X the N where …?" asks the description and compares its answer with X', async () => {
    expect(describedName(await tokensOf('Is Kestry the town where Bran was born?'), 1)).toBe(
      'Where Bran was born?',
    );
    expect(describedName(await tokensOf('Is Kestry in Wales?'), 1)).toBeNull();
  });
});

// Items as the methods pack them: a title line, then the passage.
const places = [
  {
    id: 'institute',
    text: 'Orrin Institute of Tidal Studies\nThe Orrin Institute of Tidal Studies is a research station on the island of Vell. Since 2011 the institute has been directed by the chemist Maud Selden.',
  },
  {
    id: 'selden',
    text: 'Maud Selden\nMaud Selden is a chemist born in Larrow in 1969. She is married to the painter Oskar Brae.',
  },
  {
    id: 'larrow',
    text: 'Larrow\nLarrow is a market town on the River Tave, about thirty kilometres west of Vell Harbour.',
  },
];

describe('names, places and chains through them', () => {
  test('a short form of a title ("Orrin Institute") finds the item the title names', async () => {
    expect((await tasks.answer('Who is the director of the Orrin Institute?', places)).answer).toBe(
      'Maud Selden',
    );
    expect(
      (await tasks.answer('Who is the husband of the director of the Orrin Institute?', places)).answer,
    ).toBe('Oskar Brae');
  });

  test('the place of a life event is found before what the question asks of it', async () => {
    const place = findEventPlace(await tokensOf('What river does the birthplace of Maud Selden lie on?'));
    expect(place?.question).toBe('Where was Maud Selden born?');
    expect(findEventPlace(await tokensOf("On which river is Maud Selden's hometown?"))?.question).toBe(
      'Where was Maud Selden born?',
    );
    for (const q of [
      'What river does the birthplace of Maud Selden lie on?',
      "What river flows through the birthplace of the Orrin Institute's director?",
    ])
      expect((await tasks.answer(q, places)).answer, q).toBe('River Tave');
  });
});

describe('what someone or something is', () => {
  const people = [
    {
      id: 'medal',
      text: 'The Orrin Prize\nThe Orrin Prize is an award for tidal research. It is named after Edda Orrin, a lighthouse keeper of Vell Harbour. Mayor Tomas Orrin, a former ferry engineer, is her grandson.',
    },
    ...places,
  ];
  test('the noun phrase the context calls a name by, in any of the usual wordings', async () => {
    for (const [q, a] of [
      ['Who was Edda Orrin?', 'lighthouse keeper'],
      ['What was the profession of Edda Orrin?', 'lighthouse keeper'],
      ["What was Edda Orrin's job?", 'lighthouse keeper'],
      ['What does Tomas Orrin do for a living?', 'former ferry engineer'],
      ['Who is Maud Selden?', 'chemist'],
      ['What is the Orrin Prize?', 'award'],
      ['What was the profession of the woman the Orrin Prize is named after?', 'lighthouse keeper'],
    ] as const)
      expect((await tasks.answer(q, people)).answer, q).toBe(a);
  });

  test('another person of the same surname is not the one asked about; nothing said is unknown', async () => {
    expect((await tasks.answer('Who was Ada Orrin?', people)).answer).toBe(NO_ANSWER);
    expect((await tasks.answer('Who is Oskar Brae?', people)).answer).toBe('painter');
  });
});
