import type { Tokenizer } from '@grag/core';
import { describe, expect, test, vi } from 'vitest';

// Shortened from a MuSiQue passage ("Gary Oldman", a paraphrase). wink's tokenizer splits
// `Oldman's...` by what its lexicon holds: `Oldman's . ..` (two sentences) while it has never seen
// `Oldman's`, `Oldman's ...` (one sentence) once another text taught it the word. GORDON teaches it.
const KERMODE =
  "Prominent film critic Mark Kermode, in reviewing The Dark Knight, said the best performance in the film is Gary Oldman's... it would be lovely to see him get a nomination.";
const GORDON = "The role of James Gordon in The Dark Knight Rises (2012) was Gary Oldman's.";
const CAROL =
  'Oldman co-starred with Jim Carrey in the 2009 version of A Christmas Carol, in which he played three roles.';
const TEXTS = [KERMODE, GORDON, CAROL];
const QUESTION = 'Who praised the performance of Gary Oldman in The Dark Knight?';

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
    const first = await everything(mod, KERMODE);
    // More distinct texts than the analysis cache holds (64), GORDON among them.
    await mod.createOfflineTasks().decomposeSemanticUnits(GORDON);
    for (let i = 0; i < 70; i++) await mod.createOfflineTasks().decomposeSemanticUnits(`${CAROL} Take ${i}.`);
    expect(await everything(mod, KERMODE)).toEqual(first);
  });
});
