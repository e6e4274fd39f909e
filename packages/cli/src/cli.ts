import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { AbortError, GragError, InvalidArgumentError, type VectorPrecision } from '@grag/core';
import { type GragConfig, importLoaders, recordFields, resolveConfig } from './config.js';
import type { ReadCorpusOptions } from './corpus.js';
import { printable, printableJson } from './printable.js';
import {
  closeAll,
  defaultTargetCacheDir,
  type IndexTarget,
  indexTarget,
  lockSettings,
  STORE_COMMANDS,
  STORE_OPTIONS,
  STORE_USAGE,
  storeUrl,
  vectorPrecisionFlag,
} from './store.js';
import {
  EVAL_OPTIONS,
  EVAL_USAGE,
  positiveIntFlag,
  SERVE_OPTIONS,
  SERVE_USAGE,
  UPDATE_USAGE,
} from './usage.js';

// Each command's module is imported when that command runs (`await import('./query-command.js')`),
// so `grag --version`, `--help` and a command that fails its checks load no method, model, loader
// or server, and `grag query` loads none of the indexing or serving code.

/** Where the CLI writes; injectable for tests. */
export interface CliIO {
  stdout: NodeJS.WritableStream & { isTTY?: boolean };
  stderr: NodeJS.WriteStream | (NodeJS.WritableStream & { isTTY?: boolean });
  env: NodeJS.ProcessEnv;
  cwd: string;
  /** Aborted on Ctrl-C (the bin wires SIGINT to it); a build then stops cleanly, resumable. */
  signal?: AbortSignal;
}

const USAGE = `Usage: grag <command> [options]

Commands:
  index <path>... --method <name> --out <dir>
                                             build an index from files, folders and globs: PDF, Word (.docx),
                                             HTML, CSV/TSV, JSON, JSONL, Markdown, text
  query <dir> "<question>"                   retrieve context and answer from an index
                                             (with --store, <dir> and --out <dir> are index names)
${UPDATE_USAGE}
  demo                                       index the demo corpus with every method and answer questions
  methods                                    list the available methods and the model tasks each calls
${EVAL_USAGE.command}
${SERVE_USAGE.command}

Options:
  --method <name>            method to build (see \`grag methods\`)
  --out <dir>                index directory to write (with --store: the index name)
${STORE_USAGE}
  --set <key=value>          method option, repeatable (e.g. --set chunkSize=600); true/false, null,
                             numbers and lists ([a,b] or a,b) convert. index: build options; query:
                             retrieve options; eval: each key to build and/or retrieve, as the method declares
  --variant <name>           method variant (same as --set variant=<name>), e.g. ket-rag's keyword-rag
  --estimate                 count the calls, tokens and cost a build would make, and the tokens of the
                             text extracted from the files, without calling a model (index)
  --include <glob>           read only matching files (index, add, eval; repeatable; '*.pdf' matches at any depth)
  --exclude <glob>           leave matching files and folders out (repeatable); a .gragignore at a folder's
                             root does the same in gitignore syntax
  --text-field <name>        CSV, JSON, JSONL: the field with a record's text (default text; CSV: every column)
  --title-field <name>       ... the field with its title (default title)
  --id-field <name>          ... the field with its id (default id, else the file and row or record)
  --cache-dir <dir>          model-call cache and build checkpoints (default .grag-cache next to --out)
  --no-cache                 neither read nor write the cache (index, add)
  --full                     add, remove: also recompute the stages an update approximates, so the index
                             equals a fresh build of the changed corpus
  --concurrency <n>          model calls in flight while indexing (default 8)
  --prices <file.json>       price table, USD per 1M tokens: {"gpt-4o-mini": {"input": 0.15, "output": 0.6}}
  --budget <tokens>          context budget (default 12000)
  --top-k <n>                items to rank before packing (method default otherwise)
  --json                     machine-readable output (query, add, remove, methods)
  --no-answer                retrieval only, no answer (query)
  --config <file>            config file (default ./grag.config.json)
  --provider <auto|offline|openai>
  --chat-model <id>          --embedding-model <id>    --embedding-dimensions <n>
  --offline-embedder <tfidf|glove>                     --vector-index <hnsw|flat>
  -q, --quiet                no progress output
  -h, --help                 this help;  -v, --version

Environment: OPENAI_API_KEY, OPENAI_BASE_URL, GRAG_CHAT_MODEL, GRAG_EMBEDDING_MODEL, GRAG_PROVIDER,
GRAG_CACHE_DIR, GRAG_PRICES, GRAG_CONCURRENCY, GRAG_STORE, ...
With no endpoint configured, grag runs offline.

${EVAL_USAGE.options}

${SERVE_USAGE.options}`;

const OPTIONS = {
  method: { type: 'string' },
  out: { type: 'string' },
  set: { type: 'string', multiple: true },
  budget: { type: 'string' },
  'top-k': { type: 'string' },
  json: { type: 'boolean' },
  'no-answer': { type: 'boolean' },
  variant: { type: 'string' },
  config: { type: 'string' },
  provider: { type: 'string' },
  'chat-model': { type: 'string' },
  'embedding-model': { type: 'string' },
  'embedding-dimensions': { type: 'string' },
  'offline-embedder': { type: 'string' },
  'vector-index': { type: 'string' },
  estimate: { type: 'boolean' },
  'cache-dir': { type: 'string' },
  'no-cache': { type: 'boolean' },
  full: { type: 'boolean' },
  prices: { type: 'string' },
  include: { type: 'string', multiple: true },
  exclude: { type: 'string', multiple: true },
  'text-field': { type: 'string' },
  'title-field': { type: 'string' },
  'id-field': { type: 'string' },
  methods: { type: 'string' },
  quiet: { type: 'boolean', short: 'q' },
  help: { type: 'boolean', short: 'h' },
  version: { type: 'boolean', short: 'v' },
  ...EVAL_OPTIONS,
  ...SERVE_OPTIONS,
  ...STORE_OPTIONS,
} as const;

type Values = ReturnType<typeof parseArgs<{ options: typeof OPTIONS; allowPositionals: true }>>['values'];

function configFlags(values: Values): Partial<Record<keyof GragConfig, unknown>> {
  return {
    provider: values.provider,
    chatModel: values['chat-model'],
    embeddingModel: values['embedding-model'],
    embeddingDimensions: values['embedding-dimensions'],
    offlineEmbedder: values['offline-embedder'],
    vectorIndex: values['vector-index'],
    budget: values.budget,
    concurrency: values.concurrency,
    cacheDir: values['cache-dir'],
    prices: values.prices,
    textField: values['text-field'],
    titleField: values['title-field'],
    idField: values['id-field'],
  };
}

/** How `index`, `add` and `eval` read files: the configured loaders and fields, `--include`, `--exclude`. */
async function corpusOptions(values: Values, config: GragConfig): Promise<ReadCorpusOptions> {
  const loaders = await importLoaders(config.loaders);
  const fields = recordFields(config);
  return {
    ...(loaders.length ? { loaders } : {}),
    ...(fields ? { fields } : {}),
    ...(values.include?.length ? { include: values.include } : {}),
    ...(values.exclude?.length ? { exclude: values.exclude } : {}),
  };
}

/** One `--set` value: `true`/`false`, `null`, a number, or the string as written. */
function setValue(raw: string): unknown {
  if (raw === 'true') return true;
  if (raw === 'false') return false;
  if (raw === 'null') return null;
  return raw !== '' && Number.isFinite(Number(raw)) ? Number(raw) : raw;
}

/**
 * `--set key=value` pairs as method options. Values convert as written: `true`/`false`, `null`,
 * numbers; a list is written `[a,b]` or `a,b` (each element converted the same way; `[]` is the
 * empty list, `[a]` a list of one); anything else is a string.
 */
export function parseSetOptions(pairs: readonly string[] = []): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const pair of pairs) {
    const eq = pair.indexOf('=');
    if (eq <= 0)
      throw new InvalidArgumentError(
        'set',
        `Bad --set "${pair}": write it as key=value, e.g. --set chunkSize=600.`,
      );
    const key = pair.slice(0, eq);
    const raw = pair.slice(eq + 1).trim();
    const bracketed = raw.startsWith('[') && raw.endsWith(']');
    if (bracketed || raw.includes(',')) {
      const inner = bracketed ? raw.slice(1, -1).trim() : raw;
      out[key] = inner === '' ? [] : inner.split(',').map((part) => setValue(part.trim()));
    } else {
      out[key] = setValue(raw);
    }
  }
  return out;
}

/** Method options from `--set` pairs and `--variant`. */
function methodOptions(values: Values): Record<string, unknown> {
  const options = parseSetOptions(values.set);
  if (values.variant !== undefined) options.variant = values.variant;
  return options;
}

/** The demo corpus shipped with the CLI. */
export function demoCorpusPath(): string {
  return join(dirname(fileURLToPath(import.meta.url)), '..', 'demo');
}

/** Questions the demo asks every method. */
export const DEMO_QUESTIONS = [
  'Who directs the institute that owns the research vessel built by the Kessler Shipyard?',
  'In which town was the marine biologist who received the Brandt Medal in 2022 born?',
  'Which ferry crosses the Veskan Strait from Port Halvard?',
];

/**
 * `--budget -1` as `--budget=-1`: node:util's parser takes a value that starts with a dash for a
 * flag and calls it ambiguous, so a negative number would never reach the option's own check.
 */
function joinNegativeValues(argv: string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    const name = arg.startsWith('--') && !arg.includes('=') ? arg.slice(2) : undefined;
    const next = argv[i + 1];
    const option = name === undefined ? undefined : (OPTIONS as Record<string, { type: string }>)[name];
    if (option?.type === 'string' && next !== undefined && /^-\.?\d/.test(next)) {
      out.push(`${arg}=${next}`);
      i++;
    } else out.push(arg);
  }
  return out;
}

const COMMANDS = ['index', 'query', 'add', 'remove', 'demo', 'eval', 'methods', 'serve'];

/**
 * A command line that parses but would drop part of what it was given: an unknown command, a
 * second corpus or dataset path, or an option the command does not use.
 */
function usageProblem(command: string, args: string[], values: Values): string | undefined {
  if (!COMMANDS.includes(command)) return `unknown command "${command}".`;
  if (command === 'eval' && args.length > 1)
    return `eval takes one dataset, got ${args.length}: ${args.map((a) => JSON.stringify(a)).join(', ')}.`;
  const reading = ['include', 'exclude', 'text-field', 'title-field', 'id-field'] as const;
  const misplaced = reading.find((name) => values[name] !== undefined);
  if (misplaced !== undefined && !['index', 'add', 'eval'].includes(command))
    return `--${misplaced} is an option of index, add and eval (how files are read), not of ${command}.`;
  if (command === 'index' && values['top-k'] !== undefined)
    return "--top-k is an option of query and eval, not of index; set a method's own default with --set.";
  if (values.store !== undefined && !STORE_COMMANDS.includes(command))
    return `--store is an option of ${STORE_COMMANDS.join(', ')}; grag ${command} keeps its indexes in directories.`;
  if (values['store-vectors'] && command !== 'index' && command !== 'eval')
    return `--store-vectors is an option of index and eval (add and remove keep what the index has; readers need nothing).`;
  if (values['vector-precision'] !== undefined && command !== 'index' && command !== 'eval')
    return `--vector-precision is an option of index and eval (add and remove keep what the index has; readers need nothing).`;
  return undefined;
}

/** `--store-vectors` as store options; it needs a store. */
function storeVectors(values: Values, url: string | undefined): { vectors?: boolean } {
  if (!values['store-vectors']) return {};
  if (url === undefined) {
    throw new InvalidArgumentError(
      'store-vectors',
      '--store-vectors keeps vectors in PostgreSQL: give --store <postgres-url> (or set GRAG_STORE) too.',
    );
  }
  return { vectors: true };
}

/** `--vector-precision` as a target option. */
function precisionOption(values: Values): { precision?: VectorPrecision } {
  const precision = vectorPrecisionFlag(values['vector-precision']);
  return precision === undefined ? {} : { precision };
}

/** `grag index`: its arguments checked, then the build (its module loaded only now). */
async function runIndex(io: CliIO, args: string[], values: Values, config: GragConfig): Promise<number> {
  if (args.length === 0)
    throw new InvalidArgumentError(
      'path',
      'Missing corpus path. Usage: grag index <path>... --method <name> --out <dir> (files, folders or globs).',
    );
  if (!values.method) {
    const { METHODS } = await import('./registry.js');
    throw new InvalidArgumentError(
      'method',
      `Missing --method. Available: ${METHODS.map((m) => m.name).join(', ')}.`,
    );
  }
  const url = storeUrl(values.store, io.env);
  if (!values.out && !values.estimate)
    throw new InvalidArgumentError(
      'out',
      url === undefined
        ? 'Missing --out <dir>: where to write the index.'
        : 'Missing --out <name>: the name of the index in the --store database, e.g. --out docs.',
    );
  // An estimate touches no store: it only says where the cache it reads would be.
  const out =
    values.out !== undefined && !values.estimate
      ? await indexTarget(values.out, url, {
          ...storeVectors(values, url),
          ...precisionOption(values),
          lock: lockSettings(config, io, values.out, values.quiet === true || values.json === true),
        })
      : undefined;
  try {
    const { buildIndex } = await import('./index-command.js');
    await buildIndex(io, args, values.method, out, config, methodOptions(values), {
      corpus: await corpusOptions(values, config),
      quiet: values.quiet === true,
      estimate: values.estimate === true,
      noCache: values['no-cache'] === true,
      json: values.json === true,
      ...(values.out !== undefined
        ? {
            defaultCacheDir: defaultTargetCacheDir(
              url === undefined ? { kind: 'directory', dir: values.out } : { kind: 'postgres' },
              io.cwd,
            ),
          }
        : {}),
    });
  } finally {
    await out?.close();
  }
  return 0;
}

/** `grag query`: its arguments checked, then retrieval and the answer (its module loaded only now). */
async function runQuery(io: CliIO, args: string[], values: Values, config: GragConfig): Promise<number> {
  const [dir, ...words] = args;
  if (!dir || words.length === 0)
    throw new InvalidArgumentError('question', 'Usage: grag query <dir> "<question>".');
  const topK = positiveIntFlag(values['top-k'], 'top-k');
  const { printQuery, queryIndex } = await import('./query-command.js');
  const target: IndexTarget = await indexTarget(dir, storeUrl(values.store, io.env));
  const { result, summary } = await queryIndex(target, words.join(' '), config, {
    answer: values['no-answer'] !== true,
    retrieve: parseSetOptions(values.set),
    ...(topK !== undefined ? { topK } : {}),
  }).finally(() => closeAll([target]));
  if (values.json) io.stdout.write(`${printableJson(result)}\n`);
  else {
    if (!values.quiet) io.stderr.write(`${summary}\n`);
    printQuery(io, result);
  }
  return 0;
}

/** Run the CLI; returns the exit code. Errors become one line on stderr. */
export async function run(argv: string[], io: CliIO): Promise<number> {
  let parsed: { values: Values; positionals: string[] };
  try {
    parsed = parseArgs({
      args: joinNegativeValues(argv),
      options: OPTIONS,
      allowPositionals: true,
      strict: true,
    });
  } catch (error) {
    // node:util's messages run over several lines; the first says what is wrong.
    const first = ((error as Error).message.split('\n')[0] ?? '').replace(/\.$/, '');
    io.stderr.write(`grag: ${printable(first)}. Run \`grag --help\`.\n`);
    return 2;
  }
  const { values, positionals } = parsed;
  const [command, ...args] = positionals;
  if (values.version) {
    io.stdout.write(`${VERSION}\n`);
    return 0;
  }
  if (values.help || !command) {
    io.stdout.write(`${USAGE}\n`);
    return command || values.help ? 0 : 2;
  }
  const misuse = usageProblem(command, args, values);
  if (misuse) {
    io.stderr.write(`grag: ${printable(misuse)} Run \`grag --help\`.\n`);
    return 2;
  }
  try {
    const config = await resolveConfig(configFlags(values), {
      env: io.env,
      cwd: io.cwd,
      ...(values.config ? { configPath: values.config } : {}),
    });
    switch (command) {
      case 'index':
        return await runIndex(io, args, values, config);
      case 'query':
        return await runQuery(io, args, values, config);
      case 'demo': {
        if (!values.quiet) {
          const { createProviders } = await import('./providers.js');
          io.stderr.write(`${createProviders(config).summary}\n`);
        }
        const { demo } = await import('./demo-command.js');
        await demo(io, config, values);
        return 0;
      }
      case 'eval': {
        const { evalCommand } = await import('./eval-command.js');
        return await evalCommand({
          io,
          config,
          corpus: await corpusOptions(values, config),
          args,
          flags: values,
          methodOptions: methodOptions(values),
          command: `grag ${argv.join(' ')}`,
          store: storeUrl(values.store, io.env),
          storeVectors: storeVectors(values, storeUrl(values.store, io.env)).vectors === true,
          ...precisionOption(values),
        });
      }
      case 'serve': {
        const { serveCommand } = await import('./serve-command.js');
        return await serveCommand({ io, config, args, flags: values, store: storeUrl(values.store, io.env) });
      }
      case 'add':
      case 'remove': {
        const { updateCommand } = await import('./update-command.js');
        return await updateCommand({
          io,
          config,
          ...(command === 'add' ? { corpus: await corpusOptions(values, config) } : {}),
          command,
          args,
          flags: values,
          store: storeUrl(values.store, io.env),
        });
      }
      case 'methods': {
        const { METHODS, methodListing } = await import('./registry.js');
        const { formatMethodTasks } = await import('./build-report.js');
        if (values.json) {
          io.stdout.write(`${JSON.stringify(methodListing(), null, 2)}\n`);
          return 0;
        }
        // Each method in two lines: its name and description, then the task contracts it calls.
        for (const m of METHODS) {
          io.stdout.write(
            `${m.name.padEnd(14)} ${m.description}\n${' '.repeat(15)}tasks: ${formatMethodTasks(m.method.capabilities.tasks)}\n`,
          );
        }
        return 0;
      }
      default:
        io.stderr.write(`grag: unknown command "${printable(command)}". Run \`grag --help\`.\n`);
        return 2;
    }
  } catch (error) {
    const { text, exitCode } = formatError(error, io.env);
    io.stderr.write(text);
    return exitCode;
  }
}

/**
 * What the CLI prints for an error that ends a command, and its exit code: a grag error is its one
 * line (exit 130 for an interrupted build, else 1); anything else is named as unexpected, with its
 * stack only when `GRAG_DEBUG` is set. The message is {@link printable}: the file names and ids it
 * quotes can neither break it into lines nor send escape sequences to the terminal.
 */
export function formatError(error: unknown, env: NodeJS.ProcessEnv): { text: string; exitCode: number } {
  if (GragError.isInstance(error)) {
    return { text: `grag: ${printable(error.message)}\n`, exitCode: AbortError.isInstance(error) ? 130 : 1 };
  }
  const message = printable(error instanceof Error ? error.message : String(error));
  return {
    text: `grag: unexpected error: ${message}${env.GRAG_DEBUG ? `\n${(error as Error).stack}` : ' (set GRAG_DEBUG=1 for the stack)'}\n`,
    exitCode: 1,
  };
}

/** Version of this CLI, from its package.json. */
export const VERSION: string = (
  JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }
).version;
