/**
 * Parser of the query-graph task (SG-RAG appendix D): the nodes and edges of a question's graph,
 * unknown nodes and the target marked.
 */

import type { QueryGraph, QueryGraphEdge, QueryGraphNode } from '../../contracts/tasks.js';
import { extractJson, isJsonRecord } from '../lenient-json.js';
import { cleanFieldText, fieldText, getRecordField } from '../record-fields.js';
import { hasContent, issue, jsonIssues, noRecords, rawOf, SOURCE, skipped, TARGET } from './common.js';

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
