/**
 * The three-document harbour corpus the middleware and tool tests ask about, and its BM25 index
 * (one chunk a document, a scripted embedder, no tasks).
 */
import type { Document, TaskSuite } from '@grag/core';
import { createBuildContext } from '@grag/core/kit';
import { createScriptedEmbedder } from '@grag/core/test';
import { type Bm25RagIndex, bm25Rag } from '@grag/naive-rag';

export const HARBOUR_DOCS: Document[] = [
  {
    id: 'kessler',
    text: 'The Kessler Shipyard in Port Halvard was founded in 1881 by Anton Kessler.',
    // As a loader gives it: the place in the source file, which the item's source label shows.
    segments: [{ start: 0, end: 74, location: { path: 'history.pdf', page: 3 } }],
  },
  {
    id: 'falls',
    title: 'Merrow Falls',
    text: 'Merrow Falls lies upriver from Port Halvard; its mill was built by the Kessler Shipyard.',
  },
  {
    id: 'strait',
    title: 'Veskan Strait',
    text: 'Ferries built by the Kessler Shipyard cross the Veskan Strait from Port Halvard to Orsa.',
  },
];

/**
 * {@link HARBOUR_DOCS} indexed by `bm25Rag`, one chunk a document; `includeTitle: false` leaves the
 * titles out of the chunk texts (the middleware tests compare the prompt with the items' texts).
 */
export function buildHarbourIndex(options: { includeTitle?: boolean } = {}): Promise<Bm25RagIndex> {
  const ctx = createBuildContext({
    embedder: createScriptedEmbedder({ dimensions: 8 }),
    tasks: { id: 'no-tasks' } as TaskSuite,
  });
  return bm25Rag.build(HARBOUR_DOCS, ctx, { chunking: 'document', ...options });
}
