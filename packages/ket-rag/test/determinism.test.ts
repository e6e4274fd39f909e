import { join } from 'node:path';
import type { Document, TaskSuite } from '@grag/core';
import { indexFileDigests } from '@grag/core/test';
import { temporaryRoot } from '@grag/core/test/vitest';
import { describe, expect, it, vi } from 'vitest';
import { CORPUS } from './corpus.js';

// Invented. wink's tokenizer splits `Kvarnby's...` by what its lexicon holds: two sentences while
// it has never seen `Kvarnby's`, one once another text taught it the word, so a reader that keeps
// what it learned reads this passage differently after PART (see
// @grag/offline's order-independence test). The same kind of dependence made two builds of one
// MuSiQue configuration report 10,823 and 10,825 entities.
const REVIEW: Document = {
  id: 'review',
  title: 'Harbour Suite reviews',
  text: "Prominent music critic Signe Halloran, in reviewing The Harbour Suite, said the best performance in the concert is Lotta Kvarnby's... it would be lovely to see her get a medal. Lotta Kvarnby played the cello part.",
};
const PART: Document = {
  id: 'part',
  title: 'Cello part',
  text: "The cello part in The Harbour Suite (2012) was Lotta Kvarnby's. Tobias Wren wrote the suite.",
};
const DOCS: Document[] = [REVIEW, ...CORPUS];

/** A deterministic pause of 0–7 ms that depends on `text`, so calls finish out of their order. */
function pause(text: string): Promise<void> {
  let h = 0;
  for (let i = 0; i < text.length; i++) h = (h * 31 + text.charCodeAt(i)) >>> 0;
  return new Promise((resolve) => setTimeout(resolve, h % 8));
}

/** `tasks` whose extractions and summaries finish after a text-dependent pause. */
function shuffledTasks(tasks: TaskSuite): TaskSuite {
  return {
    ...tasks,
    extractGraph: async (text, options) => {
      await pause(text);
      return tasks.extractGraph(text, options);
    },
    summarize: async (texts, options) => {
      await pause(texts.join(' '));
      return tasks.summarize(texts, options);
    },
  };
}

/**
 * Build `DOCS` in a fresh copy of the packages (its own wink instance, as in a new process), after
 * building `teach` first when given, with the runtime's `concurrency`; the saved files.
 */
async function buildFresh(
  root: string,
  name: string,
  settings: { concurrency: number; shuffle: boolean; teach?: Document[]; options?: Record<string, unknown> },
): Promise<Record<string, string>> {
  vi.resetModules();
  const { createBuildContext } = await import('@grag/core/kit');
  const { createOfflineProviders } = await import('@grag/offline');
  const { createKetRag } = await import('../src/index.js');
  const method = createKetRag();
  const context = () => {
    const { tasks, embedder } = createOfflineProviders();
    return createBuildContext({
      embedder,
      tasks: settings.shuffle ? shuffledTasks(tasks) : tasks,
      runtime: { concurrency: settings.concurrency },
    });
  };
  const options = { chunking: 'document' as const, subChunkSize: 24, ...settings.options };
  if (settings.teach) await method.build(settings.teach, context(), options);
  const index = await method.build(DOCS, context(), options);
  const dir = join(root, name);
  await method.save(index, dir);
  return indexFileDigests(dir);
}

describe('a KET-RAG build is deterministic', () => {
  const root = temporaryRoot('ket-rag-determinism-');

  it('gives the same index with any runtime concurrency, whatever order the model calls finish in', async () => {
    for (const preset of ['offline', 'paper']) {
      const one = await buildFresh(root(), `one-${preset}`, {
        concurrency: 1,
        shuffle: false,
        options: { preset },
      });
      const many = await buildFresh(root(), `many-${preset}`, {
        concurrency: 8,
        shuffle: true,
        options: { preset },
      });
      expect(Object.keys(many)).toEqual(Object.keys(one));
      expect(Object.keys(one)).toEqual(
        expect.arrayContaining(['skeleton.json', 'keywords.json', 'units.json']),
      );
      for (const file of Object.keys(one)) expect(many[file], `${preset}: ${file}`).toBe(one[file]);
    }
  });

  it('gives the same index when the process has read other texts before', async () => {
    // β = 1: the passage is extracted whatever its PageRank.
    const options = { beta: 1 };
    const first = await buildFresh(root(), 'first', { concurrency: 4, shuffle: false, options });
    const after = await buildFresh(root(), 'after', {
      concurrency: 4,
      shuffle: false,
      teach: [PART],
      options,
    });
    for (const file of Object.keys(first)) expect(after[file], file).toBe(first[file]);
  });
});
