/**
 * `POST /v1/query`: the request checked field by field, the retrieval run and shaped as JSON. The
 * chat route (chat.ts) checks its index fields and runs its retrieval with the same functions.
 */
import type { Retrieval } from '@grag/core';
import { assertMethodOptions, firstItems } from '@grag/core/kit';
import { badRequest, HttpError } from './errors.js';
import type { ServedIndex } from './indexes.js';
import { RETRIES, type RetrievalPool } from './pool.js';
import type { IndexRegistry } from './registry.js';
import { nextTurn } from './turns.js';
import type { RetrievalJson } from './types.js';

/** A checked query request (the body of `POST /v1/query`, its defaults filled in). */
export interface CheckedQuery {
  question: string;
  method?: string;
  budget?: number;
  /** How many items the retrieval returns (its first ones, in context order). */
  topK?: number;
  /** The method's retrieve options, checked against its option keys by {@link checkRequestOptions}. */
  options?: Record<string, unknown>;
  answer: boolean;
  stream: boolean;
}

/** The fields that pick the index and shape its retrieval, shared by the query and chat routes. */
export const INDEX_FIELDS = ['method', 'budget', 'topK', 'options'] as const;

const FIELDS = ['question', ...INDEX_FIELDS, 'answer', 'stream'];

/** The fields of a request that pick the index and shape its retrieval, checked. */
export type IndexFields = Pick<CheckedQuery, 'method' | 'budget' | 'topK' | 'options'>;

/** `value`'s type as a message names it: `null`, `an array`, `a string`, … */
export function typeName(value: unknown): string {
  if (value === null || value === undefined) return String(value);
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

function positiveInteger(body: Record<string, unknown>, field: 'budget' | 'topK'): number | undefined {
  const value = body[field];
  if (value === undefined) return undefined;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1) {
    throw badRequest(`"${field}" must be a positive integer, got ${JSON.stringify(value)}.`);
  }
  return value;
}

function flag(body: Record<string, unknown>, field: 'answer' | 'stream'): boolean {
  const value = body[field];
  if (value === undefined) return false;
  if (typeof value !== 'boolean')
    throw badRequest(`"${field}" must be true or false, got ${JSON.stringify(value)}.`);
  return value;
}

function methodOptions(body: Record<string, unknown>): Record<string, unknown> | undefined {
  const value = body.options;
  if (value === undefined) return undefined;
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw badRequest(
      `"options" must be an object of the method's retrieve options, e.g. {"topK": 20}, got ${typeName(value)}.`,
    );
  }
  return value as Record<string, unknown>;
}

/**
 * Check a question's length: at most `maxQuestionChars` characters (code points), else a 400 that
 * names it as `what` (`"question"`).
 */
export function checkQuestionLength(question: string, maxQuestionChars: number, what: string): void {
  const length = [...question].length;
  if (length > maxQuestionChars) {
    throw badRequest(`${what} has ${length} characters; the limit is ${maxQuestionChars}.`);
  }
}

/**
 * Check the fields that pick the index and shape its retrieval: optional `method` (string),
 * `budget` and `topK` (positive integers), `options` (an object). Throws a 400 naming what is wrong.
 */
export function parseIndexFields(b: Record<string, unknown>): IndexFields {
  if (b.method !== undefined && typeof b.method !== 'string') {
    throw badRequest(`"method" must be the name of an index (a string), got ${typeName(b.method)}.`);
  }
  const budget = positiveInteger(b, 'budget');
  const topK = positiveInteger(b, 'topK');
  const options = methodOptions(b);
  return {
    ...(b.method !== undefined ? { method: b.method as string } : {}),
    ...(budget !== undefined ? { budget } : {}),
    ...(topK !== undefined ? { topK } : {}),
    ...(options !== undefined ? { options } : {}),
  };
}

/**
 * Check a parsed request body: an object with a non-empty `question` string of at most
 * `maxQuestionChars` characters, and optional `method` (string), `budget` and `topK` (positive
 * integers), `options` (an object), `answer` and `stream` (booleans); no other field. Throws a 400
 * naming what is wrong. The keys of `options` are checked once the index is known
 * ({@link checkRequestOptions}).
 */
export function parseQueryRequest(body: unknown, maxQuestionChars: number): CheckedQuery {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw badRequest(`The body must be a JSON object like {"question": "..."}, got ${typeName(body)}.`);
  }
  const b = body as Record<string, unknown>;
  const unknown = Object.keys(b).find((k) => !FIELDS.includes(k));
  if (unknown !== undefined) {
    throw badRequest(`Unknown field ${JSON.stringify(unknown)}; a query takes ${FIELDS.join(', ')}.`);
  }
  const { question } = b;
  if (question === undefined) throw badRequest('Missing "question": send {"question": "<your question>"}.');
  if (typeof question !== 'string')
    throw badRequest(`"question" must be a string, got ${typeName(question)}.`);
  if (question.trim() === '') throw badRequest('"question" is empty: send the text of your question.');
  checkQuestionLength(question, maxQuestionChars, '"question"');
  return { question, ...parseIndexFields(b), answer: flag(b, 'answer'), stream: flag(b, 'stream') };
}

/**
 * Check the request's `options` against the retrieve options of `served`'s method: `signal` and
 * `budgetTokens` are refused (a request is stopped by closing its connection, and its budget is
 * `budget`), and a key the method does not declare gets the method's own message, as
 * `grag query --set` does (`noderag retrieve: unknown option "topk"; did you mean "topK"? …`).
 * Values are checked by the method when it retrieves (a bad one is its `InvalidArgumentError`, a 400).
 */
export function checkRequestOptions(served: ServedIndex, request: CheckedQuery): void {
  const options = request.options;
  if (options === undefined) return;
  if ('signal' in options) {
    throw badRequest('"options.signal" cannot be sent: a query stops when its client closes the connection.');
  }
  if ('budgetTokens' in options) {
    throw badRequest('"options.budgetTokens" is the request\'s "budget": send {"budget": <tokens>}.');
  }
  assertMethodOptions(served.method, 'retrieve', options);
}

/** A retrieval of {@link retrieveFor}: the method's, or (from a worker, when asked) its JSON's bytes. */
export type Retrieved =
  | { served: ServedIndex; retrieval: Retrieval; json?: undefined }
  | { served: ServedIndex; json: Uint8Array; retrieval?: undefined };

/**
 * The first steps of every query, whole, streamed or a chat's: pick the current version of the
 * request's index (404 for an unknown name), check its `options` against the method's keys, refuse an answer the index
 * cannot give (400 `answer_unavailable`, `hint` saying what to ask instead), and run the retrieval
 * in a turn of the event loop of its own, in arrival order (see turns.ts: a busy server still
 * accepts connections and serves the oldest query first), or, with a `pool`, on one of its worker
 * threads for an index saved in a directory (asked again with the version served then when the
 * directory holds a newer one, so the answer comes from the version it names).
 */
export function retrieveFor(
  indexes: Pick<IndexRegistry, 'pick'>,
  request: CheckedQuery,
  signal: AbortSignal,
  hint?: string,
  pool?: RetrievalPool,
): Promise<{ served: ServedIndex; retrieval: Retrieval }>;
/**
 * With `raw`, a retrieval on a worker comes back as the UTF-8 bytes of its JSON as the API shows
 * it (`retrievalJson`), serialised on the worker, so this thread only writes them; a retrieval on
 * this thread comes back as usual.
 */
export function retrieveFor(
  indexes: Pick<IndexRegistry, 'pick'>,
  request: CheckedQuery,
  signal: AbortSignal,
  hint: string | undefined,
  pool: RetrievalPool | undefined,
  raw: boolean,
): Promise<Retrieved>;
export async function retrieveFor(
  indexes: Pick<IndexRegistry, 'pick'>,
  request: CheckedQuery,
  signal: AbortSignal,
  hint = 'ask with "answer": false.',
  pool?: RetrievalPool,
  raw = false,
): Promise<Retrieved> {
  for (let attempt = 0; ; attempt++) {
    // The version current now answers the whole query, even if a write swaps in another meanwhile.
    const served = indexes.pick(request.method);
    checkRequestOptions(served, request);
    if (request.answer && !served.answer) {
      throw new HttpError(
        400,
        'answer_unavailable',
        `This server gives no answers for index "${served.name}"; ${hint}`,
      );
    }
    await nextTurn();
    // A client that went away while this waited for its turn gets no retrieval.
    if (signal.aborted) throw new HttpError(499, 'aborted', 'The request was aborted.');
    if (!pool?.handles(served)) return { served, retrieval: await retrieve(served, request, signal) };
    const reply = await pool.retrieve(served, request, signal, raw);
    if (reply instanceof Uint8Array) return { served, json: reply };
    if (reply) return { served, retrieval: reply };
    // The directory holds a newer version than the one picked: ask again with the one served now
    // (while a write has saved its version but not yet swapped it in, after a short wait).
    if (attempt >= RETRIES) {
      throw new Error(`index "${served.name}": its directory holds another version than the one served`);
    }
    if (attempt > 0) await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/**
 * Run the retrieval of a checked request on `served`: the method's `retrieve` with the request's
 * `options`, `budget` as `budgetTokens` and the client's `signal`; with `topK`, only the first
 * `topK` items are kept, and the context is theirs ({@link firstItems}).
 */
export async function retrieve(
  served: Pick<ServedIndex, 'method' | 'index' | 'tokenizer'>,
  request: Pick<CheckedQuery, 'question' | 'options' | 'budget' | 'topK'>,
  signal: AbortSignal,
): Promise<Retrieval> {
  const retrieval = await served.method.retrieve(served.index, request.question, {
    ...request.options,
    ...(request.budget !== undefined ? { budgetTokens: request.budget } : {}),
    signal,
  });
  if (request.topK === undefined) return retrieval;
  return firstItems(retrieval, request.topK, {
    tokenizer: served.tokenizer,
    ...(request.budget !== undefined ? { budgetTokens: request.budget } : {}),
  });
}

function stringArray(value: unknown): string[] | undefined {
  return Array.isArray(value) && value.every((v) => typeof v === 'string') ? value : undefined;
}

/** Where a method names the query's entry points, in the order they are looked for. */
const ENTRY_POINT_KEYS = ['entryPoints', 'seeds', 'queryEntities'] as const;

/**
 * The subgraph nodes that were the query's entry points, when the method names them: an
 * `entryPoints` list on its subgraph, else the first of its trace's `entryPoints`, `seeds` (KET-RAG's
 * seed entities) and `queryEntities` (E2GraphRAG's, KET-RAG's) that names nodes of the subgraph. An
 * id matches a node as it is or as `entity:<id>`.
 */
function entryPointsOf(retrieval: Retrieval, nodes: ReadonlySet<string>): string[] | undefined {
  const lists = [
    (retrieval.subgraph as { entryPoints?: unknown } | undefined)?.entryPoints,
    ...ENTRY_POINT_KEYS.map((key) => retrieval.trace?.[key]),
  ];
  for (const list of lists) {
    const ids = stringArray(list);
    if (!ids) continue;
    const found = [
      ...new Set(
        ids
          .map((id) => (nodes.has(id) ? id : nodes.has(`entity:${id}`) ? `entity:${id}` : undefined))
          .filter((id): id is string => id !== undefined),
      ),
    ];
    if (found.length > 0) return found;
  }
  return undefined;
}

/** A retrieval as the API returns it: the method's, with `entryPoints` when it names them. */
export function retrievalJson(retrieval: Retrieval): RetrievalJson {
  const out: RetrievalJson = { context: retrieval.context, tokens: retrieval.tokens, items: retrieval.items };
  const subgraph = retrieval.subgraph as (Retrieval['subgraph'] & Record<string, unknown>) | undefined;
  if (subgraph) {
    const { entryPoints: _named, ...rest } = subgraph;
    out.subgraph = rest as NonNullable<RetrievalJson['subgraph']>;
    const entry = entryPointsOf(retrieval, new Set(subgraph.nodes));
    if (entry) out.entryPoints = entry;
  }
  if (retrieval.trace !== undefined) out.trace = retrieval.trace;
  return out;
}
