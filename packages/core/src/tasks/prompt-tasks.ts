import { InvalidArgumentError, ModelOutputError, throwIfAborted } from '../errors.js';
import {
  type ChatCallOptions,
  type ChatMessage,
  type ChatModel,
  type ChatResult,
  generateText,
} from '../models.js';
import { parseYesNo, TUPLE_DELIMITER_DEFAULTS, type TupleDelimiters } from './parse.js';
import {
  mergeGraphExtractions,
  parseAnswer,
  parseCommunityAssessment,
  parseGraphExtraction,
  parseQueryEntities,
  parseQueryGraph,
  parseSemanticUnits,
  parseSummary,
  parseTitleDescription,
} from './parsers.js';
import {
  answerPrompt,
  communityAssessmentPrompt,
  GLEANING_CHECK_PROMPT,
  type GraphExtractionFormat,
  gleaningContinuePrompt,
  graphExtractionPrompt,
  queryEntitiesPrompt,
  queryGraphPrompt,
  semanticUnitsPrompt,
  summaryPrompt,
  type TaskName,
  type TaskPrompt,
  titleDescriptionPrompt,
} from './prompts.js';
import {
  type AnswerWithCitations,
  type CommunityAssessment,
  type ContextItem,
  DEFAULT_ENTITY_TYPES,
  type GraphExtraction,
  type GraphExtractionOptions,
  type ParseIssue,
  type QueryEntities,
  type QueryGraph,
  type SemanticUnitDecomposition,
  type SummarizeOptions,
  type TaskSuite,
  type TitleDescription,
} from './types.js';

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
  ...TUPLE_DELIMITER_DEFAULTS,
};

const FN = 'createPromptTasks';

function checkGleanings(value: number, where: string): void {
  if (!Number.isInteger(value) || value < 0) {
    throw new InvalidArgumentError(
      'gleanings',
      `${where}: gleanings must be a non-negative integer (got ${value}); use 0 to disable gleaning.`,
    );
  }
}

function checkEntityTypes(types: readonly string[], where: string): void {
  if (!Array.isArray(types) || types.length === 0 || types.some((t) => typeof t !== 'string' || !t.trim())) {
    throw new InvalidArgumentError(
      'entityTypes',
      `${where}: entityTypes must be a non-empty list of non-empty strings (e.g. DEFAULT_ENTITY_TYPES).`,
    );
  }
}

function validate(options: PromptTaskOptions): void {
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
  if (options.maxOutputTokens !== undefined && !(options.maxOutputTokens > 0)) {
    throw new InvalidArgumentError(
      'maxOutputTokens',
      `${FN}: maxOutputTokens must be positive or undefined.`,
    );
  }
}

function lengthIssue(result: ChatResult, issues: ParseIssue[]): void {
  if (result.finishReason === 'length' && !issues.some((i) => i.kind === 'truncated')) {
    issues.push({
      kind: 'truncated',
      reason: 'the model stopped at its output-token limit; raise maxOutputTokens or shorten the input',
      raw: result.text,
    });
  }
}

/**
 * The {@link TaskSuite} on a {@link ChatModel}: each task is a prompt from `prompts.ts` and a
 * parser from `parsers.ts`. Create it with {@link createPromptTasks}.
 */
export class PromptTasks implements TaskSuite {
  readonly id: string;
  readonly model: ChatModel;
  readonly settings: Readonly<PromptTaskOptions>;

  constructor(model: ChatModel, options: Partial<PromptTaskOptions> = {}) {
    const settings = { ...PROMPT_TASK_DEFAULTS };
    for (const [key, value] of Object.entries(options)) {
      if (value !== undefined) (settings as Record<string, unknown>)[key] = value;
    }
    validate(settings);
    this.model = model;
    this.settings = settings;
    this.id = `prompt:${model.provider}:${model.modelId}`;
  }

  #callOptions(
    responseFormat: 'text' | 'json',
    abortSignal: AbortSignal | undefined,
  ): Omit<ChatCallOptions, 'messages'> {
    const options: Omit<ChatCallOptions, 'messages'> = {
      temperature: this.settings.temperature,
      responseFormat,
    };
    if (this.settings.maxOutputTokens !== undefined) options.maxOutputTokens = this.settings.maxOutputTokens;
    if (abortSignal) options.abortSignal = abortSignal;
    return options;
  }

  async #generate(
    prompt: TaskPrompt,
    responseFormat: 'text' | 'json',
    abortSignal: AbortSignal | undefined,
  ): Promise<ChatResult> {
    throwIfAborted(abortSignal);
    return generateText(this.model, prompt, this.#callOptions(responseFormat, abortSignal));
  }

  async #chat(
    messages: ChatMessage[],
    responseFormat: 'text' | 'json',
    abortSignal: AbortSignal | undefined,
  ): Promise<ChatResult> {
    throwIfAborted(abortSignal);
    return this.model.doGenerate({
      ...this.#callOptions(responseFormat, abortSignal),
      messages: [...messages],
    });
  }

  #report<T extends { issues: ParseIssue[] }>(task: TaskName, result: T): T {
    if (result.issues.length > 0) this.settings.onIssues?.(task, result.issues);
    return result;
  }

  /**
   * GraphRAG-style extraction with gleaning. The conversation, exactly:
   * 1. system + user: {@link graphExtractionPrompt}; the answer is parsed (pass 0).
   * 2. For each of `gleanings` passes: the previous answer goes back as an assistant turn, then the
   *    user turn {@link gleaningContinuePrompt}; the answer is parsed and merged.
   * 3. Between two gleaning passes (not after the last one), when `gleaningCheck` is on, the user
   *    turn {@link GLEANING_CHECK_PROMPT} is sent; gleaning stops unless the answer starts with Y.
   *    The question and its answer stay in the conversation, as in GraphRAG.
   * Records of all passes are merged with exact duplicates removed (`mergeGraphExtractions`). A
   * gleaning pass with no records is the expected "nothing missed" answer: its `'no-records'`
   * issue is dropped; one is reported only when no pass found anything.
   *
   * Blank text returns an empty extraction without calling the model.
   */
  async extractGraph(text: string, options: GraphExtractionOptions = {}): Promise<GraphExtraction> {
    const where = `${FN}().extractGraph`;
    const entityTypes = options.entityTypes ?? this.settings.entityTypes;
    const gleanings = options.gleanings ?? this.settings.gleanings;
    checkEntityTypes(entityTypes, where);
    checkGleanings(gleanings, where);
    if (!text.trim()) return { entities: [], relations: [], issues: [] };
    const { format, tupleDelimiter, recordDelimiter, completionDelimiter } = this.settings;
    const delimiters = { tupleDelimiter, recordDelimiter, completionDelimiter };
    const responseFormat = format === 'json' ? 'json' : 'text';
    const signal = options.abortSignal;
    const prompt = graphExtractionPrompt(text, { entityTypes, format, ...delimiters });
    const messages: ChatMessage[] = [
      { role: 'system', content: prompt.system },
      { role: 'user', content: prompt.user },
    ];
    let answer = await this.#generate(prompt, responseFormat, signal);
    const first = parseGraphExtraction(answer.text, delimiters);
    lengthIssue(answer, first.issues);
    const passes: GraphExtraction[] = [first];
    for (let i = 0; i < gleanings; i++) {
      messages.push({ role: 'assistant', content: answer.text });
      messages.push({ role: 'user', content: gleaningContinuePrompt(format, delimiters) });
      answer = await this.#chat(messages, responseFormat, signal);
      const more = parseGraphExtraction(answer.text, delimiters);
      more.issues = more.issues.filter((issue) => issue.kind !== 'no-records');
      lengthIssue(answer, more.issues);
      passes.push(more);
      if (i === gleanings - 1 || !this.settings.gleaningCheck) continue;
      messages.push({ role: 'assistant', content: answer.text });
      messages.push({ role: 'user', content: GLEANING_CHECK_PROMPT });
      const check = await this.#chat(messages, 'text', signal);
      // The check stays in the conversation (GraphRAG does): its answer is the next assistant turn.
      answer = check;
      if (!parseYesNo(check.text)) break;
    }
    const merged = mergeGraphExtractions(passes);
    const hasRecords = merged.entities.length > 0 || merged.relations.length > 0;
    if (hasRecords) merged.issues = merged.issues.filter((issue) => issue.kind !== 'no-records');
    return this.#report('extractGraph', merged);
  }

  /** NodeRAG §2.2 semantic units. Blank text returns no units without calling the model. */
  async decomposeSemanticUnits(
    text: string,
    options: { abortSignal?: AbortSignal } = {},
  ): Promise<SemanticUnitDecomposition> {
    if (!text.trim()) return { units: [], issues: [] };
    const result = await this.#generate(semanticUnitsPrompt(text), 'json', options.abortSignal);
    const parsed = parseSemanticUnits(result.text);
    lengthIssue(result, parsed.issues);
    return this.#report('decomposeSemanticUnits', parsed);
  }

  /**
   * E2GraphRAG §3.1 summary of a group of texts (or, with `purpose: 'entity'`, a merged entity
   * description). Throws {@link InvalidArgumentError} for no texts and {@link ModelOutputError}
   * when the model returns an empty summary.
   */
  async summarize(texts: string[], options: SummarizeOptions = {}): Promise<string> {
    const where = `${FN}().summarize`;
    const nonBlank = Array.isArray(texts) ? texts.filter((t) => typeof t === 'string' && t.trim()) : [];
    if (nonBlank.length === 0) {
      throw new InvalidArgumentError(
        'texts',
        `${where}: no text to summarize; pass at least one non-blank text.`,
      );
    }
    const maxTokens = options.maxTokens ?? this.settings.summaryMaxTokens;
    if (!(maxTokens > 0)) {
      throw new InvalidArgumentError(
        'maxTokens',
        `${where}: maxTokens must be a positive number (got ${maxTokens}).`,
      );
    }
    const prompt = summaryPrompt(nonBlank, { maxTokens, purpose: options.purpose });
    const result = await this.#generate(prompt, 'text', options.abortSignal);
    const summary = parseSummary(result.text);
    if (!summary) {
      throw new ModelOutputError(
        'summarize',
        result.text,
        `${where}: the model returned an empty summary; check the model and its output-token limit.`,
      );
    }
    return summary;
  }

  /** DA-RAG §3 chunk title and description. Blank text returns empty strings without calling the model. */
  async titleAndDescription(
    text: string,
    options: { abortSignal?: AbortSignal } = {},
  ): Promise<TitleDescription> {
    if (!text.trim()) return { title: '', description: '', issues: [] };
    const result = await this.#generate(titleDescriptionPrompt(text), 'json', options.abortSignal);
    const parsed = parseTitleDescription(result.text);
    lengthIssue(result, parsed.issues);
    return this.#report('titleAndDescription', parsed);
  }

  /** Entities named in a query. A blank query returns no entities without calling the model. */
  async extractQueryEntities(
    query: string,
    options: { abortSignal?: AbortSignal } = {},
  ): Promise<QueryEntities> {
    if (!query.trim()) return { entities: [], issues: [] };
    const result = await this.#generate(queryEntitiesPrompt(query), 'json', options.abortSignal);
    const parsed = parseQueryEntities(result.text);
    lengthIssue(result, parsed.issues);
    return this.#report('extractQueryEntities', parsed);
  }

  /** SG-RAG query graph with `UNK` target nodes. A blank query returns an empty graph without calling the model. */
  async extractQueryGraph(query: string, options: { abortSignal?: AbortSignal } = {}): Promise<QueryGraph> {
    if (!query.trim()) return { nodes: [], edges: [], issues: [] };
    const result = await this.#generate(queryGraphPrompt(query), 'json', options.abortSignal);
    const parsed = parseQueryGraph(result.text);
    lengthIssue(result, parsed.issues);
    return this.#report('extractQueryGraph', parsed);
  }

  /** DA-RAG §5.1 relevance score (0-10) and report of a candidate community, in one call. */
  async assessCommunity(
    query: string,
    community: string,
    options: { abortSignal?: AbortSignal } = {},
  ): Promise<CommunityAssessment> {
    if (!query.trim()) {
      throw new InvalidArgumentError(
        'query',
        `${FN}().assessCommunity: the query is blank; pass the user's question.`,
      );
    }
    const result = await this.#generate(
      communityAssessmentPrompt(query, community),
      'json',
      options.abortSignal,
    );
    const parsed = parseCommunityAssessment(result.text);
    lengthIssue(result, parsed.issues);
    return this.#report('assessCommunity', parsed);
  }

  /** Answer from the context items, citing their ids; cited ids are checked against the items. */
  async answer(
    query: string,
    context: ContextItem[],
    options: { abortSignal?: AbortSignal } = {},
  ): Promise<AnswerWithCitations> {
    if (!query.trim()) {
      throw new InvalidArgumentError(
        'query',
        `${FN}().answer: the query is blank; pass the user's question.`,
      );
    }
    const result = await this.#generate(answerPrompt(query, context), 'text', options.abortSignal);
    const parsed = parseAnswer(
      result.text,
      context.map((c) => c.id),
    );
    lengthIssue(result, parsed.issues);
    return this.#report('answer', parsed);
  }
}

/**
 * The prompt-based {@link TaskSuite} on `model`: every task is one `generateText` call (graph
 * extraction adds its gleaning turns), at temperature 0 by default, with a lenient parser that
 * reports what it could not use as `issues`. `id` is `'prompt:' + provider + ':' + modelId`.
 *
 * @example
 * ```ts
 * const tasks = createPromptTasks(chat, { gleanings: 1, entityTypes: ['person', 'organization'] });
 * const { entities, relations, issues } = await tasks.extractGraph(chunk.text);
 * ```
 */
export function createPromptTasks(model: ChatModel, options: Partial<PromptTaskOptions> = {}): PromptTasks {
  return new PromptTasks(model, options);
}
