import { AsyncLocalStorage } from 'node:async_hooks';
import {
  InvalidArgumentError,
  type Method,
  type Provenance,
  type Retrieval,
  type RetrievedItem,
  type RetrieveOptions,
} from '@grag/core';
import { assertKnownOptions } from '@grag/core/kit';
import type { CallbackManagerForRetrieverRun } from '@langchain/core/callbacks/manager';
import { Document } from '@langchain/core/documents';
import { BaseRetriever, type BaseRetrieverInput } from '@langchain/core/retrievers';
import { ensureConfig, type RunnableConfig } from '@langchain/core/runnables';
import { abortable, abortError, describe } from './errors.js';

/** Metadata of every {@link Document} a {@link GragRetriever} returns. */
export type GragDocumentMetadata = {
  /** Id of the item in its index (chunk id, node id, …); also the document's `id`. */
  id: string;
  /** What the item is: `'chunk'`, `'entity'`, `'relationship'`, `'summary'`, `'community'`, … */
  kind: string;
  /** The method's score of the item (its scale is the method's own). */
  score: number;
  /** Where the item comes from: the chunks and source documents behind it (a copy). */
  source: Provenance;
  /** Name of the grag method that retrieved it, e.g. `'bm25'`. */
  method: string;
};

/** The retrieve options a {@link GragRetriever} passes on each call (every key but `signal`). */
export type GragRetrieveOptions<R extends RetrieveOptions = RetrieveOptions> = Omit<R, 'signal'>;

/** What {@link GragRetriever} is constructed with; LangChain's `callbacks`, `tags`, `metadata`, `verbose` too. */
export interface GragRetrieverInput<Index, R extends RetrieveOptions = RetrieveOptions>
  extends BaseRetrieverInput {
  /** A built or loaded index of `method` (from `method.build(docs, ctx)` or `method.load(dir, ctx)`). */
  index: Index;
  /** The grag method the index belongs to, e.g. `bm25Rag` from `@grag/naive-rag`. */
  // biome-ignore lint/suspicious/noExplicitAny: the build options of the method play no part here.
  method: Method<Index, any, R>;
  /**
   * How many documents `invoke` returns: the first `k` items of the retrieval, in the method's context
   * order (fewer only when the retrieval holds fewer).
   * @default `topK` when it is given (here or in `retrieveOptions`), else every item of the retrieval
   */
  k?: number;
  /**
   * How many units the method ranks before packing (grag's `topK`). A graph method packs several
   * items per ranked unit (a community, its members), so the retrieval may hold more items than
   * `topK`; the retriever still returns `k` documents, and `k` defaults to `topK`. Each method
   * documents its default.
   */
  topK?: number;
  /** Token budget of the retrieved context (grag's `budgetTokens`). @default the method's (12000) */
  budgetTokens?: number;
  /**
   * Further options of `method.retrieve` (method-specific ones such as da-rag's or noderag's).
   * Checked against the method's `optionKeys.retrieve` here. `signal` is not one: abort through
   * LangChain's run config (`invoke(query, { signal })` or `{ timeout }`).
   */
  retrieveOptions?: GragRetrieveOptions<R>;
}

/** The abort signal of the `invoke` call being run, for `_getRelevantDocuments` (which LangChain gives no config). */
const callSignal = new AsyncLocalStorage<AbortSignal | undefined>();

function checkPositiveInteger(name: string, value: unknown): void {
  if (value === undefined) return;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1) {
    throw new InvalidArgumentError(
      name,
      `@grag/langchain: GragRetriever \`${name}\` must be a positive integer (got ${describe(value)}).`,
    );
  }
}

/** A LangChain {@link Document} for one retrieved item. */
export function itemToDocument(item: RetrievedItem, method: string): Document<GragDocumentMetadata> {
  return new Document<GragDocumentMetadata>({
    pageContent: item.text,
    id: item.id,
    metadata: {
      id: item.id,
      kind: item.kind,
      score: item.score,
      source: structuredClone(item.source),
      method,
    },
  });
}

/**
 * A LangChain.js retriever over any grag index: `invoke(query)` runs `method.retrieve(index, query,
 * options)` and returns one {@link Document} per retrieved item, in the method's context order, with
 * the item's text as `pageContent` and `{ id, kind, score, source, method }` as metadata. Being a
 * `BaseRetriever`, it runs through LangChain's callback manager (`handleRetrieverStart/End/Error`),
 * composes with `pipe` and `RunnableSequence`, and is aborted by the run config's `signal` or
 * `timeout` (the method receives the signal; the call rejects with grag's `AbortError`).
 *
 * @example
 * ```ts
 * const retriever = new GragRetriever({ index, method: bm25Rag, k: 3 });
 * const docs = await retriever.invoke('Who founded the shipyard?');
 * ```
 */
export class GragRetriever<
  Index = unknown,
  R extends RetrieveOptions = RetrieveOptions,
> extends BaseRetriever<GragDocumentMetadata> {
  /** LangChain's serialization id prefix: runs show up as `grag/retrievers/GragRetriever`. */
  lc_namespace = ['grag', 'retrievers'];

  /** Class name for LangChain's serialization (survives minification). */
  static override lc_name(): string {
    return 'GragRetriever';
  }

  /** The index retrieved from. */
  readonly index: Index;
  /** The grag method of the index. */
  // biome-ignore lint/suspicious/noExplicitAny: see GragRetrieverInput.method.
  readonly method: Method<Index, any, R>;
  /** The options passed to `method.retrieve` on every call (without the signal). */
  readonly retrieveOptions: Readonly<GragRetrieveOptions<R>>;
  /** How many documents `invoke` returns: `k`, else `topK` (`undefined`: every item). */
  readonly k: number | undefined;

  /**
   * Throws `InvalidArgumentError` when `method` is not a grag method, `index` is missing, `k`, `topK`
   * or `budgetTokens` is not a positive integer, or `retrieveOptions` has a key the method does not
   * accept (with the closest valid key), `signal`, or a key also given at the top level.
   */
  constructor(fields: GragRetrieverInput<Index, R>) {
    const { callbacks, tags, metadata, verbose } = fields ?? ({} as Partial<GragRetrieverInput<Index, R>>);
    super({ callbacks, tags, metadata, verbose });
    const method = fields?.method as Partial<Method<Index>> | undefined;
    if (typeof method !== 'object' || method === null || typeof method.retrieve !== 'function') {
      throw new InvalidArgumentError(
        'method',
        `@grag/langchain: GragRetriever needs \`method\`, a grag Method such as \`bm25Rag\` from @grag/naive-rag (got ${describe(method)}).`,
      );
    }
    const name = typeof method.name === 'string' ? method.name : 'unnamed';
    if (fields.index === undefined || fields.index === null) {
      throw new InvalidArgumentError(
        'index',
        `@grag/langchain: GragRetriever needs \`index\`, an index of method '${name}' (from \`${name}.build(docs, ctx)\` or \`.load(dir, ctx)\`).`,
      );
    }
    checkPositiveInteger('k', fields.k);
    checkPositiveInteger('topK', fields.topK);
    checkPositiveInteger('budgetTokens', fields.budgetTokens);
    const extra = (fields.retrieveOptions ?? {}) as Record<string, unknown>;
    if (typeof extra !== 'object' || Array.isArray(extra)) {
      throw new InvalidArgumentError(
        'retrieveOptions',
        `@grag/langchain: GragRetriever \`retrieveOptions\` must be an object of '${name}' retrieve options (got ${describe(extra)}).`,
      );
    }
    if ('signal' in extra) {
      throw new InvalidArgumentError(
        'retrieveOptions.signal',
        '@grag/langchain: GragRetriever takes no `signal` in `retrieveOptions`; pass one per call: `retriever.invoke(query, { signal })`.',
      );
    }
    for (const key of ['topK', 'budgetTokens'] as const) {
      if (key in extra && fields[key] !== undefined) {
        throw new InvalidArgumentError(
          `retrieveOptions.${key}`,
          `@grag/langchain: GragRetriever got \`${key}\` both at the top level and in \`retrieveOptions\`; give it once.`,
        );
      }
    }
    if (method.optionKeys) {
      assertKnownOptions(
        `@grag/langchain: GragRetriever retrieveOptions of method '${name}'`,
        extra,
        method.optionKeys.retrieve.filter((key) => key !== 'signal'),
      );
    }
    this.index = fields.index;
    this.method = fields.method;
    const options: Record<string, unknown> = { ...extra };
    if (fields.topK !== undefined) options.topK = fields.topK;
    if (fields.budgetTokens !== undefined) options.budgetTokens = fields.budgetTokens;
    this.retrieveOptions = Object.freeze(options) as GragRetrieveOptions<R>;
    // `topK` in retrieveOptions is a method option like any other: checked by the method, not here.
    const topK =
      Number.isInteger(options.topK) && (options.topK as number) > 0 ? (options.topK as number) : undefined;
    this.k = fields.k ?? topK;
  }

  /**
   * Retrieve for `query` and return the documents. `options` is LangChain's run config: its
   * `callbacks`, `tags`, `metadata` and `runName` reach the callback manager, its `signal` (or
   * `timeout`) aborts the retrieval.
   */
  override async invoke(query: string, options?: RunnableConfig): Promise<Document<GragDocumentMetadata>[]> {
    // BaseRetriever hands `_getRelevantDocuments` no config; carry the signal (with `timeout` folded
    // in, as LangChain does) alongside the call instead.
    const config = ensureConfig(options);
    return callSignal.run(config.signal, () => super.invoke(query, config)) as Promise<
      Document<GragDocumentMetadata>[]
    >;
  }

  /** The grag {@link Retrieval} for `query` (context, items, subgraph, trace), as `invoke` computes it. */
  async retrieve(query: string, options: { signal?: AbortSignal } = {}): Promise<Retrieval> {
    if (typeof query !== 'string') {
      throw new InvalidArgumentError(
        'query',
        `@grag/langchain: GragRetriever needs a string query (got ${describe(query)}).`,
      );
    }
    const { signal } = options;
    const what = `GragRetriever retrieval with method '${this.method.name}'`;
    if (signal?.aborted) throw abortError(what, signal);
    const call = { ...this.retrieveOptions, ...(signal ? { signal } : {}) } as R;
    return abortable(this.method.retrieve(this.index, query, call), signal, what);
  }

  /** @internal LangChain's hook behind `invoke`. */
  override async _getRelevantDocuments(
    query: string,
    _runManager?: CallbackManagerForRetrieverRun,
  ): Promise<Document<GragDocumentMetadata>[]> {
    const signal = callSignal.getStore();
    const retrieval = await this.retrieve(query, signal ? { signal } : {});
    const items = this.k === undefined ? retrieval.items : retrieval.items.slice(0, this.k);
    return items.map((item) => itemToDocument(item, this.method.name));
  }
}
