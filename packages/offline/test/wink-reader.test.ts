import { describe, expect, test, vi } from 'vitest';
import type { WinkPipe } from '../src/index.js';

// See order-independence.test.ts: read first, wink splits `Kvarnby's...` into `Kvarnby's . ..` (two
// sentences); once PART taught it `Kvarnby's`, a plain wink instance reads one sentence.
const REVIEW =
  "Prominent music critic Signe Halloran, in reviewing The Harbour Suite, said the best performance in the concert is Lotta Kvarnby's... it would be lovely to see her get a medal.";
const PART = "The cello part in The Harbour Suite (2012) was Lotta Kvarnby's.";

/** A fresh copy of the package (its own wink instances), as in a new process. */
async function fresh(): Promise<typeof import('../src/index.js')> {
  vi.resetModules();
  return import('../src/index.js');
}

describe('createWinkReader', () => {
  test("puts the pipes in wink's order and refuses unknown ones", async () => {
    const { createWinkReader } = await fresh();
    expect(createWinkReader(['pos', 'ner', 'sbd']).pipes).toEqual(['sbd', 'ner', 'pos']);
    // Matched by code: the fresh module graph has its own copy of @grag/core's error classes.
    expect(() => createWinkReader(['sbd', 'cer' as WinkPipe])).toThrow(
      expect.objectContaining({ code: 'invalid-argument', argument: 'pipes' }),
    );
  });

  test('a text reads the same after other texts, whatever reader read them and however they ended', async () => {
    const { createWinkReader } = await fresh();
    const posOnly = createWinkReader(['sbd', 'pos']);
    const withNer = createWinkReader(['sbd', 'pos', 'ner']);
    const sentenceCount = (text: string) => posOnly.read(text, (doc) => doc.sentences().length());
    await posOnly.read(PART, (doc, its) => doc.tokens().out(its.value));
    expect(await sentenceCount(REVIEW)).toBe(2);
    await withNer.read(PART, (doc, its) => doc.tokens().out(its.value));
    expect(await withNer.read(REVIEW, (doc) => doc.sentences().length())).toBe(2);
    // A callback that throws: the error reaches the caller and wink still forgets the text.
    await expect(
      posOnly.read(PART, () => {
        throw new Error('callback failed');
      }),
    ).rejects.toThrow('callback failed');
    expect(await sentenceCount(REVIEW)).toBe(2);
    // A callback that returns a promise is refused (the document is gone once it resolves).
    await expect(posOnly.read(PART, async (doc) => doc.sentences().length())).rejects.toMatchObject({
      code: 'invalid-argument',
      argument: 'fn',
    });
    expect(await sentenceCount(REVIEW)).toBe(2);
  });

  test("gives the callback wink's its helpers, lemma included", async () => {
    const { createWinkReader } = await fresh();
    const lemmas = await createWinkReader(['sbd', 'pos']).read('The ships were built.', (doc, its) =>
      doc.tokens().out(its.lemma),
    );
    expect(lemmas).toEqual(['the', 'ship', 'be', 'build', '.']);
  });
});
