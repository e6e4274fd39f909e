import { describe, expect, test } from 'vitest';
import { createOfflineTasks, NO_ANSWER } from '../src/index.js';
import { analyze } from '../src/nlp.js';
import { findDescription } from '../src/reader/decompose.js';
import { readQuestion } from '../src/reader/question.js';
import { reorderQuestion } from '../src/reader/setups.js';
import { sharedQuestion } from '../src/reader/shared.js';

// Invented notes about invented musicians, scientists and ships of a harbour town, written for
// these tests; the expected answers are read off the notes.
const notes = [
  {
    id: 'wren',
    text: 'Tobias Wren is an English composer and organist. He wrote the Harbour Suite in 1931. Wren died in 1968 in Merrow Falls.',
  },
  {
    id: 'falk',
    text: 'Ruben Falk was a Danish composer and pianist. Falk taught at the Lindqvist Institute from 1950 until 1972.',
  },
  {
    id: 'brandt',
    text: 'Edvard Brandt was a Norwegian marine biologist. Brandt helped Ruben Falk write the Tide Songs, a cycle about the sea. Brandt died in 1974.',
  },
  {
    id: 'gull',
    text: 'The Sable Gull is a ferry built in 1932 by the Kessler Yard. The Kessler Yard was founded by Marta Kessler in 1901.',
  },
  {
    id: 'heron',
    text: 'The Grey Heron is a ferry that sails between Merrow Falls and Ostby. Its captain is Ilse Marren.',
  },
  {
    id: 'institute',
    text: 'The Lindqvist Institute is a music school in Ostby. It has 420 students and was founded in 1911.',
  },
  { id: 'skier', text: 'Ådne Håkonsen is a Norwegian skier. Håkonsen was born in Ostby.' },
];
const tasks = createOfflineTasks();
const ask = (q: string) => tasks.answer(q, notes);
const reorder = async (q: string) => reorderQuestion((await analyze(q)).tokens);

describe('a sentence set before the question introduces what it asks about', () => {
  test('an object the setup introduces, taken up by its noun or by "it"', async () => {
    expect(await reorder('Ruben Falk taught at an institute — when was it founded?')).toBe(
      'When was the institute where Ruben Falk taught founded?',
    );
    expect((await ask('Ruben Falk taught at an institute — when was it founded?')).answer).toBe('1911');
    expect((await ask('Ruben Falk taught at an institute; when was that institute founded?')).answer).toBe(
      '1911',
    );
    expect((await ask('The Sable Gull was built by a yard; who founded that yard?')).answer).toBe(
      'Marta Kessler',
    );
  });

  test('an indefinite subject, taken up by its noun or by a personal pronoun', async () => {
    expect(await reorder('A marine biologist helped Ruben Falk; when did the biologist die?')).toBe(
      'When did the marine biologist who helped Ruben Falk die?',
    );
    expect((await ask('A marine biologist helped Ruben Falk; when did the biologist die?')).answer).toBe(
      '1974',
    );
    // "he" is a person: the composer, not the suite.
    expect(await reorder('An English composer wrote a suite in 1931; where did he die?')).toBe(
      'Where did the English composer who wrote a suite in 1931 die?',
    );
    expect((await ask('An English composer wrote a suite in 1931; where did he die?')).answer).toBe(
      'Merrow Falls',
    );
  });

  test('"somewhere" or "a town", taken up by "there"', async () => {
    expect(await reorder('Tobias Wren died somewhere; which ferry sails there?')).toBe(
      'Which ferry sails in the place where Tobias Wren died?',
    );
    for (const q of [
      'Tobias Wren died somewhere; which ferry sails there?',
      'Tobias Wren died in a town — which ferry sails there?',
    ])
      expect((await ask(q)).answer, q).toBe('Grey Heron');
  });

  test('"someone" introduces a person', async () => {
    expect((await ask('The Harbour Suite was written by someone — where did that person die?')).answer).toBe(
      'Merrow Falls',
    );
    expect((await ask('The Harbour Suite was written by someone; where did he die?')).answer).toBe(
      'Merrow Falls',
    );
  });

  test('a pronoun that agrees with nothing the setup introduced leaves the question as it is', async () => {
    expect(await reorder('Ruben Falk taught at an institute — where was she born?')).toBeNull();
  });
});

describe('what two named things have in common', () => {
  test('the question read: its two names, and whether it asks for a nationality or a country', async () => {
    const read = async (q: string) => sharedQuestion((await analyze(q)).tokens);
    expect(await read('What do Tobias Wren and Ruben Falk have in common?')).toEqual({
      names: ['Tobias Wren', 'Ruben Falk'],
      nationality: false,
      country: false,
    });
    expect((await read('What nationality do Tobias Wren and Ruben Falk share?'))?.nationality).toBe(true);
    expect((await read('In which country are both Tobias Wren and Ruben Falk buried?'))?.country).toBe(true);
    // The two names as the plural subject: what both are.
    expect((await read('What kind of musicians are Tobias Wren and Ruben Falk?'))?.names).toEqual([
      'Tobias Wren',
      'Ruben Falk',
    ]);
    expect(await read('What did Tobias Wren and Ruben Falk write?')).toBeNull();
    // A yes/no question is not asking for the shared attribute.
    expect(await read('Are Tobias Wren and Ruben Falk both composers?')).toBeNull();
    expect(await read('Who taught Tobias Wren and Ruben Falk?')).toBeNull();
  });

  test('the part of what the context calls each that is the same, citing both', async () => {
    for (const q of [
      'What line of work do Tobias Wren and Ruben Falk share?',
      'What job did both Tobias Wren and Ruben Falk have?',
      'Tobias Wren and Ruben Falk share which profession?',
      'What do Tobias Wren and Ruben Falk have in common?',
    ]) {
      const a = await ask(q);
      expect(a.answer, q).toBe('composer');
      expect(a.citations, q).toEqual(['wren', 'falk']);
    }
    expect((await ask('What kind of vessel are the Sable Gull and the Grey Heron both?')).answer).toBe(
      'ferry',
    );
  });

  test('nothing alike is unknown, not a guess', async () => {
    expect((await ask('What job did both Tobias Wren and Edvard Brandt have?')).answer).toBe(NO_ANSWER);
    // English and Danish: no nationality in common.
    expect((await ask('What nationality do Tobias Wren and Ruben Falk share?')).answer).toBe(NO_ANSWER);
  });
});

describe('names with diacritics or respelled words', () => {
  test('what the context calls a name, whatever its letters', async () => {
    expect((await ask('Who is Ådne Håkonsen?')).answer).toBe('Norwegian skier');
    expect((await ask('What is the Grey Heron?')).answer).toBe('ferry');
  });
});

describe('notes without a title line', () => {
  test('"It …" at a sentence start is about the name the note opens with', async () => {
    const a = await ask('Which school has 420 students?');
    expect(a.answer).toBe('Lindqvist Institute');
    expect(a.citations).toEqual(['institute']);
  });
});

describe('what the question asks for', () => {
  test('"which ferry": the name the context calls a ferry, not a place beside it', async () => {
    expect((await ask('Which ferry sails to Merrow Falls?')).answer).toBe('Grey Heron');
  });

  test('the wh-word asked, not a relative pronoun before it', async () => {
    const q = 'The composer who wrote the Harbour Suite was born on what date?';
    const reading = readQuestion((await analyze(q)).tokens);
    expect(reading.kind).toBe('date');
    expect(reading.descriptor).toBe('date');
    expect((await ask('The composer who wrote the Harbour Suite died in what year?')).answer).toBe('1968');
  });

  test('a past tense the tagger reads as a noun does not become the noun asked for', async () => {
    const reading = readQuestion((await analyze('Which actor starred with Tobias Wren in the film?')).tokens);
    expect(reading.descriptor).toBe('actor');
    expect(reading.kind).toBe('person');
  });
});

describe('a description with several heads', () => {
  test('"the English composer, organist and teacher who …" is one description, of any of its heads', async () => {
    const q = 'In what year did the English composer, organist and teacher who wrote the Harbour Suite die?';
    const d = findDescription((await analyze(q)).tokens);
    expect(d?.question).toBe('Who wrote the Harbour Suite?');
    expect(d?.kinds).toEqual(['teacher', 'organist', 'composer']);
    // The notes call Wren a composer and organist, not a teacher: one head is enough.
    expect((await ask(q)).answer).toBe('1968');
  });
});
