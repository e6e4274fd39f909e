import type { FittableEmbedder } from '@grag/core';
import { describe, expect, test } from 'vitest';
import { createOfflineEmbedder, createOfflineTasks, HashedTfidfEmbedder } from '../src/index.js';
import { createItemReadings, type ItemReading, sentenceVectors } from '../src/reader/items.js';

// Invented notes of a harbour town, written for these tests.
const notes = [
  { id: 'gull', text: 'The Sable Gull is a ferry built in 1932 by the Kessler Yard. It sails to Ostby.' },
  { id: 'yard', text: 'The Kessler Yard was founded by Marta Kessler in 1901. It stands in Merrow Falls.' },
  { id: 'heron', text: 'The Grey Heron is a ferry. Its captain is Ilse Marren, who was born in Ostby.' },
  { id: 'school', text: 'The Lindqvist Institute is a music school in Ostby. It has 420 students.' },
];

const reading = (...texts: string[]): ItemReading => ({
  sentences: texts.map((text, index) => ({
    text,
    lemmas: [],
    keys: new Set<string>(),
    types: new Map<string, string>(),
    numbers: [],
    ea: undefined as never,
    index,
  })),
});

describe('item readings kept by the reader', () => {
  test('a reader that has read the items before answers as a fresh reader does', async () => {
    const warm = createOfflineTasks({ embedder: createOfflineEmbedder() });
    const questions = [
      'Who founded the yard that built the Sable Gull?',
      'Where was the captain of the Grey Heron born?',
      'How many students does the Lindqvist Institute have?',
    ];
    // The warm reader sees every context first in another order, then each question's.
    for (const q of questions) await warm.answer(q, [...notes].reverse());
    for (const q of questions) {
      const fresh = createOfflineTasks({ embedder: createOfflineEmbedder() });
      expect(await warm.answer(q, notes)).toEqual(await fresh.answer(q, notes));
    }
    expect((await warm.answer(questions[0]!, notes)).answer).toMatch(/Marta Kessler/);
  });

  test('kept embeddings are those the embedder gives now, also after it is fitted again', async () => {
    const embedder = new HashedTfidfEmbedder();
    const r = reading('The ferry sails at dawn.', 'Its captain was born in Ostby.');
    const first = await sentenceVectors([r], embedder, undefined);
    expect(first).toEqual(r.sentences.map((s) => embedder.embed(s.text)));
    expect(r.vectors?.vectors).toEqual(first);
    // Fitted on a corpus: the IDF changes, and so do the embeddings of the same sentences.
    embedder.fit(['The ferry sails to Ostby.', 'A captain of the yard.', 'Dawn over Merrow Falls.']);
    const refit = await sentenceVectors([r], embedder, undefined);
    expect(refit).toEqual(r.sentences.map((s) => embedder.embed(s.text)));
    expect(refit[0]).not.toEqual(first[0]);
    // Restored from a state: the same again.
    const other = new HashedTfidfEmbedder();
    other.fit(['Something else entirely.']);
    embedder.restore(other.state());
    expect(await sentenceVectors([r], embedder, undefined)).toEqual(
      r.sentences.map((s) => other.embed(s.text)),
    );
  });

  test('another fitted embedder gets its embeddings made every time, never kept', async () => {
    let calls = 0;
    const inner = new HashedTfidfEmbedder();
    const fitted: FittableEmbedder = {
      specificationVersion: 'v1',
      provider: 'test',
      modelId: 'wrapped-tfidf',
      dimensions: inner.dimensions,
      maxBatchSize: 64,
      get fitted() {
        return inner.fitted;
      },
      fit: (corpus) => inner.fit(corpus),
      state: () => inner.state(),
      restore: (state) => inner.restore(state),
      doEmbed: async (options) => {
        calls++;
        return inner.doEmbed(options);
      },
    };
    const r = reading('The ferry sails at dawn.');
    await sentenceVectors([r], fitted, undefined);
    await sentenceVectors([r], fitted, undefined);
    expect(calls).toBe(2);
    expect(r.vectors).toBeUndefined();
  });

  test('the items read last are kept, the least recently used one is let go', () => {
    const items = createItemReadings();
    const r = reading('x');
    items.set('first', r);
    items.set('second', r);
    for (let i = 0; i < 1022; i++) items.set(`filler ${i}`, r);
    expect(items.get('first')).toBe(r); // read again: now the most recent
    items.set('one more', r);
    expect(items.get('second')).toBeUndefined();
    expect(items.get('first')).toBe(r);
  });
});
