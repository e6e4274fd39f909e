import type { Method } from '@grag/core';
import { daRag } from '@grag/da-rag';
import { e2GraphRag } from '@grag/e2graphrag';
import { KET_RAG_VARIANTS, ketRag } from '@grag/ket-rag';
import { bm25Rag, denseRag } from '@grag/naive-rag';
import { nodeRag } from '@grag/noderag';
import { sgRag } from '@grag/sg-rag';

/** A method the CLI can build and query. */
export interface MethodEntry {
  name: string;
  description: string;
  // biome-ignore lint/suspicious/noExplicitAny: the registry holds methods of every index type
  method: Method<any, any>;
  /** Whether building needs an embedder (offline runs fit the local one on the corpus). */
  usesEmbedder: boolean;
  /** Whether the method can index knowledge-graph triples (`grag index <triple-dir>`). */
  indexesTriples?: boolean;
}

/** Every method the CLI knows, by name. */
export const METHODS: readonly MethodEntry[] = [
  {
    name: denseRag.name,
    description: 'baseline: dense top-k chunks (Text-RAG / NaiveRAG)',
    method: denseRag,
    usesEmbedder: true,
  },
  { name: bm25Rag.name, description: 'baseline: BM25 top-k chunks', method: bm25Rag, usesEmbedder: false },
  {
    name: e2GraphRag.name,
    description: 'E2GraphRAG: summary tree + NLP entity graph, adaptive local/global retrieval',
    method: e2GraphRag,
    usesEmbedder: true,
  },
  {
    name: nodeRag.name,
    description: 'NodeRAG: heterograph of 7 node types, dual search + shallow PPR',
    method: nodeRag,
    usesEmbedder: true,
  },
  {
    name: ketRag.name,
    description: `KET-RAG: KG skeleton on PageRank core chunks + keyword bipartite graph (--variant ${KET_RAG_VARIANTS.join('|')})`,
    method: ketRag,
    usesEmbedder: true,
  },
  {
    name: daRag.name,
    description: 'DA-RAG: chunk-layer graph index + query-time attributed community search (k-truss, Q-Peel)',
    method: daRag,
    usesEmbedder: true,
  },
  {
    name: sgRag.name,
    description:
      'SG-RAG: query graph -> path decomposition -> dominance embeddings in an R*-tree -> exact subgraphs',
    method: sgRag,
    usesEmbedder: true,
    indexesTriples: true,
  },
];

export function findMethod(name: string): MethodEntry | undefined {
  return METHODS.find((m) => m.name === name);
}
