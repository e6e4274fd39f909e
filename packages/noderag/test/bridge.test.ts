import type { Document } from '@grag/core';
import { createBuildContext } from '@grag/core/kit';
import { createOfflineProviders } from '@grag/offline';
import { describe, expect, it } from 'vitest';
import { nodeRag } from '../src/index.js';
import type { NodeRagOptions, NodeRagRetrieveOptions } from '../src/options.js';

/**
 * A two-hop question: the film passage names its director without the accent of his name; the
 * director's own passage (titled with his name and a disambiguator, his full name nowhere in its
 * text) says where he grew up but shares no word with the question. Only an entity that both
 * passages link to lets the walk cross from the first to the second.
 */
const DOCS: Document[] = [
  {
    id: 'film',
    title: 'Harbour Lights',
    text:
      'Harbour Lights is a 1987 Portuguese drama film directed by Jose Almeida. ' +
      'The film follows a young woman in a fishing village who becomes an artist.',
  },
  {
    id: 'director',
    title: 'José Almeida (director)',
    text: 'Almeida is a painter and screenwriter. He grew up in Porto and studied painting in Lisbon.',
  },
  {
    id: 'd1',
    title: 'Cape Breton Highlands',
    text: 'The Cape Breton Highlands are a plateau in Nova Scotia with a national park and coastal cliffs.',
  },
  {
    id: 'd2',
    title: 'Atlantic Film Festival',
    text: 'The Atlantic Film Festival is held every September in Halifax and screens Canadian films.',
  },
  {
    id: 'd3',
    title: 'Margaret Lawrence',
    text: 'Margaret Lawrence was a Canadian novelist whose books are set in a fictional prairie town.',
  },
  {
    id: 'd4',
    title: 'Drama (film and television)',
    text: 'In film and television, drama is a category of narrative fiction meant to be serious in tone.',
  },
  {
    id: 'd5',
    title: 'Nova Scotia College of Art and Design',
    text: 'The Nova Scotia College of Art and Design is an art school in Halifax founded in 1887.',
  },
];

const QUESTION = 'Who directed the drama film Harbour Lights?';

/** One passage per chunk, a small HNSW graph, and few entry points, so the corpus is not all entries. */
const BUILD: Partial<NodeRagOptions> = {
  chunking: 'document',
  hnswM: 4,
  hnswEfConstruction: 16,
  preset: 'offline',
};
const RETRIEVE: NodeRagRetrieveOptions = { vectorTopK: 2, entryPoints: 'hybrid' };

async function retrievedDocs(build: Partial<NodeRagOptions>, retrieve: NodeRagRetrieveOptions) {
  const { tasks, embedder } = createOfflineProviders();
  const index = await nodeRag.build(DOCS, createBuildContext({ tasks, embedder }), { ...BUILD, ...build });
  const retrieval = await nodeRag.retrieve(index, QUESTION, { ...RETRIEVE, ...retrieve });
  const passages = retrieval.items.filter((item) => item.kind === 'text' || item.kind === 'semantic-unit');
  return { index, docs: new Set(passages.flatMap((item) => item.source.docIds)) };
}

describe('noderag bridges', () => {
  it('links the title entity and walks from the film passage to its director’s passage', async () => {
    const { index, docs } = await retrievedDocs({}, {});
    expect(index.stats.linking?.titleEntities).toBe(DOCS.length);
    // The director's title lost its disambiguator and is the entity the film passage names.
    expect(index.graph.hasNode('N:josé almeida')).toBe(true);
    expect(index.graph.hasNode('N:jose almeida')).toBe(false);
    expect(docs.has('film')).toBe(true);
    expect(docs.has('director')).toBe(true);
  });

  it('does not reach the second hop without entity linking', async () => {
    const { docs } = await retrievedDocs({ entityLinking: false }, { semanticEdges: false });
    expect(docs.has('film')).toBe(true);
    expect(docs.has('director')).toBe(false);
  });

  it('does not reach the second hop without the graph step (entry points only)', async () => {
    const { docs } = await retrievedDocs({}, { graphSearch: false, topK: 2 });
    expect(docs.has('film')).toBe(true);
    expect(docs.has('director')).toBe(false);
  });

  it('does not reach the second hop without PPR iterations', async () => {
    const { docs } = await retrievedDocs({}, { pprIterations: 0 });
    expect(docs.has('director')).toBe(false);
  });
});
