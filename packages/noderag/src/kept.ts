/**
 * What a NodeRAG index keeps so an update calls the models only for new inputs: the model's answer
 * to every call of the build (decompositions by chunk text, attribute summaries and community
 * elements by the exact text sent, embeddings by node text), and the memo an indexing run looks
 * them up in.
 */
import { createHash } from 'node:crypto';
import type { ParseIssue, SemanticUnitRecord, TitleDescription } from '@grag/core';

/** A chunk's decomposition as kept: the units and the kinds of the parse issues the model's answer had. */
export interface KeptDecomposition {
  units: SemanticUnitRecord[];
  issues: ParseIssue['kind'][];
}

/** A community's high-level element as kept: title, description and the kinds of its parse issues. */
export interface KeptElement {
  title: string;
  description: string;
  issues: ParseIssue['kind'][];
}

/**
 * What an index keeps for updates (absent in indexes saved before updates existed): the indexed
 * documents, and every model answer the index was made from, so an update asks only what is new.
 */
export interface NodeRagKept {
  /** Ids and titles of the indexed documents, in index order. */
  documents: { id: string; title?: string }[];
  /** The decomposition of each chunk (same order as the index's chunks). */
  decompositions: KeptDecomposition[];
  /** Attribute summaries by {@link materialKey} of the texts summarized ('' when the model gave none). */
  attributes: [key: string, summary: string][];
  /** High-level elements by {@link materialKey} of the community content described. */
  elements: [key: string, element: KeptElement][];
  /**
   * The important entities (G2), in graph order. Absent in indexes saved before updates were local:
   * their update recomputes importance over the whole graph.
   */
  important?: string[];
  /**
   * The Leiden community of every S, N, R and A node (G3), in graph order. Absent in indexes saved
   * before updates were local: their update runs Leiden over the whole graph.
   */
  communities?: [key: string, community: number][];

  /**
   * The embedding of each vector key (same order as the index's `vectorKeys`). Absent when the
   * index's vectors are a collection of its store (an update reads them there).
   */
  embeddings?: Float32Array[];
}

/**
 * Model answers an indexing run reuses instead of calling the model again: empty for a build, the
 * kept answers of the kept documents for an update.
 */
export interface NodeRagMemo {
  /** Decompositions by the chunk's T-node text (the text sent to the model). */
  decompositions: Map<string, KeptDecomposition>;
  /** Attribute summaries by {@link materialKey}. */
  attributes: Map<string, string>;
  /** High-level elements by {@link materialKey}. */
  elements: Map<string, KeptElement>;
  /** Embeddings by the text embedded. */
  vectors: Map<string, Float32Array>;
}

/** Model calls an indexing run made (the rest came from its memo). */
export interface NodeRagCalls {
  decomposed: number;
  summarized: number;
  described: number;
  /** Distinct texts sent to the embedder. */
  embedded: number;
}

/** A memo that holds nothing (a build). */
export function emptyMemo(): NodeRagMemo {
  return { decompositions: new Map(), attributes: new Map(), elements: new Map(), vectors: new Map() };
}

/** The key of a list of texts sent to the model: SHA-256 of the texts, each length-prefixed. */
export function materialKey(texts: readonly string[]): string {
  const hash = createHash('sha256');
  for (const text of texts) hash.update(`${text.length}:${text}\n`);
  return hash.digest('hex');
}

/** What a kept decomposition turns back into for laying (issues keep their kind only). */
export function issuesOf(kinds: readonly ParseIssue['kind'][]): ParseIssue[] {
  return kinds.map((kind) => ({ kind, reason: 'kept from an earlier build', raw: '' }));
}

/** A model answer as kept. */
export function keptElement(element: TitleDescription): KeptElement {
  return {
    title: element.title,
    description: element.description,
    issues: element.issues.map((i) => i.kind),
  };
}
