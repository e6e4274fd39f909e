/** Settings of the prompt-based task suite ({@link createPromptTasks}): defaults and checks. */
import { InvalidArgumentError } from '../contracts/errors.js';
import type { TaskName } from '../contracts/tasks.js';
import { DEFAULT_ENTITY_TYPES, type ParseIssue } from '../contracts/tasks.js';
import type { GraphExtractionFormat } from './prompts.js';
import { TUPLE_DELIMITER_DEFAULTS, type TupleDelimiters } from './tuples.js';

/** Settings of {@link createPromptTasks}. */
export interface PromptTaskOptions extends TupleDelimiters {
  /** Entity types the graph-extraction prompt asks for. @default DEFAULT_ENTITY_TYPES (GraphRAG) */
  entityTypes: readonly string[];
  /**
   * Extra extraction passes asking for missed entities, when a call does not say.
   * @default 1 (GraphRAG gleaning; DA-RAG Table 4 `entity_extract_max_gleaning`)
   */
  gleanings: number;
  /**
   * Ask "are there more?" between two gleaning passes and stop on anything but YES (GraphRAG does).
   * Only matters with `gleanings >= 2`. @default true
   */
  gleaningCheck: boolean;
  /** Output format asked of graph extraction; the parser reads either. @default 'tuples' (GraphRAG) */
  format: GraphExtractionFormat;
  /** Sampling temperature of every call. @default 0 (DA-RAG appendix B.1 and NodeRAG §3.2 run at 0) */
  temperature: number;
  /** Summary length when a `summarize` call does not say, in tokens. @default 200 */
  summaryMaxTokens: number;
  /** Upper bound on generated tokens per call; `undefined` leaves it to the provider. @default undefined */
  maxOutputTokens: number | undefined;
  /**
   * Called with the parse issues of every call that has any (they are also in each result).
   * @default undefined
   */
  onIssues: ((task: TaskName, issues: ParseIssue[]) => void) | undefined;
  /**
   * Repair retry: when a task's answer has records the parser could not read (issues with
   * `repairable: true`: skipped records, an unreadable score, text with no records in it), send one
   * more call, the conversation so far plus the answer plus {@link repairPrompt} (which quotes the
   * unreadable text and restates the format), and merge what it recovers. At most one repair call
   * per task; issues it does not recover stay, with their raw text. `false` sends none.
   * @default true
   */
  repair: boolean;
}

/** Defaults of {@link createPromptTasks}. */
export const PROMPT_TASK_DEFAULTS: PromptTaskOptions = {
  entityTypes: DEFAULT_ENTITY_TYPES,
  gleanings: 1,
  gleaningCheck: true,
  format: 'tuples',
  temperature: 0,
  summaryMaxTokens: 200,
  maxOutputTokens: undefined,
  onIssues: undefined,
  repair: true,
  ...TUPLE_DELIMITER_DEFAULTS,
};

export const FN = 'createPromptTasks';

export function checkGleanings(value: number, where: string): void {
  if (!Number.isInteger(value) || value < 0) {
    throw new InvalidArgumentError(
      'gleanings',
      `${where}: gleanings must be a non-negative integer (got ${value}); use 0 to disable gleaning.`,
    );
  }
}

export function checkEntityTypes(types: readonly string[], where: string): void {
  if (!Array.isArray(types) || types.length === 0 || types.some((t) => typeof t !== 'string' || !t.trim())) {
    throw new InvalidArgumentError(
      'entityTypes',
      `${where}: entityTypes must be a non-empty list of non-empty strings (e.g. DEFAULT_ENTITY_TYPES).`,
    );
  }
}

export function validate(options: PromptTaskOptions): void {
  checkEntityTypes(options.entityTypes, FN);
  checkGleanings(options.gleanings, FN);
  for (const key of ['tupleDelimiter', 'recordDelimiter', 'completionDelimiter'] as const) {
    if (typeof options[key] !== 'string' || options[key] === '') {
      throw new InvalidArgumentError(key, `${FN}: ${key} must be a non-empty string.`);
    }
  }
  if (options.format !== 'tuples' && options.format !== 'json') {
    throw new InvalidArgumentError(
      'format',
      `${FN}: format must be 'tuples' or 'json' (got ${String(options.format)}).`,
    );
  }
  if (!Number.isFinite(options.temperature) || options.temperature < 0) {
    throw new InvalidArgumentError('temperature', `${FN}: temperature must be a finite number >= 0.`);
  }
  if (!(options.summaryMaxTokens > 0)) {
    throw new InvalidArgumentError(
      'summaryMaxTokens',
      `${FN}: summaryMaxTokens must be a positive number of tokens.`,
    );
  }
  if (typeof options.repair !== 'boolean') {
    throw new InvalidArgumentError('repair', `${FN}: repair must be true or false.`);
  }
  if (options.maxOutputTokens !== undefined && !(options.maxOutputTokens > 0)) {
    throw new InvalidArgumentError(
      'maxOutputTokens',
      `${FN}: maxOutputTokens must be positive or undefined.`,
    );
  }
}
