/**
 * The documents a DA-RAG index keeps for updates: ids and titles, the parts of each text no chunk
 * holds (`gaps`: mostly the whitespace between semantic chunks), and the segments of documents
 * loaded with them, so that a full update can put every document back together from its chunks
 * and chunk it again, as a build of the changed corpus does when the embedder is fitted again
 * (semantic chunk boundaries follow the fit; segment boundaries and locations stay).
 */
import type { Chunk, Document } from '@grag/core';
import type { DaRagKept } from './types.js';

/** One kept document. */
export type KeptDocument = DaRagKept['documents'][number];

/** `chunks` by document id, in order. */
function byDocument(chunks: readonly Chunk[]): Map<string, Chunk[]> {
  const out = new Map<string, Chunk[]>();
  for (const chunk of chunks) {
    const list = out.get(chunk.docId);
    if (list) list.push(chunk);
    else out.set(chunk.docId, [chunk]);
  }
  return out;
}

/** The parts of `text` that none of `chunks` (spans `start`–`end` of it) covers, as `[offset, text]`. */
function gapsOf(text: string, chunks: readonly Chunk[]): [number, string][] {
  const covered = new Uint8Array(text.length);
  for (const chunk of chunks) covered.fill(1, chunk.start, chunk.end);
  const gaps: [number, string][] = [];
  let from = -1;
  for (let i = 0; i <= text.length; i++) {
    const open = i < text.length && covered[i] === 0;
    if (open && from < 0) from = i;
    if (!open && from >= 0) {
      gaps.push([from, text.slice(from, i)]);
      from = -1;
    }
  }
  return gaps;
}

/** What the index keeps of each of `docs` (in order), whose chunks are `chunks`. */
export function keptDocuments(docs: readonly Document[], chunks: readonly Chunk[]): KeptDocument[] {
  const chunksOf = byDocument(chunks);
  return docs.map((d) => ({
    id: d.id,
    ...(d.title !== undefined ? { title: d.title } : {}),
    gaps: gapsOf(d.text, chunksOf.get(d.id) ?? []),
    ...(d.segments?.length ? { segments: d.segments } : {}),
  }));
}

/**
 * The documents `kept` names, with their texts put back together from `chunks` and the kept gaps;
 * `undefined` when a document was kept without its gaps (an index saved before they were kept).
 */
export function keptTexts(kept: readonly KeptDocument[], chunks: readonly Chunk[]): Document[] | undefined {
  const chunksOf = byDocument(chunks);
  const out: Document[] = [];
  for (const d of kept) {
    if (d.gaps === undefined) return undefined;
    const parts: [number, string][] = [
      ...d.gaps,
      ...(chunksOf.get(d.id) ?? []).map((c) => [c.start, c.text] as [number, string]),
    ];
    const length = parts.reduce((n, [at, text]) => Math.max(n, at + text.length), 0);
    const chars = new Array<string>(length).fill('');
    // Overlapping chunks (fixed-size chunking) write the same characters again.
    for (const [at, text] of parts) {
      for (let i = 0; i < text.length; i++) chars[at + i] = text[i]!;
    }
    out.push({
      id: d.id,
      text: chars.join(''),
      ...(d.title !== undefined ? { title: d.title } : {}),
      ...(d.segments !== undefined ? { segments: d.segments } : {}),
    });
  }
  return out;
}
