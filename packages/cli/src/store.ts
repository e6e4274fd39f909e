/**
 * `--store <postgres-url>` (or `GRAG_STORE`): where the CLI keeps an index. Without a store, the
 * index argument of `query`, `add`, `remove`, `serve` and `--out` of `index` is a directory; with
 * one, it is the name of an index in that PostgreSQL database, kept by `@grag/postgres` (imported
 * only then, so a directory user never loads `pg`).
 */
import { dirname, join, resolve } from 'node:path';
import {
  IndexFormatError,
  type IndexManifest,
  type IndexStore,
  InvalidArgumentError,
  isVectorPrecision,
  VECTOR_PRECISIONS,
  type VectorPrecision,
} from '@grag/core';
import { readManifest } from '@grag/core/kit';
import { directoryStore } from '@grag/core/store';
import { printable } from './printable.js';

/** The option `--store` adds to the command line. */
export const STORE_OPTIONS = {
  store: { type: 'string' },
  'store-vectors': { type: 'boolean' },
  'vector-precision': { type: 'string' },
} as const;

/** Help lines of `--store`. */
export const STORE_USAGE = `  --store <postgres-url>     keep indexes in PostgreSQL (default: $GRAG_STORE) for index, query, add, remove
                             and serve: the index argument or --out is then an index name in that database
                             (lower-case letters, digits, _), not a directory; eval keeps each method's
                             index there as eval_<method> (its --out stays a directory)
  --store-vectors            index, eval with --store: keep the vectors each method searches by k-NN as
                             pgvector tables searched in the database, instead of artifacts each reader loads
                             (every method but bm25 and da-rag, whose query relevance scores every node);
                             needs pgvector; later add/remove keep them
  --vector-precision <float32|float16>
                             index, eval: store the vectors each method keeps (its embeddings, what its
                             vector index is restored from) as float32 or float16 (half their bytes,
                             each value rounded to 11 significant bits); default: what the index
                             replaced had, float32 for a new one; add/remove keep it`;

/** `--vector-precision`, checked: `undefined` when it is not given. */
export function vectorPrecisionFlag(value: string | undefined): VectorPrecision | undefined {
  if (value === undefined) return undefined;
  if (isVectorPrecision(value)) return value;
  throw new InvalidArgumentError(
    'vector-precision',
    `--vector-precision is "${value}"; use ${VECTOR_PRECISIONS.join(' or ')}.`,
  );
}

/** The commands that read or write an index through `--store`. */
export const STORE_COMMANDS: readonly string[] = ['index', 'query', 'add', 'remove', 'serve', 'eval'];

/**
 * The store URL a command uses: `--store`, else `GRAG_STORE` when it is set and not blank, else
 * none (indexes are directories).
 */
export function storeUrl(flag: string | undefined, env: NodeJS.ProcessEnv): string | undefined {
  if (flag !== undefined) {
    if (flag.trim() === '')
      throw new InvalidArgumentError(
        'store',
        '--store is empty; pass a postgres://user:password@host:5432/database URL, or leave --store out to use directories.',
      );
    return flag;
  }
  const fromEnv = env.GRAG_STORE?.trim();
  return fromEnv ? fromEnv : undefined;
}

/** Where one index lives, as the CLI resolved it from its argument and `--store`. */
export interface IndexTarget {
  /** The store every save and load goes through. */
  readonly store: IndexStore;
  /** `'directory'` or `'postgres'`. */
  readonly kind: 'directory' | 'postgres';
  /** For messages: the directory, or the database URL without its password, then `#<name>`. */
  readonly location: string;
  /** The index directory, for a directory target. */
  readonly dir?: string;
  /** The index name in the database, for a Postgres target. */
  readonly name?: string;
  /** Release the store's connections (nothing for a directory). */
  close(): Promise<void>;
}

/** How a write waits for another writer of the same index (see `directoryStore`, `postgresStore`). */
export interface LockSettings {
  /** Milliseconds to wait before giving up with one line naming the other writer. */
  timeoutMs?: number;
  /** Called once when the write starts waiting (`holder`: the other writer's pid, host, since when). */
  onWait?: (holder: string) => void;
}

/** The lock settings of a command: `config.lockWait` seconds, and one line on stderr when it waits (unless quiet). */
export function lockSettings(
  config: { lockWait: number },
  io: { stderr: NodeJS.WritableStream },
  location: string,
  quiet: boolean,
): LockSettings {
  return {
    timeoutMs: config.lockWait * 1000,
    ...(quiet
      ? {}
      : {
          onWait: (holder: string) =>
            io.stderr.write(
              `grag: waiting for another grag writing ${printable(location)} (${holder}), up to ${config.lockWait} s\n`,
            ),
        }),
  };
}

/** The target of the index directory `dir`. */
export function directoryTarget(
  dir: string,
  lock: LockSettings = {},
  precision?: VectorPrecision,
): IndexTarget {
  const store = directoryStore(dir, {
    ...(lock.timeoutMs !== undefined ? { lockTimeoutMs: lock.timeoutMs } : {}),
    ...(lock.onWait !== undefined ? { onLockWait: lock.onWait } : {}),
    ...(precision !== undefined ? { vectorPrecision: precision } : {}),
  });
  return { store, kind: 'directory', location: dir, dir, close: async () => {} };
}

/**
 * The target `name` names: the directory `name` without a store URL, else the index `name` in the
 * database at `url` (checked as `@grag/postgres` checks index names and URLs). Nothing connects
 * yet. Either store waits for another writer of the index as `lock` says. The caller closes it.
 * @throws InvalidArgumentError for a bad URL or index name, in one line without the password.
 */
export async function indexTarget(
  name: string,
  url: string | undefined,
  options: { vectors?: boolean; lock?: LockSettings; precision?: VectorPrecision } = {},
): Promise<IndexTarget> {
  if (url === undefined) return directoryTarget(name, options.lock, options.precision);
  const { postgresStore } = await import('@grag/postgres');
  try {
    const lock = options.lock ?? {};
    const store = postgresStore({
      url,
      index: name,
      ...(options.vectors ? { vectors: true } : {}),
      ...(options.precision !== undefined ? { vectorPrecision: options.precision } : {}),
      ...(lock.timeoutMs !== undefined ? { lockTimeoutMs: lock.timeoutMs } : {}),
      ...(lock.onWait !== undefined ? { onLockWait: lock.onWait } : {}),
    });
    return {
      store,
      kind: 'postgres',
      location: store.location,
      name,
      close: () => store.close(),
    };
  } catch (error) {
    if (!InvalidArgumentError.isInstance(error)) throw error;
    const problem = error.message.replace(/^postgresStore: /, '');
    throw new InvalidArgumentError(
      error.argument === 'url' ? 'store' : 'index',
      error.argument === 'url' ? `--store: ${problem}` : `With --store, ${problem}`,
      { cause: error },
    );
  }
}

/** Targets of several names, closed together; one that fails closes those made before it. */
export async function indexTargets(
  names: readonly string[],
  url: string | undefined,
  options: { vectors?: boolean; precision?: VectorPrecision } = {},
): Promise<IndexTarget[]> {
  const targets: IndexTarget[] = [];
  try {
    for (const name of names) targets.push(await indexTarget(name, url, options));
    return targets;
  } catch (error) {
    await closeAll(targets);
    throw error;
  }
}

/** Close every target (errors on close are not the user's concern once the work is done). */
export async function closeAll(targets: readonly IndexTarget[]): Promise<void> {
  await Promise.all(targets.map((t) => t.close().catch(() => {})));
}

/** The database of a Postgres target, for messages (its location without `#<name>`). */
function database(target: IndexTarget): string {
  return target.location.slice(0, target.location.lastIndexOf('#'));
}

/**
 * Check that `target` holds an index, and return its current manifest: a directory's
 * `manifest.json` (with the messages `readManifest` gives), or the current version in the
 * database.
 * @throws IndexFormatError naming the index and how to build it when there is none.
 */
export async function readTargetManifest(target: IndexTarget): Promise<IndexManifest> {
  if (target.kind === 'directory') return await readManifest(target.dir as string);
  if ((await target.store.target()) !== 'index') {
    throw new IndexFormatError(
      target.location,
      undefined,
      `No index named "${target.name}" in ${database(target)}; build it with grag index <corpus> --method <name> --store <url> --out ${target.name}.`,
    );
  }
  const snapshot = await target.store.open();
  try {
    return snapshot.manifest;
  } finally {
    await snapshot.release();
  }
}

/**
 * Where the model-call cache and build checkpoints of `target` live by default: `.grag-cache` next
 * to an index directory, or in the working directory `cwd` for an index in a database.
 */
export function defaultTargetCacheDir(target: { kind: string; dir?: string }, cwd: string): string {
  return target.kind === 'directory' && target.dir !== undefined
    ? join(dirname(resolve(target.dir)), '.grag-cache')
    : resolve(cwd, '.grag-cache');
}
