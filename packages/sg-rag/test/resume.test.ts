import type { Document, TaskSuite } from '@grag/core';
import { createPromptTasks, createSimulatedChat } from '@grag/core/tasks';
import { checkResumableBuild, createScriptedEmbedder } from '@grag/core/test';
import { expectCleanResume } from '@grag/core/test/vitest';
import { createOfflineTasks } from '@grag/offline';
import { describe, expect, it } from 'vitest';
import { sgRag, type Triple } from '../src/index.js';

const people = ['Ada Brook', 'Milo Hart', 'Nina Vale', 'Oscar Penn', 'Rosa Lind', 'Theo Marsh', 'Uma Reed'];
const cities = ['Lisbon', 'Oslo', 'Vienna', 'Quebec', 'Dakar'];
const firms = ['Harbor Labs', 'Copper Mills', 'Lumen Works', 'Delta Forge'];

// Short documents, each naming a person, a firm and a city (one chunk each).
const docs: Document[] = Array.from({ length: 24 }, (_, i) => {
  const person = people[i % people.length]!;
  const firm = firms[i % firms.length]!;
  const city = cities[i % cities.length]!;
  return {
    id: `d${i}`,
    title: `Note ${i}`,
    text: `${person} founded ${firm} in ${city}. ${firm} later hired ${people[(i + 3) % people.length]}.`,
  };
});

const embedder = () => ({ ...createScriptedEmbedder({ dimensions: 16 }), maxBatchSize: 4 });

describe('sg-rag build resumes', () => {
  it('from documents: an interrupted build repeats no model call and writes the same index', async () => {
    let chatCalls = 0;
    const report = await checkResumableBuild({
      method: sgRag,
      documents: docs,
      chat: () => {
        const chat = createSimulatedChat(createOfflineTasks());
        return {
          ...chat,
          async doGenerate(options) {
            chatCalls += 1;
            return chat.doGenerate(options);
          },
        };
      },
      embedder,
      tasks: (chat) => createPromptTasks(chat),
    });
    expect(chatCalls).toBeGreaterThan(0);
    expect(report.totalCalls).toBeGreaterThan(docs.length);
    expect(report.files).toEqual(
      expect.arrayContaining(['graph.json', 'paths.bin', 'tree.bin', 'dominance.json', 'labels.rows']),
    );
    expectCleanResume(report);
    // Stopped at 95% of the calls, the extraction had finished: it is restored, not redone.
    expect(report.runs.at(-1)!.resumedStages).toContain('extract');
    // Stopped at 5%, nothing had finished.
    expect(report.runs[0]!.resumedStages).toEqual([]);
  });

  it('from triples: an interrupted build repeats no embedding call and writes the same index', async () => {
    // A ring with chords, so paths of length 2 exist.
    const triples: Triple[] = Array.from({ length: 30 }, (_, i) => ({
      head: `e${i}`,
      relation: i % 2 ? 'knows' : 'works with',
      tail: `e${(i * 7 + 3) % 30}`,
    }));
    const entityText = Object.fromEntries(triples.map((t) => [t.head, `Entity ${t.head.toUpperCase()}`]));
    const report = await checkResumableBuild({
      method: sgRag,
      documents: [],
      options: { triples, entityText, pathLength: 2 },
      chat: () => createSimulatedChat({} as TaskSuite),
      // One label per call, so the build can be stopped between embedding calls.
      embedder: () => ({ ...createScriptedEmbedder({ dimensions: 16 }), maxBatchSize: 1 }),
      tasks: () => ({}) as TaskSuite,
    });
    // Every entity label is embedded once, nothing else.
    expect(report.totalCalls).toBe(30);
    expectCleanResume(report);
  });
});
