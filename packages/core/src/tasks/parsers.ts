/**
 * One parser per task: model text in, records plus {@link ParseIssue}s out. Parsers are pure and
 * never throw on model text; whatever they cannot use is reported as an issue, with its raw text.
 * Issues about a record lost because its text could not be read carry `repairable: true` (what a
 * repair retry may recover); defaults filled in and output cut off do not.
 */
import type { ExtractedEntity, ExtractedRelation } from '../types.js';
import {
  COMPLETION_MARKERS,
  cleanFieldText,
  extractJson,
  fieldNumber,
  fieldStringList,
  fieldText,
  getRecordField,
  isJsonRecord,
  type LenientJson,
  lostRecords,
  normalizeFieldName,
  splitTupleRecords,
  stripCodeFences,
  TUPLE_DELIMITER_DEFAULTS,
  type TupleDelimiters,
} from './parse.js';
import type {
  AnswerWithCitations,
  CommunityAssessment,
  GraphExtraction,
  ParseIssue,
  QueryGraph,
  QueryGraphEdge,
  QueryGraphNode,
  SemanticUnitDecomposition,
  SemanticUnitRecord,
  TitleDescription,
  UnitRelationship,
} from './types.js';

// ---------------------------------------------------------------------------------------------
// Field names accepted for each field, normalized (see `normalizeFieldName`), in order of preference.

const ENTITY_LIST = ['entities', 'entity', 'nodes', 'entitylist', 'namedentities'];
const RELATION_LIST = ['relationships', 'relations', 'relationship', 'relation', 'edges', 'links', 'triples'];
const ENTITY_NAME = ['name', 'entityname', 'entity', 'title', 'label', 'id'];
const ENTITY_TYPE = ['type', 'entitytype', 'category', 'kind', 'class'];
const DESCRIPTION = [
  'description',
  'entitydescription',
  'relationshipdescription',
  'relationdescription',
  'desc',
  'summary',
  'details',
];
const RELATION_LABEL = ['relation', 'relationship', 'predicate', 'relationtype', 'label'];
const SOURCE = [
  'source',
  'sourceentity',
  'sourcename',
  'src',
  'from',
  'head',
  'subject',
  'entity1',
  'sourceid',
];
const TARGET = ['target', 'targetentity', 'targetname', 'tgt', 'to', 'tail', 'object', 'entity2', 'targetid'];
const WEIGHT = ['strength', 'weight', 'relationshipstrength', 'relationstrength', 'score', 'confidence'];
const KEYWORDS = ['keywords', 'relationshipkeywords', 'relationkeywords'];

/** The raw text of a record, or a function that makes it (only called when there is an issue). */
type Raw = string | (() => string);

function issue(kind: ParseIssue['kind'], reason: string, raw: Raw): ParseIssue {
  return { kind, reason, raw: typeof raw === 'function' ? raw() : raw };
}

/** A record that could not be read and was skipped: a repair retry may recover it. */
function skipped(reason: string, raw: Raw): ParseIssue {
  return { ...issue('skipped-record', reason, raw), repairable: true };
}

function rawOf(value: unknown): string {
  if (typeof value === 'string') return value;
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}

/**
 * Report what {@link extractJson} had to drop or could not finish. Malformed elements are
 * repairable unless `repairable` is false.
 */
function jsonIssues(json: LenientJson, issues: ParseIssue[], what: string, repairable = true): void {
  for (const d of json.dropped) {
    if (d.reason === 'truncated') {
      issues.push(
        issue('truncated', `the output ends inside a ${what}; the incomplete ${what} was dropped`, d.raw),
      );
    } else {
      const reason = `a ${what} is not valid JSON and was skipped`;
      issues.push(repairable ? skipped(reason, d.raw) : issue('skipped-record', reason, d.raw));
    }
  }
  if (json.truncated && !json.dropped.some((d) => d.reason === 'truncated')) {
    issues.push(
      issue('truncated', 'the output ends before the JSON is closed; later fields may be missing', json.text),
    );
  }
}

/**
 * No records at all. Repairable when `repairable` says so: the output had text the parser could
 * not read (not blank, and not a well-formed empty answer such as `{"entities": []}`).
 */
function noRecords(raw: string, what: string, repairable = false): ParseIssue {
  const out = issue('no-records', `no ${what} found in the model output`, raw);
  if (repairable) out.repairable = true;
  return out;
}

/** Whether `text` has content besides whitespace and code-fence lines. */
function hasContent(text: string): boolean {
  return stripCodeFences(text).trim() !== '';
}

// ---------------------------------------------------------------------------------------------
// Graph extraction (GraphRAG tuples or JSON)

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

// ---------------------------------------------------------------------------------------------
// Semantic units (NodeRAG §2.2)

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

// ---------------------------------------------------------------------------------------------
// Title and description (DA-RAG §3)

const TITLE = ['title', 'heading', 'name', 'chunktitle'];
const DESCRIPTION_TEXT = [
  'description',
  'summary',
  'desc',
  'abstract',
  'chunkdescription',
  'concisedescription',
];

/**
 * `Label: value` lines by normalized label; a line without a label continues the previous value.
 * A last line that is only the start of one of `labels` (`**Desc`: output cut inside the next
 * label) is left out rather than taken for a continuation.
 */
function labelledLines(text: string, labels: readonly string[] = []): Map<string, string> {
  const out = new Map<string, string>();
  let current: string | undefined;
  const lines = text.split(/\r?\n/);
  const last = lines[lines.length - 1] ?? '';
  if (!/[:=]/.test(last) && /^[\s*_#>-]*[A-Za-z _-]*[\s*_]*$/.test(last)) {
    const start = normalizeFieldName(last);
    if (lines.length > 1 && labels.some((label) => label.startsWith(start))) lines.pop();
  }
  for (const line of lines) {
    const m = /^\s*[*_#>-]*\s*([A-Za-z][A-Za-z _-]{0,30}?)\s*[*_]*\s*[:=]\s*[*_]*\s*(.*)$/.exec(line);
    const key = m ? normalizeFieldName(m[1]!) : undefined;
    if (m && key) {
      current = key;
      out.set(key, cleanFieldText(m[2] ?? ''));
    } else if (current && line.trim()) {
      out.set(current, `${out.get(current) ?? ''} ${line.trim()}`.trim());
    }
  }
  return out;
}

function firstLabelled(lines: Map<string, string>, aliases: readonly string[]): string | undefined {
  for (const alias of aliases) {
    const v = lines.get(alias);
    if (v !== undefined) return v;
  }
  return undefined;
}

/**
 * Parse a chunk title and concise description (DA-RAG §3): JSON `{"title": ..., "description": ...}`,
 * or labelled lines (`Title: ...` / `Description: ...`), or else the first line as the title and the
 * rest as the description. A missing part becomes `''` with a `'missing-field'` issue.
 */
export function parseTitleDescription(raw: string): TitleDescription {
  const text = String(raw ?? '');
  const issues: ParseIssue[] = [];
  let title: string | undefined;
  let description: string | undefined;
  const json = extractJson(
    text,
    (v) =>
      isJsonRecord(v) &&
      (getRecordField(v, TITLE) !== undefined || getRecordField(v, DESCRIPTION_TEXT) !== undefined),
  );
  if (json && isJsonRecord(json.value)) {
    jsonIssues(json, issues, 'field');
    title = fieldText(getRecordField(json.value, TITLE)?.value);
    description = fieldText(getRecordField(json.value, DESCRIPTION_TEXT)?.value);
  } else {
    const body = stripCodeFences(text);
    const lines = labelledLines(body, [...TITLE, ...DESCRIPTION_TEXT]);
    title = firstLabelled(lines, TITLE);
    description = firstLabelled(lines, DESCRIPTION_TEXT);
    // First line as the title, unless the answer is JSON the parser could not use.
    if (title === undefined && description === undefined && body && !/^[{[]/.test(body)) {
      const [first = '', ...rest] = body.split(/\r?\n/);
      title = cleanFieldText(first.replace(/^\s*#+\s*|\*\*/g, ''));
      description = rest.join(' ').replace(/\s+/g, ' ').trim() || undefined;
    }
  }
  if (!title && !description) {
    return {
      title: '',
      description: '',
      issues: [...issues, noRecords(text, 'title or description', hasContent(text))],
    };
  }
  if (!title) issues.push(issue('missing-field', "no title; using ''", text));
  if (!description) issues.push(issue('missing-field', "no description; using ''", text));
  return { title: title ?? '', description: description ?? '', issues };
}

// ---------------------------------------------------------------------------------------------
// Query entities

const QUERY_ENTITY_LIST = ['entities', 'entity', 'keywords', 'namedentities', 'entitylist', 'terms'];

/** Entities found in a query, with parse issues. */
export interface QueryEntitiesParse {
  entities: string[];
  issues: ParseIssue[];
}

/**
 * Parse a query-entity list: JSON `{"entities": [...]}` (items may be strings or objects with a
 * name) or a bare JSON array, else a bulleted, numbered, line- or comma-separated list. Names are
 * de-duplicated case-insensitively, first spelling kept.
 */
export function parseQueryEntities(raw: string): QueryEntitiesParse {
  const text = String(raw ?? '');
  const issues: ParseIssue[] = [];
  const items: string[] = [];
  // A bare array counts when a line starts with one, of strings or objects (in prose, "[Paris] and
  // [France]" is not JSON).
  const arrayLine = /^[ \t]*\[\s*(?:["'{\]\u201c]|$)/m.exec(text);
  const json =
    extractJson(text, (v) => isJsonRecord(v) && getRecordField(v, QUERY_ENTITY_LIST) !== undefined) ??
    (arrayLine ? extractJson(text.slice(arrayLine.index), (v) => Array.isArray(v)) : undefined);
  if (json) {
    jsonIssues(json, issues, 'entity');
    const list = Array.isArray(json.value)
      ? json.value
      : isJsonRecord(json.value)
        ? getRecordField(json.value, QUERY_ENTITY_LIST)?.value
        : undefined;
    for (const item of Array.isArray(list) ? list : [list]) {
      const name = isJsonRecord(item) ? fieldText(getRecordField(item, ENTITY_NAME)?.value) : fieldText(item);
      if (name) items.push(name);
      else if (item !== undefined) issues.push(skipped('entity without a name', rawOf(item)));
    }
  } else {
    const body = stripCodeFences(text);
    const lines = body
      .split(/\r?\n/)
      .map((l) => l.trim())
      .filter(Boolean);
    for (const line of lines) {
      // Skip lead-in lines ("Here are the entities:"), drop a label ("Entities: ...") and list markers.
      if (line.endsWith(':')) continue;
      const content = line
        .replace(
          /^(?:[\w\s]{0,30}?\b(?:entities|entity|keywords|names|terms|output|answer)\b[\w\s]{0,10}):\s*/i,
          '',
        )
        .replace(/^(?:[-*\u2022]|\d+[.)])\s*/, '');
      const parts = lines.length === 1 || content.includes(',') ? content.split(/\s*[,;]\s*/) : [content];
      items.push(...parts.map(cleanFieldText).filter(Boolean));
    }
  }
  const seen = new Set<string>();
  const entities: string[] = [];
  for (const item of items) {
    const key = item.toLowerCase();
    if (seen.has(key)) continue;
    seen.add(key);
    entities.push(item);
  }
  if (entities.length === 0) issues.push(noRecords(text, 'entities', json === undefined && hasContent(text)));
  return { entities, issues };
}

// ---------------------------------------------------------------------------------------------
// Query graph (SG-RAG appendix D)

const QG_NODES = ['nodes', 'vertices', 'entities', 'node'];
const QG_EDGES = ['edges', 'relations', 'relationships', 'links', 'edge'];
const QG_NODE_ID = ['id', 'nodeid', 'key', 'identifier'];
const QG_LABEL = ['label', 'name', 'entity', 'entityname', 'text', 'value'];
const QG_TARGET = ['target', 'istarget', 'answer', 'isanswer', 'targetnode', 'isunknowntarget', 'asked'];
const QG_RELATION = ['relation', 'label', 'relationship', 'predicate', 'type', 'description', 'name'];

/** Labels that mark an unknown node (SG-RAG writes `UNK`). */
const UNKNOWN_LABEL = /^(?:unk|unknown|\?+|none|null|n\/a|<unk>|\[unk\]|_+)$/i;

function toFlag(value: unknown): boolean | undefined {
  if (typeof value === 'boolean') return value;
  if (typeof value === 'number') return value !== 0;
  if (typeof value === 'string') {
    const v = value.trim().toLowerCase();
    if (['true', 'yes', 'y', '1'].includes(v)) return true;
    if (['false', 'no', 'n', '0'].includes(v)) return false;
  }
  return undefined;
}

/**
 * Parse a query graph (SG-RAG appendix D): JSON
 * `{"nodes":[{"id","label","target"}], "edges":[{"source","target","relation"}]}`.
 *
 * A label of `UNK` (or `unknown`, `?`, `null`, empty) makes the node unknown (`label: null`). When
 * any node carries an explicit target flag, the flags decide `isTarget`; when none does, every
 * unknown node is a target (SG-RAG's convention: the unknown node is what is asked for). A node
 * without an id gets `n<position>` and a `'missing-field'` issue; a repeated id is skipped. Edge
 * endpoints may name a node's id or (when unambiguous) its label; edges whose endpoints match no
 * node are skipped. Edges may also be arrays `[source, relation, target]`.
 */
export function parseQueryGraph(raw: string): QueryGraph {
  const text = String(raw ?? '');
  const out: QueryGraph = { nodes: [], edges: [], issues: [] };
  const json = extractJson(text, (v) => isJsonRecord(v) && getRecordField(v, QG_NODES) !== undefined);
  if (!json || !isJsonRecord(json.value)) {
    out.issues.push(noRecords(text, 'query graph', hasContent(text)));
    return out;
  }
  jsonIssues(json, out.issues, 'node or edge');
  const nodesField = getRecordField(json.value, QG_NODES)?.value;
  const edgesField = getRecordField(json.value, QG_EDGES)?.value;
  const flags: (boolean | undefined)[] = [];
  const ids = new Set<string>();
  const rawNodes = Array.isArray(nodesField) ? nodesField : [nodesField];
  // Ids given by the model, so that a node without one never takes an id a later node uses.
  const explicitIds = new Set<string>();
  for (const item of rawNodes) {
    const id = isJsonRecord(item) ? fieldText(getRecordField(item, QG_NODE_ID)?.value) : undefined;
    if (id) explicitIds.add(id);
  }
  rawNodes.forEach((item, i) => {
    const rawText = rawOf(item);
    let id: string | undefined;
    let label: string | undefined;
    let flag: boolean | undefined;
    if (isJsonRecord(item)) {
      id = fieldText(getRecordField(item, QG_NODE_ID)?.value);
      const labelField = getRecordField(item, QG_LABEL);
      label = labelField === undefined ? undefined : (fieldText(labelField.value) ?? '');
      const targetField = getRecordField(item, QG_TARGET);
      flag = targetField === undefined ? undefined : toFlag(targetField.value);
    } else if (typeof item === 'string') {
      label = cleanFieldText(item);
    } else {
      out.issues.push(skipped('query-graph node is not an object', rawText));
      return;
    }
    if (!id) {
      id = `n${i + 1}`;
      while (ids.has(id) || explicitIds.has(id)) id = `${id}_`;
      out.issues.push(issue('missing-field', `query-graph node without an id; using "${id}"`, rawText));
    }
    if (ids.has(id)) {
      out.issues.push(skipped(`repeated query-graph node id "${id}"`, rawText));
      return;
    }
    if (label === undefined) {
      out.issues.push(
        issue('missing-field', `query-graph node "${id}" has no label; treating it as unknown`, rawText),
      );
    }
    ids.add(id);
    const unknown = label === undefined || label === '' || UNKNOWN_LABEL.test(label);
    out.nodes.push({ id, label: unknown ? null : label!, isTarget: false });
    flags.push(flag);
  });
  const explicit = flags.some((f) => f !== undefined);
  out.nodes.forEach((node: QueryGraphNode, i) => {
    node.isTarget = explicit ? flags[i] === true : node.label === null;
  });

  const byLabel = new Map<string, string | null>();
  for (const node of out.nodes) {
    if (node.label === null) continue;
    const key = node.label.toLowerCase();
    byLabel.set(key, byLabel.has(key) ? null : node.id);
  }
  const resolve = (ref: string | undefined): string | undefined => {
    if (!ref) return undefined;
    if (ids.has(ref)) return ref;
    return byLabel.get(ref.toLowerCase()) ?? undefined;
  };
  const rawEdges = Array.isArray(edgesField) ? edgesField : edgesField === undefined ? [] : [edgesField];
  for (const item of rawEdges) {
    const rawText = rawOf(item);
    let source: string | undefined;
    let target: string | undefined;
    let relation: string | undefined;
    if (isJsonRecord(item)) {
      source = resolve(fieldText(getRecordField(item, SOURCE)?.value));
      target = resolve(fieldText(getRecordField(item, TARGET)?.value));
      relation = fieldText(getRecordField(item, QG_RELATION)?.value);
    } else if (Array.isArray(item)) {
      const parts = item.map((v) => fieldText(v));
      const [a, b, c] = parts.map((p) => resolve(p));
      if (a && c && !b) [source, relation, target] = [a, parts[1], c];
      else if (a && b) [source, target, relation] = [a, b, parts[2]];
    }
    if (!source || !target) {
      out.issues.push(skipped('query-graph edge whose endpoints are not nodes', rawText));
      continue;
    }
    if (relation === undefined) {
      out.issues.push(
        issue('missing-field', `query-graph edge ${source} -> ${target} has no relation; using ''`, rawText),
      );
    }
    const edge: QueryGraphEdge = { source, target, relation: relation ?? '' };
    out.edges.push(edge);
  }
  if (out.nodes.length === 0) out.issues.push(noRecords(text, 'query-graph nodes'));
  return out;
}

// ---------------------------------------------------------------------------------------------
// Community relevance score + report (DA-RAG §5.1)

const SCORE = ['score', 'relevance', 'relevancescore', 'rating', 'relevancerating'];
const REPORT = [
  'report',
  'communityreport',
  'summary',
  'analysis',
  'explanation',
  'reasoning',
  'description',
];

/**
 * Bring a relevance score to the 0-10 scale. `"7/10"` and `"7 out of 10"` use their denominator
 * (`"45/50"` gives 9); `"85%"` gives 8.5. A bare number above 10 and at most 100 is read as a 0-100
 * score and divided by 10; anything else outside 0-10 is clamped. Rescaling and clamping are
 * reported as `'invalid-value'` issues (denominators and percentages are not: they are explicit).
 */
export function normalizeRelevanceScore(
  value: unknown,
  raw: string,
): { score: number; issue?: ParseIssue } | undefined {
  let n = fieldNumber(value);
  if (n === undefined) return undefined;
  if (typeof value === 'string') {
    const outOf = /(?:\/|out of)\s*(\d+(?:\.\d+)?)/i.exec(value);
    const denominator = outOf ? Number(outOf[1]) : undefined;
    if (denominator && denominator > 0) n = (n / denominator) * 10;
    else if (/%/.test(value)) n /= 10;
    else if (denominator === undefined && n > 10 && n <= 100) {
      return {
        score: n / 10,
        issue: issue('invalid-value', `score ${n} read as 0-100 and divided by 10`, raw),
      };
    }
  } else if (n > 10 && n <= 100) {
    return {
      score: n / 10,
      issue: issue('invalid-value', `score ${n} read as 0-100 and divided by 10`, raw),
    };
  }
  if (n < 0 || n > 10) {
    const clamped = Math.min(10, Math.max(0, n));
    return {
      score: clamped,
      issue: issue('invalid-value', `score ${n} is outside 0-10; clamped to ${clamped}`, raw),
    };
  }
  return { score: n };
}

/**
 * Parse a community relevance score and report produced in one call (DA-RAG §5.1): JSON
 * `{"score": 0-10, "report": "..."}`, or labelled lines (`Score: 7/10`, `Report: ...`). The score is
 * normalised by {@link normalizeRelevanceScore}. A missing score becomes 0 and a missing report `''`,
 * each with a `'missing-field'` issue.
 */
export function parseCommunityAssessment(raw: string): CommunityAssessment {
  const text = String(raw ?? '');
  const issues: ParseIssue[] = [];
  let scoreValue: unknown;
  let report: string | undefined;
  const json = extractJson(
    text,
    (v) =>
      isJsonRecord(v) && (getRecordField(v, SCORE) !== undefined || getRecordField(v, REPORT) !== undefined),
  );
  if (json && isJsonRecord(json.value)) {
    jsonIssues(json, issues, 'field');
    scoreValue = getRecordField(json.value, SCORE)?.value;
    const r = getRecordField(json.value, REPORT)?.value;
    report = fieldText(r) ?? (r === undefined ? undefined : rawOf(r));
  } else {
    const body = stripCodeFences(text);
    const lines = labelledLines(body, [...SCORE, ...REPORT]);
    scoreValue = firstLabelled(lines, SCORE);
    report = firstLabelled(lines, REPORT);
    if (scoreValue === undefined) {
      const m =
        /\b(?:score|relevance|rating)\b[^\d\n-]{0,20}(-?\d+(?:\.\d+)?(?:\s*(?:\/|out of)\s*\d+)?%?)/i.exec(
          body,
        );
      if (m) scoreValue = m[1];
    }
    if (report === undefined && scoreValue !== undefined) {
      const rest = body
        .split(/\r?\n/)
        .filter((l) => !/\b(?:score|relevance|rating)\b/i.test(l))
        .join('\n')
        .trim();
      if (rest) report = rest;
    }
  }
  if (scoreValue === undefined && !report) {
    return {
      score: 0,
      report: '',
      issues: [...issues, noRecords(text, 'score or report', hasContent(text))],
    };
  }
  let score = 0;
  const normalized = scoreValue === undefined ? undefined : normalizeRelevanceScore(scoreValue, text);
  if (normalized) {
    score = normalized.score;
    if (normalized.issue) issues.push(normalized.issue);
  } else if (scoreValue === undefined) {
    issues.push(issue('missing-field', 'no relevance score; using 0', text));
  } else {
    issues.push({
      ...issue('invalid-value', `relevance score "${rawOf(scoreValue)}" is not a number; using 0`, text),
      repairable: true,
    });
  }
  if (!report) issues.push(issue('missing-field', "no community report; using ''", text));
  return { score, report: report ?? '', issues };
}

// ---------------------------------------------------------------------------------------------
// Answer with citations

const ANSWER = ['answer', 'response', 'finalanswer', 'text'];
const CITATIONS = ['citations', 'sources', 'references', 'citedids', 'ids', 'contextids'];
const CITE_PREFIX =
  /^(?:sources?|refs?|references?|citations?|cited|context(?:\s+items?)?|items?|ids?|chunks?|docs?|documents?|passages?)\b(?:\s*[:#]\s*|\s+)/i;
/** A parenthesis that announces citations: `(source: c1)`, `(sources: c1, c2)`. */
const PAREN_PREFIX = /^(?:sources?|refs?|references?|citations?|cited|context|ids?|chunks?|see)\b\s*:/i;

interface CitationScan {
  ids: string[];
  issues: ParseIssue[];
}

function resolveCitation(
  token: string,
  knownIds: readonly string[],
  lowerIds: Map<string, string>,
  byPosition = true,
): string | undefined {
  if (knownIds.includes(token)) return token;
  const ci = lowerIds.get(token.toLowerCase());
  if (ci !== undefined) return ci;
  // `[2]`: the second context item, when no id is itself a number.
  if (byPosition && /^\d+$/.test(token) && !knownIds.some((id) => /^\d+$/.test(id))) {
    const n = Number(token);
    if (n >= 1 && n <= knownIds.length) return knownIds[n - 1];
  }
  return undefined;
}

function scanCitations(text: string, knownIds: readonly string[]): CitationScan {
  const lowerIds = new Map<string, string>();
  for (const id of knownIds) if (!lowerIds.has(id.toLowerCase())) lowerIds.set(id.toLowerCase(), id);
  const groups: { at: number; body: string; strict: boolean }[] = [];
  // [c1], [c1, c2], [source: c1]; not Markdown links [text](url).
  for (const m of text.matchAll(/\[([^[\]\n]{1,200})\](?!\()|\u3010([^\u3011\n]{1,200})\u3011/g)) {
    groups.push({ at: m.index, body: m[1] ?? m[2] ?? '', strict: false });
  }
  // (source: c1), (sources: c1, c2); plain (c1) only when every part is a known id.
  for (const m of text.matchAll(/\(([^()\n]{1,200})\)/g)) {
    const body = m[1]!;
    groups.push({ at: m.index, body, strict: !PAREN_PREFIX.test(body.trim()) });
  }
  groups.sort((a, b) => a.at - b.at);
  const ids: string[] = [];
  const issues: ParseIssue[] = [];
  for (const group of groups) {
    const body = cleanFieldText(group.body);
    // Plain parentheses never cite by position: "(1) first, (2) second" is an enumeration.
    const byPosition = !group.strict;
    const resolveToken = (t: string): string | undefined =>
      resolveCitation(t, knownIds, lowerIds, byPosition) ??
      resolveCitation(t.replace(CITE_PREFIX, ''), knownIds, lowerIds, byPosition);
    const whole = resolveToken(body);
    const tokens = whole
      ? [body]
      : body
          .replace(CITE_PREFIX, '')
          .split(/\s*[,;]\s*|\s+and\s+/)
          .map((t) => cleanFieldText(t).replace(/^\[|\]$/g, ''))
          .filter(Boolean);
    if (tokens.length === 0) continue;
    const resolved = tokens.map(resolveToken);
    if (group.strict && resolved.some((r) => r === undefined)) continue;
    tokens.forEach((token, i) => {
      const id = resolved[i];
      if (id === undefined) {
        issues.push(
          issue('invalid-value', `the answer cites "${token}", which is not a context id`, `[${group.body}]`),
        );
      } else if (!ids.includes(id)) {
        ids.push(id);
      }
    });
  }
  return { ids, issues };
}

/**
 * Parse an answer with citations to context items. Citations are read from the text (`[c1]`,
 * `[c1, c2]`, `[c1][c2]`, `(source: c1)`, `(c1)` when `c1` is a known id) and, when the model
 * answered in JSON (`{"answer": ..., "citations": [...]}`), from the citation list too. An id
 * matches a known id exactly or case-insensitively; a number `n` that is not itself an id names the
 * n-th context item. A cited id that is not in `knownIds` is reported as an `'invalid-value'` issue
 * and left out. The answer text is returned as written, citation markers included.
 */
export function parseAnswer(raw: string, knownIds: readonly string[]): AnswerWithCitations {
  const text = String(raw ?? '');
  const issues: ParseIssue[] = [];
  let answer: string | undefined;
  const listed: string[] = [];
  const json = extractJson(text, (v) => isJsonRecord(v) && getRecordField(v, ANSWER) !== undefined);
  if (json && isJsonRecord(json.value)) {
    jsonIssues(json, issues, 'citation', false);
    answer = fieldText(getRecordField(json.value, ANSWER)?.value);
    const cites = getRecordField(json.value, CITATIONS)?.value;
    listed.push(...fieldStringList(cites));
  }
  if (answer === undefined) {
    answer = stripCodeFences(text).replace(/^\s*(?:\*\*)?answer(?:\*\*)?\s*:\s*/i, '');
  }
  answer = answer.trim();
  const scan = scanCitations(answer, knownIds);
  const lowerIds = new Map(knownIds.map((id) => [id.toLowerCase(), id] as const));
  const citations: string[] = [];
  for (const token of listed) {
    const id =
      resolveCitation(token, knownIds, lowerIds) ??
      resolveCitation(token.replace(CITE_PREFIX, ''), knownIds, lowerIds);
    if (id === undefined)
      issues.push(issue('invalid-value', `the answer cites "${token}", which is not a context id`, token));
    else if (!citations.includes(id)) citations.push(id);
  }
  for (const id of scan.ids) if (!citations.includes(id)) citations.push(id);
  issues.push(...scan.issues);
  if (!answer) issues.push(noRecords(text, 'answer'));
  return { answer, citations, issues };
}

// ---------------------------------------------------------------------------------------------
// Summary (E2GraphRAG §3.1)

const SUMMARY_FIELD = ['summary', 'description', 'text', 'content'];
/** A JSON object whose first key is a summary field, anywhere in the text. */
const SUMMARY_JSON = /\{\s*["']?(?:summary|description|text|content)["']?\s*:/i;
/** A lead-in line such as `Here is the summary:` or `Summary of the passages:`. */
const SUMMARY_LEAD_IN = /^[^\n]{0,120}\b(?:summary|summari[sz]ed|here is|here's)\b[^\n]{0,120}:[*_\s]*\n/i;
/** A `Summary:` label, possibly as a heading or in bold. */
const SUMMARY_LABEL = /^\s*(?:#+\s*)?(?:\*\*|__)?summary(?:\*\*|__)?\s*(?::|\n)\s*(?:\*\*|__)?\s*/i;

/**
 * Clean a summary: code fences, a lead-in line (`Here is the summary:`) and a leading `Summary:`
 * label removed; the `summary` field taken when the model answered in JSON (`{"summary": ...}`,
 * possibly after prose). Returns `''` when nothing is left.
 */
export function parseSummary(raw: string): string {
  const text = String(raw ?? '');
  const trimmed = text.trim();
  if (trimmed.startsWith('{') || trimmed.startsWith('```') || SUMMARY_JSON.test(text)) {
    const json = extractJson(text, (v) => isJsonRecord(v) && getRecordField(v, SUMMARY_FIELD) !== undefined);
    if (json && isJsonRecord(json.value)) {
      const value = fieldText(getRecordField(json.value, SUMMARY_FIELD)?.value);
      if (value !== undefined) return value;
    }
  }
  const body = stripCodeFences(text);
  const withoutLeadIn = body.replace(SUMMARY_LEAD_IN, '');
  return (withoutLeadIn.trim() ? withoutLeadIn : body).replace(SUMMARY_LABEL, '').trim();
}
