/**
 * The prompt-based {@link TaskSuite}: each task is a prompt, one `generateText` call (graph
 * extraction adds its gleaning turns), a lenient parser and, when records could not be read, the
 * repair retry.
 */
import { InvalidArgumentError, ModelOutputError, throwIfAborted } from '../contracts/errors.js';
import {
  type ChatCallOptions,
  type ChatMessage,
  type ChatModel,
  type ChatResult,
  type ChatTaskInfo,
  generateText,
} from '../contracts/models.js';
import type {
  AnswerWithCitations,
  CommunityAssessment,
  ContextItem,
  GraphExtraction,
  GraphExtractionOptions,
  ParseIssue,
  QueryEntities,
  QueryEntitiesOptions,
  QueryGraph,
  SemanticUnitDecomposition,
  SummarizeOptions,
  TaskName,
  TaskSuite,
  TaskVersions,
  TitleDescription,
} from '../contracts/tasks.js';
import { EVERY_TASK_V1 } from '../contracts/tasks.js';
import { withVocabularyMatches } from '../graph/vocabulary.js';
import { parseAnswer } from './parsers/answer.js';
import { parseCommunityAssessment } from './parsers/community-assessment.js';
import { mergeGraphExtractions, parseGraphExtraction } from './parsers/graph-extraction.js';
import { parseQueryEntities } from './parsers/query-entities.js';
import { parseQueryGraph } from './parsers/query-graph.js';
import { parseSemanticUnits } from './parsers/semantic-units.js';
import { parseSummary } from './parsers/summary.js';
import { parseTitleDescription } from './parsers/title-description.js';
import {
  checkEntityTypes,
  checkGleanings,
  FN,
  PROMPT_TASK_DEFAULTS,
  type PromptTaskOptions,
  validate,
} from './prompt-task-options.js';
import {
  answerPrompt,
  communityAssessmentPrompt,
  GLEANING_CHECK_PROMPT,
  gleaningContinuePrompt,
  graphExtractionPrompt,
  outputFormat,
  queryEntitiesPrompt,
  queryGraphPrompt,
  repairPrompt,
  semanticUnitsPrompt,
  summaryPrompt,
  type TaskPrompt,
  titleDescriptionPrompt,
} from './prompts.js';
import { parseYesNo } from './record-fields.js';
import {
  graphKeys,
  lengthIssue,
  mergeUnits,
  promptMessages,
  type RepairRequest,
  repairRetry,
} from './repair.js';

export { PROMPT_TASK_DEFAULTS, type PromptTaskOptions } from './prompt-task-options.js';
export { NOT_RECOVERED_NOTE } from './repair.js';

/**
 * The {@link TaskSuite} on a {@link ChatModel}: each task is a prompt from `prompts.ts` and a
 * parser from `parsers/`. Create it with {@link createPromptTasks}.
 */
export class PromptTasks implements TaskSuite {
  readonly id: string;
  /** Every task contract at version 1: the prompts and parsers follow those specifications. */
  readonly implements: TaskVersions = EVERY_TASK_V1;
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
    task: ChatTaskInfo,
  ): Omit<ChatCallOptions, 'messages'> {
    const options: Omit<ChatCallOptions, 'messages'> = {
      temperature: this.settings.temperature,
      responseFormat,
      task,
    };
    if (this.settings.maxOutputTokens !== undefined) options.maxOutputTokens = this.settings.maxOutputTokens;
    if (abortSignal) options.abortSignal = abortSignal;
    return options;
  }

  async #generate(
    prompt: TaskPrompt,
    responseFormat: 'text' | 'json',
    abortSignal: AbortSignal | undefined,
    task: ChatTaskInfo,
  ): Promise<ChatResult> {
    throwIfAborted(abortSignal);
    return generateText(this.model, prompt, this.#callOptions(responseFormat, abortSignal, task));
  }

  async #chat(
    messages: ChatMessage[],
    responseFormat: 'text' | 'json',
    abortSignal: AbortSignal | undefined,
    task: ChatTaskInfo,
  ): Promise<ChatResult> {
    throwIfAborted(abortSignal);
    return this.model.doGenerate({
      ...this.#callOptions(responseFormat, abortSignal, task),
      messages: [...messages],
    });
  }

  #report<T extends { issues: ParseIssue[] }>(task: TaskName, result: T): T {
    if (result.issues.length > 0) this.settings.onIssues?.(task, result.issues);
    return result;
  }

  /** The repair retry ({@link repairRetry}; see `PromptTaskOptions.repair`), when it is on. */
  async #repair<T extends { issues: ParseIssue[] }>(request: RepairRequest<T>): Promise<T> {
    if (!this.settings.repair) return request.result;
    return repairRetry(request, (messages, task) =>
      this.#chat(messages, request.responseFormat, request.signal, task),
    );
  }

  /** The conversation fields of a repair request for a task answered by one call. */
  #single(
    task: ChatTaskInfo,
    prompt: TaskPrompt,
    result: ChatResult,
    responseFormat: 'text' | 'json',
    signal: AbortSignal | undefined,
  ): Pick<RepairRequest<never>, 'task' | 'messages' | 'answer' | 'responseFormat' | 'signal'> {
    return {
      task: { ...task, turn: 1 },
      messages: promptMessages(prompt),
      answer: result.text,
      responseFormat,
      signal,
    };
  }

  /**
   * A task answered by one JSON call: `prompt` sent, the answer parsed with `repair.parse`, a cut
   * at the output-token limit noted, the repair retry per `repair.plan` (when on), issues reported.
   */
  async #jsonTask<T extends { issues: ParseIssue[] }>(
    task: ChatTaskInfo & { name: TaskName },
    prompt: TaskPrompt,
    signal: AbortSignal | undefined,
    repair: Pick<RepairRequest<T>, 'parse' | 'what' | 'plan'>,
  ): Promise<T> {
    const result = await this.#generate(prompt, 'json', signal, task);
    const parsed = repair.parse(result.text);
    lengthIssue(result, parsed.issues);
    const repaired = await this.#repair<T>({
      ...this.#single(task, prompt, result, 'json', signal),
      ...repair,
      result: parsed,
      format: outputFormat(task.name),
    });
    return this.#report(task.name, repaired);
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
   * 4. When records of any pass could not be read (and `repair` is on), one repair turn follows
   *    the last answer: {@link repairPrompt} quoting them, in the requested format; the records
   *    it recovers are merged in too.
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
    const task = (turn: number, kind?: string): ChatTaskInfo => ({
      name: 'extractGraph',
      args: [text, { entityTypes, gleanings }],
      turn,
      ...(kind ? { kind } : {}),
    });
    let answer = await this.#generate(prompt, responseFormat, signal, task(0));
    const first = parseGraphExtraction(answer.text, delimiters);
    lengthIssue(answer, first.issues);
    const passes: GraphExtraction[] = [first];
    let turn = 0;
    for (let i = 0; i < gleanings; i++) {
      turn = i + 1;
      messages.push({ role: 'assistant', content: answer.text });
      messages.push({ role: 'user', content: gleaningContinuePrompt(format, delimiters) });
      answer = await this.#chat(messages, responseFormat, signal, task(i + 1));
      const more = parseGraphExtraction(answer.text, delimiters);
      more.issues = more.issues.filter((issue) => issue.kind !== 'no-records');
      lengthIssue(answer, more.issues);
      passes.push(more);
      if (i === gleanings - 1 || !this.settings.gleaningCheck) continue;
      messages.push({ role: 'assistant', content: answer.text });
      messages.push({ role: 'user', content: GLEANING_CHECK_PROMPT });
      const check = await this.#chat(messages, 'text', signal, task(i + 1, 'gleaning-check'));
      // The check stays in the conversation (GraphRAG does): its answer is the next assistant turn.
      answer = check;
      if (!parseYesNo(check.text)) break;
    }
    const merged = mergeGraphExtractions(passes);
    const hasRecords = merged.entities.length > 0 || merged.relations.length > 0;
    if (hasRecords) merged.issues = merged.issues.filter((issue) => issue.kind !== 'no-records');
    const result = await this.#repair({
      task: task(turn + 1),
      messages,
      answer: answer.text,
      responseFormat,
      signal,
      result: merged,
      parse: (t) => parseGraphExtraction(t, delimiters),
      format: outputFormat('extractGraph', { format, ...delimiters }),
      what: 'records',
      plan: {
        strategy: 'merge',
        merge: (a, b) =>
          mergeGraphExtractions([a, { entities: b.entities, relations: b.relations, issues: [] }]),
        keys: graphKeys,
      },
    });
    return this.#report('extractGraph', result);
  }

  /** NodeRAG §2.2 semantic units. Blank text returns no units without calling the model. */
  async decomposeSemanticUnits(
    text: string,
    options: { abortSignal?: AbortSignal } = {},
  ): Promise<SemanticUnitDecomposition> {
    if (!text.trim()) return { units: [], issues: [] };
    return this.#jsonTask(
      { name: 'decomposeSemanticUnits', args: [text] },
      semanticUnitsPrompt(text),
      options.abortSignal,
      {
        parse: parseSemanticUnits,
        what: 'semantic units',
        plan: {
          strategy: 'merge',
          merge: mergeUnits,
          // A unit by its text, or by the endpoints of one of its relationships.
          keys: (r) => r.units.map((u) => [[u.text], ...u.relationships.map((x) => [x.source, x.target])]),
        },
      },
    );
  }

  /**
   * E2GraphRAG §3.1 summary of a group of texts (or, with `purpose: 'entity'`, a merged entity
   * description). Throws {@link InvalidArgumentError} for no texts and {@link ModelOutputError}
   * when the model returns an empty summary (after one repair retry when the answer had text but no
   * summary in it and `repair` is on).
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
    const task: ChatTaskInfo = {
      name: 'summarize',
      args: [nonBlank, { maxTokens, ...(options.purpose !== undefined ? { purpose: options.purpose } : {}) }],
    };
    const result = await this.#generate(prompt, 'text', options.abortSignal, task);
    const summary = parseSummary(result.text);
    if (summary) return summary;
    // Text with no summary in it (a bare label, an empty JSON field): one repair retry.
    if (this.settings.repair && result.text.trim()) {
      const reply = await this.#chat(
        [
          ...promptMessages(prompt),
          { role: 'assistant', content: result.text },
          {
            role: 'user',
            content: repairPrompt({
              unreadable: [result.text],
              scope: 'whole',
              format: outputFormat('summarize'),
            }),
          },
        ],
        'text',
        options.abortSignal,
        { ...task, turn: 1, kind: 'repair' },
      );
      const repaired = parseSummary(reply.text);
      if (repaired) return repaired;
    }
    throw new ModelOutputError(
      'summarize',
      result.text,
      `${where}: the model returned an empty summary; check the model and its output-token limit.`,
    );
  }

  /** DA-RAG §3 chunk title and description. Blank text returns empty strings without calling the model. */
  async titleAndDescription(
    text: string,
    options: { abortSignal?: AbortSignal } = {},
  ): Promise<TitleDescription> {
    if (!text.trim()) return { title: '', description: '', issues: [] };
    return this.#jsonTask(
      { name: 'titleAndDescription', args: [text] },
      titleDescriptionPrompt(text),
      options.abortSignal,
      {
        parse: parseTitleDescription,
        what: 'parts',
        plan: { strategy: 'replace', size: (r) => Number(r.title !== '') + Number(r.description !== '') },
      },
    );
  }

  /** Entities named in a query. A blank query returns no entities without calling the model. */
  async extractQueryEntities(query: string, options: QueryEntitiesOptions = {}): Promise<QueryEntities> {
    if (!query.trim()) return { entities: [], issues: [] };
    if (options.vocabulary) {
      const { vocabulary, ...rest } = options;
      const result = await this.extractQueryEntities(query, rest);
      return { ...result, entities: withVocabularyMatches(query, result.entities, vocabulary) };
    }
    return this.#jsonTask<QueryEntities>(
      { name: 'extractQueryEntities', args: [query] },
      queryEntitiesPrompt(query),
      options.abortSignal,
      {
        parse: parseQueryEntities,
        what: 'entities',
        plan: {
          strategy: 'merge',
          merge: (a, b) => {
            const seen = new Set(a.entities.map((e) => e.toLowerCase()));
            const entities = [...a.entities];
            for (const e of b.entities) {
              if (seen.has(e.toLowerCase())) continue;
              seen.add(e.toLowerCase());
              entities.push(e);
            }
            return { ...a, entities };
          },
          keys: (r) => r.entities.map((e) => [[e]]),
        },
      },
    );
  }

  /** SG-RAG query graph with `UNK` target nodes. A blank query returns an empty graph without calling the model. */
  async extractQueryGraph(query: string, options: { abortSignal?: AbortSignal } = {}): Promise<QueryGraph> {
    if (!query.trim()) return { nodes: [], edges: [], issues: [] };
    return this.#jsonTask(
      { name: 'extractQueryGraph', args: [query] },
      queryGraphPrompt(query),
      options.abortSignal,
      {
        parse: parseQueryGraph,
        what: 'parts',
        plan: { strategy: 'replace', size: (r) => r.nodes.length + r.edges.length },
      },
    );
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
    return this.#jsonTask(
      { name: 'assessCommunity', args: [query, community] },
      communityAssessmentPrompt(query, community),
      options.abortSignal,
      {
        parse: parseCommunityAssessment,
        what: 'parts',
        plan: { strategy: 'replace', size: (r) => Number(r.report !== '') },
      },
    );
  }

  /**
   * Answer from the context items, citing their ids; cited ids are checked against the items. The
   * answer is free text, so there is no repair retry: a citation of an unknown id is reported.
   */
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
    const result = await this.#generate(answerPrompt(query, context), 'text', options.abortSignal, {
      name: 'answer',
      args: [query, context],
    });
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
 * reports what it could not use as `issues`. When records could not be read, one repair turn asks
 * the model to rewrite them (`repair`, on by default). `id` is `'prompt:' + provider + ':' + modelId`.
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
