import { createBuildContext } from '@grag/core/kit';
import { memoryStore } from '@grag/core/store';
import { createPromptTasks } from '@grag/core/tasks';
import { createScriptedChatModel, createScriptedEmbedder, entityDocuments } from '@grag/core/test';
import { runMethodSpec } from '@grag/core/test/vitest';
import { createWinkTextAnalyzer } from '@grag/offline';
import { e2GraphRag } from '../src/index.js';

const makeContext = () =>
  createBuildContext({
    embedder: createScriptedEmbedder({ dimensions: 32 }),
    // A summary depends on its input only, so two builds on one context agree.
    tasks: createPromptTasks(
      createScriptedChatModel((call) => `overview of ${call.messages.at(-1)!.content.length} characters`),
    ),
    textAnalyzer: createWinkTextAnalyzer(),
  });

// The default method (wink entities, entity linking, hybrid entry points, bridges) on small chunks.
// Every check on directories, then the persistence checks on an in-memory store (same results).
for (const store of [undefined, memoryStore]) {
  runMethodSpec('e2graphrag', e2GraphRag, {
    corpus: entityDocuments(12),
    makeContext,
    buildOptions: { chunkSize: 40, overlap: 5 },
    badOptions: [
      { chunking: 'sideways' as never },
      { entryPoints: 'sideways' as never },
      { groupSize: 1 },
      { bridges: -1 },
      { entityLinking: 'yes' as never },
    ],
    store,
  });
}
