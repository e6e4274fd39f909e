/**
 * Every prompt the prompt-based `TaskSuite` sends, in one place. The wording is grag's own;
 * each prompt says which paper and task it serves. Prompts are short, instruction-only (as
 * E2GraphRAG §3.1 argues: instruction-tuned models need no long few-shot blocks) with one tiny
 * example where the output format is unusual.
 *
 * @module
 */

import type { ContextItem, TaskName } from '../contracts/tasks.js';
import type { TupleDelimiters } from './tuples.js';

/** A system and a user message, the shape `generateText` takes. */
export interface TaskPrompt {
  system: string;
  user: string;
}

/** Output format asked of the graph-extraction task. */
export type GraphExtractionFormat = 'tuples' | 'json';

/** What {@link graphExtractionPrompt} needs besides the text. */
export interface GraphExtractionPromptOptions extends TupleDelimiters {
  entityTypes: readonly string[];
  format: GraphExtractionFormat;
}

/** System message shared by the extraction tasks. */
export const EXTRACTION_SYSTEM =
  'You turn text into structured data. Use only what the text says, and follow the requested output format exactly.';

/** The JSON shape of a graph extraction, as the JSON extraction prompt shows it. */
const GRAPH_JSON_SHAPE =
  '{"entities": [{"name": "...", "type": "...", "description": "..."}], "relationships": [{"source": "...", "target": "...", "description": "...", "strength": 1-10}]}';
const UNITS_JSON_SHAPE =
  '{"units": [{"semantic_unit": "...", "entities": ["..."], "relationships": ["ENTITY_A, RELATION, ENTITY_B"]}]}';
const TITLE_JSON_SHAPE = '{"title": "...", "description": "..."}';
const QUERY_ENTITIES_JSON_SHAPE = '{"entities": ["..."]}';
const QUERY_GRAPH_JSON_SHAPE =
  '{"nodes": [{"id": "n1", "label": "...", "target": false}], "edges": [{"source": "n1", "target": "n2", "relation": "..."}]}';
const ASSESSMENT_JSON_SHAPE = '{"score": 0-10, "report": "..."}';

/** The two GraphRAG record templates with the given field delimiter. */
function tupleTemplates(t: string): string[] {
  return [
    `("entity"${t}NAME${t}TYPE${t}DESCRIPTION)`,
    `("relationship"${t}SOURCE${t}TARGET${t}DESCRIPTION${t}STRENGTH)`,
  ];
}

/** Put a text between clear markers so instructions and data do not mix. */
function fenced(label: string, text: string): string {
  return `${label}:\n<<<\n${text}\n>>>`;
}

/**
 * Entity and relationship extraction, GraphRAG style (used by KET-RAG's KG skeleton and DA-RAG's
 * knowledge graph; GraphRAG's tuple format: `("entity"<|>NAME<|>TYPE<|>DESCRIPTION)` and
 * `("relationship"<|>SOURCE<|>TARGET<|>DESCRIPTION<|>STRENGTH)` records separated by `##`, then
 * `<|COMPLETE|>`). With `format: 'json'` the same content is asked for as one JSON object.
 */
export function graphExtractionPrompt(text: string, options: GraphExtractionPromptOptions): TaskPrompt {
  const types = options.entityTypes.join(', ');
  const { tupleDelimiter: t, recordDelimiter: r, completionDelimiter: done } = options;
  const what = [
    `Find in the text below (1) every entity of one of these types: ${types}; and (2) every pair of those entities that the text shows to be related.`,
    'For an entity give its name in capital letters, its type (one of the types above) and a description of what the text says about it.',
    'For a relationship give the two entity names, a sentence saying how they are related, and a strength from 1 (loosely related) to 10 (tightly related).',
  ].join('\n');
  if (options.format === 'json') {
    return {
      system: EXTRACTION_SYSTEM,
      user: [
        what,
        '',
        'Answer with one JSON object and nothing else:',
        GRAPH_JSON_SHAPE,
        '',
        fenced('Text', text),
      ].join('\n'),
    };
  }
  return {
    system: EXTRACTION_SYSTEM,
    user: [
      what,
      '',
      'Write one record per entity and per relationship:',
      ...tupleTemplates(t),
      `Put ${r} between records, write nothing else, and end with ${done}.`,
      ...(options.entityTypes.includes('person') && options.entityTypes.includes('geo')
        ? [
            `Example: ("entity"${t}ADA LOVELACE${t}person${t}Mathematician who wrote notes on a mechanical computer)${r}("entity"${t}LONDON${t}geo${t}City where Lovelace lived)${r}("relationship"${t}ADA LOVELACE${t}LONDON${t}Lovelace lived and worked in London${t}6)${done}`,
          ]
        : []),
      '',
      fenced('Text', text),
    ].join('\n'),
  };
}

/**
 * Gleaning, step 1 (GraphRAG gleaning, used with `gleanings >= 1`; DA-RAG Table 4 runs one): sent as
 * the next user turn after the model's previous extraction, asking for what it missed.
 */
export function gleaningContinuePrompt(format: GraphExtractionFormat, delimiters: TupleDelimiters): string {
  return format === 'json'
    ? 'Some entities or relationships in the text were left out. Give only the missing ones, as one JSON object in the same format.'
    : `Some entities or relationships in the text were left out. Give only the missing ones, as records in the same format, separated by ${delimiters.recordDelimiter} and ending with ${delimiters.completionDelimiter}.`;
}

/**
 * Gleaning, step 2 (GraphRAG gleaning): asked between two gleaning passes; extraction stops unless
 * the answer starts with Y.
 */
export const GLEANING_CHECK_PROMPT =
  'Are there still entities or relationships in the text that you have not listed? Answer with the single word YES or NO.';

/**
 * NodeRAG semantic-unit decomposition (NodeRAG §2.2): split a chunk into independent events or
 * facts (semantic units), each paraphrased to stand alone, with its entities and its relationships
 * written as `"ENTITY_A, RELATION, ENTITY_B"`.
 */
export function semanticUnitsPrompt(text: string): TaskPrompt {
  return {
    system: EXTRACTION_SYSTEM,
    user: [
      'Split the text below into semantic units. A semantic unit is one self-contained event or fact, rewritten in a sentence or two that can be understood without the rest of the text (replace pronouns with names).',
      'For each unit list the entities it involves (names as in the text) and the relationships among them, each written as "ENTITY_A, RELATION, ENTITY_B".',
      '',
      'Answer with one JSON object and nothing else:',
      UNITS_JSON_SHAPE,
      'Example unit: {"semantic_unit": "Marie Curie won the Nobel Prize in Chemistry in 1911 for isolating radium.", "entities": ["Marie Curie", "Nobel Prize in Chemistry", "radium"], "relationships": ["Marie Curie, won, Nobel Prize in Chemistry", "Marie Curie, isolated, radium"]}',
      '',
      fenced('Text', text),
    ].join('\n'),
  };
}

/** Options of {@link summaryPrompt}. */
export interface SummaryPromptOptions {
  /** Target length in tokens; the prompt asks for about `0.75 * maxTokens` words. */
  maxTokens: number;
  /** `'entity'`: the texts are descriptions of one entity to merge; anything else: passages to summarize. */
  purpose?: string;
}

/**
 * Summarization (E2GraphRAG §3.1: instruction-only prompt summarizing each group of consecutive
 * chunks or summaries into the next tree level; also used to merge entity descriptions, as GraphRAG
 * and NodeRAG do).
 */
export function summaryPrompt(texts: readonly string[], options: SummaryPromptOptions): TaskPrompt {
  const words = Math.max(10, Math.round(options.maxTokens * 0.75));
  const parts = texts.map((t, i) => `[${i + 1}]\n${t}`).join('\n\n');
  if (options.purpose === 'entity') {
    return {
      system: 'You write concise, faithful summaries.',
      user: [
        `The texts below all describe the same entity. Merge them into one description in the third person, at most about ${words} words, keeping every distinct fact and resolving contradictions. Write only the description.`,
        '',
        fenced('Descriptions', parts),
      ].join('\n'),
    };
  }
  return {
    system: 'You write concise, faithful summaries.',
    user: [
      `Summarize the passages below in at most about ${words} words. Keep the names, dates, numbers and events that matter; add nothing that is not in the passages. Write only the summary.`,
      '',
      fenced('Passages', parts),
    ].join('\n'),
  };
}

/**
 * An extraction prompt of one instruction, answered with one JSON object shaped as `shape`, about
 * one text fenced under `label`.
 */
function jsonExtractionPrompt(instruction: string, shape: string, label: string, text: string): TaskPrompt {
  return {
    system: EXTRACTION_SYSTEM,
    user: [
      instruction,
      `Answer with one JSON object and nothing else: ${shape}`,
      '',
      fenced(label, text),
    ].join('\n'),
  };
}

/** DA-RAG chunk title and concise description (DA-RAG §3, semantic chunk layer). */
export function titleDescriptionPrompt(text: string): TaskPrompt {
  return jsonExtractionPrompt(
    'Give the passage below a short title (at most 10 words) and a concise description (one or two sentences) of what it is about.',
    TITLE_JSON_SHAPE,
    'Passage',
    text,
  );
}

/**
 * Query entity extraction: the LLM counterpart of E2GraphRAG §3.2 (which finds the query's
 * entities with SpaCy to locate chunks) and of NodeRAG's dual search, which starts from the
 * entities named in the query.
 */
export function queryEntitiesPrompt(query: string): TaskPrompt {
  return jsonExtractionPrompt(
    'List the entities named in the question below: people, places, organisations, works, events, dates, and the key nouns the question is about. Write each as it appears in the question.',
    QUERY_ENTITIES_JSON_SHAPE,
    'Question',
    query,
  );
}

/**
 * SG-RAG query-graph extraction (SG-RAG appendix D, Table 10): the entities of a question become
 * nodes, the relations it states become edges, and what is asked for becomes a node labelled
 * `UNK`, marked as the target.
 */
export function queryGraphPrompt(query: string): TaskPrompt {
  return {
    system: EXTRACTION_SYSTEM,
    user: [
      'Turn the question below into a small graph. Each entity the question mentions is a node labelled with its name. The thing the question asks for is a node labelled "UNK" with "target": true. Any other entity the question refers to without naming it is also "UNK", with "target": false.',
      'Each relation the question states between two nodes is an edge with a short relation phrase.',
      '',
      'Answer with one JSON object and nothing else:',
      QUERY_GRAPH_JSON_SHAPE,
      'Example for "Which river flows through the city where Mozart was born?":',
      '{"nodes": [{"id": "n1", "label": "UNK", "target": true}, {"id": "n2", "label": "UNK", "target": false}, {"id": "n3", "label": "Mozart", "target": false}], "edges": [{"source": "n1", "target": "n2", "relation": "flows through"}, {"source": "n3", "target": "n2", "relation": "born in"}]}',
      '',
      fenced('Question', query),
    ].join('\n'),
  };
}

/**
 * DA-RAG joint community evaluation (DA-RAG §5.1): one call scores how relevant a candidate
 * community is to the query (0-10) and writes the community's report.
 */
export function communityAssessmentPrompt(query: string, community: string): TaskPrompt {
  return {
    system: 'You judge how useful retrieved information is for a question and report on it faithfully.',
    user: [
      'Below are a question and a group of related facts taken from a knowledge graph.',
      '1. Score from 0 to 10 how useful the facts are for answering the question (0: unrelated, 10: they answer it fully).',
      '2. Write a short report (a few sentences) of what the facts say that bears on the question, using only the facts.',
      `Answer with one JSON object and nothing else: ${ASSESSMENT_JSON_SHAPE}`,
      '',
      fenced('Question', query),
      '',
      fenced('Facts', community),
    ].join('\n'),
  };
}

/**
 * Answer generation with citations (the final step of every method; SG-RAG appendix I restricts the
 * answer to the retrieved evidence, and so does this prompt). Context items are listed with their
 * ids; the model cites them inline as `[id]`.
 */
export function answerPrompt(query: string, context: readonly ContextItem[]): TaskPrompt {
  const items = context.length > 0 ? context.map((c) => `[${c.id}] ${c.text}`).join('\n\n') : '(no context)';
  return {
    system: 'You answer questions using only the context you are given, and you cite it.',
    user: [
      'Answer the question using only the context items below. After each statement, cite the ids of the items it relies on in square brackets, for example [' +
        (context[0]?.id ?? 'c1') +
        ']. If the context does not contain the answer, say that it cannot be determined from the context.',
      '',
      fenced('Context', items),
      '',
      `Question: ${query}`,
    ].join('\n'),
  };
}

/** What {@link outputFormat} needs for graph extraction (other tasks need nothing). */
export interface OutputFormatOptions extends Partial<TupleDelimiters> {
  /** @default 'tuples' */
  format?: GraphExtractionFormat;
}

/**
 * The output format a task's prompt asks for, restated in a few lines (used by
 * {@link repairPrompt}). Graph extraction follows `options.format` and the delimiters (GraphRAG's
 * by default).
 */
export function outputFormat(task: TaskName, options: OutputFormatOptions = {}): string {
  switch (task) {
    case 'extractGraph': {
      if (options.format === 'json') {
        return `One JSON object: ${GRAPH_JSON_SHAPE}\nIf there is nothing to add, answer {"entities": [], "relationships": []}.`;
      }
      const t = options.tupleDelimiter || '<|>';
      const r = options.recordDelimiter || '##';
      const done = options.completionDelimiter || '<|COMPLETE|>';
      return [
        'One record per entity and per relationship:',
        ...tupleTemplates(t),
        `with ${r} between records and ${done} at the end. STRENGTH is a number from 1 to 10.`,
        `If there is nothing to add, answer ${done} alone.`,
      ].join('\n');
    }
    case 'decomposeSemanticUnits':
      return `One JSON object: ${UNITS_JSON_SHAPE}`;
    case 'titleAndDescription':
      return `One JSON object: ${TITLE_JSON_SHAPE}`;
    case 'extractQueryEntities':
      return `One JSON object: ${QUERY_ENTITIES_JSON_SHAPE}`;
    case 'extractQueryGraph':
      return `One JSON object: ${QUERY_GRAPH_JSON_SHAPE}\nThe node the question asks for is labelled "UNK" with "target": true.`;
    case 'assessCommunity':
      return `One JSON object: ${ASSESSMENT_JSON_SHAPE}\nThe score is a number from 0 to 10.`;
    case 'summarize':
      return 'Plain text: the summary only, without a heading, a label or a code fence.';
    case 'answer':
      return 'Plain text that cites the ids of the context items in square brackets, for example [c1].';
  }
}

/** What {@link repairPrompt} needs. */
export interface RepairPromptOptions {
  /**
   * The raw texts that could not be read, quoted in order; each is cut to
   * {@link REPAIR_QUOTE_LIMITS}`.each` characters and quoting stops after `.total`.
   */
  unreadable: readonly string[];
  /** `'whole'`: ask for the complete answer again; `'parts'`: ask for the unreadable parts only. */
  scope: 'whole' | 'parts';
  /** The expected format, e.g. from {@link outputFormat}. */
  format: string;
  /** What the parts are called, in the plural. @default 'parts' */
  what?: string;
}

/** How much unreadable text {@link repairPrompt} quotes: per part and in all, in characters. */
export const REPAIR_QUOTE_LIMITS = { each: 2000, total: 6000 } as const;

/**
 * The repair turn: sent once, as the next user turn after a model answer that had records the
 * parser could not read (the answer itself is the assistant turn before it). It quotes what could
 * not be read and restates the format; `scope: 'parts'` asks for those parts only (they are merged
 * with what was read), `scope: 'whole'` for the complete answer again.
 */
export function repairPrompt(options: RepairPromptOptions): string {
  const what = options.what ?? 'parts';
  const quotes: string[] = [];
  let used = 0;
  let left = 0;
  for (const raw of new Set(options.unreadable)) {
    const text =
      raw.length > REPAIR_QUOTE_LIMITS.each ? `${raw.slice(0, REPAIR_QUOTE_LIMITS.each)} ...` : raw;
    if (quotes.length > 0 && used + text.length > REPAIR_QUOTE_LIMITS.total) {
      left++;
      continue;
    }
    used += text.length;
    quotes.push(`<<<\n${text}\n>>>`);
  }
  if (left > 0) quotes.push(`(and ${left} more)`);
  if (options.scope === 'whole') {
    return [
      'Your answer could not be read: it does not follow the format that was asked for. This is what could not be read:',
      ...quotes,
      'Answer again with the complete answer, in this format and nothing else:',
      options.format,
    ].join('\n');
  }
  return [
    `Some ${what} in your answer could not be read: they do not follow the format that was asked for. These are the ${what} that could not be read:`,
    ...quotes,
    `Write only these ${what} again, correctly formatted, and nothing else; the rest of your answer was read. Use this format:`,
    options.format,
  ].join('\n');
}
