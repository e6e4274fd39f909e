/**
 * Every prompt the prompt-based {@link TaskSuite} sends, in one place. The wording is grag's own;
 * each prompt says which paper and task it serves. Prompts are short, instruction-only (as
 * E2GraphRAG §3.1 argues: instruction-tuned models need no long few-shot blocks) with one tiny
 * example where the output format is unusual.
 *
 * @module
 */
import type { TupleDelimiters } from './parse.js';
import type { ContextItem, TaskSuite } from './types.js';

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
        '{"entities": [{"name": "...", "type": "...", "description": "..."}], "relationships": [{"source": "...", "target": "...", "description": "...", "strength": 1-10}]}',
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
      `("entity"${t}NAME${t}TYPE${t}DESCRIPTION)`,
      `("relationship"${t}SOURCE${t}TARGET${t}DESCRIPTION${t}STRENGTH)`,
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
      '{"units": [{"semantic_unit": "...", "entities": ["..."], "relationships": ["ENTITY_A, RELATION, ENTITY_B"]}]}',
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

/** DA-RAG chunk title and concise description (DA-RAG §3, semantic chunk layer). */
export function titleDescriptionPrompt(text: string): TaskPrompt {
  return {
    system: EXTRACTION_SYSTEM,
    user: [
      'Give the passage below a short title (at most 10 words) and a concise description (one or two sentences) of what it is about.',
      'Answer with one JSON object and nothing else: {"title": "...", "description": "..."}',
      '',
      fenced('Passage', text),
    ].join('\n'),
  };
}

/**
 * Query entity extraction: the LLM counterpart of E2GraphRAG §3.2 (which finds the query's
 * entities with SpaCy to locate chunks) and of NodeRAG's dual search, which starts from the
 * entities named in the query.
 */
export function queryEntitiesPrompt(query: string): TaskPrompt {
  return {
    system: EXTRACTION_SYSTEM,
    user: [
      'List the entities named in the question below: people, places, organisations, works, events, dates, and the key nouns the question is about. Write each as it appears in the question.',
      'Answer with one JSON object and nothing else: {"entities": ["..."]}',
      '',
      fenced('Question', query),
    ].join('\n'),
  };
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
      '{"nodes": [{"id": "n1", "label": "...", "target": false}], "edges": [{"source": "n1", "target": "n2", "relation": "..."}]}',
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
      'Answer with one JSON object and nothing else: {"score": 0-10, "report": "..."}',
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

/** Names of the {@link TaskSuite} methods, for error messages and `ModelOutputError.task`. */
export type TaskName = Exclude<keyof TaskSuite, 'id'>;
