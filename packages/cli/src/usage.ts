/**
 * The command line's options and help text for each command, apart from the commands themselves:
 * `grag --version` and `grag --help` parse the command line and print these without loading any
 * command (and the methods, models and servers they import).
 */
import { InvalidArgumentError } from '@grag/core';

/** The number a positive-integer flag (`--top-k 5`) gives, or `undefined` when it is not set. */
export function positiveIntFlag(value: string | undefined, name: string): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n <= 0)
    throw new InvalidArgumentError(name, `Bad --${name}: expected a positive integer, got "${value}".`);
  return n;
}

/** The flags `grag eval` adds to the CLI's `parseArgs` options. */
export const EVAL_OPTIONS = {
  answer: { type: 'boolean' },
  limit: { type: 'string' },
  concurrency: { type: 'string' },
  judge: { type: 'boolean' },
  restart: { type: 'boolean' },
} as const;

/** Help lines of `grag eval`: its line under Commands, and its options. */
export const EVAL_USAGE = {
  command:
    '  eval <dataset> --methods a,b --out <dir>  evaluate methods on a QA dataset (resumable; JSON, markdown, SVG)',
  options: `Options of eval:
  --methods <a,b>            methods to compare (default: all)
  --budget <tokens>          context budget (default 12000)
  --answer                   generate answers (EM, F1, accuracy, ROUGE-L, Hit@1)
  --judge                    LLM judges: correctness, win rates vs the first method, Empowerment (needs an endpoint; implies --answer)
  --limit <n>                only the first n questions
  --concurrency <n>          questions in flight (default 1 offline, 4 with an endpoint)
  --restart                  evaluate afresh in a --out that holds results made with other settings
                             (an index saved there with the same build options is loaded)`,
};

/** The options `grag serve` adds to the command line. */
export const SERVE_OPTIONS = {
  dir: { type: 'string' },
  tokens: { type: 'string' },
  host: { type: 'string' },
  port: { type: 'string' },
  token: { type: 'string' },
  'allowed-host': { type: 'string', multiple: true },
  cors: { type: 'string', multiple: true },
  'no-explorer': { type: 'boolean' },
  workers: { type: 'string' },
  processes: { type: 'string' },
  'jobs-dir': { type: 'string' },
  'no-resume-jobs': { type: 'boolean' },
} as const;

/** Help lines of `grag serve`: its line under Commands, and its options. */
export const SERVE_USAGE = {
  command:
    '  serve <index-dir>... | --dir <folder>      serve indexes over HTTP: JSON API, streamed answers, explorer page at /\n                                             (with --store: index names, each loaded once at start)',
  options: `Options of serve:
  --dir <folder>             serve every index in the folder (each subfolder one index, named by it);
                             indexes can be created, documents uploaded and deleted over HTTP (jobs)
  --host <addr>              interface to bind (default 127.0.0.1; any other exposes the indexes to the
                             network and needs --token)
  --port <n>                 port (default 8787; 0 picks a free one)
  --token <t>                require Authorization: Bearer <t> on the API (default: $GRAG_TOKEN, else none)
  --tokens <file.json>       tokens scoped to workspaces: {"tokens": [{"token", "access": "read"|"write"|"admin",
                             "workspace"}], "workspaces": {"<workspace>": ["<index>", ...]}}
  --allowed-host <h>         also answer requests for Host h (name or name:port; repeat or comma-separate),
                             e.g. behind a reverse proxy; others get 421 (DNS rebinding guard)
  --cors <origin>            let pages of this exact origin call the API (repeat or comma-separate);
                             default: no CORS, requests from other origins get 403
  --no-explorer              serve the API only, no explorer page at /
  --workers <n|auto>         answer retrievals on n worker threads (auto: one per core), each holding its
                             own copy of the indexes; default 0: on the server's thread
  --processes <n|auto>       serve the port from n processes (auto: one per core), each with its own copy
                             of the indexes; writes and jobs stay in the first; default 1 (index
                             directories or --dir only, not --store)
  --jobs-dir <folder>        journal the write jobs and their inputs in this folder (with --store or index
                             directories; --dir journals in its folder), so they resume after a restart
  --no-resume-jobs           after a restart, report the interrupted jobs failed instead of running them again`,
};

/** Help lines of `grag add` and `grag remove` under Commands. */
export const UPDATE_USAGE = `  add <dir> <path>...                        index more files, folders or globs into an index (an existing id is replaced)
  remove <dir> <doc-id>...                   remove documents from an index`;
