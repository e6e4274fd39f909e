/**
 * Each method declares which of its retrieved items rank source passages (Method.passageRanking),
 * and `grag eval` / `runEval` reads Recall@k through that declaration. Items here have the kinds
 * and shapes each method returns; the expected passage lists are worked out by hand.
 */
import type { RetrievedItem } from '@grag/core';
import { rankedPassages } from '@grag/eval';
import { describe, expect, it } from 'vitest';
import { findMethod } from '../src/registry.js';

const item = (id: string, kind: string, score: number, docIds: string[]): RetrievedItem => ({
  id,
  kind,
  text: id,
  score,
  source: { chunkIds: docIds.map((d) => `${d}#0`), docIds },
});

function ranking(name: string) {
  const entry = findMethod(name);
  if (!entry) throw new Error(`no method ${name}`);
  return entry.method.passageRanking;
}

describe('passage ranking declared by each method', () => {
  it('noderag: text and semantic-unit nodes by PPR score; overviews and high-level elements do not rank', () => {
    // Context order groups by type (high-level first), as NodeRAG packs its context.
    const items = [
      item('H:1', 'high-level-element', 0.9, ['p1', 'p2', 'p3', 'p4', 'p5']),
      item('O:1', 'high-level-overview', 0.8, ['p6', 'p7']),
      item('R:1', 'relationship', 0.7, ['p9']),
      item('A:1', 'attribute', 0.6, ['p10']),
      item('T:1', 'text', 0.2, ['p3']),
      item('T:2', 'text', 0.5, ['p8']),
      item('S:1', 'semantic-unit', 0.4, ['p5', 'p3']),
    ];
    expect(rankedPassages(items, ranking('noderag'))).toEqual(['p8', 'p5', 'p3']);
    // Without the declaration, the hubs' passages came first: the 3.2 R@5 the issue measured.
    expect(rankedPassages(items).slice(0, 3)).toEqual(['p1', 'p2', 'p3']);
  });

  it('e2graphrag: chunk items in context order; summaries do not rank', () => {
    const e2 = [
      item('s:1', 'summary', 1, ['p1', 'p2', 'p3']),
      item('c:2', 'chunk', 0.2, ['p4']),
      item('c:1', 'chunk', 0.9, ['p2']),
    ];
    expect(rankedPassages(e2, ranking('e2graphrag'))).toEqual(['p4', 'p2']);
  });

  it('ket-rag: chunk items of both channels by their score; entities and relations do not rank', () => {
    const ket = [
      item('e:1', 'entity', 1, ['p7', 'p8']),
      item('r:1', 'relation', 1, ['p9']),
      item('t:1', 'chunk', 0.1, ['p2']),
      item('t:2', 'chunk', 0.8, ['p1', 'p2']),
    ];
    expect(rankedPassages(ket, ranking('ket-rag'))).toEqual(['p1', 'p2']);
  });

  it('da-rag: community members in the order the greedy packing ranks communities', () => {
    const items = [
      item('kg-k3', 'community', 0.9, ['p3', 'p1']),
      item('chunk-k4', 'community', 0.5, ['p1', 'p2']),
    ];
    expect(rankedPassages(items, ranking('da-rag'))).toEqual(['p3', 'p1', 'p2']);
  });

  it('naive-dense and bm25: their chunks in rank order', () => {
    const items = [
      item('a', 'chunk', 3, ['p2']),
      item('b', 'chunk', 2, ['p1']),
      item('c', 'chunk', 1, ['p2']),
    ];
    for (const name of ['naive-dense', 'bm25'])
      expect(rankedPassages(items, ranking(name))).toEqual(['p2', 'p1']);
  });
});
