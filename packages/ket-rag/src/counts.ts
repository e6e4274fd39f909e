/**
 * Token counts retrieval does not need to tokenize again. Retrieval packs sub-chunks into contexts
 * (`packContext` counts each rendered item, and the item followed by the blank line that separates
 * it from the next) and counts whole contexts; the items' counts depend only on the index, so they
 * are counted once, when the index is built, and a context is counted from its paragraphs when
 * the tokenizer's counts add up across a blank line (`Tokenizer.additiveAfterBlankLine`).
 */
import type { Tokenizer } from '@grag/core';

/** Token counts of each sub-chunk as retrieval renders it, aligned with the sub-chunks. */
export interface SubChunkCounts {
  /** The text (the keyword channel's token counts). */
  text: Int32Array;
  /** `[id] text`, trimmed (how `renderLocalSearchItem` writes a chunk item into a context). */
  item: Int32Array;
  /** The same followed by `'\n\n'` (the separator `packContext` counts with each item but the last). */
  itemWithBlankLine: Int32Array;
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

const BLANK = /\s/u;

/**
 * `base` with a `count` that answers from `counts` for a rendered sub-chunk (checked character for
 * character, without building the text), and — when `base.additiveAfterBlankLine` — counts a text
 * as the sum of its paragraphs: cut after each `'\n\n'` followed by a non-whitespace character,
 * `count(a + '\n\n' + b) === count(a + '\n\n') + count(b)`, so the sum is exact. Every other method
 * is `base`'s.
 */
export function retrievalTokenizer(
  base: Tokenizer,
  subChunks: readonly { id: string }[],
  texts: readonly string[],
  counts: SubChunkCounts | undefined,
): Tokenizer {
  const position = counts ? new Map(subChunks.map((s, i) => [s.id, i])) : undefined;
  const known = (text: string): number | undefined => {
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
        let total = 0;
        let start = 0;
        for (let i = text.indexOf('\n\n'); i >= 0; i = text.indexOf('\n\n', i + 1)) {
          const next = i + 2;
          if (next < text.length && !BLANK.test(text[next]!)) {
            total += piece(text.slice(start, next));
            start = next;
          }
        }
        return total + piece(start === 0 ? text : text.slice(start));
      };
  return {
    name: base.name,
    ...(base.additiveAfterBlankLine !== undefined
      ? { additiveAfterBlankLine: base.additiveAfterBlankLine }
      : {}),
    count,
    encode: (text) => base.encode(text),
    decode: (tokens) => base.decode(tokens),
    truncate: (text, maxTokens) => base.truncate(text, maxTokens),
  };
}
