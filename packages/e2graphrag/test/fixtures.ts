/** Shared fixtures of the e2graphrag tests: a controlled extractor, scripted providers, an oracle. */
import type { Document, Retrieval } from '@grag/core';
import { cosineSimilarity, createBuildContext } from '@grag/core/kit';
import { createPromptTasks } from '@grag/core/tasks';
import { createScriptedChatModel, createScriptedEmbedder } from '@grag/core/test';
import { createWinkTextAnalyzer } from '@grag/offline';
import {
  type AdaptiveRetrievalTrace,
  createE2GraphRag,
  E2GRAPHRAG_PAPER_DEFAULTS,
  type E2GraphRagIndex,
  entityExtractorFromFunction,
} from '../src/index.js';

/** A controlled extractor: the entities of a sentence are its capitalized words. */
export const capitalized = entityExtractorFromFunction((s) => s.match(/\b[A-Z][a-z]+\b/g) ?? [], {
  id: 'capitalized',
});

/** Scripted providers: a 64-dimension embedder, summaries "overview 1", "overview 2", … */
export function context() {
  const model = createScriptedChatModel((_call, i) => `overview ${i + 1}`);
  return createBuildContext({
    embedder: createScriptedEmbedder({ dimensions: 64 }),
    tasks: createPromptTasks(model),
  });
}

/**
 * Scripted providers with the wink text analyzer: a 32-dimension embedder and summaries that depend
 * on their input only ("overview of 812 characters"), so two builds on one context agree.
 */
export function winkContext() {
  return createBuildContext({
    embedder: createScriptedEmbedder({ dimensions: 32 }),
    tasks: createPromptTasks(
      createScriptedChatModel((call) => `overview of ${call.messages.at(-1)!.content.length} characters`),
    ),
    textAnalyzer: createWinkTextAnalyzer(),
  });
}

/** The paper's configuration (no linking, dense retrieval, Algorithm 1's selection alone). */
export const PAPER = {
  entityLinking: E2GRAPHRAG_PAPER_DEFAULTS.entityLinking,
  entryPoints: E2GRAPHRAG_PAPER_DEFAULTS.entryPoints,
  fuseEntryPoints: E2GRAPHRAG_PAPER_DEFAULTS.fuseEntryPoints,
  bridges: E2GRAPHRAG_PAPER_DEFAULTS.bridges,
};

/** The paper's configuration on the capitalized extractor, one chunk per passage. */
export const method = createE2GraphRag({
  extractor: capitalized,
  defaults: { ...PAPER, chunking: 'document', includeTitle: false },
});

export const docs = (texts: string[], prefix = 'd'): Document[] =>
  texts.map((text, i) => ({ id: `${prefix}${i}`, text }));

export async function build(texts: string[], prefix = 'd') {
  return method.build(docs(texts, prefix), context());
}

export const traceOf = (r: Retrieval) => r.trace as unknown as AdaptiveRetrievalTrace & { k: number };

/** Chunk ids of a retrieval, in context order (runs expanded). */
export const chunkIds = (r: Retrieval) => r.items.flatMap((i) => i.source.chunkIds);

/** Brute-force collapsed-tree ranking: cosine of every node text with the query, same embedder. */
export async function denseOracle(index: E2GraphRagIndex, query: string): Promise<string[]> {
  const embedder = createScriptedEmbedder({ dimensions: 64 });
  const texts = index.tree.nodes.map((n) => n.text);
  const { embeddings } = await embedder.doEmbed({ values: [query, ...texts] });
  const [q, ...nodes] = embeddings;
  return nodes
    .map((v, i) => ({ id: index.tree.nodes[i]!.id, score: cosineSimilarity(v, q!) }))
    .sort((a, b) => b.score - a.score)
    .map((x) => x.id);
}

// Corpus A. Sentence co-occurrence gives three components:
// {Alice, Bob, Paris, Acme}, {Carol, Rome, Dave} and {Eve}.
export const CORPUS_A = [
  'Alice met Bob in Paris.', // d0
  'Bob works at Acme.', // d1
  'Carol lives in Rome.', // d2
  'Dave paints in Rome. Carol knows Dave.', // d3
  'Eve sings alone. Eve dances.', // d4
  'Alice visited Acme. Eve came too.', // d5
];

// Corpus B: Xavier-Yara 1 hop; Xavier-Quinn-Zeno 2 hops; Yara-Wendy-Zeno 2 hops.
export const CORPUS_B = [
  'Xavier saw Yara.', // b0
  'Xavier ran. Zeno ran.', // b1
  'Xavier walked. Zeno walked.', // b2
  'Yara met Wendy. Wendy met Zeno. Zeno smiled.', // b3
  'Xavier met Quinn. Quinn met Zeno.', // b4
];
