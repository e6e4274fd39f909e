/**
 * Token counts retrieval does not need to tokenize again. Retrieval packs sub-chunks into contexts
 * (`packContext` counts each rendered item, and the item followed by the blank line that separates
 * it from the next) and counts whole contexts; the items' counts depend only on the index, so they
 * are counted once, when the index is built, and a context is counted from its paragraphs when
 * the tokenizer's counts add up across a blank line (`Tokenizer.additiveAfterBlankLine`).
 */
import type { Tokenizer } from '@grag/core';
import type { LocalSearchGraph } from '@grag/core/graph';
import { countingWith } from '@grag/core/kit';

/** Token counts of each sub-chunk as retrieval renders it, aligned with the sub-chunks. */
export interface SubChunkCounts {
  /** The text (the keyword channel's token counts). */
  text: Int32Array;
  /** `[id] text`, trimmed (how `renderLocalSearchItem` writes a chunk item into a context). */
  item: Int32Array;
  /** The same followed by `'\n\n'` (the separator `packContext` counts with each item but the last). */
  itemWithBlankLine: Int32Array;
  /** The skeleton's entities and relationships as local search writes them, and followed by `'\n\n'`. */
  graph?: {
    entity: Int32Array;
    entityWithBlankLine: Int32Array;
    relation: Int32Array;
    relationWithBlankLine: Int32Array;
  };
}

/** How local search writes entity `i` into a context: `(entity) name: description`, trimmed. */
export function renderedEntity(graph: LocalSearchGraph, i: number): string {
  const e = graph.entities[i]!;
  return `(entity) ${e.description ? `${e.name}: ${e.description}` : e.name}`.trim();
}

/** How local search writes relationship `i` into a context: `(relation) source — target: description`, trimmed. */
export function renderedRelation(graph: LocalSearchGraph, i: number): string {
  const r = graph.relationships[i]!;
  const [s, t] = graph.endpoints[i]!;
  const names = `${graph.entities[s]!.name} — ${graph.entities[t]!.name}`;
  return `(relation) ${r.description ? `${names}: ${r.description}` : names}`.trim();
}

/** Count every entity and relationship of `graph` as local search renders them (build time). */
export function countGraph(
  tokenizer: Tokenizer,
  graph: LocalSearchGraph,
): NonNullable<SubChunkCounts['graph']> {
  const entities = graph.entities.map((_, i) => renderedEntity(graph, i));
  const relations = graph.relationships.map((_, i) => renderedRelation(graph, i));
  return {
    entity: Int32Array.from(entities, (t) => tokenizer.count(t)),
    entityWithBlankLine: Int32Array.from(entities, (t) => tokenizer.count(`${t}\n\n`)),
    relation: Int32Array.from(relations, (t) => tokenizer.count(t)),
    relationWithBlankLine: Int32Array.from(relations, (t) => tokenizer.count(`${t}\n\n`)),
  };
}

/** The stored count of `text` if it is `rendered` (`alone`) or `rendered + '\n\n'` (`blank`). */
function countOf(text: string, rendered: string, alone: number, blank: number): number | undefined {
  if (!text.startsWith(rendered)) return undefined;
  if (text.length === rendered.length) return alone;
  if (text.length === rendered.length + 2 && text.endsWith('\n\n')) return blank;
  return undefined;
}

/** Looks up the stored count of a rendered entity or relationship of `graph`. */
function graphCounts(
  graph: LocalSearchGraph,
  counts: NonNullable<SubChunkCounts['graph']>,
): (text: string) => number | undefined {
  const byName = new Map<string, number>();
  graph.entities.forEach((e, i) => {
    if (!byName.has(e.name)) byName.set(e.name, i);
  });
  const byPair = new Map<string, number[]>();
  graph.endpoints.forEach(([s, t], i) => {
    const key = `${s} ${t}`;
    const list = byPair.get(key);
    if (list) list.push(i);
    else byPair.set(key, [i]);
  });
  const nameAt = (text: string, from: number, until: string): number | undefined => {
    const end = text.indexOf(until, from);
    return byName.get(end < 0 ? text.slice(from).trimEnd() : text.slice(from, end));
  };
  return (text) => {
    if (text.startsWith('(entity) ')) {
      const i = nameAt(text, 9, ': ');
      if (i === undefined) return undefined;
      return countOf(text, renderedEntity(graph, i), counts.entity[i]!, counts.entityWithBlankLine[i]!);
    }
    if (!text.startsWith('(relation) ')) return undefined;
    const dash = text.indexOf(' — ', 11);
    if (dash < 0) return undefined;
    const s = byName.get(text.slice(11, dash));
    const t = nameAt(text, dash + 3, ': ');
    for (const i of s === undefined || t === undefined ? [] : (byPair.get(`${s} ${t}`) ?? [])) {
      const found = countOf(
        text,
        renderedRelation(graph, i),
        counts.relation[i]!,
        counts.relationWithBlankLine[i]!,
      );
      if (found !== undefined) return found;
    }
    return undefined;
  };
}

/** How a sub-chunk is written into a context: `[id] text`, trimmed (its start is never blank). */
export const renderedSubChunk = (id: string, text: string): string => `[${id}] ${text}`.trim();

/** Count every sub-chunk as retrieval renders it (build time). */
export function countSubChunks(
  tokenizer: Tokenizer,
  subChunks: readonly { id: string }[],
  texts: readonly string[],
): SubChunkCounts {
  const rendered = subChunks.map((s, i) => renderedSubChunk(s.id, texts[i]!));
  return {
    text: Int32Array.from(texts, (t) => tokenizer.count(t)),
    item: Int32Array.from(rendered, (t) => tokenizer.count(t)),
    itemWithBlankLine: Int32Array.from(rendered, (t) => tokenizer.count(`${t}\n\n`)),
  };
}

/** Where a context may be cut: a blank line followed by an item (`[id] …`, `(entity) …`, `(relation) …`). */
const ITEM_START = new Set([91 /* [ */, 40 /* ( */]);

/**
 * `base` with a `count` that answers from `counts` for a rendered sub-chunk (checked character for
 * character, without building the text), and — when `base.additiveAfterBlankLine` — counts any other
 * text as the sum of its parts cut after each blank line that an item follows: `count(a + '\n\n' +
 * b) === count(a + '\n\n') + count(b)` when `b` starts with a non-whitespace character, so the sum is
 * exact, and a context packed from sub-chunks is counted from their stored counts. Every other
 * method is `base`'s.
 */
export function retrievalTokenizer(
  base: Tokenizer,
  subChunks: readonly { id: string }[],
  texts: readonly string[],
  counts: SubChunkCounts | undefined,
  graph?: LocalSearchGraph,
): Tokenizer {
  const position = counts ? new Map(subChunks.map((s, i) => [s.id, i])) : undefined;
  const inGraph = graph && counts?.graph ? graphCounts(graph, counts.graph) : undefined;
  const known = (text: string): number | undefined => {
    if (inGraph && text.charCodeAt(0) === 40 /* ( */) return inGraph(text);
    if (!position || !counts || text.charCodeAt(0) !== 91 /* [ */) return undefined;
    const close = text.indexOf('] ');
    const at = close < 0 ? undefined : position.get(text.slice(1, close));
    if (at === undefined) return undefined;
    const body = texts[at]!.trimEnd();
    const start = close + 2;
    if (!text.startsWith(body, start)) return undefined;
    const rest = text.length - start - body.length;
    if (rest === 0) return counts.item[at];
    if (rest === 2 && text.endsWith('\n\n')) return counts.itemWithBlankLine[at];
    return undefined;
  };
  const piece = (text: string): number => known(text) ?? base.count(text);
  const count = !base.additiveAfterBlankLine
    ? piece
    : (text: string): number => {
        const whole = known(text);
        if (whole !== undefined) return whole;
        let total = 0;
        let start = 0;
        for (let i = text.indexOf('\n\n'); i >= 0; i = text.indexOf('\n\n', i + 2)) {
          if (!ITEM_START.has(text.charCodeAt(i + 2))) continue;
          total += piece(text.slice(start, i + 2));
          start = i + 2;
        }
        return total + piece(start === 0 ? text : text.slice(start));
      };
  return countingWith(base, count);
}
