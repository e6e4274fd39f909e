/**
 * `grag serve <index-dir>... | --dir <folder>`: the HTTP API and explorer page of `@grag/server` over saved indexes
 * (directories, or with `--store` index names in a PostgreSQL database).
 */
import { readFile } from 'node:fs/promises';
import { availableParallelism } from 'node:os';
import { resolve } from 'node:path';
import { type IndexManifest, InvalidArgumentError } from '@grag/core';
import {
  type IndexFolder,
  isLoopbackHost,
  loadIndex,
  loadIndexes,
  type OpenedJobJournal,
  openIndexFolder,
  openJobJournal,
  type ScopedToken,
  SERVE_DEFAULTS,
  serve,
} from '@grag/server';
import type { CliIO } from './cli.js';
import { type GragConfig, usesOpenAI } from './config.js';
import { choosePreset } from './presets.js';
import { createProviders } from './providers.js';
import { findMethod, METHODS } from './registry.js';
import type { ServeWorkerData } from './serve-worker.js';
import { closeAll, type IndexTarget, indexTargets, readTargetManifest } from './store.js';

/** What `grag serve` was given. */
export interface ServeCommandInput {
  io: CliIO;
  config: GragConfig;
  /** The index directories (or names, with a store). */
  args: string[];
  flags: {
    dir?: string;
    tokens?: string;
    host?: string;
    port?: string;
    token?: string;
    'allowed-host'?: string[];
    cors?: string[];
    'no-explorer'?: boolean;
    workers?: string;
    processes?: string;
    'jobs-dir'?: string;
    'no-resume-jobs'?: boolean;
    quiet?: boolean;
  };
  /** The `--store` / `GRAG_STORE` database URL; `undefined`: the indexes are directories. */
  store?: string | undefined;
}

function parsePort(value: string | undefined): number {
  if (value === undefined) return SERVE_DEFAULTS.port;
  const n = Number(value);
  if (value.trim() === '' || !Number.isInteger(n) || n < 0 || n > 65535) {
    throw new InvalidArgumentError(
      'port',
      `Bad --port: expected an integer from 0 to 65535, got "${value}".`,
    );
  }
  return n;
}

/**
 * `--workers`: how many worker threads answer retrievals (`auto`: one per core); `0`, the default,
 * answers them on the server's thread.
 */
function parseWorkers(value: string | undefined): number {
  if (value === undefined) return 0;
  if (value === 'auto') return availableParallelism();
  const n = Number(value);
  if (value.trim() === '' || !Number.isInteger(n) || n < 0 || n > 256) {
    throw new InvalidArgumentError(
      'workers',
      `Bad --workers: expected auto or an integer from 0 to 256, got "${value}".`,
    );
  }
  return n;
}

/** The setup module of `--workers` and `--processes` (serve-worker.ts). */
const SERVE_SETUP = new URL(
  import.meta.url.endsWith('.ts') ? './serve-worker.ts' : './serve-worker.js',
  import.meta.url,
);

/**
 * `--processes`: how many processes serve the port (`auto`: one per core); `1`, the default, serves
 * it from this process. More than one is refused with `--store` (replicas load index directories).
 */
function parseProcesses(value: string | undefined, store: string | undefined): number {
  if (value === undefined) return 1;
  const n = value === 'auto' ? availableParallelism() : Number(value);
  if (value.trim() === '' || !Number.isInteger(n) || n < 1 || n > 256) {
    throw new InvalidArgumentError(
      'processes',
      `Bad --processes: expected auto or an integer from 1 to 256, got "${value}".`,
    );
  }
  if (n > 1 && store !== undefined) {
    throw new InvalidArgumentError(
      'processes',
      '--processes above 1 serves index directories (paths or --dir) only, not a --store database: run one process.',
    );
  }
  return n;
}

/** The values of a repeatable flag that also takes comma-separated lists; an empty one is refused. */
function listFlag(name: string, values: string[] | undefined): string[] | undefined {
  if (values === undefined) return undefined;
  const items = values.flatMap((v) => v.split(',')).map((v) => v.trim());
  if (items.some((v) => v === '')) {
    throw new InvalidArgumentError(name, `Bad --${name}: an empty value; give one or more, comma-separated.`);
  }
  return items;
}

/** What a `--tokens` file holds: the scoped tokens and the indexes of each workspace. */
type TokensFile = { tokens?: ScopedToken[]; workspaces?: Record<string, string[]> };

/** The `--tokens` file, read and parsed (the server checks its entries); one line naming it when it cannot be. */
async function readTokensFile(io: CliIO, path: string | undefined): Promise<TokensFile> {
  if (path === undefined) return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(await readFile(resolve(io.cwd, path), 'utf8'));
  } catch (error) {
    const why = (error as NodeJS.ErrnoException).code ?? 'not JSON';
    throw new InvalidArgumentError('tokens', `Bad --tokens ${path}: cannot read it as JSON (${why}).`);
  }
  const file = parsed as TokensFile;
  if (
    typeof parsed !== 'object' ||
    parsed === null ||
    !Array.isArray(file.tokens) ||
    file.tokens.length === 0
  ) {
    throw new InvalidArgumentError(
      'tokens',
      `Bad --tokens ${path}: expected {"tokens": [{"token": "...", "access": "read", "workspace": "team-a"}], "workspaces": {"team-a": ["index"]}}.`,
    );
  }
  return file;
}

/** The names of the indexes of the database at `url` (one line naming it when it cannot be reached). */
async function storeIndexNames(url: string): Promise<string[]> {
  const { listPostgresIndexes } = await import('@grag/postgres');
  try {
    return await listPostgresIndexes({ url });
  } catch (error) {
    if (!InvalidArgumentError.isInstance(error)) throw error;
    throw new InvalidArgumentError(
      'store',
      `--store: ${error.message.replace(/^listPostgresIndexes: /, '')}`,
      {
        cause: error,
      },
    );
  }
}

/**
 * What a server on a database needs to create indexes in it: the CLI's methods, a context of the
 * configured providers (as grag index builds with), and a store per new name (closed with `targets`).
 */
function storeWrites(store: string, config: GragConfig, targets: IndexTarget[]) {
  return {
    methods: METHODS.map((m) => m.method),
    createContext: () => createProviders(config).ctx,
    createTarget: async (name: string) => {
      const [target] = await indexTargets([name], store).catch((error: unknown) => {
        if (!InvalidArgumentError.isInstance(error)) throw error;
        // Over HTTP the name is the request's, not a command-line argument.
        const message = error.message.replace(/^With --store, index (".*?")/, '"name" $1');
        throw new InvalidArgumentError('name', message.replace('index name', 'index name in PostgreSQL'));
      });
      targets.push(target as IndexTarget);
      return (target as IndexTarget).store;
    },
  };
}

/**
 * `--jobs-dir` and `--no-resume-jobs`: a jobs folder is for a server without `--dir` (whose folder
 * holds its journal), and not resuming needs a journal.
 */
function checkJobFlags(flags: ServeCommandInput['flags']): void {
  if (flags['jobs-dir'] !== undefined && flags.dir !== undefined) {
    throw new InvalidArgumentError(
      'jobs-dir',
      '--jobs-dir: a server on --dir journals its jobs in that folder already; drop --jobs-dir.',
    );
  }
  if (flags['jobs-dir'] === '') {
    throw new InvalidArgumentError(
      'jobs-dir',
      'Bad --jobs-dir: an empty path; give the folder to journal jobs in.',
    );
  }
  if (flags['no-resume-jobs'] && flags.dir === undefined && flags['jobs-dir'] === undefined) {
    throw new InvalidArgumentError(
      'no-resume-jobs',
      '--no-resume-jobs: this server keeps no job journal, so no job outlives it; give --dir <folder> or --jobs-dir <folder>, or drop the flag.',
    );
  }
}

/** Resolves when `signal` aborts or the process gets SIGTERM. */
function stopRequested(signal: AbortSignal | undefined): { promise: Promise<string>; dispose(): void } {
  let dispose = () => {};
  const promise = new Promise<string>((resolve) => {
    const onTerm = () => resolve('SIGTERM');
    const onAbort = () => resolve('SIGINT');
    process.once('SIGTERM', onTerm);
    signal?.addEventListener('abort', onAbort, { once: true });
    if (signal?.aborted) resolve('SIGINT');
    dispose = () => {
      process.off('SIGTERM', onTerm);
      signal?.removeEventListener('abort', onAbort);
    };
  });
  return { promise, dispose };
}

/** What `grag serve` serves: the indexes given, the `--dir` folder, the `--jobs-dir` journal. */
interface Served {
  indexes: Awaited<ReturnType<typeof loadIndexes>>;
  folder: IndexFolder | undefined;
  jobs: OpenedJobJournal | undefined;
}

/**
 * Load the indexes of `targets` (each with the providers its manifest names; their summaries
 * added to `summaries`), open the `--dir` folder and the `--jobs-dir` journal (settling the jobs a
 * stop interrupted); closes `targets` when any of it fails.
 */
async function loadServed(
  { io, config, flags, store }: Pick<ServeCommandInput, 'io' | 'config' | 'flags' | 'store'>,
  targets: IndexTarget[],
  summaries: Set<string>,
): Promise<Served> {
  const load = {
    methods: METHODS.map((m) => m.method),
    context: (manifest: IndexManifest) => {
      const providers = createProviders(config, { manifest });
      summaries.add(providers.summary);
      return providers.ctx;
    },
  };
  let indexes: Served['indexes'] = [];
  const resumeJobs = !flags['no-resume-jobs'];
  try {
    // A name with no index in the database is named first, with how to build it.
    if (store !== undefined) for (const target of targets) await readTargetManifest(target);
    const loadOptions = {
      methods: load.methods,
      context: (manifest: IndexManifest) => load.context(manifest),
    };
    if (store !== undefined) {
      // An index of a database is served under its name there, as a folder's is under its folder's
      // (so two of one method sit side by side).
      for (const target of targets) {
        indexes.push({ ...(await loadIndex(target.store, loadOptions)), name: target.name as string });
      }
    } else if (targets.length > 0) {
      indexes = await loadIndexes(
        targets.map((t) => t.dir as string),
        loadOptions,
      );
    }
    const folder =
      flags.dir === undefined
        ? undefined
        : await openIndexFolder(resolve(io.cwd, flags.dir), {
            methods: load.methods,
            context: (manifest) => load.context(manifest),
            // A new index is built with the configured providers, as grag index builds one.
            createContext: () => createProviders(config).ctx,
            resumeJobs,
          });
    const jobs =
      flags['jobs-dir'] === undefined
        ? undefined
        : await openJobJournal(resolve(io.cwd, flags['jobs-dir']), {
            indexes: indexes.map((ix) => ({ name: ix.name ?? ix.method.name, manifest: ix.manifest })),
            resumeJobs,
          });
    return { indexes, folder, jobs };
  } catch (error) {
    await closeAll(targets);
    throw error;
  }
}

/**
 * Run `grag serve`: load every index once (each with the providers its manifest names, as
 * `grag query` does; from a database, its current version, after which the connection is closed:
 * restart to serve a newer version), serve them, print one line with the URL, and run until Ctrl-C (the CLI's
 * abort signal) or SIGTERM, then close. Returns the exit code.
 */
export async function serveCommand({ io, config, args, flags, store }: ServeCommandInput): Promise<number> {
  if (args.length === 0 && flags.dir === undefined && store === undefined) {
    throw new InvalidArgumentError(
      'dir',
      'Missing index directory. Usage: grag serve <index-dir>... | --dir <folder> | --store <postgres-url> [<index>...] [--host 127.0.0.1] [--port 8787] [--token T].',
    );
  }
  if (flags.dir !== undefined && store !== undefined) {
    throw new InvalidArgumentError(
      'dir',
      "--dir serves a folder of index directories; it cannot be combined with --store (serve the database's indexes by name instead).",
    );
  }
  checkJobFlags(flags);
  const port = parsePort(flags.port);
  const workers = parseWorkers(flags.workers);
  const processes = parseProcesses(flags.processes, store);
  const host = flags.host ?? SERVE_DEFAULTS.host;
  const token = flags.token ?? (io.env.GRAG_TOKEN?.trim() || undefined);
  const scoped = await readTokensFile(io, flags.tokens);
  const allowedHosts = listFlag('allowed-host', flags['allowed-host']);
  const cors = listFlag('cors', flags.cors);
  // Before anything is loaded: a server on the network without a token would serve anyone.
  const loopback = await isLoopbackHost(host);
  if (!loopback && token === undefined && scoped.tokens === undefined) {
    throw new InvalidArgumentError(
      'token',
      `--host ${host} is not a loopback address, so anyone who can reach it could read and query these indexes; add --token <t> (or set GRAG_TOKEN), or bind 127.0.0.1.`,
    );
  }
  const summaries = new Set<string>();
  // A database without names: every index it holds, each served under its name.
  const names = store !== undefined && args.length === 0 ? await storeIndexNames(store) : args;
  const targets = await indexTargets(names, store);
  const { indexes, folder, jobs } = await loadServed({ io, config, flags, store }, targets, summaries);
  // The stores stay open while serving: an index whose vectors are searched in the database
  // (--store-vectors) queries through its store's connections.
  let server: Awaited<ReturnType<typeof serve>>;
  try {
    if (!flags.quiet) for (const summary of summaries) io.stderr.write(`${summary}\n`);
    if (!flags.quiet && store !== undefined && jobs === undefined) {
      io.stderr.write(
        'grag serve: write jobs are kept in memory only; add --jobs-dir <folder> to journal them so they resume after a restart.\n',
      );
    }
    if (!flags.quiet) {
      for (const skip of folder?.skipped ?? [])
        io.stderr.write(`grag serve: skipped ${skip.path}: ${skip.reason}\n`);
    }
    server = await serve({
      indexes,
      // A new index over HTTP takes the preset these providers choose, as `grag index` does.
      buildOptions: (method, options) => {
        const entry = findMethod(method.name);
        return entry
          ? choosePreset(entry, usesOpenAI(config) ? 'openai' : 'offline', options).options
          : { ...options };
      },
      ...(folder ? { folder } : {}),
      ...(jobs ? { jobs } : {}),
      ...(store !== undefined ? storeWrites(store, config, targets) : {}),
      host,
      port,
      ...(token !== undefined ? { token } : {}),
      ...(scoped.tokens ? { tokens: scoped.tokens } : {}),
      ...(scoped.workspaces ? { workspaces: scoped.workspaces } : {}),
      ...(allowedHosts !== undefined ? { allowedHosts } : {}),
      ...(cors !== undefined ? { cors } : {}),
      ...(flags['no-explorer'] ? { explorerDir: false as const } : {}),
      ...(workers > 0
        ? { workers: { count: workers, setup: SERVE_SETUP, data: { config } satisfies ServeWorkerData } }
        : {}),
      // Each process loads the indexes as a worker does, with the configuration's providers.
      ...(processes > 1
        ? { processes: { count: processes, setup: SERVE_SETUP, data: { config } satisfies ServeWorkerData } }
        : {}),
      onError: (error, where) => {
        const message = error instanceof Error ? error.message : String(error);
        io.stderr.write(`grag serve: ${where}: ${message.split('\n')[0]}\n`);
      },
    });
  } catch (error) {
    await closeAll(targets);
    throw error;
  }
  const stop = stopRequested(io.signal);
  try {
    const served =
      [
        ...indexes.map((ix) => (store !== undefined ? ix.name : ix.method.name)),
        ...(folder?.indexes ?? []).map((ix) => ix.name),
      ].join(', ') || `no index yet in ${flags.dir ?? 'the database'} (create one with POST /v1/indexes)`;
    io.stdout.write(
      `grag serve: ${served} at ${server.url}${token || scoped.tokens ? ' (bearer token required)' : ''}\n`,
    );
    if (!loopback && !flags.quiet) {
      io.stderr.write(
        `grag serve: listening on ${host}, so anyone who can reach it and has the token can query these indexes.\n`,
      );
    }
    const why = await stop.promise;
    if (!flags.quiet) io.stderr.write(`grag serve: ${why}, stopping.\n`);
  } finally {
    stop.dispose();
    await server.close();
    await closeAll(targets);
  }
  return 0;
}
