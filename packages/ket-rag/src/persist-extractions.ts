/**
 * The kept extractions of format 3: their strings once each (in `update.json`) and their records as
 * typed arrays (`update.bin`, core's extraction codec: each extraction's entities and relations as
 * CSR lists of positions in the string table, relation weights as float64) with parse issues as
 * int32. Reading them builds no schema over every record: each array is checked against its table.
 */
import type { OpenedIndex, StoredArray } from '@grag/core/kit';
import { packExtractions, stringTable, unpackExtractions } from '@grag/core/kit';
import type { StoredExtraction } from './types.js';

/** Kept extractions as format 3 stores them: the chunk ids and strings (JSON) and the arrays. */
export function storedExtractions(extractions: readonly [string, StoredExtraction][]): {
  ids: string[];
  strings: string[];
  arrays: Record<string, StoredArray>;
} {
  const { strings, ref } = stringTable();
  const records = extractions.map(([, e]) => e);
  return {
    ids: extractions.map(([id]) => id),
    strings,
    arrays: { issues: Int32Array.from(records, (e) => e.issues), ...packExtractions(records, ref) },
  };
}

/** The extractions stored by {@link storedExtractions} (`file` names the arrays, for errors). */
export function extractionsOf(
  opened: OpenedIndex<unknown, unknown>,
  file: string,
  ids: readonly string[],
  strings: readonly string[],
  arrays: Map<string, StoredArray>,
): [string, StoredExtraction][] {
  const issues = arrays.get('issues');
  if (
    !(issues instanceof Int32Array) ||
    issues.length !== ids.length ||
    issues.some((x) => x < 0 || x >= 2 ** 31 - 1)
  ) {
    throw opened.error(file, `lacks issues, ${ids.length} int32 values below ${2 ** 31 - 1}`);
  }
  const graphs = unpackExtractions(arrays, ids.length, strings, opened.locate(file));
  return ids.map((id, c): [string, StoredExtraction] => [id, { ...graphs[c]!, issues: issues[c]! }]);
}
