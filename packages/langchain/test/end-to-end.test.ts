import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createBuildContext, Meter, meteredChat } from '@grag/core/kit';
import { createPromptTasks } from '@grag/core/tasks';
import { fromLangChainChat, fromLangChainEmbeddings, GragRetriever } from '@grag/langchain';
import { denseRag } from '@grag/naive-rag';
import type { Document } from '@langchain/core/documents';
import { RunnableLambda, RunnableSequence } from '@langchain/core/runnables';
import { expect, it } from 'vitest';
import { DOCS, FAKE_USAGE, KeywordEmbeddings, UsageFakeChat } from './fixtures.js';

/** A build context whose chat and embedder are LangChain models, metered into `meter`. */
function langchainContext(meter: Meter, responses: string[]) {
  const model = new UsageFakeChat({ responses });
  const chat = meteredChat(fromLangChainChat(model), meter);
  const keywords = new KeywordEmbeddings();
  const embedder = fromLangChainEmbeddings(keywords, { dimensions: 6 });
  const ctx = createBuildContext({ embedder, tasks: createPromptTasks(chat), chat, meter });
  return { ctx, model, keywords };
}

it('builds a dense index with LangChain embeddings and ranks passages as the vectors say', async () => {
  const meter = new Meter();
  const { ctx, keywords } = langchainContext(meter, []);
  const index = await denseRag.build(DOCS, ctx, { chunking: 'document' });
  expect(keywords.batches[0]).toHaveLength(4);

  // Query [1,0,1,0,0,0] against kessler [2,0,1,0,0,1] and nordlys [0,0,1,0,0,0]:
  // cosines 3/(√2·√6) = 0.866 and 1/√2 = 0.707; orsa and regatta share no keyword (0).
  const retrieval = await denseRag.retrieve(index, 'Which ferry did the shipyard build?', { topK: 2 });
  expect(retrieval.items.map((i) => i.id)).toEqual(['kessler', 'nordlys']);
  expect(retrieval.items[0]!.score).toBeCloseTo(Math.sqrt(3) / 2, 5);
  expect(retrieval.items[1]!.score).toBeCloseTo(Math.SQRT1_2, 5);

  const docs = await new GragRetriever({ index, method: denseRag, topK: 1 }).invoke(
    'Which island has a marine institute?',
  );
  expect(docs.map((d) => [d.id, d.metadata.method])).toEqual([['orsa', 'naive-dense']]);
  expect(docs[0]!.metadata.score).toBeCloseTo(1, 5);

  const { total } = meter.snapshot();
  // One build batch of four passages, then one query embedding per retrieval.
  expect([total.embedCalls, total.embeddedValues]).toEqual([3, 6]);
  expect(total.embedTokens).toBeGreaterThan(0);
});

it('answers through a LangChain chain: GragRetriever, then the grag answer task on a LangChain chat model', async () => {
  const meter = new Meter();
  const { ctx, model } = langchainContext(meter, ['Orsa, an island across the Veskan Strait [orsa].']);
  const index = await denseRag.build(DOCS, ctx, { chunking: 'document' });
  const retriever = new GragRetriever({ index, method: denseRag, topK: 2 });

  const chain = RunnableSequence.from([
    retriever,
    RunnableLambda.from((docs: Document[]) =>
      meter.stage('answer', () =>
        ctx.tasks.answer(
          'Which island has a marine institute?',
          docs.map((d) => ({ id: d.id!, text: d.pageContent })),
        ),
      ),
    ),
  ]);
  const answer = await chain.invoke('Which island has a marine institute?');
  expect(answer).toMatchObject({
    answer: 'Orsa, an island across the Veskan Strait [orsa].',
    citations: ['orsa'],
  });
  expect(model.received[0]![1]!.content).toContain('[orsa] Orsa\nOrsa is an island');

  // The usage the LangChain model reported is what the meter counted.
  expect(meter.snapshot().stages.answer).toMatchObject({
    chatCalls: 1,
    inputTokens: FAKE_USAGE.input_tokens,
    outputTokens: FAKE_USAGE.output_tokens,
    models: { 'langchain:fake-list': { calls: 1, inputTokens: 42, outputTokens: 7 } },
  });
});

it('saves and loads an index built with LangChain embeddings', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'grag-langchain-'));
  try {
    const { ctx } = langchainContext(new Meter(), []);
    await denseRag.save(await denseRag.build(DOCS, ctx, { chunking: 'document' }), dir);
    const reloaded = await denseRag.load(dir, langchainContext(new Meter(), []).ctx);
    const docs = await new GragRetriever({ index: reloaded, method: denseRag, topK: 1 }).invoke(
      'When is the sailing race?',
    );
    expect(docs.map((d) => d.id)).toEqual(['regatta']);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
