/**
 * The source documents of a loaded index, from what the index keeps in memory. A method index does
 * not keep its input documents; it keeps pieces of them with their provenance, and the documents
 * are put back together from those:
 *
 * - chunks (`Chunk` records: `docId`, `order`, `start`/`end` offsets in the document): every
 *   method that chunks text (naive-rag, da-rag, ket-rag, noderag). Overlapping chunks are joined
 *   at their offsets; whitespace between two chunks that belongs to neither is written as one space
 *   (or a blank line when the gap is longer). A title is read back from the text the index shows
 *   the chunk by (`title + '\n' + chunk text`) when it keeps one.
 * - summary-tree leaves (`tree.nodes` of level 0 with `docId` and `overlapChars`): E2GraphRAG.
 * - the facts of a knowledge graph (`graph.edges` with `docIds` and `facts`, `graph.labels`):
 *   SG-RAG, whose index keeps no text; a document is then the facts extracted from it, one a line.
 *
 * Nothing here reads a file: a request's id is only ever a key of this in-memory map.
 */
import type { Document } from '@grag/core';

/** A document as `GET /v1/documents/:id` returns it. */
export interface SourceDocument {
  id: string;
  title?: string;
  text: string;
}

/** The documents of one index, by id. */
export interface DocumentStore {
  get(id: string): SourceDocument | undefined;
  /** The document ids, in the order the index holds them. */
  ids(): string[];
  /** How many documents. */
  readonly size: number;
  /** How many chunks the documents were put back together from; `null` when the index has none. */
  readonly chunks: number | null;
}

/** A store of the documents given. */
export function storeOf(documents: readonly Document[]): DocumentStore {
  const map = new Map<string, SourceDocument>();
  for (const d of documents) {
    map.set(d.id, { id: d.id, text: d.text, ...(d.title !== undefined ? { title: d.title } : {}) });
  }
  return { get: (id) => map.get(id), ids: () => [...map.keys()], size: map.size, chunks: null };
}

type Rec = Record<string, unknown>;

function isRecord(value: unknown): value is Rec {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

interface ChunkLike {
  id: string;
  docId: string;
  order: number;
  text: string;
  start: number;
  end: number;
}

function isChunk(value: unknown): value is ChunkLike {
  if (!isRecord(value)) return false;
  return (
    typeof value.id === 'string' &&
    typeof value.docId === 'string' &&
    typeof value.text === 'string' &&
    Number.isInteger(value.order) &&
    Number.isInteger(value.start) &&
    Number.isInteger(value.end)
  );
}

/** The whitespace written for a gap of `length` characters between two chunks. */
function gap(length: number): string {
  return length <= 0 ? '' : length === 1 ? ' ' : '\n\n';
}

/** Join the chunks of one document at their offsets. */
function joinChunks(chunks: ChunkLike[]): string {
  const sorted = [...chunks].sort((a, b) => a.start - b.start || a.order - b.order);
  let text = '';
  let at = 0;
  for (const chunk of sorted) {
    if (chunk.end <= at && text !== '') continue;
    if (chunk.start >= at || text === '') {
      text += (text === '' ? '' : gap(chunk.start - at)) + chunk.text;
    } else {
      text += chunk.text.slice(at - chunk.start);
    }
    at = Math.max(at, chunk.end);
  }
  return text;
}

/** The title in a shown text `title + '\n' + chunk text`, if that is what `shown` is. */
function titleOf(shown: unknown, chunkText: string): string | undefined {
  if (typeof shown !== 'string' || shown === chunkText || !shown.endsWith(`\n${chunkText}`)) return undefined;
  const title = shown.slice(0, shown.length - chunkText.length - 1);
  return title !== '' && !title.includes('\n') ? title : undefined;
}

function fromChunks(index: Rec): Map<string, SourceDocument> | undefined {
  const chunks = index.chunks;
  if (!Array.isArray(chunks) || chunks.length === 0 || !chunks.every(isChunk)) return undefined;
  // The texts the index shows each chunk by, aligned with its chunks.
  const shown = [index.texts, index.chunkTexts].find(
    (t): t is unknown[] => Array.isArray(t) && t.length === chunks.length,
  );
  const byDoc = new Map<string, { chunks: ChunkLike[]; title?: string }>();
  chunks.forEach((chunk, i) => {
    let doc = byDoc.get(chunk.docId);
    if (!doc) {
      doc = { chunks: [] };
      byDoc.set(chunk.docId, doc);
    }
    doc.chunks.push(chunk);
    if (doc.title === undefined && shown) {
      const title = titleOf(shown[i], chunk.text);
      if (title !== undefined) doc.title = title;
    }
  });
  const out = new Map<string, SourceDocument>();
  for (const [id, doc] of byDoc) {
    out.set(id, {
      id,
      text: joinChunks(doc.chunks),
      ...(doc.title !== undefined ? { title: doc.title } : {}),
    });
  }
  return out;
}

function fromLeaves(index: Rec): Map<string, SourceDocument> | undefined {
  const nodes = isRecord(index.tree) ? index.tree.nodes : undefined;
  if (!Array.isArray(nodes)) return undefined;
  const leaves = nodes.filter(
    (n): n is { docId: string; text: string; overlapChars?: number } =>
      isRecord(n) && n.level === 0 && typeof n.docId === 'string' && typeof n.text === 'string',
  );
  if (leaves.length === 0) return undefined;
  const out = new Map<string, SourceDocument>();
  for (const leaf of leaves) {
    const doc = out.get(leaf.docId);
    const overlap = typeof leaf.overlapChars === 'number' ? leaf.overlapChars : 0;
    if (!doc) out.set(leaf.docId, { id: leaf.docId, text: leaf.text });
    else doc.text += overlap > 0 ? leaf.text.slice(overlap) : `\n\n${leaf.text}`;
  }
  return out;
}

function fromFacts(index: Rec): Map<string, SourceDocument> | undefined {
  const graph = index.graph;
  if (!isRecord(graph) || !Array.isArray(graph.edges) || !Array.isArray(graph.labels)) return undefined;
  const labels = graph.labels as unknown[];
  const lines = new Map<string, string[]>();
  for (const edge of graph.edges) {
    if (!isRecord(edge) || !Array.isArray(edge.docIds) || !Array.isArray(edge.facts)) continue;
    const a = String(labels[edge.a as number] ?? edge.a);
    const b = String(labels[edge.b as number] ?? edge.b);
    for (const fact of edge.facts) {
      if (!isRecord(fact) || typeof fact.relation !== 'string') continue;
      const line = fact.forward === false ? `${b} ${fact.relation} ${a}` : `${a} ${fact.relation} ${b}`;
      for (const docId of edge.docIds) {
        if (typeof docId !== 'string') continue;
        const list = lines.get(docId) ?? [];
        if (!list.includes(line)) list.push(line);
        lines.set(docId, list);
      }
    }
  }
  if (lines.size === 0) return undefined;
  return new Map([...lines].map(([id, l]) => [id, { id, text: l.join('\n') }]));
}

/** The documents of `index`, put back together from what it keeps (see the module comment). */
export function documentsOf(index: unknown): DocumentStore {
  const rec = isRecord(index) ? index : {};
  const chunks = fromChunks(rec);
  const map = chunks ?? fromLeaves(rec) ?? fromFacts(rec) ?? new Map<string, SourceDocument>();
  const chunkCount = chunks ? (rec.chunks as unknown[]).length : null;
  return { get: (id) => map.get(id), ids: () => [...map.keys()], size: map.size, chunks: chunkCount };
}
