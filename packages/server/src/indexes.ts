/** The served indexes: each resolved once into an immutable version, swapped whole by a write. */
import { randomUUID } from 'node:crypto';
import {
  type BuildContext,
  type IndexManifest,
  InvalidArgumentError,
  modelFingerprint,
  type Tokenizer,
} from '@grag/core';
import { createBuildContext, getTokenizer, type IndexProviders, sha256Hex } from '@grag/core/kit';
import { type DocumentStore, documentsOf, storeOf } from './documents.js';
import type { AnswerSource, GragServerOptions, IndexInfo, ServedIndexInput } from './types.js';

/**
 * One version of an index, ready to serve: its name, method, documents, answer source and listing.
 * Never changed once made: a write makes a new one and swaps it in whole (registry.ts), so a query
 * that picked this one is answered entirely from it.
 */
export interface ServedIndex {
  readonly name: string;
  /** The id of this version: a hash of its saved manifest, or a random id for one kept in memory only. */
  readonly version: string;
  /** What it was made from (a write makes the next version from it). */
  readonly input: ServedIndexInput;
  /** The context writes run with (the one it was loaded or built with), if known. */
  readonly context: BuildContext | undefined;
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

/** What counts the context of a retrieval cut to `topK` items: the index's tokenizer, else cl100k_base. */
export function tokenizerOf(index: unknown): Tokenizer {
  return providersOf(index)?.tokenizer ?? getTokenizer();
}

/** Retrieve options a request gives otherwise: its connection, its `budget`. */
const NOT_REQUEST_OPTIONS: readonly string[] = ['signal', 'budgetTokens'];

/** The retrieve option keys a request's `options` may hold (`null`: the method declares none). */
function requestOptionKeys(method: ServedIndexInput['method']): string[] | null {
  const keys = method.optionKeys?.retrieve;
  return keys ? [...new Set(keys)].filter((key) => !NOT_REQUEST_OPTIONS.includes(key)) : null;
}

/** What an index name may be: letters, digits, '.', '_', '-', not starting with '.' or '-'. */
export const INDEX_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/;

/** The version id of a saved index: the first 12 hex digits of the SHA-256 of its manifest. */
export function manifestVersion(manifest: IndexManifest): string {
  return sha256Hex(JSON.stringify(manifest)).slice(0, 12);
}

/** A version id for an index kept in memory only. */
export function memoryVersion(): string {
  return `m-${randomUUID().replaceAll('-', '').slice(0, 10)}`;
}

/** The context of a write to `input`: its own, else one made of the providers its index keeps. */
function writeContext(input: ServedIndexInput): BuildContext | undefined {
  if (input.context) return input.context;
  const p = providersOf(input.index);
  if (!p?.embedder || !p.tasks) return undefined;
  return createBuildContext({
    embedder: p.embedder,
    tasks: p.tasks,
    ...(p.tokenizer ? { tokenizer: p.tokenizer } : {}),
    ...(p.vectorIndex ? { vectorIndex: p.vectorIndex } : {}),
    meterEmbedder: false,
  });
}

/** Resolve the inputs: names checked and unique, documents put together, listing computed. */
export function resolveIndexes(
  options: GragServerOptions,
  more: readonly ServedIndexInput[] = [],
  /** Whether no index at all is allowed (a replica of a folder with none yet). */
  none = false,
): ServedIndex[] {
  const inputs = [...(options.indexes ?? []), ...more];
  if (
    !Array.isArray(options.indexes ?? []) ||
    (inputs.length === 0 && !none && !options.folder && !options.createContext)
  ) {
    throw new InvalidArgumentError(
      'indexes',
      'createGragServer: pass at least one index, e.g. { indexes: [{ method: bm25Rag, index }] }, or a folder (openIndexFolder) or methods and createContext to create indexes over HTTP.',
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
    if (!INDEX_NAME.test(name)) {
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
    const manifest = (input as { manifest?: IndexManifest }).manifest;
    return servedIndex(
      { ...input, name },
      options.answer,
      manifest ? manifestVersion(manifest) : memoryVersion(),
    );
  });
}

/**
 * One version of an index from its input: documents put together, answer source chosen, listing
 * computed. `answerOption` is the server's `answer` option.
 */
export function servedIndex(
  input: ServedIndexInput & { name: string },
  answerOption: GragServerOptions['answer'],
  version: string,
): ServedIndex {
  const name = input.name;
  const documents = input.documents ? storeOf(input.documents) : documentsOf(input.index);
  const answer =
    answerOption === false ? undefined : (input.answer ?? answerOption ?? providersOf(input.index)?.tasks);
  const ranking = input.method.passageRanking;
  return {
    name,
    version,
    input,
    context: writeContext(input),
    method: input.method,
    index: input.index,
    documents,
    answer,
    tokenizer: tokenizerOf(input.index),
    info: {
      name,
      version,
      method: input.method.name,
      description: input.method.description,
      documents: count(input.stats?.documents) ?? documents.size,
      chunks: count(input.stats?.chunks) ?? documents.chunks,
      providers: fingerprints(input),
      passageRanking: ranking
        ? { kinds: ranking.kinds ? [...ranking.kinds] : null, order: ranking.order ?? 'context' }
        : null,
      options: requestOptionKeys(input.method),
      writable: input.method.update !== undefined && writeContext(input) !== undefined,
    },
  };
}
