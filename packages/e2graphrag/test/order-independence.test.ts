import { describe, expect, test, vi } from 'vitest';

// The texts of @grag/offline's order-independence test. wink's tokenizer splits `Oldman's...` by
// what its lexicon holds: `Oldman's . ..` (two sentences) while it has never seen `Oldman's`,
// `Oldman's ...` (one sentence) once another text taught it the word. GORDON teaches it.
const KERMODE =
  "Prominent film critic Mark Kermode, in reviewing The Dark Knight, said the best performance in the film is Gary Oldman's... it would be lovely to see him get a nomination.";
const GORDON = "The role of James Gordon in The Dark Knight Rises (2012) was Gary Oldman's.";

/** The default wink extractor of a fresh copy of the package (and of @grag/offline): a new process. */
async function freshExtractor() {
  vi.resetModules();
  const { createWinkEntityExtractor } = await import('../src/index.js');
  return createWinkEntityExtractor();
}

describe('the wink entity extractor does not depend on the texts read before', () => {
  test('a text gives the same entities first in a fresh process as after a text that teaches wink its words', async () => {
    const first = await freshExtractor();
    const alone = await first.extract(KERMODE);
    const later = await freshExtractor();
    const gordon = await later.extract(GORDON);
    const afterGordon = await later.extract(KERMODE);
    expect(afterGordon).toEqual(alone);
    // Read first, wink does not know `Oldman's`: it ends a sentence there, and the ellipsis starts the
    // next one (the nouns of a fresh process, as the extractor always gave for a text read alone).
    expect(alone).toHaveLength(2);
    expect(alone[0]).toContain("Gary Oldman's");
    expect(alone[1]).toEqual(['nomination']);
    // The other order: GORDON read after KERMODE gives what it gave read first in a fresh process.
    const reverse = await freshExtractor();
    await reverse.extract(KERMODE);
    expect(await reverse.extract(GORDON)).toEqual(gordon);
  });
});
