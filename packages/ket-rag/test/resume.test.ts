import { createPromptTasks, createSimulatedChat, type Document } from '@grag/core';
import { checkResumableBuild, createScriptedEmbedder } from '@grag/core/test';
import { createOfflineTasks } from '@grag/offline';
import { describe, expect, it } from 'vitest';
import { createKetRag } from '../src/index.js';

const PEOPLE = ['Anton Kessler', 'Mira Kessler', 'Tomas Brandt', 'Ilse Varga', 'Jonas Holm', 'Petra Lind'];
const PLACES = ['Varnholm', 'Orsa', 'Kestrel Bay', 'Dunmore', 'Ashford'];
const THINGS = [
  'the Kessler Shipyard',
  'the Orsa Marine Institute',
  'the Varnholm Regatta',
  'the Dunmore Lighthouse',
];

// Every sentence differs (a year in each), so no text is embedded twice in one build.
const docs: Document[] = Array.from({ length: 24 }, (_, i) => ({
  id: `d${i}`,
  title: `Record ${i}`,
  text:
    `${PEOPLE[i % 6]} visited ${PLACES[i % 5]} in ${1880 + i}. ` +
    `${PEOPLE[(i + 1) % 6]} worked for ${THINGS[i % 4]} in ${PLACES[(i + 2) % 5]} from ${1920 + i}. ` +
    `In ${1960 + i}, ${THINGS[(i + 1) % 4]} hired ${PEOPLE[(i + 3) % 6]}.`,
}));

describe('ket-rag build resumes', () => {
  it('an interrupted build resumed with the same cache repeats no call and writes the same index', async () => {
    let chatCalls = 0;
    const report = await checkResumableBuild({
      method: createKetRag(),
      documents: docs,
      options: { chunking: 'document' },
      tasks: (chat) => createPromptTasks(chat),
      chat: () => {
        const chat = createSimulatedChat(createOfflineTasks());
        return {
          ...chat,
          doGenerate: (call) => {
            chatCalls += 1;
            return chat.doGenerate(call);
          },
        };
      },
      embedder: () => ({ ...createScriptedEmbedder({ dimensions: 16 }), maxBatchSize: 4 }),
    });
    expect(report.totalCalls).toBeGreaterThan(0);
    expect(chatCalls).toBeGreaterThan(0);
    expect(report.files).toEqual(expect.arrayContaining(['skeleton.json', 'entities.vec', 'subchunks.f32']));
    for (const run of report.runs) {
      expect(run.repeatedCalls).toBe(0);
      expect(run.firstRunCalls + run.resumedCalls).toBe(report.totalCalls);
      expect(run.differingFiles).toEqual([]);
    }
    // Stopped early, inside the first model stage: only the pure stages before it come back.
    expect(report.runs[0]!.resumedStages).toEqual(['chunk', 'split']);
    // Stopped late (while embedding sentences, the largest stage): every model stage that had
    // finished is restored, none is redone.
    expect(report.runs[2]!.resumedStages).toEqual([
      'chunk',
      'split',
      'embed-chunks',
      'knn',
      'core',
      'extract',
      'summarize',
      'embed-entities',
      'keywords',
    ]);
  });
});
