import { bridgeRag } from '@grag/bridge-rag';
import type { Method } from '@grag/core';
import { daRag } from '@grag/da-rag';
import { e2GraphRag } from '@grag/e2graphrag';
import { ketRag } from '@grag/ket-rag';
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

// biome-ignore lint/suspicious/noExplicitAny: the registry holds methods of every index type
function entry(method: Method<any, any>): MethodEntry {
  const { uses, triples = false } = method.capabilities;
  return {
    name: method.name,
    description: method.description,
    method,
    usesEmbedder: uses.includes('embedder'),
    ...(triples ? { indexesTriples: true } : {}),
  };
}

/** Every method the CLI knows, by name; each declares its own description and capabilities. */
export const METHODS: readonly MethodEntry[] = [
  denseRag,
  bm25Rag,
  e2GraphRag,
  bridgeRag,
  nodeRag,
  ketRag,
  daRag,
  sgRag,
].map(entry);

export function findMethod(name: string): MethodEntry | undefined {
  return METHODS.find((m) => m.name === name);
}

/** What `grag methods --json` prints of each method: its name, description and capabilities. */
export function methodListing(): {
  name: string;
  description: string;
  capabilities: Method<unknown>['capabilities'];
}[] {
  return METHODS.map((m) => ({
    name: m.name,
    description: m.description,
    capabilities: m.method.capabilities,
  }));
}
