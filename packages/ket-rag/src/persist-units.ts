/**
 * The texts of the chunks and sub-chunks in `units.json` of format 4, each stored once. An index
 * holds four: each chunk's text, the text it is embedded and searched by (`chunkTexts`: the title
 * line first, see core's `withTitle`), and the same two of each sub-chunk, a piece of its chunk.
 * Format 4 stores `chunkTexts` whole, each chunk's text as where it starts in its `chunkTexts` entry
 * (`chunkCuts`), each sub-chunk's text as a span of its chunk's (`subSpans`), and each
 * `subChunkTexts` entry as what comes before the sub-chunk's text (`subPrefixes`). A text that is
 * not so derived is stored whole (cut or span -1, prefix null); `load` rebuilds every string equal to
 * the saved one. Formats 2 and 3 stored the four in full.
 */
import type { Chunk } from '@grag/core';
import { chunkFields, chunkSchema, shapeIssue, v } from '@grag/core/kit';
import type { SubChunk } from '@grag/keyword-bipartite';

/** The four texts of an index's units. */
export interface UnitTexts {
  chunks: Chunk[];
  chunkTexts: string[];
  subChunks: SubChunk[];
  subChunkTexts: string[];
}

/** What format 4 stores of {@link UnitTexts}: a derived text's field is `''` in its record. */
export interface StoredUnitTexts {
  chunks: Chunk[];
  chunkTexts: string[];
  /** Chunk i's text is `chunkTexts[i].slice(cut)`; -1: its record holds it. */
  chunkCuts: number[];
  subChunks: SubChunk[];
  /** Two per sub-chunk: its text is its chunk's `text.slice(a, b)`; -1, -1: its record holds it. */
  subSpans: number[];
  /** `subChunkTexts[j]` is `subPrefixes[j]` + sub-chunk j's text; null: it is in `subChunkTexts`. */
  subPrefixes: (string | null)[];
  /** The `subChunkTexts` entries not so derived: position and text. */
  subChunkTexts: [number, string][];
}

const cut = v.int({ min: -1 });
/** The fields of {@link StoredUnitTexts} in `units.json` of format 4. */
export const storedUnitTextFields = {
  chunks: v.array(chunkSchema),
  chunkTexts: v.array(v.string()),
  chunkCuts: v.array(cut),
  subChunks: v.array(v.object({ ...chunkFields, chunkId: v.string() })),
  subSpans: v.array(cut),
  subPrefixes: v.array(v.nullable(v.string())),
  subChunkTexts: v.array(v.tuple(v.int({ min: 0 }), v.string())),
};

/** Where `text` sits in `within`: at `hint` when it does, else its first place; -1 when nowhere. */
function placeOf(within: string, text: string, hint: number): number {
  if (hint >= 0 && within.startsWith(text, hint)) return hint;
  return within.indexOf(text);
}

/** {@link UnitTexts} as format 4 stores them (the records are copies; the index is not changed). */
export function packUnitTexts(units: UnitTexts): StoredUnitTexts {
  const chunkCuts: number[] = [];
  const chunks = units.chunks.map((c, i) => {
    const whole = units.chunkTexts[i]!;
    const at = whole.length - c.text.length;
    const derived = at >= 0 && whole.endsWith(c.text);
    chunkCuts.push(derived ? at : -1);
    return derived ? { ...c, text: '' } : c;
  });
  const chunkAt = new Map(units.chunks.map((c, i) => [c.id, i]));
  const subSpans: number[] = [];
  const subPrefixes: (string | null)[] = [];
  const subChunkTexts: [number, string][] = [];
  const subChunks = units.subChunks.map((s, j) => {
    const parent = units.chunks[chunkAt.get(s.chunkId) ?? -1];
    const a = parent ? placeOf(parent.text, s.text, s.start - parent.start) : -1;
    subSpans.push(a, a >= 0 ? a + s.text.length : -1);
    const whole = units.subChunkTexts[j]!;
    const prefix = whole.length - s.text.length;
    if (prefix >= 0 && whole.endsWith(s.text)) subPrefixes.push(whole.slice(0, prefix));
    else {
      subPrefixes.push(null);
      subChunkTexts.push([j, whole]);
    }
    return a >= 0 ? { ...s, text: '' } : s;
  });
  return { chunks, chunkTexts: units.chunkTexts, chunkCuts, subChunks, subSpans, subPrefixes, subChunkTexts };
}

/**
 * The texts {@link packUnitTexts} stored, the records completed in place (inside `opened.check`:
 * what does not fit is a `shapeIssue`).
 */
export function unpackUnitTexts(stored: StoredUnitTexts): UnitTexts {
  const { chunks, chunkTexts, chunkCuts, subChunks, subSpans, subPrefixes } = stored;
  if (chunkTexts.length !== chunks.length)
    shapeIssue('chunkTexts', `has ${chunkTexts.length} texts for ${chunks.length} chunks`);
  if (chunkCuts.length !== chunks.length)
    shapeIssue('chunkCuts', `has ${chunkCuts.length} cuts for ${chunks.length} chunks`);
  chunks.forEach((c, i) => {
    const at = chunkCuts[i]!;
    if (at === -1) return;
    if (at > chunkTexts[i]!.length) shapeIssue(`chunkCuts[${i}]`, `is ${at}, beyond its text`);
    c.text = chunkTexts[i]!.slice(at);
  });
  const chunkAt = new Map(chunks.map((c, i) => [c.id, i]));
  if (subSpans.length !== 2 * subChunks.length) {
    shapeIssue('subSpans', `has ${subSpans.length} values for ${subChunks.length} sub-chunks (2 each)`);
  }
  if (subPrefixes.length !== subChunks.length) {
    shapeIssue('subPrefixes', `has ${subPrefixes.length} prefixes for ${subChunks.length} sub-chunks`);
  }
  subChunks.forEach((s, j) => {
    const [a, b] = [subSpans[2 * j]!, subSpans[2 * j + 1]!];
    if (a === -1 && b === -1) return;
    const parent = chunks[chunkAt.get(s.chunkId) ?? -1];
    if (!parent) shapeIssue(`subChunks[${j}].chunkId`, `names ${JSON.stringify(s.chunkId)}, not a chunk`);
    if (!(a >= 0 && a <= b && b <= parent!.text.length)) {
      shapeIssue(`subSpans[${2 * j}]`, `is ${a}…${b}, not a span of its chunk's text`);
    }
    s.text = parent!.text.slice(a, b);
  });
  const given = new Map(stored.subChunkTexts);
  const subChunkTexts = subChunks.map((s, j) => {
    const prefix = subPrefixes[j];
    const whole = prefix === null ? given.get(j) : prefix + s.text;
    if (whole === undefined) shapeIssue(`subPrefixes[${j}]`, 'is null, but subChunkTexts lacks that text');
    return whole!;
  });
  if (given.size !== subPrefixes.filter((p) => p === null).length) {
    shapeIssue('subChunkTexts', 'holds texts that are derived from their prefixes');
  }
  return { chunks, chunkTexts, subChunks, subChunkTexts };
}
