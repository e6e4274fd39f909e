/**
 * Token counts of the lines member texts are made of, counted when the index is saved and kept in
 * it (`line-counts.bin`): each chunk text alone and followed by a blank line, each entity text
 * alone and followed by a line break. A retrieval then reads them instead of encoding each chunk
 * or entity text the first time a community renders it. They are the counts of the index's
 * tokenizer, read only with a tokenizer of the same name; an index without them (saved before
 * they were kept, or by a tokenizer without a name) counts as before.
 */
import type { IndexWriter, OpenedIndex } from '@grag/core/kit';
import { shapeIssue } from '@grag/core/kit';
import { memberTables } from './member-tables.js';
import type { DaRagIndex } from './types.js';

/** The artifact of the line counts. */
export const LINE_COUNTS_FILE = 'line-counts.bin';

/** Token counts of an index's chunk and entity texts, by position. */
export interface LineCounts {
  /** The name of the tokenizer that counted them. */
  tokenizer: string;
  /** Per chunk, two: tokens of its text, then of its text followed by a blank line (`\n\n`). */
  chunks: Uint32Array;
  /** Per entity, two: tokens of its text (`entityText`), then of it followed by a line break. */
  entities: Uint32Array;
}

/** Count the lines of `index` with its tokenizer; `undefined` when the tokenizer has no name. */
export function countLines(index: DaRagIndex): LineCounts | undefined {
  const { tokenizer } = index.providers;
  if (!tokenizer.name) return undefined;
  // Two counts per text: alone, then followed by `separator`.
  const pairs = (texts: readonly string[], separator: string): Uint32Array => {
    const counts = new Uint32Array(2 * texts.length);
    texts.forEach((text, i) => {
      counts[2 * i] = tokenizer.count(text);
      counts[2 * i + 1] = tokenizer.count(text + separator);
    });
    return counts;
  };
  return {
    tokenizer: tokenizer.name,
    chunks: pairs(index.texts, '\n\n'),
    entities: pairs(memberTables(index).entityTexts, '\n'),
  };
}

/** The line counts `index` holds for its tokenizer (loaded with it), or `undefined`. */
export function lineCountsOf(index: DaRagIndex): LineCounts | undefined {
  const counts = index.cache.lineCounts;
  return counts !== undefined && counts.tokenizer === index.providers.tokenizer.name ? counts : undefined;
}

/** Write the line counts of `index` (those it holds, else counted now); none without a tokenizer name. */
export async function saveLineCounts(out: Pick<IndexWriter, 'arrays'>, index: DaRagIndex): Promise<void> {
  const counts = lineCountsOf(index) ?? countLines(index);
  if (counts === undefined) return;
  await out.arrays(LINE_COUNTS_FILE, {
    tokenizer: new TextEncoder().encode(counts.tokenizer),
    chunks: counts.chunks,
    entities: counts.entities,
  });
}

/**
 * The line counts saved with the index opened as `opened`, checked to hold two counts per chunk and
 * per entity; `undefined` for an index saved without them.
 */
export async function loadLineCounts(
  opened: OpenedIndex<unknown, unknown>,
  chunks: number,
  entities: number,
): Promise<LineCounts | undefined> {
  if (!opened.names.includes(LINE_COUNTS_FILE)) return undefined;
  const arrays = await opened.arrays(LINE_COUNTS_FILE);
  return opened.check(LINE_COUNTS_FILE, () => {
    const name = arrays.get('tokenizer');
    const chunkCounts = arrays.get('chunks');
    const entityCounts = arrays.get('entities');
    if (!(name instanceof Uint8Array)) return shapeIssue('tokenizer', 'is not the bytes of a name');
    if (!(chunkCounts instanceof Uint32Array) || chunkCounts.length !== 2 * chunks) {
      return shapeIssue('chunks', `does not hold two counts for each of the ${chunks} chunks`);
    }
    if (!(entityCounts instanceof Uint32Array) || entityCounts.length !== 2 * entities) {
      return shapeIssue('entities', `does not hold two counts for each of the ${entities} entities`);
    }
    return { tokenizer: new TextDecoder().decode(name), chunks: chunkCounts, entities: entityCounts };
  });
}
