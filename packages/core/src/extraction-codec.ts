/**
 * Graph extractions (the entities and relations a task found in each chunk) as typed arrays, for a
 * method's kept update state: each string once in a table, each extraction's entities and
 * relations as CSR lists of positions in it, relation weights as float64, a relation's keywords as
 * a list of its own (with a flag for "no keywords" as distinct from an empty list). Reading them
 * builds no schema over every record: each array is checked against its table.
 */
import { packLists, type StoredArray, unpackLists } from './artifact-codec.js';
import type { ExtractedEntity, ExtractedRelation } from './contracts/types.js';
import { indexFileError } from './validate.js';

/** One chunk's extraction, as the codec stores it. */
export interface PackedExtraction {
  entities: readonly ExtractedEntity[];
  relations: readonly ExtractedRelation[];
}

/** The typed arrays of `extractions`, their strings added to the table of `ref`. */
export function packExtractions(
  extractions: readonly PackedExtraction[],
  ref: (s: string) => number,
): Record<string, StoredArray> {
  const entities = extractions.flatMap((e) => e.entities);
  const relations = extractions.flatMap((e) => e.relations);
  const keywords = packLists(relations.map((r) => (r.keywords ?? []).map(ref)));
  return {
    entityOffsets: packLists(extractions.map((e) => e.entities.map(() => 0))).offsets,
    entityName: Int32Array.from(entities, (e) => ref(e.name)),
    entityType: Int32Array.from(entities, (e) => ref(e.type)),
    entityDescription: Int32Array.from(entities, (e) => ref(e.description)),
    relationOffsets: packLists(extractions.map((e) => e.relations.map(() => 0))).offsets,
    relationSource: Int32Array.from(relations, (r) => ref(r.source)),
    relationTarget: Int32Array.from(relations, (r) => ref(r.target)),
    relationDescription: Int32Array.from(relations, (r) => ref(r.description)),
    relationWeight: Float64Array.from(relations, (r) => r.weight),
    relationHasKeywords: Uint8Array.from(relations, (r) => (r.keywords ? 1 : 0)),
    keywordOffsets: keywords.offsets,
    keywords: keywords.targets,
  };
}

/**
 * The `count` extractions {@link packExtractions} stored in `arrays`, over `strings`, checked.
 * @throws IndexFormatError naming `file` (as located) and the array that is wrong.
 */
export function unpackExtractions(
  arrays: ReadonlyMap<string, StoredArray>,
  count: number,
  strings: readonly string[],
  file: string,
): { entities: ExtractedEntity[]; relations: ExtractedRelation[] }[] {
  const offsets = (name: string): Int32Array => {
    const a = arrays.get(name);
    if (
      !(a instanceof Int32Array) ||
      a.length !== count + 1 ||
      a[0] !== 0 ||
      a.some((x, i) => i > 0 && x < a[i - 1]!)
    ) {
      throw indexFileError(file, `lacks ${name}, ${count + 1} non-decreasing offsets from 0`);
    }
    return a;
  };
  const positions = (name: string, length: number): Int32Array => {
    const a = arrays.get(name);
    if (!(a instanceof Int32Array) || a.length !== length || a.some((x) => x < 0 || x >= strings.length)) {
      throw indexFileError(file, `lacks ${name}, ${length} positions below ${strings.length}`);
    }
    return a;
  };
  const eOff = offsets('entityOffsets');
  const rOff = offsets('relationOffsets');
  const relationCount = rOff[count]!;
  const [name, type, description] = ['entityName', 'entityType', 'entityDescription'].map((k) =>
    positions(k, eOff[count]!),
  ) as [Int32Array, Int32Array, Int32Array];
  const [source, target, relDescription] = ['relationSource', 'relationTarget', 'relationDescription'].map(
    (k) => positions(k, relationCount),
  ) as [Int32Array, Int32Array, Int32Array];
  const weight = arrays.get('relationWeight');
  const hasKeywords = arrays.get('relationHasKeywords');
  if (!(weight instanceof Float64Array) || weight.length !== relationCount) {
    throw indexFileError(file, `lacks relationWeight, one float64 per relation (${relationCount})`);
  }
  if (!(hasKeywords instanceof Uint8Array) || hasKeywords.length !== relationCount) {
    throw indexFileError(file, `lacks relationHasKeywords, one byte per relation (${relationCount})`);
  }
  const keywords = unpackLists(
    { offsets: arrays.get('keywordOffsets'), targets: arrays.get('keywords') },
    { lists: relationCount, bound: strings.length },
    file,
    'keywords',
  );
  return Array.from({ length: count }, (_, c) => {
    const entities: ExtractedEntity[] = [];
    for (let e = eOff[c]!; e < eOff[c + 1]!; e++) {
      entities.push({
        name: strings[name[e]!]!,
        type: strings[type[e]!]!,
        description: strings[description[e]!]!,
      });
    }
    const relations: ExtractedRelation[] = [];
    for (let r = rOff[c]!; r < rOff[c + 1]!; r++) {
      relations.push({
        source: strings[source[r]!]!,
        target: strings[target[r]!]!,
        description: strings[relDescription[r]!]!,
        weight: weight[r]!,
        ...(hasKeywords[r] === 1 ? { keywords: Array.from(keywords[r]!, (k) => strings[k]!) } : {}),
      });
    }
    return { entities, relations };
  });
}
