/**
 * A tiny invented corpus that every method builds in a moment, and the settings that keep each
 * build small (chunks of one document, or short ones).
 */
import type { Document } from '@grag/core';

export const CORPUS: Document[] = [
  {
    id: 'marren',
    title: 'Ilse Marren',
    text: 'Ilse Marren is a marine biologist born in Merrow Falls. Ilse Marren directs the Lindqvist Institute in Port Halvard. She sailed on the Sable Gull across the Veskan Strait.',
  },
  {
    id: 'falls',
    title: 'Merrow Falls',
    text: 'Merrow Falls is a town on the Veskan Strait. The ferry Sable Gull sails from Merrow Falls to Port Halvard. Ilse Marren grew up in Merrow Falls.',
  },
  {
    id: 'gull',
    title: 'Sable Gull',
    text: 'The Sable Gull is a ferry built by the Kessler Shipyard in Port Halvard. Tobias Wren wrote the Harbour Suite aboard the Sable Gull.',
  },
  {
    id: 'institute',
    title: 'Lindqvist Institute',
    text: 'The Lindqvist Institute studies the eelgrass of the Veskan Strait. Ilse Marren leads the Lindqvist Institute. The Kessler Shipyard built its research boat.',
  },
  {
    id: 'wren',
    title: 'Tobias Wren',
    text: 'Tobias Wren is a composer from Port Halvard. Tobias Wren is married to Ilse Marren. The Harbour Suite was first played in Merrow Falls.',
  },
];

/** Small settings that keep each build fast (chunks of one document, or short ones). */
export const SMALL: Record<string, Record<string, unknown>> = {
  'naive-dense': { chunkSize: 60, overlap: 5 },
  bm25: { chunkSize: 60, overlap: 5 },
  e2graphrag: { chunkSize: 60, overlap: 5 },
  'bridge-rag': {},
  noderag: { chunking: 'document', hnswM: 8, hnswEfConstruction: 32 },
  'ket-rag': { chunking: 'document', subChunkSize: 16 },
  'da-rag': { chunking: 'fixed', chunkSize: 60, overlap: 5 },
  'sg-rag': { chunkSize: 60, overlap: 5, pathLength: 2 },
};
