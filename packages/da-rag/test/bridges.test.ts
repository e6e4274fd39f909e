import { describe, expect, test } from 'vitest';
import { type DaRagIndex, type DaRagRetrieveOptions, daRag } from '../src/index.js';
import { BRIDGE_CORPUS, BRIDGE_QUERY } from './bridge-corpus.js';
import { offlineContext } from './offline-context.js';

async function passages(index: DaRagIndex, options: DaRagRetrieveOptions): Promise<string[]> {
  const r = await daRag.retrieve(index, BRIDGE_QUERY, options);
  // The passage ranking `grag eval` reads (`passageRanking`: every item kind DA-RAG returns, in context order).
  return [...new Set(r.items.flatMap((item) => item.source.docIds))];
}

describe('bridges: entity linking joins a passage to the passage it names', () => {
  test('the film passage names its director by a short form; linking folds it into his title entity', async () => {
    const index = await daRag.build(BRIDGE_CORPUS, offlineContext(), { preset: 'offline' });
    const director = index.entities.find((e) => e.name === 'William D. Halloran');
    expect(director?.chunkIds.sort()).toEqual(['halloran#0', 'harbour-lights#0']);
    const unlinked = await daRag.build(BRIDGE_CORPUS, offlineContext(), {
      preset: 'offline',
      entityLinking: false,
    });
    expect(unlinked.entities.find((e) => e.name === 'William D. Halloran')?.chunkIds).toEqual(['halloran#0']);
  });

  test('retrieval reaches the second-hop passage with linking, and not without', async () => {
    const linked = await daRag.build(BRIDGE_CORPUS, offlineContext(), { preset: 'offline' });
    const unlinked = await daRag.build(BRIDGE_CORPUS, offlineContext(), {
      preset: 'offline',
      entityLinking: false,
    });
    // One anchor (DA-RAG §4): linking alone brings the director's passage into the first five. The
    // communities alone: in a corpus this small the room left (fillBudget) would take every chunk.
    const options: DaRagRetrieveOptions = { anchors: 1, fillBudget: false };
    const withLinks = await passages(linked, options);
    expect(withLinks[0]).toBe('harbour-lights');
    expect(withLinks.slice(0, 5)).toContain('halloran');
    // The default second anchor adds the other film's community, still with the director's passage.
    expect(await passages(linked, { fillBudget: false })).toContain('halloran');
    expect(await passages(unlinked, options)).not.toContain('halloran');
    // Relevance alone ranks the director's passage last: the question shares no word with it.
    const entryOnly = await passages(linked, { entryPointsOnly: true });
    expect(entryOnly.at(-1)).toBe('halloran');
  });
});
