import { type TrussGraph, TrussIndex } from '@grag/ktruss';
import type { EacsOptions, LayerSearch } from '../src/community-search.js';

/** A search of the whole of `graph` (global indices its own, or `global`), its truss index made on call. */
export function layerSearch(graph: TrussGraph, relevance: ArrayLike<number>, global?: number[]): LayerSearch {
  return {
    graph,
    global: global ?? Array.from({ length: graph.n }, (_, i) => i),
    relevance: Float64Array.from(relevance),
    truss: () => new TrussIndex(graph),
  };
}

/** EACS as in DA-RAG §5.2 (no bound, no query vertex), k spread linearly. */
export const PAPER_EACS: EacsOptions = {
  kMin: 3,
  kMax: null,
  candidatesPerLayer: 3,
  kSpacing: 'linear',
  querySeeds: 0,
  maxCommunityNodes: null,
  searchRegion: null,
  communitySearch: 'q-peel',
  localExactUpTo: 200,
};
