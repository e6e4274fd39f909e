import type { Tokenizer } from '@grag/core';
import { describe, expect, test } from 'vitest';
import { createOfflineTasks } from '../src/index.js';

const wordTokenizer: Pick<Tokenizer, 'count' | 'truncate'> = {
  count: (text) => text.split(/\s+/).filter(Boolean).length,
  truncate: (text, max) => text.split(/\s+/).filter(Boolean).slice(0, max).join(' '),
};
const tasks = createOfflineTasks({ tokenizer: wordTokenizer });

/** The labels of the named (non-target) nodes of the question's query graph. */
async function names(question: string): Promise<(string | null)[]> {
  const graph = await tasks.extractQueryGraph(question);
  return graph.nodes.filter((n) => !n.isTarget).map((n) => n.label);
}

// Questions in the shape of the ERQA templates (`generateErqa`): constraint names spelled as the
// FB15k-237 entity texts, joined by ", has <relation>" / ", is the <relation> of".
describe('extractQueryGraph keeps multi-word names whole', () => {
  test('"of" and "for" inside a capitalised name', async () => {
    expect(
      await names(
        'Which person has nationality United States of America, and is the award nominations nominated for of Golden Globe Award for Best Animated Feature Film?',
      ),
    ).toEqual(['United States of America', 'Golden Globe Award for Best Animated Feature Film']);
  });

  test('a leading "The", a leading ordinal and trailing capitalised words', async () => {
    expect(
      await names(
        'Which person has film The Kessler Brothers, has winners ceremony 39th Annual Merrow Awards, and has film Tide Can Wait?',
      ),
    ).toEqual(['The Kessler Brothers', '39th Annual Merrow Awards', 'Tide Can Wait']);
  });

  test('a particle between names in different clauses does not join them', async () => {
    // "in" is no name particle, and a comma or "and" always separates.
    expect(await names('Who praised the performance of Ilse Marren in The Dark Harbour?')).toEqual([
      'Ilse Marren',
      'The Dark Harbour',
    ]);
    expect(await names('Which country borders France, Spain and Italy?')).toEqual([
      'France',
      'Spain',
      'Italy',
    ]);
    expect(await names('Which film stars Jack Black and is the titles of Vampire?')).toEqual([
      'Jack Black',
      'Vampire',
    ]);
  });
});
