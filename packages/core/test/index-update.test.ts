import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  AbortError,
  type BuildContext,
  InvalidArgumentError,
  StateError,
  type TaskSuite,
} from '../src/index.js';
import {
  Bm25Index,
  createBuildContext,
  MemoryCheckpointStore,
  planIndexChange,
  prepareUpdate,
  refitStage,
  startUpdate,
} from '../src/kit.js';
import { createScriptedEmbedder } from '../src/test/index.js';

const texts = [
  'the river flows into the sea',
  'a river and a lake',
  'mountains above the lake',
  'the sea is salty',
  'river river river delta',
];

describe('Bm25Index.update', () => {
  it('scores exactly as an index built on the changed texts', () => {
    const updated = new Bm25Index(texts).update({ remove: [1, 3], add: ['a new river', 'salty lake water'] });
    const fresh = new Bm25Index([texts[0]!, texts[2]!, texts[4]!, 'a new river', 'salty lake water']);
    expect(updated.size).toBe(5);
    for (const query of ['river', 'salty lake', 'sea', 'mountains delta water']) {
      expect(updated.search(query, 10)).toEqual(fresh.search(query, 10));
    }
  });

  it('follows the document frequency and average length by hand', () => {
    // Docs after the change: ['river sea' (2 terms), 'river' (1 term)]: df(river) = 2, avg length 1.5.
    const updated = new Bm25Index(['lake', 'river sea']).update({ remove: [0], add: ['river'] });
    expect(updated.idf('river')).toBeCloseTo(Math.log(1 + (2 - 2 + 0.5) / (2 + 0.5)), 12);
    expect(updated.idf('lake')).toBeCloseTo(Math.log(1 + (2 + 0.5) / 0.5), 12);
    const [k1, b] = [1.2, 0.75];
    const idfSea = Math.log(1 + (2 - 1 + 0.5) / (1 + 0.5));
    const norm = k1 * (1 - b + (b * 2) / 1.5);
    expect(updated.search('sea', 5)).toEqual([
      { id: 0, score: expect.closeTo((idfSea * (k1 + 1)) / (1 + norm), 12) },
    ]);
  });

  it('tokenizes only the added texts and leaves the original index as it was', () => {
    const seen: string[] = [];
    const tokenize = (text: string) => {
      seen.push(text);
      return text.split(' ');
    };
    const index = new Bm25Index(['a b', 'b c', 'c d'], { tokenize });
    seen.length = 0;
    const before = index.search('b', 5);
    const updated = index.update({ remove: [0], add: ['d e'] });
    expect(seen).toEqual(['b', 'd e']);
    expect(index.search('b', 5)).toEqual(before);
    expect(index.size).toBe(3);
    expect(updated.search('b', 5).map((h) => h.id)).toEqual([0]);
  });

  it('refuses an id it does not hold', () => {
    expect(() => new Bm25Index(texts).update({ remove: [5] })).toThrow(
      /5 is not a document id of this index \(0 to 4\)/,
    );
  });

  it('equals a fresh index for any change (property)', () => {
    const word = fc.constantFrom('alpha', 'beta', 'gamma', 'delta', 'the', 'river');
    const text = fc.array(word, { minLength: 0, maxLength: 6 }).map((w) => w.join(' '));
    fc.assert(
      fc.property(
        fc.array(text, { minLength: 1, maxLength: 8 }),
        fc.array(fc.boolean(), { minLength: 8, maxLength: 8 }),
        fc.array(text, { maxLength: 4 }),
        (base, drop, add) => {
          const remove = base.map((_, i) => i).filter((i) => drop[i]);
          const kept = base.filter((_, i) => !drop[i]);
          const updated = new Bm25Index(base).update({ remove, add });
          const fresh = new Bm25Index([...kept, ...add]);
          for (const query of ['alpha', 'beta gamma', 'river delta alpha']) {
            expect(updated.search(query, 20)).toEqual(fresh.search(query, 20));
          }
        },
      ),
      { numRuns: 100 },
    );
  });
});

describe('planIndexChange', () => {
  const indexed = ['a', 'b', 'c'];

  it('splits added documents into new and replaced ones and orders the documents after', () => {
    const plan = planIndexChange(
      't',
      {
        add: [
          { id: 'd', text: 'D' },
          { id: 'b', text: 'B2' },
        ],
        remove: ['a'],
      },
      indexed,
    );
    expect(plan.added).toEqual(['d']);
    expect(plan.replaced).toEqual(['b']);
    expect(plan.removed).toEqual(['a']);
    expect([...plan.drop].sort()).toEqual(['a', 'b']);
    expect(plan.documents).toEqual(['c', 'd', 'b']);
  });

  it('names every unknown id in one InvalidArgumentError', () => {
    let error: unknown;
    try {
      planIndexChange('bm25 update', { remove: ['a', 'x', 'y'] }, indexed);
    } catch (e) {
      error = e;
    }
    expect(InvalidArgumentError.isInstance(error)).toBe(true);
    expect((error as InvalidArgumentError).argument).toBe('remove');
    expect((error as Error).message).toBe(
      'bm25 update: the index holds no document with the id "x", "y"; nothing was changed. Remove only ids of indexed documents.',
    );
  });

  it('refuses repeated added ids, an id both added and removed, and an emptied index', () => {
    expect(() =>
      planIndexChange(
        't',
        {
          add: [
            { id: 'd', text: '1' },
            { id: 'd', text: '2' },
          ],
        },
        indexed,
      ),
    ).toThrow(/two documents with the id "d"/);
    expect(() => planIndexChange('t', { add: [{ id: 'a', text: '1' }], remove: ['a'] }, indexed)).toThrow(
      /"a" is both added and removed/,
    );
    expect(() => planIndexChange('t', { remove: ['a', 'b', 'c'] }, indexed)).toThrow(
      /would leave the index without documents/,
    );
    expect(() => planIndexChange('t', { add: [{ id: 1, text: 'x' } as never] }, indexed)).toThrow(
      /add\[0\] must be a document/,
    );
  });
});

describe('startUpdate', () => {
  // startUpdate reads only the signal: no task is called.
  const ctx = createBuildContext({
    embedder: createScriptedEmbedder({ dimensions: 8 }),
    tasks: {} as TaskSuite,
  });

  it("names the caller and runs with the update's signal, else the context's", () => {
    const update = new AbortController();
    const started = startUpdate('bm25', ctx, { signal: update.signal });
    expect(started.caller).toBe('bm25 update');
    expect(started.ctx.signal).toBe(update.signal);
    expect(started.ctx.embedder).toBe(ctx.embedder);
    expect(startUpdate('bm25', ctx).ctx).toBe(ctx);
  });

  it("runs without the context's checkpoints, keeping the rest of its runtime", () => {
    const checkpoints = new MemoryCheckpointStore();
    const withRuntime = { ...ctx, runtime: { concurrency: 3, checkpoints } } as BuildContext;
    const started = startUpdate('bm25', withRuntime).ctx;
    expect(started.runtime).toEqual({ concurrency: 3 });
    expect(withRuntime.runtime?.checkpoints).toBe(checkpoints);
  });

  it('throws an AbortError when the signal is already aborted', () => {
    const aborted = new AbortController();
    aborted.abort();
    expect(() => startUpdate('bm25', ctx, { signal: aborted.signal })).toThrow(AbortError);
    const ctxAborted = { ...ctx, signal: aborted.signal };
    expect(() => startUpdate('bm25', ctxAborted)).toThrow(AbortError);
  });
});

describe('prepareUpdate', () => {
  const embedder = createScriptedEmbedder({ dimensions: 8 });
  const ctx = createBuildContext({ embedder, tasks: {} as TaskSuite });
  const kept = { documents: ['a', 'b'] };
  const index = {
    kept: () => kept,
    refusal: { lacks: "each chunk's extraction", cost: 'extracting every chunk again' },
    documents: (k: typeof kept) => k.documents,
    embedder,
  };

  it('starts the update, takes the kept state, plans the change and reports its documents', async () => {
    const update = new AbortController();
    const doc = { id: 'c', text: 'new' };
    const prepared = await prepareUpdate(
      'm',
      { add: [doc], remove: ['a'] },
      ctx,
      { signal: update.signal },
      index,
    );
    expect(prepared.caller).toBe('m update');
    expect(prepared.ctx.signal).toBe(update.signal);
    expect(prepared.kept).toBe(kept);
    expect(prepared.plan.documents).toEqual(['b', 'c']);
    const parts = {
      chunks: { removed: 1, added: 1, total: 2 },
      embedded: 1,
      local: ['chunk'],
      global: [],
      trace: {},
    };
    expect(prepared.report(parts)).toEqual({
      documents: { added: ['c'], replaced: [], removed: ['a'] },
      ...parts,
    });
  });

  it('refuses an index saved before it kept a state, saying what it lacks and to rebuild it once', async () => {
    const old = prepareUpdate('m', { remove: ['a'] }, ctx, {}, { ...index, kept: () => undefined });
    await expect(old).rejects.toThrow(StateError);
    await expect(old).rejects.toThrow(
      "m update: this index was saved before grag kept each chunk's extraction, so it cannot be updated without extracting every chunk again; rebuild it once with grag index (or m.build), and later updates are local.",
    );
  });

  it('refuses another embedder, then what checkProviders refuses, before a bad change', async () => {
    const other = createBuildContext({
      embedder: createScriptedEmbedder({ dimensions: 4 }),
      tasks: {} as TaskSuite,
    });
    await expect(prepareUpdate('m', { remove: ['x'] }, other, {}, index)).rejects.toThrow(
      /^m update: the index was built with the embedder .* but the context has/,
    );
    const refuse = () => {
      throw new InvalidArgumentError('ctx', 'other tasks');
    };
    await expect(
      prepareUpdate('m', { remove: ['x'] }, ctx, {}, { ...index, checkProviders: refuse }),
    ).rejects.toThrow('other tasks');
    await expect(prepareUpdate('m', { remove: ['x'] }, ctx, {}, index)).rejects.toThrow(
      /the index holds no document with the id "x"/,
    );
    // Without an embedder named, any context's embedder is taken (an index without vectors).
    const { embedder: _, ...lexical } = index;
    await expect(prepareUpdate('m', { remove: ['a'] }, other, {}, lexical)).resolves.toBeDefined();
  });

  it('throws an AbortError before it reads the kept state', async () => {
    const aborted = new AbortController();
    aborted.abort();
    let read = false;
    const watched = {
      ...index,
      kept: () => {
        read = true;
        return kept;
      },
    };
    await expect(prepareUpdate('m', {}, ctx, { signal: aborted.signal }, watched)).rejects.toThrow(
      AbortError,
    );
    expect(read).toBe(false);
  });
});

describe('refitStage', () => {
  it('names the refitted embedder, what it is fitted on and what is embedded again', () => {
    expect(refitStage('tfidf', "the changed corpus's chunks", 'every node')).toEqual({
      stage: 'fit',
      reason:
        "full: the tfidf embedder is fitted on the changed corpus's chunks, as a build fits it, and every node is embedded again with the new fit",
    });
  });
});
