/**
 * The kept extractions of format 3: their strings once each (in `update.json`) and their records as
 * typed arrays (`update.bin`): each extraction's entities and relations as CSR lists of positions
 * in the string table, relation weights as float64, parse issues as int32. Reading them builds no
 * schema over every record: each array is checked against its table.
 */
import type { OpenedIndex, StoredArray } from '@grag/core/kit';
import { packLists } from '@grag/core/kit';
import type { StoredExtraction } from './types.js';

/** Kept extractions as format 3 stores them: the chunk ids and strings (JSON) and the arrays. */
export function storedExtractions(extractions: readonly [string, StoredExtraction][]): {
  ids: string[];
  strings: string[];
  arrays: Record<string, StoredArray>;
} {
  const strings: string[] = [];
  const at = new Map<string, number>();
  const ref = (s: string) => {
    let i = at.get(s);
    if (i === undefined) {
      i = strings.length;
      at.set(s, i);
      strings.push(s);
    }
    return i;
  };
  const records = extractions.map(([, e]) => e);
  const entities = records.flatMap((e) => e.entities);
  const relations = records.flatMap((e) => e.relations);
  const keywords = packLists(relations.map((r) => (r.keywords ?? []).map(ref)));
  return {
    ids: extractions.map(([id]) => id),
    strings,
    arrays: {
      issues: Int32Array.from(records, (e) => e.issues),
      entityOffsets: packLists(records.map((e) => e.entities.map(() => 0))).offsets,
      entityName: Int32Array.from(entities, (e) => ref(e.name)),
      entityType: Int32Array.from(entities, (e) => ref(e.type)),
      entityDescription: Int32Array.from(entities, (e) => ref(e.description)),
      relationOffsets: packLists(records.map((e) => e.relations.map(() => 0))).offsets,
      relationSource: Int32Array.from(relations, (r) => ref(r.source)),
      relationTarget: Int32Array.from(relations, (r) => ref(r.target)),
      relationDescription: Int32Array.from(relations, (r) => ref(r.description)),
      relationWeight: Float64Array.from(relations, (r) => r.weight),
      relationHasKeywords: Uint8Array.from(relations, (r) => (r.keywords ? 1 : 0)),
      keywordOffsets: keywords.offsets,
      keywords: keywords.targets,
    },
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
  const n = ids.length;
  const int32 = (name: string, length: number, bound: number): Int32Array => {
    const a = arrays.get(name);
    if (!(a instanceof Int32Array) || a.length !== length || a.some((x) => x < 0 || x >= bound)) {
      throw opened.error(file, `lacks ${name}, ${length} int32 values below ${bound}`);
    }
    return a;
  };
  const offsets = (name: string): Int32Array => {
    const a = arrays.get(name);
    if (
      !(a instanceof Int32Array) ||
      a.length !== n + 1 ||
      a[0] !== 0 ||
      a.some((x, i) => i > 0 && x < a[i - 1]!)
    ) {
      throw opened.error(file, `lacks ${name}, ${n + 1} non-decreasing offsets from 0`);
    }
    return a;
  };
  const issues = int32('issues', n, 2 ** 31 - 1);
  const eOff = offsets('entityOffsets');
  const rOff = offsets('relationOffsets');
  const [name, type, description] = ['entityName', 'entityType', 'entityDescription'].map((k) =>
    int32(k, eOff[n]!, strings.length),
  );
  const [source, target, relDescription] = ['relationSource', 'relationTarget', 'relationDescription'].map(
    (k) => int32(k, rOff[n]!, strings.length),
  );
  const weight = arrays.get('relationWeight');
  const hasKeywords = arrays.get('relationHasKeywords');
  if (!(weight instanceof Float64Array) || weight.length !== rOff[n]) {
    throw opened.error(file, 'lacks relationWeight, one float64 per relation');
  }
  if (!(hasKeywords instanceof Uint8Array) || hasKeywords.length !== rOff[n]) {
    throw opened.error(file, 'lacks relationHasKeywords, one byte per relation');
  }
  const kOff = arrays.get('keywordOffsets');
  const keywords = int32(
    'keywords',
    kOff instanceof Int32Array ? kOff[kOff.length - 1]! : -1,
    strings.length,
  );
  if (
    !(kOff instanceof Int32Array) ||
    kOff.length !== rOff[n]! + 1 ||
    kOff[0] !== 0 ||
    kOff.some((x, i) => i > 0 && x < kOff[i - 1]!)
  ) {
    throw opened.error(file, 'lacks keywordOffsets, one offset per relation and one more');
  }
  return ids.map((id, c): [string, StoredExtraction] => {
    const entities = [];
    for (let e = eOff[c]!; e < eOff[c + 1]!; e++) {
      entities.push({
        name: strings[name![e]!]!,
        type: strings[type![e]!]!,
        description: strings[description![e]!]!,
      });
    }
    const relations = [];
    for (let r = rOff[c]!; r < rOff[c + 1]!; r++) {
      relations.push({
        source: strings[source![r]!]!,
        target: strings[target![r]!]!,
        description: strings[relDescription![r]!]!,
        weight: weight[r]!,
        ...(hasKeywords[r] === 1
          ? { keywords: Array.from(keywords.subarray(kOff[r]!, kOff[r + 1]!), (k) => strings[k]!) }
          : {}),
      });
    }
    return [id, { entities, relations, issues: issues[c]! }];
  });
}
