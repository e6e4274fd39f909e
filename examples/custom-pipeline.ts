/**
 * A custom pipeline from core pieces and a baseline, fully offline:
 *
 * 1. BM25 (from @grag/naive-rag) finds seed passages for the question;
 * 2. the offline graph-extraction task turns every passage into entities and relations, merged
 *    into one knowledge graph with provenance;
 * 3. personalized PageRank from the question's entities ranks entities, and the passages that
 *    mention the top entities join the seeds (a graph hop BM25 alone cannot make);
 * 4. packContext fits everything into a token budget, and the offline answer task cites passages.
 *
 *   pnpm tsx examples/custom-pipeline.ts
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Document, RetrievedItem } from '@grag/core';
import { KnowledgeGraphBuilder, normalizeEntityName, personalizedPageRank } from '@grag/core/graph';
import { createBuildContext, getTokenizer, packContext } from '@grag/core/kit';
import { bm25Rag } from '@grag/naive-rag';
import { createOfflineProviders } from '@grag/offline';

const demo = fileURLToPath(new URL('../packages/cli/demo/', import.meta.url));

export async function run(
  question = 'Who directs the institute that owns the research vessel built by the Kessler Shipyard?',
): Promise<{ answer: string; citations: string[]; items: RetrievedItem[]; context: string; tokens: number }> {
  const docs: Document[] = readdirSync(demo)
    .filter((f) => f.endsWith('.md'))
    .map((f) => ({ id: f, text: readFileSync(join(demo, f), 'utf8') }));
  const { tasks, embedder } = createOfflineProviders();
  const ctx = createBuildContext({ tasks, embedder });

  // 1. Lexical seeds from the baseline (one unit per document here).
  const index = await bm25Rag.build(docs, ctx, { chunking: 'document' });
  const seeds = await bm25Rag.retrieve(index, question, { topK: 2 });

  // 2. A knowledge graph over every passage.
  const builder = new KnowledgeGraphBuilder();
  for (const doc of docs)
    builder.addExtraction(await tasks.extractGraph(doc.text), { chunkId: doc.id, docId: doc.id });
  const kg = builder.build();

  // 3. Entities near the question's entities, and the passages that mention them.
  const { entities } = await tasks.extractQueryEntities(question);
  const known = entities.map(normalizeEntityName).filter((id) => kg.entities.has(id));
  const ranks = known.length ? personalizedPageRank(kg.toGraph(), known) : new Map<string, number>();
  const top = [...ranks].sort((a, b) => b[1] - a[1]).slice(0, 5);
  const byId = new Map(docs.map((d) => [d.id, d]));
  const items: RetrievedItem[] = [...seeds.items];
  for (const [entityId, score] of top) {
    for (const chunkId of kg.entities.get(entityId)!.chunkIds) {
      if (items.some((i) => i.id === chunkId)) continue;
      items.push({
        id: chunkId,
        kind: 'chunk',
        text: byId.get(chunkId)!.text,
        score,
        source: { chunkIds: [chunkId], docIds: [chunkId] },
      });
    }
  }

  // 4. Pack and answer.
  const packed = packContext(items, 1500, { tokenizer: getTokenizer() });
  const answer = await tasks.answer(
    question,
    packed.items.map((i) => ({ id: i.id, text: i.text })),
  );
  console.log(`Q: ${question}`);
  console.log(`query entities in the graph: ${known.join(', ') || '(none)'}`);
  console.log(`context: ${packed.items.map((i) => i.id).join(', ')} (${packed.tokens} tokens)`);
  console.log(`A: ${answer.answer}\n   cites: ${answer.citations.join(', ')}`);
  return {
    answer: answer.answer,
    citations: answer.citations,
    items: packed.items,
    context: packed.context,
    tokens: packed.tokens,
  };
}

if (import.meta.url === `file://${process.argv[1]}`) await run();
