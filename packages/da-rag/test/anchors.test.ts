import type { Document } from '@grag/core';
import { describe, expect, test } from 'vitest';
import { type DaRagIndex, daRag } from '../src/index.js';
import { offlineContext } from './offline-context.js';

/** grag's offline settings, whose anchors and fallback these tests are about. */
const OFFLINE = { preset: 'offline' } as const;

/**
 * Two films with no entity in common: each film's passage, its director's and its town's name one
 * another, so each triple is a triangle of the Semantic Chunk layer and the two triangles are apart.
 */
const CORPUS: Document[] = [
  [
    'harbour-lights',
    'Harbour Lights',
    'Harbour Lights is a 1987 drama film directed by William Halloran. It was shot in Castleton.',
  ],
  [
    'halloran',
    'William Halloran',
    'William Halloran is a filmmaker from Castleton. Halloran directed Harbour Lights.',
  ],
  [
    'castleton',
    'Castleton',
    'Castleton is a port town. Harbour Lights was filmed in Castleton by William Halloran.',
  ],
  [
    'north-road',
    'The North Road',
    'The North Road is a 1991 film directed by Agnes Whitlock. It was shot in Westmark.',
  ],
  [
    'whitlock',
    'Agnes Whitlock',
    'Agnes Whitlock is a director from Westmark. Whitlock directed The North Road.',
  ],
  [
    'westmark',
    'Westmark',
    'Westmark is a hilly province. The North Road was filmed in Westmark by Agnes Whitlock.',
  ],
].map(([id, title, text]) => ({ id: id!, title: title!, text: text! }));

/** A comparison question: its two films' passages are the two most relevant chunks. */
const COMPARISON = 'Which film came out first, Harbour Lights or The North Road?';

/** The parts of DA-RAG's trace these tests read. */
interface AnchorTrace {
  anchor: { seed: string; community: string | null }[];
  communities: { id: string; nodes: string[] }[];
}

async function run(index: DaRagIndex, anchors: number) {
  // The communities alone: in a corpus this small the room left (fillBudget) would take every chunk.
  const r = await daRag.retrieve(index, COMPARISON, { anchors, fillBudget: false });
  return {
    passages: [...new Set(r.items.flatMap((i) => i.source.docIds))],
    trace: r.trace as unknown as AnchorTrace,
  };
}

describe('anchors: one anchor chunk community per query vertex', () => {
  test('the second anchor starts at the most relevant chunk outside the first anchor community', async () => {
    const index = await daRag.build(CORPUS, offlineContext(), OFFLINE);
    const entry = await daRag.retrieve(index, COMPARISON, { entryPointsOnly: true });
    const byRelevance = entry.items.map((i) => i.id);
    const { trace } = await run(index, 2);
    const [first, second] = trace.anchor;
    expect(first!.seed).toBe(byRelevance[0]);
    const firstCommunity = trace.communities.find((c) => c.id === first!.community)?.nodes ?? [first!.seed];
    expect(second!.seed).toBe(byRelevance.find((id) => !firstCommunity.includes(id)));
    // Every candidate of the second anchor is tagged with it.
    expect(trace.communities.some((c) => c.id.startsWith('a2:'))).toBe(true);
  });

  test('with two anchors both films of the comparison reach the context', async () => {
    const index = await daRag.build(CORPUS, offlineContext(), OFFLINE);
    const one = await run(index, 1);
    const two = await run(index, 2);
    // One anchor: every community lies in the first film's triangle (the working subgraphs hold only
    // its entities), so the other film never reaches the context.
    const films = ['harbour-lights', 'north-road'];
    expect(films.filter((f) => one.passages.includes(f))).toHaveLength(1);
    expect(two.passages).toEqual(expect.arrayContaining(films));
  });
});

describe('fallbackCommunity: an anchor in no community is a candidate of its own', () => {
  // A passage that names nothing the films' passages name: a chunk in no triangle of the Semantic
  // Chunk layer, so no k-truss (k ≥ 3) holds it.
  const LONE: Document = {
    id: 'marsh-wren',
    title: 'Marsh Wren',
    text: 'The skipper of the ferry Marsh Wren is Tamsin Hale.',
  };
  const QUESTION = 'Who is the skipper of the ferry Marsh Wren?';

  test('the best-matching chunk reaches the context even when its chunk search finds no community', async () => {
    const index = await daRag.build([...CORPUS, LONE], offlineContext(), OFFLINE);
    const on = await daRag.retrieve(index, QUESTION);
    const trace = on.trace as unknown as {
      anchor: { seed: string; community: string | null; fallback?: string }[];
    };
    // The query vertex is the lone passage, and its search fell back.
    expect(trace.anchor[0]).toMatchObject({ seed: 'marsh-wren#0', fallback: 'the query vertex' });
    expect(trace.anchor[0]!.community).toBe('a1:chunk-fallback');
    expect(on.items[0]!.source.docIds).toEqual(['marsh-wren']);
    // Without it the passage only anchors the working subgraphs, and no candidate holds it.
    const off = await daRag.retrieve(index, QUESTION, { fallbackCommunity: false, fillBudget: false });
    expect(off.items.flatMap((i) => i.source.docIds)).not.toContain('marsh-wren');
  });
});
