/** `gragTool`: a grag index as an AI SDK tool an agent calls to search, with cited items back. */
import {
  InvalidArgumentError,
  type Method,
  type RetrievedItem,
  type RetrieveOptions,
  type SourceLocation,
  throwIfAborted,
} from '@grag/core';
import { assertMethodOptions, citedSources } from '@grag/core/kit';
import { jsonSchema, type Tool, tool } from 'ai';
import { PACKAGE } from './errors.js';

/** What the model sends when it calls the tool. */
export interface GragToolInput {
  /** What to search the indexed documents for: a question or keywords. */
  query: string;
}

/** One retrieved item as the tool returns it to the model: what to read and what to cite. */
export interface GragToolItem {
  /** The id to cite, as `[id]`. */
  id: string;
  /** What the item is: `'chunk'`, `'entity'`, `'relation'`, `'community'`, … (the method's kind). */
  kind: string;
  /** The text of the item. */
  text: string;
  /** The method's score of the item (its scale is the method's own: BM25, cosine, PageRank, …). */
  score: number;
  /**
   * Where it comes from, to show: its places in the source files (`report.pdf p. 3`), else its
   * documents' ids (core's `sourceLabel`).
   */
  source: string;
  /** The documents it comes from. */
  docIds: string[];
  /** Its places in the source files, when its documents were loaded with them. */
  locations?: SourceLocation[];
}

/** What the tool returns: the retrieved items in the method's context order. */
export interface GragToolOutput {
  items: GragToolItem[];
}

/** What every {@link gragTool} takes, whatever it retrieves from. */
export interface GragToolCommonOptions {
  /**
   * What the model reads about the tool: when to call it. @default a description that says it
   * searches the indexed documents and that the ids are to be cited as `[id]`
   */
  description?: string;
  /**
   * How many items a call returns: the first `k` items of the retrieval, in context order (fewer
   * when it holds fewer). The method's `topK` is a ranking depth: a graph method packs several
   * items per ranked unit, so a retrieval can hold more items than `topK`.
   * @default `retrieveOptions.topK` when given, else every item of the retrieval
   */
  k?: number;
}

/** Options of {@link gragTool} over an index in this process. */
export interface GragToolOptions<Index, R extends RetrieveOptions = RetrieveOptions>
  extends GragToolCommonOptions {
  /** A built or loaded index of `method`. */
  index: Index;
  /** The grag method the index belongs to, e.g. `bm25Rag` from `@grag/naive-rag`. */
  // biome-ignore lint/suspicious/noExplicitAny: the build options of the method play no part here.
  method: Method<Index, any, R>;
  /**
   * The options every call passes to `method.retrieve`, e.g. `{ budgetTokens: 4000, topK: 20 }` or
   * a method's own (NodeRAG's `teleport`); keys are checked against the method's declared ones.
   * The signal is the AI SDK's `abortSignal` of the call.
   */
  retrieveOptions?: Omit<R, 'signal'>;
}

/**
 * Options of {@link gragTool} over a retrieval made elsewhere: `grag serve` through
 * `@grag/server/client` (its `query` answers `{ retrieval }`), or any function that returns grag's
 * retrieved items.
 */
export interface GragToolRetrieveOptions extends GragToolCommonOptions {
  /**
   * Retrieve for the model's query; `signal` is the AI SDK's `abortSignal` of the call. Its items
   * are grag's `RetrievedItem`s (`{ id, kind, text, score, source }`), as a served index's query
   * returns them in `retrieval.items`.
   */
  retrieve: (
    query: string,
    options: { signal?: AbortSignal },
  ) => PromiseLike<{ items: readonly RetrievedItem[] }>;
}

/** The description the model reads when none is given. */
export const GRAG_TOOL_DESCRIPTION =
  'Search the indexed documents. Returns the passages and facts that match the query, each with an id; ' +
  'answer from them and cite each one you use as [id].';

const INPUT_SCHEMA = {
  type: 'object',
  properties: {
    query: {
      type: 'string',
      description: 'What to search the documents for: the question, or its key names and terms.',
    },
  },
  required: ['query'],
  additionalProperties: false,
} as const;

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'string') return `the string ${JSON.stringify(value.slice(0, 40))}`;
  return typeof value === 'object' ? 'an object' : `${typeof value} ${String(value)}`;
}

function checkInput(
  value: unknown,
): { success: true; value: GragToolInput } | { success: false; error: Error } {
  const query = (value as { query?: unknown } | null)?.query;
  if (typeof value !== 'object' || value === null || typeof query !== 'string' || query.trim() === '') {
    return {
      success: false,
      error: new InvalidArgumentError(
        'query',
        `${PACKAGE}: gragTool input must be {"query": "<non-empty text>"}, got ${JSON.stringify(value)?.slice(0, 200)}.`,
      ),
    };
  }
  return { success: true, value: { query } };
}

/** The items the tool returns: each with its text and its citation's source (core's `citedSources`). */
function toolItems(items: readonly RetrievedItem[]): GragToolItem[] {
  const sources = citedSources(
    items.map((item) => item.id),
    items,
  );
  return items.map((item, i) => {
    const cited = sources[i]!;
    const out: GragToolItem = {
      id: item.id,
      kind: item.kind,
      text: item.text,
      score: item.score,
      source: cited.label,
      docIds: cited.docIds,
    };
    if (cited.locations) out.locations = cited.locations;
    return out;
  });
}

/**
 * A grag index as an AI SDK tool (`tool()` with a JSON-schema input `{ query }`): when the model
 * calls it, `method.retrieve(index, query, retrieveOptions)` runs (aborted with the call's
 * `abortSignal`) and the tool returns `{ items }`: each retrieved item's id (what the answer cites
 * as `[id]`), kind, text, score, and its source (`report.pdf p. 3`, else its documents), so the model's
 * next step reads them and can cite them. Give it to `generateText` / `streamText` / an agent in
 * `tools`, with a `stopWhen` that allows a step after the tool call (e.g. `stepCountIs(3)`).
 *
 * Or over a retrieval made elsewhere, with `retrieve(query, { signal })` in place of `index` and
 * `method`: an index of `grag serve` through `@grag/server/client`
 * (`(query, { signal }) => grag.query({ question: query }, { index: 'docs', signal }).then((r) => r.retrieval)`).
 *
 * Throws `InvalidArgumentError` when `method` is not a grag method, `index` is missing, `k` is not a
 * positive integer, `retrieveOptions` is not an object, holds `signal`, or has a key the method
 * does not accept (with the closest valid key), or `retrieve` is not a function or comes with
 * `index`/`method`; a call whose `retrieve` gives no `items` array fails with one.
 *
 * @example
 * ```ts
 * const { text } = await generateText({
 *   model: openai('gpt-4o-mini'),
 *   tools: { searchDocuments: gragTool({ index, method: bm25Rag, k: 5 }) },
 *   stopWhen: stepCountIs(3),
 *   prompt: 'Who founded the Kessler Shipyard?',
 * });
 * ```
 */
export function gragTool<Index, R extends RetrieveOptions = RetrieveOptions>(
  options: GragToolOptions<Index, R>,
): Tool<GragToolInput, GragToolOutput>;
export function gragTool(options: GragToolRetrieveOptions): Tool<GragToolInput, GragToolOutput>;
export function gragTool(
  options: GragToolOptions<unknown> | GragToolRetrieveOptions,
): Tool<GragToolInput, GragToolOutput> {
  const retrieve = retrieverOf(options);
  const k = itemCount(options, 'gragTool');
  return tool({
    description: options.description ?? GRAG_TOOL_DESCRIPTION,
    inputSchema: jsonSchema<GragToolInput>(INPUT_SCHEMA, { validate: checkInput }),
    execute: async ({ query }, { abortSignal }): Promise<GragToolOutput> => {
      // A retrieval that does not await anything would not look at the signal.
      throwIfAborted(abortSignal);
      const items = await retrievedItems(retrieve, query, abortSignal, k, 'gragTool');
      return { items: toolItems(items) };
    },
  });
}

/**
 * @internal How many items a call gives: `k` (checked to be a positive integer), else the
 * `topK` of `retrieveOptions` when it is one, else every item (`undefined`).
 */
export function itemCount(
  options: { k?: unknown; retrieveOptions?: unknown },
  caller: string,
): number | undefined {
  const { k } = options;
  if (k !== undefined && (typeof k !== 'number' || !Number.isInteger(k) || k < 1)) {
    throw new InvalidArgumentError(
      'k',
      `${PACKAGE}: ${caller} k must be a positive integer, got ${describe(k)}.`,
    );
  }
  if (k !== undefined) return k;
  // A bad topK is the method's to refuse, when the call runs.
  const topK = (options.retrieveOptions as { topK?: unknown } | undefined)?.topK;
  return typeof topK === 'number' && Number.isInteger(topK) && topK > 0 ? topK : undefined;
}

/** @internal The first `k` items `retrieve` gives for `query` (all without `k`), checked to be an array. */
export async function retrievedItems(
  retrieve: GragToolRetrieveOptions['retrieve'],
  query: string,
  signal: AbortSignal | undefined,
  k: number | undefined,
  caller: string,
): Promise<readonly RetrievedItem[]> {
  const retrieval = await retrieve(query, signal ? { signal } : {});
  const items = retrieval?.items;
  if (!Array.isArray(items)) {
    throw new InvalidArgumentError(
      'retrieve',
      `${PACKAGE}: ${caller}'s retrieve must return { items: RetrievedItem[] } (a grag Retrieval), got ${describe(retrieval)}.`,
    );
  }
  return k === undefined ? items : items.slice(0, k);
}

/** @internal The retrieval a call runs: the given `retrieve`, or `method.retrieve` on the index (checked; `caller` names the function in messages). */
export function retrieverOf(
  options: GragToolOptions<unknown> | GragToolRetrieveOptions,
  caller = 'gragTool',
): GragToolRetrieveOptions['retrieve'] {
  const given = (options as Partial<GragToolRetrieveOptions> | undefined)?.retrieve;
  if (given === undefined) return indexRetriever(options as GragToolOptions<unknown>, caller);
  if (typeof given !== 'function') {
    throw new InvalidArgumentError(
      'retrieve',
      `${PACKAGE}: ${caller} retrieve must be a function (query, { signal }) => Promise<{ items }>, got ${describe(given)}.`,
    );
  }
  const extra = ['index', 'method', 'retrieveOptions'].filter((key) => key in options);
  if (extra.length > 0) {
    throw new InvalidArgumentError(
      extra[0]!,
      `${PACKAGE}: ${caller} takes either \`retrieve\` or \`index\` and \`method\`, not both (got ${extra.join(', ')} with retrieve).`,
    );
  }
  return given;
}

/** `method.retrieve(index, query, retrieveOptions)`, after checking the options. */
function indexRetriever<Index>(
  options: GragToolOptions<Index>,
  caller: string,
): GragToolRetrieveOptions['retrieve'] {
  const method = options?.method as Partial<Method<Index>> | undefined;
  if (typeof method !== 'object' || method === null || typeof method.retrieve !== 'function') {
    throw new InvalidArgumentError(
      'method',
      `${PACKAGE}: ${caller} needs \`method\`, a grag Method such as \`bm25Rag\` from @grag/naive-rag (got ${describe(method)}), or \`retrieve\`, a function.`,
    );
  }
  const name = typeof method.name === 'string' ? method.name : 'unnamed';
  if (options.index === undefined || options.index === null) {
    throw new InvalidArgumentError(
      'index',
      `${PACKAGE}: ${caller} needs \`index\`, an index of method '${name}' (from \`${name}.build(docs, ctx)\` or \`.load(dir, ctx)\`).`,
    );
  }
  const retrieveOptions = (options.retrieveOptions ?? {}) as Record<string, unknown>;
  if (typeof retrieveOptions !== 'object' || retrieveOptions === null || Array.isArray(retrieveOptions)) {
    throw new InvalidArgumentError(
      'retrieveOptions',
      `${PACKAGE}: ${caller} retrieveOptions must be an object of '${name}' retrieve options (got ${describe(retrieveOptions)}).`,
    );
  }
  if ('signal' in retrieveOptions) {
    throw new InvalidArgumentError(
      'retrieveOptions.signal',
      `${PACKAGE}: ${caller} takes no \`signal\` in retrieveOptions; each call is aborted by the AI SDK's abortSignal.`,
    );
  }
  // The method's own message (`noderag retrieve: unknown option …`), as `grag query --set` gives it.
  assertMethodOptions({ name, optionKeys: method.optionKeys }, 'retrieve', retrieveOptions);
  const frozen = Object.freeze({ ...retrieveOptions });
  const { index } = options;
  const retrieve = method.retrieve.bind(method);
  return (query, { signal }) => retrieve(index, query, { ...frozen, ...(signal ? { signal } : {}) });
}
