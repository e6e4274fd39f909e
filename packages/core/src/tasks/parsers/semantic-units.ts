/**
 * Parser of the semantic-unit decomposition task (NodeRAG §2.2): the units of a chunk with their
 * entities and relationship triples.
 */

import type {
  ParseIssue,
  SemanticUnitDecomposition,
  SemanticUnitRecord,
  UnitRelationship,
} from '../../contracts/tasks.js';
import { extractJson, isJsonRecord, lostRecords } from '../lenient-json.js';
import { cleanFieldText, fieldStringList, fieldText, getRecordField } from '../record-fields.js';
import {
  DESCRIPTION,
  ENTITY_NAME,
  hasContent,
  issue,
  jsonIssues,
  noRecords,
  RELATION_LABEL,
  rawOf,
  SOURCE,
  skipped,
  TARGET,
} from './common.js';

const UNIT_LIST = ['semanticunits', 'units', 'output', 'results', 'result', 'data', 'items', 'events'];
const UNIT_TEXT = ['semanticunit', 'unit', 'text', 'content', 'event', 'summary', 'description', 'statement'];
const UNIT_ENTITIES = ['entities', 'entity', 'entitylist', 'namedentities'];
const UNIT_RELATIONS = ['relationships', 'relationship', 'relations', 'relation', 'triples', 'edges'];

function isUnitsJson(value: unknown): boolean {
  if (Array.isArray(value))
    return value.some((v) => isJsonRecord(v) && getRecordField(v, UNIT_TEXT) !== undefined);
  if (!isJsonRecord(value)) return false;
  const list = getRecordField(value, UNIT_LIST)?.value;
  return Array.isArray(list) || getRecordField(value, UNIT_TEXT) !== undefined;
}

/** Find `name` at the start (or end) of `text`, followed (or preceded) by a separator. */
function matchEntityAt(text: string, names: readonly string[], where: 'start' | 'end'): string | undefined {
  const lower = text.toLowerCase();
  let best: string | undefined;
  for (const name of names) {
    const n = name.toLowerCase();
    if (!n || n.length >= lower.length) continue;
    const ok =
      where === 'start'
        ? lower.startsWith(n) && /^\s*[,;|]/.test(lower.slice(n.length))
        : lower.endsWith(n) && /[,;|]\s*$/.test(lower.slice(0, lower.length - n.length));
    if (ok && (best === undefined || n.length > best.length)) best = name;
  }
  return best;
}

/**
 * Split a NodeRAG relationship string `"ENTITY_A, RELATION, ENTITY_B"` (also with `|`, `;`, `->`
 * or tabs between the parts). When the unit's entity names contain the separator, they are matched
 * at the ends first. Returns `undefined` when there are fewer than three parts.
 */
export function parseRelationshipTriple(
  text: string,
  entities: readonly string[] = [],
): UnitRelationship | undefined {
  const s = cleanFieldText(text).replace(/^\(|\)$/g, '');
  const head = matchEntityAt(s, entities, 'start');
  const tail = matchEntityAt(s, entities, 'end');
  if (head && tail && head.length + tail.length < s.length) {
    const middle = s
      .slice(head.length, s.length - tail.length)
      .replace(/^\s*[,;|]\s*|\s*[,;|]\s*$/g, '')
      .trim();
    if (middle)
      return {
        source: s.slice(0, head.length).trim(),
        relation: middle,
        target: s.slice(-tail.length).trim(),
      };
  }
  const sep = s.includes('->')
    ? /\s*-+>\s*/
    : s.includes('|')
      ? /\s*\|\s*/
      : s.includes('\t')
        ? /\t+/
        : s.includes(';')
          ? /\s*;\s*/
          : /\s*,\s*/;
  const parts = s
    .split(sep)
    .map(cleanFieldText)
    .filter((p) => p !== '');
  if (parts.length < 3) return undefined;
  return { source: parts[0]!, relation: parts.slice(1, -1).join(', '), target: parts[parts.length - 1]! };
}

function unitRelationship(value: unknown, entities: string[]): UnitRelationship | undefined {
  if (typeof value === 'string') return parseRelationshipTriple(value, entities);
  if (Array.isArray(value)) {
    const parts = value.map((v) => fieldText(v) ?? '').filter((p) => p !== '');
    if (parts.length < 3) return undefined;
    return { source: parts[0]!, relation: parts.slice(1, -1).join(', '), target: parts[parts.length - 1]! };
  }
  if (isJsonRecord(value)) {
    const source = fieldText(getRecordField(value, SOURCE)?.value);
    const target = fieldText(getRecordField(value, TARGET)?.value);
    const relation = fieldText(
      (getRecordField(value, RELATION_LABEL) ?? getRecordField(value, DESCRIPTION))?.value,
    );
    if (source && target && relation) return { source, relation, target };
  }
  return undefined;
}

function unitFromJson(value: unknown, issues: ParseIssue[]): SemanticUnitRecord | undefined {
  const raw = () => rawOf(value);
  if (typeof value === 'string') {
    const text = cleanFieldText(value);
    if (!text) return undefined;
    issues.push(
      issue('missing-field', 'semantic unit given as plain text; no entities or relationships', raw),
    );
    return { text, entities: [], relationships: [] };
  }
  if (!isJsonRecord(value)) {
    issues.push(skipped('semantic unit is not an object', raw));
    return undefined;
  }
  const text = fieldText(getRecordField(value, UNIT_TEXT)?.value);
  if (!text) {
    issues.push(skipped('semantic unit without its text', raw));
    return undefined;
  }
  const entitiesField = getRecordField(value, UNIT_ENTITIES);
  const entities: string[] = [];
  if (entitiesField === undefined) {
    issues.push(issue('missing-field', 'semantic unit has no entities; using []', raw));
  } else {
    const list = Array.isArray(entitiesField.value)
      ? entitiesField.value
      : fieldStringList(entitiesField.value);
    for (const item of list) {
      const name = isJsonRecord(item) ? fieldText(getRecordField(item, ENTITY_NAME)?.value) : fieldText(item);
      if (name) entities.push(name);
      else issues.push(skipped('semantic-unit entity without a name', rawOf(item)));
    }
  }
  const relationsField = getRecordField(value, UNIT_RELATIONS);
  const relationships: UnitRelationship[] = [];
  if (relationsField === undefined) {
    issues.push(issue('missing-field', 'semantic unit has no relationships; using []', raw));
  } else {
    const list = Array.isArray(relationsField.value) ? relationsField.value : [relationsField.value];
    for (const item of list) {
      const r = unitRelationship(item, entities);
      if (r) relationships.push(r);
      else issues.push(skipped('relationship is not "ENTITY_A, RELATION, ENTITY_B"', rawOf(item)));
    }
  }
  return { text, entities: [...new Set(entities)], relationships };
}

/**
 * Parse a NodeRAG semantic-unit decomposition (NodeRAG §2.2): JSON
 * `{"units":[{"semantic_unit": "...", "entities": [...], "relationships": ["A, RELATION, B", ...]}]}`,
 * a bare array of units, or a single unit object. Relationships may also be arrays `[A, R, B]` or
 * objects `{source, relation, target}`. A unit without text is skipped; a relationship that does not
 * split into three parts is skipped (the unit is kept); missing entity or relationship lists become
 * `[]` with a `'missing-field'` issue.
 */
export function parseSemanticUnits(raw: string): SemanticUnitDecomposition {
  const text = String(raw ?? '');
  const out: SemanticUnitDecomposition = { units: [], issues: [] };
  const json = extractJson(text, (v, found) => isUnitsJson(v) || lostRecords(v, found));
  if (json) {
    jsonIssues(json, out.issues, 'semantic unit');
    let list: unknown[];
    if (Array.isArray(json.value)) list = json.value;
    else if (isJsonRecord(json.value)) {
      const field = getRecordField(json.value, UNIT_LIST)?.value;
      list = Array.isArray(field) ? field : [json.value];
    } else list = [];
    for (const item of list) {
      const unit = unitFromJson(item, out.issues);
      if (unit) out.units.push(unit);
    }
  }
  if (out.units.length === 0)
    out.issues.push(noRecords(text, 'semantic units', json === undefined && hasContent(text)));
  return out;
}
