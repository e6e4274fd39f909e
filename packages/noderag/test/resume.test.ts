import { BuildStageError, type ChatModel, type Document, type ProgressEvent } from '@grag/core';
import { createBuildContext } from '@grag/core/kit';
import { createPromptTasks, createSimulatedChat } from '@grag/core/tasks';
import { checkResumableBuild, createScriptedEmbedder } from '@grag/core/test';
import { expectCleanResume } from '@grag/core/test/vitest';
import { createOfflineTasks } from '@grag/offline';
import { describe, expect, it } from 'vitest';
import { nodeRag } from '../src/index.js';

const PEOPLE = ['Anton Kessler', 'Mara Lindqvist', 'Oskar Brandt', 'Elin Varga', 'Tomas Reiner', 'Ida Holm'];
const PLACES = ['Orsa', 'Veskan', 'Hallby', 'Norrvik', 'Stensund'];
const THINGS = ['Kessler Shipyard', 'Orsa Ferry Line', 'Hallby Museum', 'Norrvik Observatory'];

/** Twenty short documents; every person, place and organisation recurs in several of them. */
const DOCS: Document[] = Array.from({ length: 20 }, (_, i) => {
  const person = PEOPLE[i % PEOPLE.length]!;
  const other = PEOPLE[(i * 5 + 1) % PEOPLE.length]!;
  const place = PLACES[i % PLACES.length]!;
  const thing = THINGS[i % THINGS.length]!;
  return {
    id: `doc${i}`,
    title: `${person} and ${thing}`,
    text:
      `${person} worked at the ${thing} in ${place} from ${1880 + i}. ` +
      `${other} met ${person} in ${place}. The ${thing} was founded by ${other}.`,
  };
});

/** One chunk per document and a small HNSW graph, to keep the builds fast. */
const SMALL_HNSW = { chunking: 'document' as const, hnswM: 8, hnswEfConstruction: 32 };

describe('noderag build resumes', () => {
  it('an interrupted build resumed with the same cache repeats no call and writes the same index', async () => {
    let chatCalls = 0;
    const report = await checkResumableBuild({
      method: nodeRag,
      documents: DOCS,
      options: SMALL_HNSW,
      chat: (): ChatModel => {
        const chat = createSimulatedChat(createOfflineTasks());
        return {
          ...chat,
          doGenerate(options) {
            chatCalls += 1;
            return chat.doGenerate(options);
          },
        };
      },
      embedder: () => ({ ...createScriptedEmbedder({ dimensions: 16 }), maxBatchSize: 4 }),
      tasks: (chat) => createPromptTasks(chat),
    });
    // Four call caches (the reference build and three interrupted-and-resumed builds) each saw at
    // least the 20 decompositions, plus attribute and community calls.
    expect(chatCalls).toBeGreaterThan(4 * 20);
    // Per build: 20 decompositions and 20 text-node embeddings at least.
    expect(report.totalCalls).toBeGreaterThan(40);
    expect(report.files).toEqual(
      expect.arrayContaining([
        'graph.arrays',
        'graph-text.json',
        'chunks.json',
        'build-stats.json',
        'embeddings.rows',
        'manifest.json',
      ]),
    );
    expectCleanResume(report, 'chunk');
    // Interrupted late (in the embedding of the text nodes), every earlier model-call stage is
    // restored from its checkpoint rather than run again.
    const late = report.runs[2]!;
    expect(late.resumedStages).toEqual(
      expect.arrayContaining(['decompose', 'attributes', 'communities', 'embed']),
    );
  });
});

/** A simulated chat that answers after a macrotask and records the most calls in flight at once. */
function slowChat(fail?: (prompt: string) => boolean) {
  const chat = createSimulatedChat(createOfflineTasks());
  const state = { inFlight: 0, maxInFlight: 0, calls: 0 };
  const model: ChatModel = {
    ...chat,
    async doGenerate(options) {
      state.calls += 1;
      state.inFlight += 1;
      state.maxInFlight = Math.max(state.maxInFlight, state.inFlight);
      try {
        await new Promise((resolve) => setTimeout(resolve, 1));
        const prompt = options.messages.map((m) => m.content).join('\n');
        if (fail?.(prompt)) throw new Error('the model is down');
        return await chat.doGenerate(options);
      } finally {
        state.inFlight -= 1;
      }
    },
  };
  return { model, state };
}

function contextOn(
  chat: ChatModel,
  extra: { concurrency?: number; onProgress?: (e: ProgressEvent) => void },
) {
  return createBuildContext({
    embedder: createScriptedEmbedder({ dimensions: 16 }),
    tasks: createPromptTasks(chat),
    ...(extra.concurrency !== undefined ? { runtime: { concurrency: extra.concurrency } } : {}),
    ...(extra.onProgress ? { onProgress: extra.onProgress } : {}),
  });
}

describe('noderag build runtime', () => {
  it("runs the model calls at the runtime's concurrency, or at the concurrency option when it is set", async () => {
    const byRuntime = slowChat();
    await nodeRag.build(DOCS, contextOn(byRuntime.model, { concurrency: 3 }), SMALL_HNSW);
    expect(byRuntime.state.maxInFlight).toBe(3);
    const byOption = slowChat();
    await nodeRag.build(DOCS, contextOn(byOption.model, { concurrency: 3 }), {
      ...SMALL_HNSW,
      concurrency: 2,
    });
    expect(byOption.state.maxInFlight).toBe(2);
    // The same calls either way.
    expect(byOption.state.calls).toBe(byRuntime.state.calls);
  });

  it('reports progress per chunk, entity and community', async () => {
    const events: ProgressEvent[] = [];
    const { model, state } = slowChat();
    const index = await nodeRag.build(
      DOCS,
      contextOn(model, { onProgress: (e) => events.push(e) }),
      SMALL_HNSW,
    );
    const of = (stage: string, unit: string) => events.filter((e) => e.stage === stage && e.unit === unit);
    const decompose = of('decompose', 'chunks');
    expect(decompose.map((e) => e.done)).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
    expect(new Set(decompose.map((e) => e.total))).toEqual(new Set([20]));
    const entities = of('attributes', 'entities');
    const communities = of('communities', 'communities');
    expect(entities.length).toBe(index.stats.importantEntities);
    expect(communities.length).toBe(index.stats.communities - index.stats.emptyCommunities);
    // One chat call per chunk, per important entity with material and per non-empty community.
    expect(state.calls).toBe(decompose.length + entities.length + communities.length);
  });

  it('names the stage and the chunk of a failed model call', async () => {
    const { model } = slowChat((prompt) => prompt.includes('from 1887'));
    const error = await nodeRag.build(DOCS, contextOn(model, {}), SMALL_HNSW).catch((e: unknown) => e);
    expect(BuildStageError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ stage: 'decompose', item: 'doc7' });
    expect((error as Error).message).toMatch(/the model is down/);
  });
});
