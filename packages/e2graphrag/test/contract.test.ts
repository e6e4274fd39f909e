import { memoryStore } from '@grag/core/store';
import { entityDocuments } from '@grag/core/test';
import { runMethodSpec } from '@grag/core/test/vitest';
import { e2GraphRag } from '../src/index.js';
import { winkContext } from './fixtures.js';

// The default method (wink entities, entity linking, hybrid entry points, bridges) on small chunks.
// Every check on directories, then the persistence checks on an in-memory store (same results).
for (const store of [undefined, memoryStore]) {
  runMethodSpec('e2graphrag', e2GraphRag, {
    corpus: entityDocuments(12),
    makeContext: winkContext,
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
