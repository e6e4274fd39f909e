import type { Tokenizer } from '@grag/core';
import { describe, expect, test, vi } from 'vitest';

// Invented texts. wink's tokenizer splits `Kvarnby's...` by what its lexicon holds:
// `Kvarnby's . ..` (two sentences) while it has never seen `Kvarnby's`, `Kvarnby's ...` (one
// sentence) once another text taught it the word. PART teaches it.
const REVIEW =
  "Prominent music critic Signe Halloran, in reviewing The Harbour Suite, said the best performance in the concert is Lotta Kvarnby's... it would be lovely to see her get a medal.";
const PART = "The cello part in The Harbour Suite (2012) was Lotta Kvarnby's.";
const STAGING =
  'Kvarnby played with Tobias Wren in the 2009 staging of The Silver Eel, in which she played three instruments.';
const TEXTS = [REVIEW, PART, STAGING];
const QUESTION = 'Who praised the performance of Lotta Kvarnby in The Harbour Suite?';

/** One token per whitespace-separated word (keeps cl100k out of the fresh module graphs). */
const wordTokenizer: Pick<Tokenizer, 'count' | 'truncate'> = {
  count: (text) => text.split(/\s+/).filter(Boolean).length,
  truncate: (text, max) => text.split(/\s+/).filter(Boolean).slice(0, max).join(' '),
};

type OfflineModule = typeof import('../src/index.js');

/**
 * A fresh copy of the package: its own wink instance and analysis cache, as in a new process (what a
 * resumed build starts from).
 */
async function freshModule(): Promise<OfflineModule> {
  vi.resetModules();
  return import('../src/index.js');
}

/** Every offline task and the TF-IDF embedder on `text`, as one JSON string per task. */
async function everything(mod: OfflineModule, text: string): Promise<Record<string, string>> {
  const tasks = mod.createOfflineTasks({ tokenizer: wordTokenizer });
  const embedder = mod.createOfflineEmbedder('tfidf');
  await embedder.fit(TEXTS);
  const json = (value: unknown): string => JSON.stringify(value);
  const { embeddings } = await embedder.doEmbed({ values: [text] });
  return {
    extractGraph: json(await tasks.extractGraph(text)),
    decomposeSemanticUnits: json(await tasks.decomposeSemanticUnits(text)),
    summarize: json(await tasks.summarize([text], { maxTokens: 12 })),
    titleAndDescription: json(await tasks.titleAndDescription(text)),
    extractQueryEntities: json(await tasks.extractQueryEntities(text)),
    extractQueryGraph: json(await tasks.extractQueryGraph(text)),
    assessCommunity: json(await tasks.assessCommunity(QUESTION, text)),
    answer: json(await tasks.answer(QUESTION, [{ id: 'c1', text }])),
    embedding: json(Array.from(embeddings[0]!)),
  };
}

/** Results per text, the texts processed in `order` by one fresh copy of the package. */
async function inOrder(order: readonly number[]): Promise<Record<string, string>[]> {
  const mod = await freshModule();
  const out: Record<string, string>[] = [];
  for (const i of order) out[i] = await everything(mod, TEXTS[i]!);
  return out;
}

describe('offline results do not depend on the texts processed before', () => {
  test('each text gives the same results first in a fresh process as after the others, forward and reverse', async () => {
    // Every text comes first (in a fresh process) in one of the orders and after others in the rest.
    const forward = await inOrder([0, 1, 2]);
    const reverse = await inOrder([2, 1, 0]);
    const middleFirst = await inOrder([1, 0, 2]);
    for (const i of TEXTS.keys()) {
      expect(reverse[i], `text ${i}, reverse vs forward`).toEqual(forward[i]);
      expect(middleFirst[i], `text ${i}, middle first vs forward`).toEqual(forward[i]);
    }
  });

  test('a text gives the same results when read again after its cached analysis was evicted', async () => {
    const mod = await freshModule();
    const first = await everything(mod, REVIEW);
    // More distinct texts than the analysis cache holds (64), PART among them.
    await mod.createOfflineTasks().decomposeSemanticUnits(PART);
    for (let i = 0; i < 70; i++)
      await mod.createOfflineTasks().decomposeSemanticUnits(`${STAGING} Take ${i}.`);
    expect(await everything(mod, REVIEW)).toEqual(first);
  });
});
