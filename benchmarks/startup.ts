/**
 * Start-up time of the README's `grag` commands from a clone: `node grag.mjs --version`, `… methods`
 * and `… query <index> "<question>"` over a small index (naive-dense over examples/mixed-files, as
 * the README builds it), and the same through `npx -y pnpm@10 grag …`, each timed end to end as a
 * user types it, and split into what is npx's and pnpm's and what is grag's:
 *
 * - `node -e 0`: Node's own start, the reference timed in the same run;
 * - `npx -y pnpm@10 --version` and `npx -y pnpm@10 exec node -e 0`: npx finding pnpm, pnpm starting,
 *   and pnpm starting a process, with nothing of grag's (what `npx -y pnpm@10 grag` costs before
 *   grag runs);
 * - `node grag.mjs …`: the README's commands, the root launcher (it runs `scripts/grag.mjs`, as the
 *   root `grag` script does: the prebuilt bundle of the CLI, up to date);
 * - `node grag.mjs --version` right after a source changed (the bundle is rebuilt first;
 *   here forced by removing the bundle's `current.json`);
 * - `tsx packages/cli/src/bin.ts …`: what the root script ran before, with tsx's transform cache
 *   warm, and `--version` with the cache off (`TSX_DISABLE_CACHE=1`, a first run).
 *
 * Every command runs `--runs` times (default 7), the cases interleaved round by round so that the
 * load of a shared machine spreads over all of them; min / median / max wall time of each. Every run
 * must exit 0 and print what the command should (the version, the methods, the README's answer).
 * Writes benchmarks/results/startup.{json,md}.
 *
 *   pnpm tsx benchmarks/startup.ts [--runs 7] [--out benchmarks/results] [--render]
 */
import { execFile } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { bundleCacheDir } from '../scripts/cli-bundle.mjs';
import { machine } from './lib.js';

const repo = fileURLToPath(new URL('..', import.meta.url));
const QUESTION = 'Which research vessel did the Kessler Shipyard deliver in 2023?';
const ANSWER = /^A: Aurora Tern II$/m;

/** One command line timed. */
interface Case {
  id: string;
  /** What the table shows. */
  label: string;
  group: 'reference' | 'npx + pnpm' | 'readme' | 'launcher' | 'tsx';
  command: string;
  args: string[];
  env?: NodeJS.ProcessEnv;
  /** What a run must print on stdout. */
  expect?: RegExp;
  /** Run before each timed run, untimed. */
  before?: () => Promise<void>;
}

/** What `startup.json` holds for one case. */
interface CaseResult {
  id: string;
  label: string;
  group: Case['group'];
  command: string;
  ms: number[];
  minMs: number;
  medianMs: number;
  maxMs: number;
}

interface Report {
  benchmark: 'startup';
  date: string;
  machine: ReturnType<typeof machine>;
  loadAverage: { start: number; end: number };
  runs: number;
  pnpm: string;
  npm: string;
  cases: CaseResult[];
}

/** What a user's shell has: no OpenAI settings (grag runs offline), no pnpm of an outer `pnpm run`. */
const ENV: NodeJS.ProcessEnv = {
  PATH: process.env.PATH,
  HOME: process.env.HOME,
  TMPDIR: tmpdir(),
  ...(process.env.npm_config_cache ? { npm_config_cache: process.env.npm_config_cache } : {}),
};

function exec(
  command: string,
  args: string[],
  env: NodeJS.ProcessEnv = {},
): Promise<{ ms: number; stdout: string; stderr: string; code: number }> {
  const started = performance.now();
  return new Promise((done) => {
    execFile(
      command,
      args,
      { cwd: repo, env: { ...ENV, ...env }, timeout: 300_000, maxBuffer: 1 << 26 },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
        done({ ms: performance.now() - started, stdout: String(stdout), stderr: String(stderr), code });
      },
    );
  });
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

function cases(index: string, version: string): Case[] {
  const node = process.execPath;
  const tsx = join(repo, 'node_modules', '.bin', 'tsx');
  const bin = 'packages/cli/src/bin.ts';
  const launcher = 'grag.mjs';
  const versionLine = new RegExp(`^${version.replaceAll('.', '\\.')}\\n$`);
  const methodsList = /^naive-dense .*\n(?:.*\n)*^sg-rag /m;
  const readme = (args: string[]) => ['-y', 'pnpm@10', 'grag', ...args];
  return [
    { id: 'node', label: '`node -e 0`', group: 'reference', command: node, args: ['-e', '0'] },
    {
      id: 'pnpm-version',
      label: '`npx -y pnpm@10 --version`',
      group: 'npx + pnpm',
      command: 'npx',
      args: ['-y', 'pnpm@10', '--version'],
    },
    {
      id: 'pnpm-exec',
      label: '`npx -y pnpm@10 exec node -e 0`',
      group: 'npx + pnpm',
      command: 'npx',
      args: ['-y', 'pnpm@10', 'exec', 'node', '-e', '0'],
    },
    {
      id: 'readme-version',
      label: '`npx -y pnpm@10 grag --version`',
      group: 'readme',
      command: 'npx',
      args: readme(['--version']),
      expect: new RegExp(`^${version.replaceAll('.', '\\.')}$`, 'm'),
    },
    {
      id: 'readme-methods',
      label: '`npx -y pnpm@10 grag methods`',
      group: 'readme',
      command: 'npx',
      args: readme(['methods']),
      expect: methodsList,
    },
    {
      id: 'readme-query',
      label: '`npx -y pnpm@10 grag query <index> "…"`',
      group: 'readme',
      command: 'npx',
      args: readme(['query', index, QUESTION]),
      expect: ANSWER,
    },
    {
      id: 'launcher-version',
      label: '`node grag.mjs --version`',
      group: 'launcher',
      command: node,
      args: [launcher, '--version'],
      expect: versionLine,
    },
    {
      id: 'launcher-methods',
      label: '`node grag.mjs methods`',
      group: 'launcher',
      command: node,
      args: [launcher, 'methods'],
      expect: methodsList,
    },
    {
      id: 'launcher-query',
      label: '`node grag.mjs query <index> "…"`',
      group: 'launcher',
      command: node,
      args: [launcher, 'query', index, QUESTION],
      expect: ANSWER,
    },
    {
      id: 'launcher-rebuild',
      label: '`node grag.mjs --version`, bundle rebuilt first',
      group: 'launcher',
      command: node,
      args: [launcher, '--version'],
      expect: versionLine,
      before: () => rm(join(bundleCacheDir(repo), 'current.json'), { force: true }),
    },
    {
      id: 'tsx-version',
      label: '`tsx packages/cli/src/bin.ts --version`',
      group: 'tsx',
      command: tsx,
      args: [bin, '--version'],
      expect: versionLine,
    },
    {
      id: 'tsx-version-cold',
      label: '`tsx packages/cli/src/bin.ts --version`, tsx cache off',
      group: 'tsx',
      command: tsx,
      args: [bin, '--version'],
      env: { TSX_DISABLE_CACHE: '1' },
      expect: versionLine,
    },
    {
      id: 'tsx-query',
      label: '`tsx packages/cli/src/bin.ts query <index> "…"`',
      group: 'tsx',
      command: tsx,
      args: [bin, 'query', index, QUESTION],
      expect: ANSWER,
    },
  ];
}

const fmt = (ms: number) => (ms / 1000).toFixed(2);

function render(report: Report): string {
  const m = report.machine;
  const by = new Map(report.cases.map((c) => [c.id, c]));
  const stat = (id: string, key: 'minMs' | 'medianMs') => by.get(id)?.[key] ?? Number.NaN;
  const overhead = (key: 'minMs' | 'medianMs') => stat('pnpm-exec', key) - stat('node', key);
  const row = (c: CaseResult) =>
    `| ${c.label} | ${fmt(c.minMs)} | ${fmt(c.medianMs)} | ${fmt(c.maxMs)} | ${(c.medianMs / stat('node', 'medianMs')).toFixed(1)} |`;
  const both = (f: (key: 'minMs' | 'medianMs') => number) => `${fmt(f('medianMs'))} / ${fmt(f('minMs'))}`;
  const ours = (command: string, npxId: string, launcherId: string) =>
    `| \`${command}\` | ${both((k) => stat(launcherId, k))} | ${both((k) => stat(npxId, k))} | ${both(overhead)} |`;
  return [
    '# Start-up time of the README’s `grag` commands',
    '',
    `Run ${report.date.slice(0, 10)} on ${m.cpu} (${m.cores} cores, ${m.memoryGiB} GiB), Node ${m.node}, ${m.platform}, pnpm ${report.pnpm} (through npx of npm ${report.npm});`,
    `1-minute load average ${report.loadAverage.start.toFixed(2)} at the start and ${report.loadAverage.end.toFixed(2)} at the end (other jobs shared the machine).`,
    `Wall time of each command line, ${report.runs} runs each, interleaved; seconds. The index of \`query\` is naive-dense over`,
    '`examples/mixed-files` (the README’s), asked the README’s question offline; every run printed the expected answer.',
    '',
    '| command | min s | median s | max s | × `node -e 0` |',
    '|---|---:|---:|---:|---:|',
    ...report.cases.map(row),
    '',
    'The README’s commands run `node grag.mjs …` (the root launcher, which runs `scripts/grag.mjs`); `npx -y pnpm@10 grag …`',
    'runs the same through npx and pnpm. Median / min, seconds. npx and pnpm’s part is the time of',
    '`npx -y pnpm@10 exec node -e 0` less that of `node -e 0`: npx resolving `pnpm@10` from its cache, pnpm starting and',
    'reading the workspace, and the process it starts.',
    '',
    '| command | `node grag.mjs` (the README’s) | `npx -y pnpm@10 grag` | npx + pnpm alone |',
    '|---|---:|---:|---:|',
    ours('--version', 'readme-version', 'launcher-version'),
    ours('methods', 'readme-methods', 'launcher-methods'),
    ours('query <index> "…"', 'readme-query', 'launcher-query'),
    '',
    `npx and pnpm alone took ${fmt(overhead('minMs'))} s at best and ${fmt(overhead('medianMs'))} s at the median in this run. grag’s own start`,
    `is ${fmt(stat('launcher-version', 'medianMs'))} s for \`--version\` (the tsx it replaced: ${fmt(stat('tsx-version', 'medianMs'))} s with a warm cache,`,
    `${fmt(stat('tsx-version-cold', 'medianMs'))} s without) and ${fmt(stat('launcher-query', 'medianMs'))} s for \`query\` (tsx: ${fmt(stat('tsx-query', 'medianMs'))} s).`,
    '',
    '`scripts/grag.mjs` (run by `grag.mjs` and by the root `grag` script) runs an esbuild bundle of the CLI’s workspace sources (npm',
    'dependencies and native addons stay outside it), checking first that no file it was built from changed; after',
    'an edit it rebuilds it (the “bundle rebuilt first” row). `pnpm install` builds it. Each command’s code is',
    'imported when the command runs, so `--version` and `methods` load no model, loader or server. The `tsx` rows',
    'are what the root script ran before, on the same sources.',
    '',
    'Reproduce: `npx -y pnpm@10 tsx benchmarks/startup.ts` from the repository root (`--render` rewrites this page',
    'from `startup.json` without running).',
    '',
  ].join('\n');
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      runs: { type: 'string', default: '7' },
      out: { type: 'string', default: 'benchmarks/results' },
      render: { type: 'boolean', default: false },
    },
  });
  if (values.render) {
    const saved = JSON.parse(readFileSync(join(values.out, 'startup.json'), 'utf8')) as Report;
    writeFileSync(join(values.out, 'startup.md'), render(saved));
    return;
  }
  const runs = Number(values.runs);
  const version = (
    JSON.parse(readFileSync(join(repo, 'packages', 'cli', 'package.json'), 'utf8')) as { version: string }
  ).version;
  const work = await mkdtemp(join(tmpdir(), 'grag-startup-'));
  try {
    const index = join(work, 'my-index');
    const built = await exec(process.execPath, [
      'scripts/grag.mjs',
      'index',
      'examples/mixed-files',
      '--method',
      'naive-dense',
      '--out',
      index,
      '-q',
    ]);
    if (built.code !== 0) throw new Error(`startup: building the index failed:\n${built.stderr}`);
    const pnpm = (await exec('npx', ['-y', 'pnpm@10', '--version'])).stdout.trim();
    const npm = (await exec('npm', ['--version'])).stdout.trim();
    const all = cases(index, version);
    const times = new Map<string, number[]>(all.map((c) => [c.id, []]));
    const start = loadavg()[0]!;
    // One untimed round first: npx's and the OS's caches warm, the bundle up to date.
    for (let round = 0; round <= runs; round++) {
      for (const c of all) {
        await c.before?.();
        const r = await exec(c.command, c.args, c.env);
        const label = `${c.command} ${c.args.join(' ')}`;
        if (r.code !== 0) throw new Error(`startup: ${label} exited ${r.code}:\n${r.stderr}`);
        if (c.expect && !c.expect.test(r.stdout))
          throw new Error(`startup: ${label} printed\n${r.stdout}\nwhich does not match ${c.expect}`);
        if (round > 0) times.get(c.id)!.push(r.ms);
      }
      if (round > 0) process.stderr.write(`startup: round ${round}/${runs}\n`);
    }
    const report: Report = {
      benchmark: 'startup',
      date: new Date().toISOString(),
      machine: machine(),
      loadAverage: { start, end: loadavg()[0]! },
      runs,
      pnpm,
      npm,
      cases: all.map((c) => {
        const ms = times.get(c.id)!.map((t) => Math.round(t));
        return {
          id: c.id,
          label: c.label,
          group: c.group,
          command: [c.command === process.execPath ? 'node' : c.command.replace(`${repo}/`, ''), ...c.args]
            .join(' ')
            .replace(index, '<index>'),
          ms,
          minMs: Math.min(...ms),
          medianMs: median(ms),
          maxMs: Math.max(...ms),
        };
      }),
    };
    mkdirSync(values.out, { recursive: true });
    writeFileSync(join(values.out, 'startup.json'), `${JSON.stringify(report, null, 2)}\n`);
    const md = render(report);
    writeFileSync(join(values.out, 'startup.md'), md);
    process.stdout.write(md);
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  main().catch((error) => {
    console.error(error instanceof Error ? (error.stack ?? error.message) : String(error));
    process.exitCode = 1;
  });
}
