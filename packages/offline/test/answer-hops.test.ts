import { describe, expect, test } from 'vitest';
import { readQuestion } from '../src/reader/question.js';
import { findRelationPhrase, pairedNames, substitute } from '../src/reader/chain.js';
import { createOfflineTasks } from '../src/index.js';
import { analyze } from '../src/nlp.js';

// Hand-written passages about invented films, people and places, each item with its title line
// (as the methods pack them). The expected answers are read off the passages.
const films = [
  {
    id: 'harbour',
    text: 'Harbour Lights\nHarbour Lights is a 1961 British drama film directed by Mirela Vos. It was shot in the port of Kaltern.',
  },
  {
    id: 'meadow',
    text: 'Quiet Meadow\nQuiet Meadow is a 1950 American western film directed by Jon Beck and starring Ada Flint.',
  },
  {
    id: 'vos',
    text: 'Mirela Vos\nMirela Vos (born 3 March 1920 in Kaltern; died 9 May 1990 in Ostrava) was a Czech film director. She studied painting in Brno.',
  },
  {
    id: 'beck',
    text: 'Jon Beck\nJon Beck (12 June 1930 – 2 April 2001) was a Czech film director and screenwriter. He was born in Liberec.',
  },
];
const family = [
  {
    id: 'tobias',
    text: 'Tobias Renn\nTobias Renn (1702 – 1770) was a merchant of Dorvik. He was the son of Aldo Renn and Greta Maal. He married Clara Voss in 1730.',
  },
  {
    id: 'aldo',
    text: 'Aldo Renn\nAldo Renn (1660, Halmstad – 1731, Ulmsted) was a shipbuilder. He was the son of Piet Renn.',
  },
  {
    id: 'greta',
    text: 'Greta Maal\nGreta Maal was a weaver. She was born in Selby and she died in Dorvik.',
  },
  {
    id: 'otto',
    text: 'Otto Hart\nOtto Hart was a sailor. He was the son of Lena Hart and Bram Olsen.',
  },
  {
    id: 'lena',
    text: 'Lena Hart\nLena Hart was a singer. She toured with her sister, and she retired in 1950.',
  },
  {
    id: 'clara',
    text: 'Clara Voss\nClara Voss was a painter. In 1900 she married the engraver Emil Voss.',
  },
  {
    id: 'emil',
    text: 'Emil Voss\nEmil Voss (born 1870 in Tarnow) was an engraver.',
  },
];
const tasks = createOfflineTasks();
const tokensOf = async (q: string) => (await analyze(q)).tokens;

describe('relation phrases in questions', () => {
  test('"the R of [type noun] Name" and "Name\'s R"', async () => {
    const director = findRelationPhrase(
      await tokensOf('Where was the director of film Harbour Lights born?'),
    );
    expect(director?.subject).toBe('Harbour Lights');
    expect(director?.relations).toEqual([{ kind: 'role', noun: 'director', verbs: ['direct'] }]);
    const father = findRelationPhrase(await tokensOf("What is the date of death of Tobias Renn's father?"));
    expect(father?.subject).toBe('Tobias Renn');
    expect(father?.relations).toEqual([{ kind: 'kin', base: 'parent', gender: 'male' }]);
  });

  test('kinship compounds are chains of basic relations', async () => {
    const grandfather = findRelationPhrase(await tokensOf('Who is the paternal grandfather of Tobias Renn?'));
    expect(grandfather?.relations.map((r) => (r.kind === 'kin' ? `${r.base}:${r.gender}` : r.noun))).toEqual([
      'parent:male',
      'parent:male',
    ]);
    const inLaw = findRelationPhrase(await tokensOf("Who is Clara Voss's mother-in-law?"));
    expect(inLaw?.subject).toBe('Clara Voss');
    expect(inLaw?.relations.map((r) => (r.kind === 'kin' ? `${r.base}:${r.gender}` : r.noun))).toEqual([
      'spouse:null',
      'parent:female',
    ]);
  });

  test('no chain in a name ("Son of Kestrel"), in a plural, or without a named subject', async () => {
    expect(findRelationPhrase(await tokensOf('Who directed Son of Kestrel?'))).toBeNull();
    expect(
      findRelationPhrase(await tokensOf('Are the directors of films Harbour Lights and Quiet Meadow Czech?')),
    ).toBeNull();
    expect(findRelationPhrase(await tokensOf('Who is the father of the bride?'))).toBeNull();
  });

  test('the phrase is replaced by the entity; a bare "Who is X?" means X is the answer', async () => {
    const tokens = await tokensOf('Where was the director of film Harbour Lights born?');
    expect(substitute(tokens, findRelationPhrase(tokens)!, 'Mirela Vos')).toEqual({
      text: 'Where was Mirela Vos born?',
      whole: false,
    });
    const who = await tokensOf('Who is the father of Tobias Renn?');
    expect(substitute(who, findRelationPhrase(who)!, 'Aldo Renn').whole).toBe(true);
  });

  test('the two coordinated names of a comparison, title-cased "And" kept inside a name', async () => {
    expect(
      pairedNames(await tokensOf('Are The Pit And The Pendulum and Quiet Meadow from the same country?')),
    ).toEqual(['The Pit And The Pendulum', 'Quiet Meadow']);
    expect(pairedNames(await tokensOf('Does Mirela Vos have the same nationality as Jon Beck?'))).toEqual([
      'Mirela Vos',
      'Jon Beck',
    ]);
  });
});

describe('answers through relations', () => {
  const ask = (q: string, context = [...films, ...family]) => tasks.answer(q, context);

  test('the director of a film, then what the question asks about the director', async () => {
    const born = await ask('Where was the director of film Harbour Lights born?');
    expect(born.answer).toBe('Kaltern');
    expect(born.citations).toEqual(['vos', 'harbour']);
    expect((await ask('Who is the director of film Quiet Meadow?')).answer).toBe('Jon Beck');
  });

  test('place and date of a life event: the ones that follow its verb', async () => {
    expect((await ask('Where did the director of film Harbour Lights die?')).answer).toBe('Ostrava');
    expect((await ask('What is the date of death of the director of film Harbour Lights?')).answer).toBe(
      '9 May 1990',
    );
  });

  test('parents: "son of A and B" is father A, mother B', async () => {
    expect((await ask('Who is the father of Tobias Renn?')).answer).toBe('Aldo Renn');
    expect((await ask("Who is Tobias Renn's mother?")).answer).toBe('Greta Maal');
    expect((await ask('Who is the paternal grandfather of Tobias Renn?')).answer).toBe('Piet Renn');
    expect((await ask("Where was Tobias Renn's mother born?")).answer).toBe('Selby');
  });

  test("a parent's own item decides the gender (she: not the father)", async () => {
    expect((await ask('Who is the father of Otto Hart?')).answer).toBe('Bram Olsen');
    expect((await ask('Who is the mother of Otto Hart?')).answer).toBe('Lena Hart');
  });

  test('a spouse may share the surname', async () => {
    expect((await ask('Where was the husband of Clara Voss born?')).answer).toBe('Tarnow');
  });

  test('a life span in brackets: birth before the dash, death after it', async () => {
    expect((await ask("What is the place of birth of Tobias Renn's father?")).answer).toBe('Halmstad');
    expect((await ask("Where did Tobias Renn's father die?")).answer).toBe('Ulmsted');
    expect((await ask('When did Jon Beck die?')).answer).toBe('2 April 2001');
  });

  test("an unresolved relation: the subject's own dates are not the answer", async () => {
    const context = [
      { id: 'ada', text: 'Ada Quill\nAda Quill (born 4 June 1950) is a poet from Selby.' },
      {
        id: 'henrik',
        text: 'Henrik Quill\nHenrik Quill (born 2 May 1921) was a sailor, the father of Ada Quill.',
      },
    ];
    expect((await tasks.answer("When was Ada Quill's grandmother born?", context)).answer).not.toBe(
      '4 June 1950',
    );
  });
});

describe('comparisons', () => {
  const ask = (q: string, context = [...films, ...family]) => tasks.answer(q, context);

  test('through the relation the question names, when both related items date them', async () => {
    // The films' own years (1961 > 1950) would say Harbour Lights; the directors' (1920 < 1930)
    // say Quiet Meadow.
    expect(
      (await ask('Which film has the director born later, Harbour Lights or Quiet Meadow?')).answer,
    ).toBe('Quiet Meadow');
    // Without the directors' items, the films' own years stand in.
    expect(
      (
        await ask(
          'Which film has the director born later, Harbour Lights or Quiet Meadow?',
          films.slice(0, 2),
        )
      ).answer,
    ).toBe('Harbour Lights');
  });

  test('"lived longer" compares life spans, not dates', async () => {
    const context = [
      { id: 'a', text: 'Ivo Brandt\nIvo Brandt (1800 – 1890) was an Austrian composer.' },
      { id: 'b', text: 'Marta Sels\nMarta Sels (1850 – 1900) was a painter.' },
    ];
    expect((await tasks.answer('Who lived longer, Ivo Brandt or Marta Sels?', context)).answer).toBe(
      'Ivo Brandt',
    );
    expect((await tasks.answer('Who lived longer, Marta Sels or Ivo Brandt?', context)).answer).toBe(
      'Ivo Brandt',
    );
  });

  test("the first dated sentence of an option's own item dates it", async () => {
    const context = [
      {
        id: 'a',
        text: 'Silver Tide\nSilver Tide is a 1940 adventure film. In 1966 Silver Tide was cut down into two television films.',
      },
      { id: 'b', text: 'Night Ferry\nNight Ferry is a 1951 crime film.' },
    ];
    expect(
      (await tasks.answer('Which film came out first, Silver Tide or Night Ferry?', context)).answer,
    ).toBe('Silver Tide');
  });

  test('option names may hold a comma; the opening auxiliary is not part of one', async () => {
    const options = async (q: string) => readQuestion(await tokensOf(q)).options;
    expect(await options('Which film came out first, Love, Honour And Obey or Night Ferry?')).toEqual([
      'Love, Honour And Obey',
      'Night Ferry',
    ]);
    expect(await options('Is Kestrel College or Dunvale University public?')).toEqual([
      'Kestrel College',
      'Dunvale University',
    ]);
  });

  test('the same country: nationality adjectives and country names read as countries', async () => {
    const context = [
      { id: 'a', text: 'Ivo Brandt\nIvo Brandt was an Austrian composer.' },
      { id: 'b', text: 'Marta Sels\nMarta Sels is a painter from Austria.' },
      { id: 'c', text: 'Pia Lund\nPia Lund is a Chilean poet.' },
    ];
    expect((await tasks.answer('Are Ivo Brandt and Marta Sels from the same country?', context)).answer).toBe(
      'yes',
    );
    expect(
      (await tasks.answer('Are Ivo Brandt and Pia Lund both from the same country?', context)).answer,
    ).toBe('no');
  });

  test('the same country through a relation: the directors, not the films', async () => {
    // The films are British and American; both directors are Czech.
    expect(
      (await ask('Are the directors of films Harbour Lights and Quiet Meadow both from the same country?'))
        .answer,
    ).toBe('yes');
  });
});

describe('answer types', () => {
  test('"what nationality": the nationality adjective', async () => {
    expect((await tasks.answer('What nationality is the director of film Quiet Meadow?', films)).answer).toBe(
      'Czech',
    );
  });

  test('"which country": a country under another name, not an adjective before a noun', async () => {
    const context = [
      {
        id: 'maro',
        text: 'Maro Tesh\nMaro Tesh was the third king of Siam. He embraced Western music and founded a school of Siam.',
      },
    ];
    expect((await tasks.answer('Which country is Maro Tesh from?', context)).answer).toBe('Siam');
  });

  test('"when": the full date as written, a date without its year last', async () => {
    const context = [
      {
        id: 'vos',
        text: 'Mirela Vos\nMirela Vos was a director. She died on 9 May 1990. Every year on 9 May her students meet.',
      },
    ];
    expect((await tasks.answer('When did Mirela Vos die?', context)).answer).toBe('9 May 1990');
  });
});
