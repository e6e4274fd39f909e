import { AbortError, embedAll, InvalidArgumentError, modelFingerprint, ProviderError } from '@grag/core';
import { fromLangChainEmbeddings, probeLangChainEmbeddings } from '@grag/langchain';
import { Embeddings } from '@langchain/core/embeddings';
import { FakeEmbeddings, SyntheticEmbeddings } from '@langchain/core/utils/testing';
import { describe, expect, it } from 'vitest';
import { KeywordEmbeddings } from './fixtures.js';

/** Embeddings that answer whatever `answer` returns (for malformed replies). */
class Scripted extends Embeddings {
  constructor(private readonly answer: (documents: string[]) => Promise<unknown>) {
    super({});
  }
  embedDocuments(documents: string[]) {
    return this.answer(documents) as Promise<number[][]>;
  }
  async embedQuery(): Promise<number[]> {
    return [];
  }
}

describe('fromLangChainEmbeddings', () => {
  it('returns embedDocuments vectors as Float32Arrays in input order', async () => {
    const embedder = fromLangChainEmbeddings(new KeywordEmbeddings(), { dimensions: 6 });
    const { embeddings, usage } = await embedder.doEmbed({
      values: ['an island institute', 'two ferries, one ferry'],
    });
    expect(embeddings).toEqual([new Float32Array([0, 1, 0, 0, 1, 0]), new Float32Array([0, 0, 2, 0, 0, 0])]);
    expect(usage).toBeUndefined();
    expect((await embedder.doEmbed({ values: [] })).embeddings).toEqual([]);
  });

  it('names itself after the model field, else the class, in the index fingerprint', () => {
    expect(modelFingerprint(fromLangChainEmbeddings(new KeywordEmbeddings(), { dimensions: 6 }))).toBe(
      'langchain:keyword-counts:6',
    );
    expect(modelFingerprint(fromLangChainEmbeddings(new FakeEmbeddings(), { dimensions: 4 }))).toBe(
      'langchain:FakeEmbeddings:4',
    );
    expect(
      modelFingerprint(
        fromLangChainEmbeddings(new FakeEmbeddings(), { dimensions: 4, modelId: 'e5', provider: 'hf' }),
      ),
    ).toBe('hf:e5:4');
  });

  it("reads dimensions from the embeddings object's own field when not given", () => {
    const withField = Object.assign(new FakeEmbeddings(), { dimensions: 4 });
    expect(fromLangChainEmbeddings(withField).dimensions).toBe(4);
  });

  it('refuses to guess dimensions, and points to probeLangChainEmbeddings', () => {
    expect(() => fromLangChainEmbeddings(new FakeEmbeddings())).toThrow(
      /^@grag\/langchain: fromLangChainEmbeddings needs `dimensions`.*await probeLangChainEmbeddings\(embeddings\)/,
    );
    const bad = (() => {
      try {
        fromLangChainEmbeddings(new FakeEmbeddings(), { dimensions: 2.5 });
      } catch (error) {
        return error;
      }
    })();
    expect(InvalidArgumentError.isInstance(bad) && bad.argument).toBe('dimensions');
    expect(() => fromLangChainEmbeddings({} as never, { dimensions: 3 })).toThrow(
      /needs a LangChain Embeddings/,
    );
  });

  it('checks every vector against the dimensions', async () => {
    const embedder = fromLangChainEmbeddings(new FakeEmbeddings(), { dimensions: 8 });
    const error = await embedder.doEmbed({ values: ['a'] }).catch((e: unknown) => e);
    expect(ProviderError.isInstance(error)).toBe(true);
    expect((error as Error).message).toBe(
      "@grag/langchain: embedding call to model 'FakeEmbeddings' answered a vector of length 4 (value 0), not the 8 dimensions expected — check the embeddings class and the `dimensions` given to fromLangChainEmbeddings.",
    );
  });

  it('refuses a reply with the wrong number of vectors or non-numbers', async () => {
    const short = fromLangChainEmbeddings(new Scripted(async () => [[1, 2]]), {
      dimensions: 2,
      modelId: 's',
    });
    await expect(short.doEmbed({ values: ['a', 'b'] })).rejects.toThrow('answered 1 vectors for 2 values');
    const nan = fromLangChainEmbeddings(new Scripted(async () => [[1, Number.NaN]]), { dimensions: 2 });
    await expect(nan.doEmbed({ values: ['a'] })).rejects.toThrow('a non-finite number (value 0)');
  });

  it('turns a failed call into a ProviderError with its status', async () => {
    const failing = new Scripted(async () => {
      throw Object.assign(new Error('Service Unavailable'), { status: 503 });
    });
    const error = await fromLangChainEmbeddings(failing, { dimensions: 2, modelId: 'e' })
      .doEmbed({ values: ['a'] })
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'provider', status: 503, retryable: true });
    expect((error as Error).message).toMatch(
      /^@grag\/langchain: embedding call to model 'e' failed \(HTTP 503\)/,
    );
  });

  it('splits values into batches of batchSize, through embedAll and in doEmbed', async () => {
    const keywords = new KeywordEmbeddings();
    const embedder = fromLangChainEmbeddings(keywords, { dimensions: 6, batchSize: 2 });
    expect(embedder.maxBatchSize).toBe(2);
    const values = ['island', 'ferry', 'race', 'found', 'shipyard'];
    const vectors = await embedAll(embedder, values);
    expect(keywords.batches).toEqual([['island', 'ferry'], ['race', 'found'], ['shipyard']]);
    expect(vectors.map((v) => [...v].indexOf(1))).toEqual([1, 2, 3, 5, 0]);
    keywords.batches.length = 0;
    expect((await embedder.doEmbed({ values })).embeddings).toHaveLength(5);
    expect(keywords.batches.map((b) => b.length)).toEqual([2, 2, 1]);
  });

  it('rejects with AbortError when aborted, without waiting for the model', async () => {
    const never = new Scripted(() => new Promise(() => {}));
    const embedder = fromLangChainEmbeddings(never, { dimensions: 2, modelId: 'slow' });
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 20);
    const error = await embedder
      .doEmbed({ values: ['a'], abortSignal: controller.signal })
      .catch((e: unknown) => e);
    expect(AbortError.isInstance(error)).toBe(true);
    expect((error as Error).message).toBe("@grag/langchain: embedding call to model 'slow' was aborted.");
    const counted = new KeywordEmbeddings();
    await expect(
      fromLangChainEmbeddings(counted, { dimensions: 6 }).doEmbed({
        values: ['a'],
        abortSignal: AbortSignal.abort(),
      }),
    ).rejects.toSatisfy(AbortError.isInstance);
    expect(counted.batches).toEqual([]);
  });
});

describe('probeLangChainEmbeddings', () => {
  it('learns the dimensions from one embedding of a short text', async () => {
    expect((await probeLangChainEmbeddings(new FakeEmbeddings())).dimensions).toBe(4);
    expect((await probeLangChainEmbeddings(new SyntheticEmbeddings({ vectorSize: 12 }))).dimensions).toBe(12);
    const keywords = new KeywordEmbeddings();
    const embedder = await probeLangChainEmbeddings(keywords);
    expect([embedder.dimensions, keywords.batches]).toEqual([6, [['dimension probe']]]);
  });

  it('makes no call when dimensions are given', async () => {
    const keywords = new KeywordEmbeddings();
    expect((await probeLangChainEmbeddings(keywords, { dimensions: 6 })).dimensions).toBe(6);
    expect(keywords.batches).toEqual([]);
  });

  it('fails in one line when the probe answers no vector', async () => {
    await expect(probeLangChainEmbeddings(new Scripted(async () => []), { modelId: 'x' })).rejects.toThrow(
      "@grag/langchain: dimension probe of embedding model 'x' answered an array, not a vector — pass `dimensions` to fromLangChainEmbeddings instead.",
    );
  });
});
