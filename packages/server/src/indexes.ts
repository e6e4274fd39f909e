/** The served indexes, resolved once when the server is created. */
import {
  getTokenizer,
  type IndexProviders,
  InvalidArgumentError,
  modelFingerprint,
  type Tokenizer,
} from '@grag/core';
import { type DocumentStore, documentsOf, storeOf } from './documents.js';
import { HttpError } from './errors.js';
import type { AnswerSource, GragServerOptions, IndexInfo, ServedIndexInput } from './types.js';

/** An index ready to serve: its name, method, documents, answer source and listing. */
export interface ServedIndex {
  readonly name: string;
  readonly method: ServedIndexInput['method'];
  readonly index: unknown;
  readonly documents: DocumentStore;
  /** `undefined` when answers are off or nothing can answer. */
  readonly answer: AnswerSource | undefined;
  /** What counts the context of a retrieval cut to `topK` items: the index's, else cl100k_base. */
  readonly tokenizer: Tokenizer;
  readonly info: IndexInfo;
}

/** The providers an index object keeps (every grag method index keeps them as `providers`). */
function providersOf(index: unknown): Partial<IndexProviders> | undefined {
  const providers = (index as { providers?: unknown } | null)?.providers;
  return typeof providers === 'object' && providers !== null
    ? (providers as Partial<IndexProviders>)
    : undefined;
}

function fingerprints(input: ServedIndexInput): Record<string, string> {
  if (input.providers) return { ...input.providers };
  const p = providersOf(input.index);
  const out: Record<string, string> = {};
  if (p?.embedder) out.embedder = modelFingerprint(p.embedder);
  if (p?.tasks) out.tasks = p.tasks.id;
  if (p?.vectorIndex) out.vectorIndex = p.vectorIndex.kind;
  return out;
}

function count(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0 ? value : undefined;
}

/** Retrieve options a request gives otherwise: its connection, its `budget`. */
const NOT_REQUEST_OPTIONS: readonly string[] = ['signal', 'budgetTokens'];

/** The retrieve option keys a request's `options` may hold (`null`: the method declares none). */
function requestOptionKeys(method: ServedIndexInput['method']): string[] | null {
  const keys = method.optionKeys?.retrieve;
  return keys ? [...new Set(keys)].filter((key) => !NOT_REQUEST_OPTIONS.includes(key)) : null;
}

const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;

/** Resolve the inputs: names checked and unique, documents put together, listing computed. */
export function resolveIndexes(options: GragServerOptions): ServedIndex[] {
  const inputs = options.indexes;
  if (!Array.isArray(inputs) || inputs.length === 0) {
    throw new InvalidArgumentError(
      'indexes',
      'createGragServer: pass at least one index, e.g. { indexes: [{ method: bm25Rag, index }] }.',
    );
  }
  const seen = new Set<string>();
  return inputs.map((input, i) => {
    if (!input?.method || typeof input.method.retrieve !== 'function') {
      throw new InvalidArgumentError(
        'indexes',
        `createGragServer: indexes[${i}].method is not a grag method.`,
      );
    }
    const name = input.name ?? input.method.name;
    if (!NAME.test(name)) {
      throw new InvalidArgumentError(
        'indexes',
        `createGragServer: index name ${JSON.stringify(name)} must be letters, digits, '.', '_' or '-'.`,
      );
    }
    if (seen.has(name)) {
      throw new InvalidArgumentError(
        'indexes',
        `createGragServer: two indexes are named "${name}"; serve one index per method or give each a name.`,
      );
    }
    seen.add(name);
    const documents = input.documents ? storeOf(input.documents) : documentsOf(input.index);
    const answer =
      options.answer === false
        ? undefined
        : (input.answer ?? options.answer ?? providersOf(input.index)?.tasks);
    const ranking = input.method.passageRanking;
    return {
      name,
      method: input.method,
      index: input.index,
      documents,
      answer,
      tokenizer: providersOf(input.index)?.tokenizer ?? getTokenizer(),
      info: {
        name,
        method: input.method.name,
        description: input.method.description,
        documents: count(input.stats?.documents) ?? documents.size,
        chunks: count(input.stats?.chunks) ?? documents.chunks,
        providers: fingerprints(input),
        passageRanking: ranking
          ? { kinds: ranking.kinds ? [...ranking.kinds] : null, order: ranking.order ?? 'context' }
          : null,
        options: requestOptionKeys(input.method),
      },
    };
  });
}

/** The index a request names (`undefined`: the first), or a 404 listing the available ones. */
export function pickIndex(indexes: readonly ServedIndex[], name: string | undefined): ServedIndex {
  if (name === undefined) return indexes[0] as ServedIndex;
  const found = indexes.find((ix) => ix.name === name);
  if (found) return found;
  throw new HttpError(
    404,
    'unknown_index',
    `No index named ${JSON.stringify(name.slice(0, 100))}; available: ${indexes.map((ix) => ix.name).join(', ')}.`,
  );
}
