import { describe, expect, test } from 'vitest';
import { createOfflineTasks } from '../src/index.js';

// Invented notes of a harbour town, without title lines (as people write them); the expected
// answers are read off them.
const notes = [
  { id: 'marren', text: 'Ilse Marren (born 1971) is a Norwegian marine biologist and writer.' },
  { id: 'quill', text: 'Tomas Quill (born 1958) is a Norwegian schoolteacher and writer.' },
  { id: 'tamblin', text: 'Osric Tamblin (born 1964) is a Danish painter.' },
  { id: 'ardry', text: 'Nell Ardry (born 1980) is a Danish painter and film director.' },
  { id: 'kessler', text: 'The Kessler Yard is a shipyard in Port Halvard, Norway.' },
  { id: 'quillon', text: 'The Quillon Shipyard is a shipyard in Gullhaven, Norway.' },
];
const tasks = createOfflineTasks();

describe('what two names have in common', () => {
  test.each([
    // Brackets after a name ("(born 1971)") do not hide what the sentence calls it.
    ['What profession do Ilse Marren and Tomas Quill share?', 'writer'],
    ['What occupation did Osric Tamblin and Nell Ardry have in common?', 'painter'],
    ['Which job do both Ilse Marren and Tomas Quill have?', 'writer'],
    ['What is the nationality shared by Osric Tamblin and Nell Ardry?', 'Danish'],
    // The two names as the plural subject ask for what both are.
    ['What kind of business are the Kessler Yard and the Quillon Shipyard?', 'shipyard'],
    // A country both their notes say, also in a note's first sentence.
    ['In which country are both the Kessler Yard and the Quillon Shipyard?', 'Norway'],
  ])('%s → %s', async (q, expected) => {
    const a = await tasks.answer(q, notes);
    expect(a.answer).toBe(expected);
    expect(a.citations.length).toBe(2);
  });

  test('nothing alike is unknown', async () => {
    const a = await tasks.answer('What profession do Ilse Marren and Osric Tamblin share?', notes);
    expect(a.citations).toEqual([]);
  });
});

describe('whether two names have something in common', () => {
  // Each is called two things, one of them alike.
  const directors = [
    { id: 'ashdale', text: 'Corvin Ashdale (born 1961) is a Scottish film director and producer.' },
    { id: 'moor', text: 'Lisbet Moor (born 1958) is an English film director and screenwriter.' },
    { id: 'vane', text: 'Harrow Vane (born 1966) is a Scottish painter.' },
  ];
  test.each([
    ['Do Corvin Ashdale and Lisbet Moor share a profession?', 'yes'],
    ['Do Corvin Ashdale and Lisbet Moor have an occupation in common?', 'yes'],
    ['Do Lisbet Moor and Harrow Vane share an occupation?', 'no'],
  ])('%s → %s', async (q, expected) => {
    expect((await tasks.answer(q, directors)).answer).toBe(expected);
  });
});
