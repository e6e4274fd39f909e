import { AbortError, InvalidArgumentError, type Method, ProviderError } from '@grag/core';
import { createBuildContext } from '@grag/core/kit';
import { GragRetriever } from '@grag/langchain';
import { type Bm25RagIndex, bm25Rag } from '@grag/naive-rag';
import { createOfflineProviders } from '@grag/offline';
import { BaseCallbackHandler } from '@langchain/core/callbacks/base';
import type { Document } from '@langchain/core/documents';
import { RunnableLambda, RunnableSequence } from '@langchain/core/runnables';
import { beforeAll, describe, expect, it } from 'vitest';
import { DOCS } from './fixtures.js';

let index: Bm25RagIndex;

beforeAll(async () => {
  const { tasks, embedder } = createOfflineProviders();
  index = await bm25Rag.build(DOCS, createBuildContext({ embedder, tasks }), { chunking: 'document' });
});

/** Records the retriever and chain callbacks LangChain fires. */
class Recorder extends BaseCallbackHandler {
  name = 'recorder';
  readonly events: { event: string; runId: string; parentRunId?: string | undefined; payload: unknown }[] =
    [];
  override handleRetrieverStart(
    serialized: unknown,
    query: string,
    runId: string,
    parentRunId?: string,
    tags?: string[],
  ) {
    this.events.push({ event: 'retriever-start', runId, parentRunId, payload: { serialized, query, tags } });
  }
  override handleRetrieverEnd(documents: Document[], runId: string, parentRunId?: string) {
    this.events.push({ event: 'retriever-end', runId, parentRunId, payload: documents });
  }
  override handleRetrieverError(error: unknown, runId: string, parentRunId?: string) {
    this.events.push({ event: 'retriever-error', runId, parentRunId, payload: error });
  }
  override handleChainStart(
    _chain: unknown,
    _inputs: unknown,
    runId: string,
    _runType?: string,
    _tags?: string[],
    _metadata?: Record<string, unknown>,
    _runName?: string,
    parentRunId?: string,
  ) {
    this.events.push({ event: 'chain-start', runId, parentRunId, payload: undefined });
  }
}

/** A method whose retrieve is scripted, for the paths a real index does not take. */
function stubMethod(retrieve: Method<string>['retrieve']): Method<string> {
  return {
    name: 'stub',
    description: 'test stub',
    capabilities: { uses: [] },
    formatVersion: 1,
    build: async () => 'index',
    retrieve,
    save: async () => {},
    load: async () => 'index',
  };
}

describe('GragRetriever over a bm25 index', () => {
  it('returns the passage that answers the question first, with the item as metadata', async () => {
    const retriever = new GragRetriever({ index, method: bm25Rag });
    const docs = await retriever.invoke('Who founded the shipyard?');
    expect(docs[0]).toMatchObject({
      id: 'kessler',
      pageContent:
        'Kessler Shipyard\nThe Kessler Shipyard was founded in 1881 by Anton and Jakob Kessler. It builds ferries.',
      metadata: {
        id: 'kessler',
        kind: 'chunk',
        source: { chunkIds: ['kessler'], docIds: ['kessler'] },
        method: 'bm25',
      },
    });
    expect(docs[0]!.metadata.score).toBeGreaterThan(0);
  });

  it('returns exactly the items of method.retrieve, in its order', async () => {
    const question = 'Which ferry crosses the Veskan Strait?';
    const direct = await bm25Rag.retrieve(index, question);
    const docs = await new GragRetriever({ index, method: bm25Rag }).invoke(question);
    expect(direct.items.length).toBeGreaterThan(1);
    expect(docs.map((d) => ({ id: d.id, pageContent: d.pageContent, metadata: d.metadata }))).toEqual(
      direct.items.map((item) => ({
        id: item.id,
        pageContent: item.text,
        metadata: { id: item.id, kind: item.kind, score: item.score, source: item.source, method: 'bm25' },
      })),
    );
    expect(docs[0]!.id).toBe('nordlys');
  });

  it('passes topK and budgetTokens on as grag retrieve options', async () => {
    const question = 'Which ferry crosses the Veskan Strait?';
    const top1 = await new GragRetriever({ index, method: bm25Rag, topK: 1 }).invoke(question);
    expect(top1.map((d) => d.id)).toEqual(['nordlys']);
    // A budget that holds one passage (each is 15-25 tokens) but not two.
    const budget = await new GragRetriever({ index, method: bm25Rag, budgetTokens: 30 }).invoke(question);
    const direct = await bm25Rag.retrieve(index, question, { budgetTokens: 30 });
    expect(budget.map((d) => d.id)).toEqual(direct.items.map((i) => i.id));
    expect(budget.length).toBe(1);
    const viaOptions = new GragRetriever({ index, method: bm25Rag, retrieveOptions: { topK: 2 } });
    expect(viaOptions.retrieveOptions).toEqual({ topK: 2 });
    expect(await viaOptions.invoke(question)).toHaveLength(2);
  });

  it('exposes the whole grag Retrieval through retrieve()', async () => {
    const retriever = new GragRetriever({ index, method: bm25Rag, topK: 1 });
    const retrieval = await retriever.retrieve('Who founded the shipyard?');
    expect(retrieval.items.map((i) => i.id)).toEqual(['kessler']);
    expect(retrieval.context).toContain('[kessler]');
  });

  it('answers each query of a batch', async () => {
    const retriever = new GragRetriever({ index, method: bm25Rag, topK: 1 });
    const results = await retriever.batch(['Who founded the shipyard?', 'When is the sailing race held?']);
    expect(results.map((docs) => docs.map((d) => d.id))).toEqual([['kessler'], ['regatta']]);
  });
});

describe('GragRetriever in LangChain', () => {
  it('works as the first step of a runnable chain', async () => {
    const retriever = new GragRetriever({ index, method: bm25Rag, topK: 2 });
    const ids = RunnableLambda.from((docs: Document[]) => docs.map((d) => d.id).join(','));
    expect(await retriever.pipe(ids).invoke('Which ferry crosses the Veskan Strait?')).toMatch(/^nordlys,/);
    const sequence = RunnableSequence.from([
      (input: { question: string }) => input.question,
      retriever,
      (docs: Document[]) => docs[0]?.metadata.source.docIds,
    ]);
    expect(await sequence.invoke({ question: 'Who founded the shipyard?' })).toEqual(['kessler']);
  });

  it('reports its run to callbacks, as a child run inside a chain', async () => {
    const retriever = new GragRetriever({ index, method: bm25Rag, topK: 1 });
    const direct = new Recorder();
    const docs = await retriever.invoke('Who founded the shipyard?', { callbacks: [direct] });
    expect(direct.events.map((e) => e.event)).toEqual(['retriever-start', 'retriever-end']);
    expect(direct.events[0]!.payload).toMatchObject({
      query: 'Who founded the shipyard?',
      serialized: { id: ['grag', 'retrievers', 'GragRetriever'] },
    });
    expect(direct.events[1]!.payload).toEqual(docs);

    const inChain = new Recorder();
    await retriever
      .pipe(RunnableLambda.from((d: Document[]) => d.length))
      .invoke('Who founded the shipyard?', {
        callbacks: [inChain],
      });
    const chain = inChain.events.find((e) => e.event === 'chain-start' && e.parentRunId === undefined)!;
    const start = inChain.events.find((e) => e.event === 'retriever-start')!;
    expect(start.parentRunId).toBe(chain.runId);
  });

  it('uses callbacks given to the constructor', async () => {
    const recorder = new Recorder();
    const retriever = new GragRetriever({
      index,
      method: bm25Rag,
      topK: 1,
      callbacks: [recorder],
      tags: ['kb'],
    });
    await retriever.invoke('Who founded the shipyard?', { tags: ['call'] });
    expect(recorder.events.map((e) => e.event)).toEqual(['retriever-start', 'retriever-end']);
    expect((recorder.events[0]!.payload as { tags: string[] }).tags.sort()).toEqual(['call', 'kb']);
  });

  it('reports a failed retrieval to callbacks and rethrows the grag error', async () => {
    const failure = new ProviderError('openai', 'embedding endpoint down');
    const retriever = new GragRetriever({
      index: 'index',
      method: stubMethod(async () => {
        throw failure;
      }),
    });
    const recorder = new Recorder();
    await expect(retriever.invoke('q', { callbacks: [recorder] })).rejects.toBe(failure);
    expect(recorder.events.map((e) => [e.event, e.payload])).toEqual([
      ['retriever-start', expect.anything()],
      ['retriever-error', failure],
    ]);
  });
});

describe('GragRetriever abort', () => {
  const hanging = () => {
    const seen: (AbortSignal | undefined)[] = [];
    const method = stubMethod((_index, _query, options) => {
      seen.push(options?.signal);
      return new Promise(() => {});
    });
    return { seen, retriever: new GragRetriever({ index: 'index', method, topK: 3 }) };
  };

  it('passes the run config signal to the method and rejects with AbortError when it aborts', async () => {
    const { seen, retriever } = hanging();
    const controller = new AbortController();
    const pending = retriever.invoke('q', { signal: controller.signal });
    await new Promise((r) => setTimeout(r, 10));
    controller.abort();
    const error = await pending.catch((e: unknown) => e);
    expect(AbortError.isInstance(error)).toBe(true);
    expect((error as Error).message).toBe(
      "@grag/langchain: GragRetriever retrieval with method 'stub' was aborted.",
    );
    expect(seen).toHaveLength(1);
    expect(seen[0]?.aborted).toBe(true);
  });

  it('gets the signal of a chain it runs in', async () => {
    const { seen, retriever } = hanging();
    const controller = new AbortController();
    const chain = retriever.pipe(RunnableLambda.from((docs: Document[]) => docs.length));
    const pending = chain.invoke('q', { signal: controller.signal });
    await new Promise((r) => setTimeout(r, 10));
    expect(seen).toHaveLength(1);
    expect(seen[0]?.aborted).toBe(false);
    controller.abort();
    await expect(pending).rejects.toThrow();
    expect(seen[0]?.aborted).toBe(true);
  });

  it('aborts on the run config timeout', async () => {
    const { retriever } = hanging();
    const started = performance.now();
    await expect(retriever.invoke('q', { timeout: 30 })).rejects.toSatisfy(AbortError.isInstance);
    expect(performance.now() - started).toBeLessThan(2000);
  });

  it('does not call the method when the signal is already aborted', async () => {
    const { seen, retriever } = hanging();
    await expect(retriever.invoke('q', { signal: AbortSignal.abort() })).rejects.toSatisfy(
      AbortError.isInstance,
    );
    expect(seen).toEqual([]);
  });

  it('passes the retrieve options with the signal and nothing else', async () => {
    const calls: unknown[] = [];
    const method = stubMethod(async (_index, query, options) => {
      calls.push({ query, options });
      return { context: '', items: [], tokens: 0, trace: {} };
    });
    const controller = new AbortController();
    await new GragRetriever({ index: 'index', method, budgetTokens: 500 }).invoke('q', {
      signal: controller.signal,
    });
    await new GragRetriever({ index: 'index', method }).invoke('plain');
    expect(calls).toEqual([
      { query: 'q', options: { budgetTokens: 500, signal: controller.signal } },
      { query: 'plain', options: {} },
    ]);
  });
});

describe('GragRetriever construction', () => {
  const attempt = (fields: unknown) => {
    try {
      new GragRetriever(fields as never);
    } catch (error) {
      return error as InvalidArgumentError;
    }
    throw new Error('expected an InvalidArgumentError');
  };

  it('refuses a missing method or index with a one-line InvalidArgumentError', () => {
    const noMethod = attempt({ index });
    expect(InvalidArgumentError.isInstance(noMethod)).toBe(true);
    expect(noMethod.argument).toBe('method');
    expect(noMethod.message).toMatch(/^@grag\/langchain: GragRetriever needs `method`, a grag Method/);
    const noIndex = attempt({ method: bm25Rag });
    expect(noIndex.argument).toBe('index');
    expect(noIndex.message).toBe(
      "@grag/langchain: GragRetriever needs `index`, an index of method 'bm25' (from `bm25.build(docs, ctx)` or `.load(dir, ctx)`).",
    );
  });

  it('refuses a k, topK or budget that is not a positive integer', () => {
    expect(attempt({ index, method: bm25Rag, topK: 0 }).message).toBe(
      '@grag/langchain: GragRetriever `topK` must be a positive integer (got number 0).',
    );
    expect(attempt({ index, method: bm25Rag, budgetTokens: 'lots' }).argument).toBe('budgetTokens');
    expect(attempt({ index, method: bm25Rag, k: 1.5 }).message).toBe(
      '@grag/langchain: GragRetriever `k` must be a positive integer (got number 1.5).',
    );
  });

  it("checks retrieveOptions against the method's retrieve option keys", () => {
    const typo = attempt({ index, method: bm25Rag, retrieveOptions: { topk: 3 } });
    expect(typo.argument).toBe('topk');
    expect(typo.message).toMatch(
      /^@grag\/langchain: GragRetriever retrieveOptions of method 'bm25': unknown option "topk"; did you mean "topK"\?/,
    );
    expect(
      attempt({ index, method: bm25Rag, retrieveOptions: { signal: AbortSignal.abort() } }).argument,
    ).toBe('retrieveOptions.signal');
    expect(attempt({ index, method: bm25Rag, topK: 2, retrieveOptions: { topK: 3 } }).argument).toBe(
      'retrieveOptions.topK',
    );
  });
});
