import { describe, expect, test, vi } from 'vitest';

// The texts of @grag/offline's order-independence test. wink's tokenizer splits `Kvarnby's...` by
// what its lexicon holds: `Kvarnby's . ..` (two sentences) while it has never seen `Kvarnby's`,
// `Kvarnby's ...` (one sentence) once another text taught it the word. PART teaches it.
const REVIEW =
  "Prominent music critic Signe Halloran, in reviewing The Harbour Suite, said the best performance in the concert is Lotta Kvarnby's... it would be lovely to see her get a medal.";
const PART = "The cello part in The Harbour Suite (2012) was Lotta Kvarnby's.";

/** The default extractor on the wink analyzer, from fresh copies of the package and of @grag/offline: a new process. */
async function freshExtractor() {
  vi.resetModules();
  const { createEntityExtractor } = await import('../src/index.js');
  const { createWinkTextAnalyzer } = await import('@grag/offline');
  return createEntityExtractor(createWinkTextAnalyzer());
}

describe('the wink entity extractor does not depend on the texts read before', () => {
  test('a text gives the same entities first in a fresh process as after a text that teaches wink its words', async () => {
    const first = await freshExtractor();
    const alone = await first.extract(REVIEW);
    const later = await freshExtractor();
    const part = await later.extract(PART);
    const afterPart = await later.extract(REVIEW);
    expect(afterPart).toEqual(alone);
    // Read first, wink does not know `Kvarnby's`: it ends a sentence there, and the ellipsis starts the
    // next one (the nouns of a fresh process, as the extractor always gave for a text read alone).
    expect(alone).toHaveLength(2);
    expect(alone[0]).toContain("Lotta Kvarnby's");
    expect(alone[1]).toEqual(['medal']);
    // The other order: PART read after REVIEW gives what it gave read first in a fresh process.
    const reverse = await freshExtractor();
    await reverse.extract(REVIEW);
    expect(await reverse.extract(PART)).toEqual(part);
  });
});
