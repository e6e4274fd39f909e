import { describe, expect, test } from 'vitest';
import { createOfflineTasks, NO_ANSWER } from '../src/index.js';
import { analyze } from '../src/nlp.js';
import { eventYear } from '../src/reader/events.js';
import { concepts, contentConcepts, isKindOf } from '../src/reader/meaning.js';
import { readQuestion } from '../src/reader/question.js';

// Invented notes in plain prose (a club letter, a family note, a shop note). The expected answers
// are read off the notes; each question is asked in two wordings.
const notes = [
  {
    id: 'rowing',
    text: 'Letter from the Harrow Point Rowing Society, spring 2025. The society was started in 1948 by Elsa Varne and four net makers. Its boathouse stands on Pier Road.',
  },
  {
    id: 'family',
    text: 'Varne family note. Elsa Varne had two sons, Tobin (born 1950) and Arlo (born 1954). In 1979 Arlo married Wenna Trask, a potter born in Selcombe in 1956.',
  },
  {
    id: 'ferry',
    text: 'The Gannet was built at the Lorrick Boatyard in 1988. Her first skipper was Mabyn Cole, who ran her for twelve years. The crossing takes forty minutes.',
  },
];

describe('reading by meaning', () => {
  test('a sentence\'s "started" also founds, and "set it up" is "set up"', async () => {
    const started = await analyze('The society was started in 1948.');
    expect(contentConcepts(started, 0, started.tokens.length - 1, true)).toContain('found');
    // A question keeps one sense per word.
    expect(contentConcepts(started, 0, started.tokens.length - 1)).not.toContain('found');
    const setUp = await analyze('who set it up');
    expect(concepts(setUp.tokens.map((t) => t.lemma))).toContain('found');
  });

  test('a compound names a kind of its last part', () => {
    expect(isKindOf('boatyard', 'yard')).toBe(true);
    expect(isKindOf('boathouse', 'house')).toBe(true);
    expect(isKindOf('yard', 'yard')).toBe(true);
    // Too short a head or too short a rest is no compound.
    expect(isKindOf('beard', 'ard')).toBe(false);
    expect(isKindOf('vineyard', 'vineyard')).toBe(true);
    expect(isKindOf('yardstick', 'yard')).toBe(false);
  });

  test('the year of the event asked about, not of another event in the sentence', async () => {
    const a = await analyze('In 1979 Arlo married Wenna Trask, a potter born in Selcombe in 1956.');
    const sentence = {
      ea: { analysis: a } as never,
      index: 0,
      item: 0,
      text: a.sentences[0]!.text,
      lemmas: [],
      types: new Map(),
      score: 1,
    };
    expect(eventYear(sentence, 'Wenna Trask', new Set(['bear']))).toBe(1956);
    expect(eventYear(sentence, 'Arlo', new Set(['marry']))).toBe(1979);
    expect(eventYear(sentence, 'Wenna Trask', new Set(['die']))).toBeNull();
  });

  test('"Which of A and B …?" names its two options', async () => {
    const r = readQuestion((await analyze('Which of Tobin Varne and Arlo Varne was born later?')).tokens);
    expect(r.kind).toBe('choice');
    expect(r.options).toEqual(['Tobin Varne', 'Arlo Varne']);
  });
});

describe('the offline reader on plain notes', () => {
  const tasks = createOfflineTasks();
  const ask = (q: string) => tasks.answer(q, notes);

  test.each([
    ['When was the Harrow Point Rowing Society founded?', '1948', 'rowing'],
    ['The rowing society at Harrow Point: who set it up?', 'Elsa Varne', 'rowing'],
    ['The Gannet was built at which yard?', 'Lorrick Boatyard', 'ferry'],
    ['Which boatyard built the Gannet?', 'Lorrick Boatyard', 'ferry'],
    ['Who is younger, Tobin Varne or Arlo Varne?', 'Arlo Varne', 'family'],
    ['Tobin Varne and Arlo Varne: which of them was born first?', 'Tobin Varne', 'family'],
  ])('%s → %s', async (question, expected, source) => {
    const r = await ask(question);
    expect(r.answer).toContain(expected);
    expect(r.citations).toContain(source);
  });

  test('a length of time is not a date', async () => {
    const r = await ask('When was Mabyn Cole born?');
    expect(r.answer).toBe(NO_ANSWER);
    expect(r.citations).toEqual([]);
  });
});
