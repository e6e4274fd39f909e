import { describe, expect, test } from 'vitest';
import { createOfflineTasks, NO_ANSWER } from '../src/index.js';
import { analyze } from '../src/nlp.js';
import { readQuestion } from '../src/reader/question.js';

// Hand-written passages about invented people and places; the expected phrases are read off them.
const context = [
  {
    id: 'mill',
    text: 'The Harlow Paper Mill is a former factory in the town of Dunvale. It was built in 1887 by the engineer Oskar Brenner. The mill employed three hundred workers at its peak.',
  },
  {
    id: 'brenner',
    text: 'Oskar Brenner was an engineer born in Kestrel Bay. He designed the Harlow Paper Mill and the Dunvale Bridge. Brenner married the painter Lotte Haas in 1890.',
  },
  {
    id: 'haas',
    text: 'Lotte Haas was a painter from Dunvale. Her best-known work is the portrait Winter Harbour, painted in 1902. She died on 4 March 1931.',
  },
  {
    id: 'river',
    text: 'The River Sallow flows through Dunvale. It is about 42 kilometres long and has four bridges in the town.',
  },
];
const tasks = createOfflineTasks();

describe('readQuestion', () => {
  const read = async (q: string) => readQuestion((await analyze(q)).tokens);

  test('classifies questions by what they ask for', async () => {
    expect((await read('Who designed the Dunvale Bridge?')).kind).toBe('person');
    expect((await read('Where was Oskar Brenner born?')).kind).toBe('place');
    expect((await read('When did Lotte Haas die?')).kind).toBe('date');
    expect((await read('In what year was the mill built?')).kind).toBe('date');
    expect((await read('In what year was the mill built?')).yearOnly).toBe(true);
    expect((await read('How many workers did the mill employ?')).kind).toBe('number');
    expect((await read('Which painting is the best-known work of Lotte Haas?')).descriptor).toBe('painting');
    expect((await read('Was Lotte Haas a painter?')).kind).toBe('polar');
  });

  test('reads the two compared phrases of a choice question', async () => {
    const reading = await read('Who was born first, Oskar Brenner or Lotte Haas?');
    expect(reading.kind).toBe('choice');
    expect(reading.options).toEqual(['Oskar Brenner', 'Lotte Haas']);
    expect(reading.direction).toBe('min');
  });
});

describe('answer phrases', () => {
  const ask = (q: string) => tasks.answer(q, context);

  test('who: a person named near what the question says', async () => {
    expect((await ask('Who built the Harlow Paper Mill?')).answer).toBe('Oskar Brenner');
    expect((await ask('Whom did Oskar Brenner marry?')).answer).toBe('Lotte Haas');
  });

  test('where: a place', async () => {
    expect((await ask('Where was Oskar Brenner born?')).answer).toBe('Kestrel Bay');
  });

  test('when / what year: a date or a year', async () => {
    expect((await ask('When did Lotte Haas die?')).answer).toBe('4 March 1931');
    expect((await ask('In what year was the Harlow Paper Mill built?')).answer).toBe('1887');
  });

  test('how many / how long: a number', async () => {
    expect((await ask('How many bridges does the River Sallow have in the town?')).answer).toBe('four');
    expect((await ask('How long is the River Sallow?')).answer).toBe('42 kilometres');
  });

  test('which X: the name next to the noun asked for', async () => {
    expect((await ask('Which portrait did Lotte Haas paint in 1902?')).answer).toBe('Winter Harbour');
  });

  test('multi-hop: the answer sentence shares a bridge entity with the sentence matching the question', async () => {
    // Mill → built by Oskar Brenner → born in Kestrel Bay.
    const result = await ask('Where was the engineer who built the Harlow Paper Mill born?');
    expect(result.answer).toBe('Kestrel Bay');
    expect(result.citations[0]).toBe('brenner');
  });

  test('choice: one of the two compared phrases', async () => {
    expect((await ask('Which was built first, the Harlow Paper Mill or Winter Harbour?')).answer).toBe(
      'the Harlow Paper Mill',
    );
    expect((await ask('Which came later, the Harlow Paper Mill or Winter Harbour?')).answer).toBe(
      'Winter Harbour',
    );
  });

  test('polar: yes or no', async () => {
    expect((await ask('Was Lotte Haas a painter?')).answer).toBe('yes');
    expect((await ask('Was Oskar Brenner a famous surgeon?')).answer).toBe('no');
  });

  test('never answers with a phrase the question already holds', async () => {
    const result = await ask('Who married Lotte Haas?');
    expect(result.answer).toBe('Oskar Brenner');
  });

  test('cites the item whose sentence holds the answer first', async () => {
    const result = await ask('When did Lotte Haas die?');
    expect(result.citations[0]).toBe('haas');
    expect((await ask('Who built the Harlow Paper Mill?')).citations[0]).toBe('mill');
  });

  test('NO_ANSWER when the context shares nothing with the question', async () => {
    expect(await ask('What is the boiling point of mercury?')).toEqual({
      answer: NO_ANSWER,
      citations: [],
      issues: [],
    });
  });

  test('"unknown" (NO_ANSWER, no citation) when no sentence states what is asked', async () => {
    // The context says who designed the bridge, never when.
    for (const q of [
      'When was the Dunvale Bridge designed?',
      'In what year did Oskar Brenner design the Dunvale Bridge?',
    ])
      expect(await ask(q), q).toEqual({ answer: NO_ANSWER, citations: [], issues: [] });
    // Nor where Lotte Haas was born, though her item says where she is from and when she died.
    expect((await ask('Where was Lotte Haas born?')).answer).toBe(NO_ANSWER);
  });

  test("answerMode 'sentences' keeps the whole-sentence answers", async () => {
    const sentences = createOfflineTasks({ answerMode: 'sentences', answerSentences: 1 });
    expect((await sentences.answer('Where was Oskar Brenner born?', context)).answer).toBe(
      'Oskar Brenner was an engineer born in Kestrel Bay.',
    );
  });

  test('rejects an unknown answerMode', () => {
    expect(() => createOfflineTasks({ answerMode: 'words' as 'phrase' })).toThrow(/answerMode/);
  });
});
