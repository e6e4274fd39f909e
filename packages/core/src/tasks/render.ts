/**
 * Renderers: the inverse of the parsers. Each turns a task result into the text the task's prompt
 * asks the model to write, so that the matching parser in `parsers/` reads it back. They serve
 * simulated models (a dry run answers each chat call with an offline result rendered as model
 * text) and tests (valid outputs to mutate).
 *
 * Round trip: `parseX(renderX(x))` gives `x` back, up to the normalization each renderer
 * documents (fields trimmed, entity types lower-cased, ...), and with no issues when every record
 * has its required fields.
 *
 * @module
 */

import type { SemanticUnitRecord, TaskName, TaskSuite } from '../contracts/tasks.js';
import type { ExtractedEntity, ExtractedRelation } from '../contracts/types.js';
import { parseAnswer } from './parsers/answer.js';
import { parseRelationshipTriple } from './parsers/semantic-units.js';
import type { GraphExtractionFormat } from './prompts.js';
import { TUPLE_DELIMITER_DEFAULTS, type TupleDelimiters, tupleFieldText } from './tuples.js';

/** The result of a task without its parse issues: what a renderer takes. */
export type TaskOutput<K extends TaskName> = K extends 'summarize'
  ? string
  : Omit<Awaited<ReturnType<TaskSuite[K]>>, 'issues'>;

/** Options of {@link renderGraphExtraction}. */
export interface GraphRenderOptions extends Partial<TupleDelimiters> {
  /** GraphRAG tuple records or one JSON object, as `PromptTaskOptions.format`. @default 'tuples' */
  format?: GraphExtractionFormat;
}

/** Options of {@link renderTaskOutput}; only graph extraction has any. */
export type RenderOptions = GraphRenderOptions;

/** A tuple field: see {@link tupleFieldText}. */
function tupleField(value: unknown, delimiters: TupleDelimiters): string {
  return tupleFieldText(value, delimiters);
}

/**
 * Graph extraction as the prompt asks for it. `format: 'tuples'` (the default) writes GraphRAG
 * records, one per line, `("entity"<|>NAME<|>TYPE<|>DESCRIPTION)` and
 * `("relationship"<|>SOURCE<|>TARGET<|>DESCRIPTION<|>STRENGTH)` (LightRAG's keywords field before
 * the strength when a relation has keywords), with the record delimiter between them and the
 * completion delimiter at the end; an empty extraction is the completion delimiter alone. Tuple
 * fields go through `tupleFieldText` (tuples cannot escape: whitespace runs become one space,
 * delimiter strings become spaces, a parenthesis that would open a record becomes a bracket).
 * `format: 'json'` writes
 * `{"entities": [{name, type, description}], "relationships": [{source, target, description, strength}]}`.
 *
 * Round trip: names, descriptions and endpoints come back trimmed (and, in tuples, with the
 * replacements above), types lower-cased.
 */
export function renderGraphExtraction(
  extraction: { entities: readonly ExtractedEntity[]; relations: readonly ExtractedRelation[] },
  options: GraphRenderOptions = {},
): string {
  const { format = 'tuples', ...rest } = options;
  const delimiters: TupleDelimiters = { ...TUPLE_DELIMITER_DEFAULTS };
  for (const key of ['tupleDelimiter', 'recordDelimiter', 'completionDelimiter'] as const) {
    const value = rest[key];
    if (value) delimiters[key] = value;
  }
  if (format === 'json') {
    return JSON.stringify({
      entities: extraction.entities.map((e) => ({ name: e.name, type: e.type, description: e.description })),
      relationships: extraction.relations.map((r) => ({
        source: r.source,
        target: r.target,
        description: r.description,
        ...(r.keywords && r.keywords.length > 0 ? { keywords: r.keywords } : {}),
        strength: r.weight,
      })),
    });
  }
  const t = delimiters.tupleDelimiter;
  const f = (value: unknown) => tupleField(value, delimiters);
  const records = [
    ...extraction.entities.map((e) => `("entity"${t}${f(e.name)}${t}${f(e.type)}${t}${f(e.description)})`),
    ...extraction.relations.map((r) => {
      const keywords =
        r.keywords && r.keywords.length > 0 ? `${t}${f(r.keywords.map(f).filter(Boolean).join(', '))}` : '';
      return `("relationship"${t}${f(r.source)}${t}${f(r.target)}${t}${f(r.description)}${keywords}${t}${f(r.weight)})`;
    }),
  ];
  return `${records.join(`${delimiters.recordDelimiter}\n`)}${delimiters.completionDelimiter}`;
}

/**
 * A semantic-unit relationship in NodeRAG's string form `"SOURCE, RELATION, TARGET"`, or as an
 * array `[source, relation, target]` when the string would not split back into the same parts
 * (a part with a separator in it that the unit's entities cannot disambiguate).
 */
function unitRelationship(
  r: SemanticUnitRecord['relationships'][number],
  entities: readonly string[],
): string | string[] {
  const text = `${r.source}, ${r.relation}, ${r.target}`;
  const back = parseRelationshipTriple(text, entities);
  const same =
    back !== undefined &&
    back.source === r.source.trim() &&
    back.relation === r.relation.trim() &&
    back.target === r.target.trim();
  return same ? text : [r.source, r.relation, r.target];
}

/**
 * NodeRAG semantic units as the prompt asks for them:
 * `{"units": [{"semantic_unit": "...", "entities": [...], "relationships": ["A, RELATION, B"]}]}`.
 * A relationship whose string form would split differently is written as `[A, RELATION, B]`,
 * which the parser also reads. Round trip: fields trimmed, repeated entity names of a unit kept once.
 */
export function renderSemanticUnits(decomposition: { units: readonly SemanticUnitRecord[] }): string {
  return JSON.stringify({
    units: decomposition.units.map((u) => ({
      semantic_unit: u.text,
      entities: u.entities,
      relationships: u.relationships.map((r) => unitRelationship(r, u.entities)),
    })),
  });
}

/** DA-RAG title and description: `{"title": "...", "description": "..."}`. Round trip: trimmed. */
export function renderTitleDescription(result: { title: string; description: string }): string {
  return JSON.stringify({ title: result.title, description: result.description });
}

/**
 * Query entities: `{"entities": [...]}`. Round trip: trimmed, and names that repeat
 * case-insensitively kept once (first spelling).
 */
export function renderQueryEntities(result: { entities: readonly string[] }): string {
  return JSON.stringify({ entities: result.entities });
}

/**
 * SG-RAG query graph:
 * `{"nodes": [{"id", "label", "target"}], "edges": [{"source", "target", "relation"}]}`, an unknown
 * node (`label: null`) labelled `"UNK"`, every node with its explicit target flag. Round trip:
 * trimmed; a label the parser reads as unknown (`UNK`, `?`, `none`, ...) comes back as `null`.
 */
export function renderQueryGraph(graph: {
  nodes: readonly { id: string; label: string | null; isTarget: boolean }[];
  edges: readonly { source: string; target: string; relation: string }[];
}): string {
  return JSON.stringify({
    nodes: graph.nodes.map((n) => ({ id: n.id, label: n.label ?? 'UNK', target: n.isTarget })),
    edges: graph.edges.map((e) => ({ source: e.source, target: e.target, relation: e.relation })),
  });
}

/** DA-RAG community assessment: `{"score": 0-10, "report": "..."}`. Round trip: report trimmed. */
export function renderCommunityAssessment(result: { score: number; report: string }): string {
  return JSON.stringify({ score: result.score, report: result.report });
}

/**
 * An answer with citations as the answer prompt asks for it: the answer text, followed by an
 * `[id]` marker for each citation the text does not already cite (checked with `parseAnswer`).
 * Round trip: `parseAnswer(text, ids)` returns `citations` (in first-cited order) and the rendered
 * text as the answer; ids should be free of brackets, commas and semicolons.
 */
export function renderAnswer(result: { answer: string; citations: readonly string[] }): string {
  const answer = result.answer.trim();
  const cited = new Set(parseAnswer(answer, result.citations).citations);
  const missing = [...new Set(result.citations)].filter((id) => !cited.has(id));
  const markers = missing.map((id) => `[${id}]`).join('');
  return [answer, markers].filter(Boolean).join(' ');
}

/** A summary: its text, trimmed. */
export function renderSummary(summary: string): string {
  return summary.trim();
}

/** The gleaning check's answer: `YES` or `NO`. */
export function renderYesNo(answer: boolean): string {
  return answer ? 'YES' : 'NO';
}

/**
 * Render any task's result as model output: dispatches to the renderer of `task`
 * ({@link renderGraphExtraction} takes `options`). A result's `issues`, if present, are ignored.
 *
 * @example
 * ```ts
 * const text = renderTaskOutput('extractGraph', await offline.extractGraph(chunk), { format: 'tuples' });
 * parseGraphExtraction(text); // the same records
 * ```
 */
export function renderTaskOutput<K extends TaskName>(
  task: K,
  result: TaskOutput<K>,
  options: RenderOptions = {},
): string {
  const r = result as unknown;
  switch (task as TaskName) {
    case 'extractGraph':
      return renderGraphExtraction(r as TaskOutput<'extractGraph'>, options);
    case 'decomposeSemanticUnits':
      return renderSemanticUnits(r as TaskOutput<'decomposeSemanticUnits'>);
    case 'summarize':
      return renderSummary(r as string);
    case 'titleAndDescription':
      return renderTitleDescription(r as TaskOutput<'titleAndDescription'>);
    case 'extractQueryEntities':
      return renderQueryEntities(r as TaskOutput<'extractQueryEntities'>);
    case 'extractQueryGraph':
      return renderQueryGraph(r as TaskOutput<'extractQueryGraph'>);
    case 'assessCommunity':
      return renderCommunityAssessment(r as TaskOutput<'assessCommunity'>);
    case 'answer':
      return renderAnswer(r as TaskOutput<'answer'>);
    default:
      // Not a TaskName (a caller outside TypeScript): JSON of the result.
      return JSON.stringify(r);
  }
}
