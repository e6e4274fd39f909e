/**
 * Parser of the graph-extraction task (GraphRAG §2.2): entities and relationships from GraphRAG
 * tuples or JSON, and the merge of several extractions (gleaning rounds, windows of a chunk).
 */

import type { GraphExtraction, ParseIssue } from '../../contracts/tasks.js';
import type { ExtractedEntity, ExtractedRelation } from '../../contracts/types.js';
import {
  extractJson,
  isJsonRecord,
  type LenientJson,
  lostRecords,
  stripCodeFences,
} from '../lenient-json.js';
import { cleanFieldText, fieldNumber, fieldStringList, fieldText, getRecordField } from '../record-fields.js';
import {
  COMPLETION_MARKERS,
  splitTupleRecords,
  TUPLE_DELIMITER_DEFAULTS,
  type TupleDelimiters,
} from '../tuples.js';
import {
  DESCRIPTION,
  ENTITY_LIST,
  ENTITY_NAME,
  ENTITY_TYPE,
  issue,
  jsonIssues,
  KEYWORDS,
  noRecords,
  type Raw,
  RELATION_LABEL,
  RELATION_LIST,
  rawOf,
  SOURCE,
  skipped,
  TARGET,
  WEIGHT,
} from './common.js';

/** Options of {@link parseGraphExtraction}: the delimiters the prompt asked for. */
export type GraphParseOptions = Partial<TupleDelimiters>;

function isGraphJson(value: unknown): boolean {
  if (Array.isArray(value)) {
    const first = value.find(isJsonRecord);
    return (
      first !== undefined &&
      (getRecordField(first, ENTITY_NAME) !== undefined || getRecordField(first, SOURCE) !== undefined)
    );
  }
  if (!isJsonRecord(value)) return false;
  if (getRecordField(value, ENTITY_LIST) !== undefined || getRecordField(value, RELATION_LIST) !== undefined)
    return true;
  const values = Object.values(value);
  return values.length === 1 && isJsonRecord(values[0]) && isGraphJson(values[0]);
}

function looksLikeTuples(text: string, tupleDelimiter: string): boolean {
  return (
    (tupleDelimiter !== '' && text.includes(tupleDelimiter)) ||
    /\(\s*["']?(?:entity|relationship|relation)["']?\s*(?:<|\||\t|,)/i.test(text)
  );
}

function entityFromFields(
  fields: (string | undefined)[],
  raw: Raw,
  issues: ParseIssue[],
): ExtractedEntity | undefined {
  const name = fields[0] ?? '';
  if (!name) {
    issues.push(skipped('entity record without a name', raw));
    return undefined;
  }
  const type = fields[1];
  const description = fields[2];
  if (!type) issues.push(issue('missing-field', `entity "${name}" has no type; using ''`, raw));
  if (!description) {
    issues.push(issue('missing-field', `entity "${name}" has no description; using ''`, raw));
  }
  return { name, type: (type ?? '').toLowerCase(), description: description ?? '' };
}

function weightFrom(value: unknown, raw: Raw, issues: ParseIssue[], label: string): number {
  if (value === undefined || value === '') {
    issues.push(issue('missing-field', `relation ${label} has no strength; using 1`, raw));
    return 1;
  }
  const n = fieldNumber(value);
  if (n === undefined) {
    issues.push(
      issue('invalid-value', `relation ${label} has a non-numeric strength "${rawOf(value)}"; using 1`, raw),
    );
    return 1;
  }
  return n;
}

function relationFromParts(
  parts: { source?: string; target?: string; description?: string; weight?: unknown; keywords?: string[] },
  raw: Raw,
  issues: ParseIssue[],
): ExtractedRelation | undefined {
  const { source, target } = parts;
  if (!source || !target) {
    issues.push(skipped('relation record without a source and a target', raw));
    return undefined;
  }
  const label = `"${source}" -> "${target}"`;
  if (!parts.description) {
    issues.push(issue('missing-field', `relation ${label} has no description; using ''`, raw));
  }
  const relation: ExtractedRelation = {
    source,
    target,
    description: parts.description ?? '',
    weight: weightFrom(parts.weight, raw, issues, label),
  };
  if (parts.keywords && parts.keywords.length > 0) relation.keywords = parts.keywords;
  return relation;
}

const ENTITY_KINDS = new Set(['entity', 'entities', 'node']);
const RELATION_KINDS = new Set(['relationship', 'relationships', 'relation', 'relations', 'edge']);

function graphFromTuples(raw: string, options: GraphParseOptions): GraphExtraction {
  const out: GraphExtraction = { entities: [], relations: [], issues: [] };
  const { records, completed } = splitTupleRecords(raw, options);
  records.forEach((record, i) => {
    const [kindField = '', ...rest] = record.fields;
    const kind = kindField.toLowerCase().replace(/[^a-z_]/g, '');
    const isLast = i === records.length - 1;
    const entity = ENTITY_KINDS.has(kind);
    const relation = RELATION_KINDS.has(kind);
    const required = entity ? 3 : relation ? 4 : 0;
    if (record.cutOff || ((entity || relation) && isLast && !completed && rest.length < required)) {
      out.issues.push(issue('truncated', 'the output ends inside this record; it was dropped', record.raw));
      return;
    }
    if (entity) {
      // ("entity" | name | type | description); extra fields are part of the description.
      const description = rest.length > 3 ? rest.slice(2).join(' ') : rest[2];
      const e = entityFromFields([rest[0], rest[1], description], record.raw, out.issues);
      if (e) out.entities.push(e);
    } else if (relation) {
      // GraphRAG: (kind | source | target | description | strength);
      // LightRAG: (kind | source | target | description | keywords | strength).
      let weight: unknown = rest[3];
      let keywords: string[] | undefined;
      if (rest.length >= 5) {
        weight = rest[rest.length - 1];
        keywords = fieldStringList(rest.slice(3, -1).join(','));
      }
      const r = relationFromParts(
        { source: rest[0], target: rest[1], description: rest[2], weight, keywords },
        record.raw,
        out.issues,
      );
      if (r) out.relations.push(r);
    } else if (kind === 'content_keywords') {
      out.issues.push(
        issue('skipped-record', 'content-keywords record is not part of the graph', record.raw),
      );
    } else {
      out.issues.push(skipped(`unknown record kind "${kindField}"`, record.raw));
    }
  });
  return out;
}

/** Drop a leading record kind (`["entity", "ALICE", ...]`). */
function dropKind(fields: (string | undefined)[], kinds: Set<string>): (string | undefined)[] {
  return fields.length > 1 && kinds.has((fields[0] ?? '').toLowerCase()) ? fields.slice(1) : fields;
}

function entityFromJson(value: unknown, issues: ParseIssue[]): ExtractedEntity | undefined {
  const raw = () => rawOf(value);
  if (typeof value === 'string') return entityFromFields([cleanFieldText(value)], raw, issues);
  if (Array.isArray(value))
    return entityFromFields(
      dropKind(
        value.map((v) => fieldText(v)),
        ENTITY_KINDS,
      ),
      raw,
      issues,
    );
  if (!isJsonRecord(value)) {
    issues.push(skipped('entity record is not an object', raw));
    return undefined;
  }
  const name = fieldText(getRecordField(value, ENTITY_NAME)?.value);
  const type = fieldText(getRecordField(value, ENTITY_TYPE)?.value);
  const description = fieldText(getRecordField(value, DESCRIPTION)?.value);
  return entityFromFields([name, type, description], raw, issues);
}

function relationFromJson(value: unknown, issues: ParseIssue[]): ExtractedRelation | undefined {
  const raw = () => rawOf(value);
  if (Array.isArray(value)) {
    const f = dropKind(
      value.map((v) => fieldText(v)),
      RELATION_KINDS,
    );
    return relationFromParts({ source: f[0], target: f[1], description: f[2], weight: f[3] }, raw, issues);
  }
  if (!isJsonRecord(value)) {
    issues.push(skipped('relation record is not an object', raw));
    return undefined;
  }
  const keywords = getRecordField(value, KEYWORDS);
  return relationFromParts(
    {
      source: fieldText(getRecordField(value, SOURCE)?.value),
      target: fieldText(getRecordField(value, TARGET)?.value),
      description: fieldText(
        (getRecordField(value, DESCRIPTION) ?? getRecordField(value, RELATION_LABEL))?.value,
      ),
      weight: getRecordField(value, WEIGHT)?.value,
      keywords: keywords ? fieldStringList(keywords.value) : undefined,
    },
    raw,
    issues,
  );
}

function graphFromJson(json: LenientJson): GraphExtraction {
  const out: GraphExtraction = { entities: [], relations: [], issues: [] };
  jsonIssues(json, out.issues, 'record');
  let root = json.value;
  while (
    isJsonRecord(root) &&
    getRecordField(root, ENTITY_LIST) === undefined &&
    getRecordField(root, RELATION_LIST) === undefined
  ) {
    const values = Object.values(root);
    if (values.length !== 1) break;
    root = values[0];
  }
  if (Array.isArray(root)) {
    for (const item of root) {
      if (isJsonRecord(item) && getRecordField(item, SOURCE) && getRecordField(item, TARGET)) {
        const r = relationFromJson(item, out.issues);
        if (r) out.relations.push(r);
      } else {
        const e = entityFromJson(item, out.issues);
        if (e) out.entities.push(e);
      }
    }
    return out;
  }
  if (!isJsonRecord(root)) return out;
  const entities = getRecordField(root, ENTITY_LIST)?.value;
  const relations = getRecordField(root, RELATION_LIST)?.value;
  for (const item of Array.isArray(entities) ? entities : entities === undefined ? [] : [entities]) {
    const e = entityFromJson(item, out.issues);
    if (e) out.entities.push(e);
  }
  for (const item of Array.isArray(relations) ? relations : relations === undefined ? [] : [relations]) {
    const r = relationFromJson(item, out.issues);
    if (r) out.relations.push(r);
  }
  return out;
}

/**
 * Parse a graph-extraction answer: GraphRAG tuple records
 * (`("entity"<|>NAME<|>TYPE<|>DESCRIPTION)` and
 * `("relationship"<|>SOURCE<|>TARGET<|>DESCRIPTION<|>STRENGTH)`, separated by `##`, ending with
 * `<|COMPLETE|>`; LightRAG's extra keywords field before the strength is read too) or JSON
 * (`{entities:[{name,type,description}], relationships:[{source,target,description,strength|weight}]}`),
 * whichever the model returned.
 *
 * Entity names are kept as written; entity types are lower-cased (so they compare with
 * `DEFAULT_ENTITY_TYPES`). A missing type or description becomes `''` and a missing or non-numeric
 * strength becomes `1`, each with an issue. Records without a name (entities) or without both
 * endpoints (relations) are skipped with a `'skipped-record'` issue; a record cut off at the end of
 * the output is dropped with a `'truncated'` issue; no records at all gives a `'no-records'` issue.
 */
export function parseGraphExtraction(raw: string, options: GraphParseOptions = {}): GraphExtraction {
  const text = String(raw ?? '');
  const delimiters = { ...TUPLE_DELIMITER_DEFAULTS, ...options };
  let out: GraphExtraction | undefined;
  if (looksLikeTuples(text, delimiters.tupleDelimiter)) {
    out = graphFromTuples(text, delimiters);
    if (out.entities.length > 0 || out.relations.length > 0) return out;
  }
  // JSON, or tuple-looking text that gave nothing (e.g. a JSON description that contains `<|>`).
  const json = extractJson(text, (v, found) => isGraphJson(v) || lostRecords(v, found));
  if (json) out = graphFromJson(json);
  else out ??= graphFromTuples(text, delimiters);
  if (out.entities.length === 0 && out.relations.length === 0) {
    // `<|COMPLETE|>` alone or `{"entities": []}` is a well-formed "nothing found".
    let rest = stripCodeFences(text);
    for (const marker of [delimiters.completionDelimiter, ...COMPLETION_MARKERS]) {
      if (marker) rest = rest.split(marker).join('');
    }
    out.issues.push(noRecords(text, 'entities or relations', !json && rest.trim() !== ''));
  }
  return out;
}

/**
 * Merge the extractions of several passes (gleaning) into one: records in order of appearance,
 * exact duplicates dropped (same name case-insensitively, type and description for entities; same
 * endpoints case-insensitively, description and weight for relations), issues concatenated.
 */
export function mergeGraphExtractions(parts: readonly GraphExtraction[]): GraphExtraction {
  const out: GraphExtraction = { entities: [], relations: [], issues: [] };
  const seenEntities = new Set<string>();
  const seenRelations = new Set<string>();
  for (const part of parts) {
    for (const e of part.entities) {
      const key = JSON.stringify([e.name.toLowerCase(), e.type, e.description]);
      if (seenEntities.has(key)) continue;
      seenEntities.add(key);
      out.entities.push(e);
    }
    for (const r of part.relations) {
      const key = JSON.stringify([r.source.toLowerCase(), r.target.toLowerCase(), r.description, r.weight]);
      if (seenRelations.has(key)) continue;
      seenRelations.add(key);
      out.relations.push(r);
    }
    out.issues.push(...part.issues);
  }
  return out;
}
