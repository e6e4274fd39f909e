import { createBuildContext } from '@grag/core/kit';
import { GragRetriever } from '@grag/langchain';
import { type NodeRagIndex, nodeRag } from '@grag/noderag';
import { createOfflineProviders } from '@grag/offline';
import { beforeAll, expect, it } from 'vitest';

// The two passages of @grag/noderag's README: NodeRAG's graph has seven node types, so its
// retrievals mix item kinds, each with the provenance of the passages behind it.
const DOCS = [
  {
    id: 'kessler',
    title: 'Kessler Shipyard',
    text: 'The Kessler Shipyard was founded in 1881 by Anton Kessler. The shipyard built ferries for Orsa.',
  },
  {
    id: 'orsa',
    title: 'Orsa',
    text: 'Orsa is an island across the Veskan Strait. Anton Kessler was born on Orsa in 1850.',
  },
];
const QUESTION = 'Where was Anton Kessler born?';

let index: NodeRagIndex;

beforeAll(async () => {
  index = await nodeRag.build(DOCS, createBuildContext(createOfflineProviders()));
});

it('returns every item of a NodeRAG retrieval as a document, kinds and provenance kept', async () => {
  const docs = await new GragRetriever({ index, method: nodeRag }).invoke(QUESTION);
  const direct = await nodeRag.retrieve(index, QUESTION);
  expect(docs.map((d) => [d.id, d.pageContent, d.metadata])).toEqual(
    direct.items.map((item) => [
      item.id,
      item.text,
      { id: item.id, kind: item.kind, score: item.score, source: item.source, method: 'noderag' },
    ]),
  );
  // Independent of the method's own output: NodeRAG's README lists these kinds for this question,
  // and the passage that answers it is among the text items.
  expect([...new Set(docs.map((d) => d.metadata.kind))].sort()).toEqual([
    'attribute',
    'high-level-element',
    'relationship',
    'semantic-unit',
    'text',
  ]);
  const texts = docs.filter((d) => d.metadata.kind === 'text');
  expect(
    texts.some((d) => d.metadata.source.docIds.includes('orsa') && d.pageContent.includes('born on Orsa')),
  ).toBe(true);
});

it("passes a method's own retrieve options through retrieveOptions", async () => {
  // The official code's buckets with no relationship bucket: no relationship node is retrieved.
  const options = { crossNodeSelection: 'official', relationships: 0 } as const;
  const retriever = new GragRetriever({ index, method: nodeRag, retrieveOptions: options });
  const docs = await retriever.invoke(QUESTION);
  const direct = await nodeRag.retrieve(index, QUESTION, options);
  expect(docs.map((d) => d.id)).toEqual(direct.items.map((i) => i.id));
  expect(docs.some((d) => d.metadata.kind === 'relationship')).toBe(false);
});

it('returns exactly k documents, the first k items in context order, whatever topK packs', async () => {
  const all = await nodeRag.retrieve(index, QUESTION, { topK: 1 });
  // topK ranks units before packing; NodeRAG packs several items per unit.
  expect(all.items.length).toBeGreaterThan(4);
  for (const k of [1, 2, 4]) {
    const docs = await new GragRetriever({ index, method: nodeRag, k, topK: 1 }).invoke(QUESTION);
    expect(docs.map((d) => d.id)).toEqual(all.items.slice(0, k).map((i) => i.id));
  }
});

it('returns topK documents when only topK is given, though NodeRAG packs more items', async () => {
  for (const topK of [1, 2, 4]) {
    const all = await nodeRag.retrieve(index, QUESTION, { topK });
    expect(all.items.length).toBeGreaterThan(topK);
    const docs = await new GragRetriever({ index, method: nodeRag, topK }).invoke(QUESTION);
    expect(docs.map((d) => d.id)).toEqual(all.items.slice(0, topK).map((i) => i.id));
    const viaOptions = new GragRetriever({ index, method: nodeRag, retrieveOptions: { topK } });
    expect(viaOptions.k).toBe(topK);
    expect(await viaOptions.invoke(QUESTION)).toHaveLength(topK);
  }
  // k, when given, wins over topK: topK stays the ranking depth.
  const wide = await nodeRag.retrieve(index, QUESTION, { topK: 1 });
  const k = wide.items.length;
  const docs = await new GragRetriever({ index, method: nodeRag, topK: 1, k }).invoke(QUESTION);
  expect(docs.map((d) => d.id)).toEqual(wide.items.map((i) => i.id));
});
