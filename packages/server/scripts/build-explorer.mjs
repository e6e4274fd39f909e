/**
 * Builds the grag explorer page into a directory that `grag serve` serves as is, offline:
 * `index.html`, `assets/explorer.js` and `assets/explorer.css` (sigma.js, graphology and
 * ForceAtlas2 bundled in, minified; no CDN). Run as a script it first type-checks the explorer
 * sources (`explorer/tsconfig.json`; `--no-typecheck` skips that), then builds:
 *
 *   node scripts/build-explorer.mjs [out-dir]      (default: dist/explorer)
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'esbuild';

const packageDir = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const sourceDir = join(packageDir, 'explorer');

/** Where `grag serve` looks for the explorer by default. */
export const DEFAULT_EXPLORER_DIR = join(packageDir, 'dist', 'explorer');

/**
 * Loads of remote code or styles: `src`/`href` attributes, CSS `url()`/`@import`, and module
 * imports or `fetch`/`importScripts` calls, each of an `http(s)://` or protocol-relative URL.
 */
const EXTERNAL_LOADS = [
  /\b(?:src|href)\s*=\s*["']?\s*(?:https?:)?\/\//i,
  /@import\s+(?:url\()?\s*["']?\s*(?:https?:)?\/\//i,
  /url\(\s*["']?\s*(?:https?:)?\/\//i,
  /\b(?:import|importScripts|fetch)\s*\(\s*["'`]\s*(?:https?:)?\/\//i,
  /\bfrom\s*["'`]\s*(?:https?:)?\/\//i,
];

/** The first remote load found in `text`, or undefined. */
export function findExternalLoad(text) {
  for (const pattern of EXTERNAL_LOADS) {
    const m = pattern.exec(text);
    if (m) return text.slice(m.index, m.index + 80).split('\n')[0];
  }
  return undefined;
}

function shortHash(bytes) {
  return createHash('sha256').update(bytes).digest('hex').slice(0, 10);
}

/**
 * Bundle the explorer into `outDir` (replaced): `index.html`, `assets/explorer.js`,
 * `assets/explorer.css`. Throws when an output would load anything from another origin.
 */
export async function buildExplorer(outDir = DEFAULT_EXPLORER_DIR) {
  const out = resolve(outDir);
  const result = await build({
    entryPoints: { explorer: join(sourceDir, 'src', 'main.ts') },
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: ['es2020'],
    minify: true,
    write: false,
    outdir: join(out, 'assets'),
    entryNames: '[name]',
    define: { 'process.env.NODE_ENV': '"production"' },
    logLevel: 'silent',
  });
  const assets = new Map();
  for (const file of result.outputFiles)
    assets.set(relative(out, file.path).split('\\').join('/'), file.contents);
  const js = assets.get('assets/explorer.js');
  const css = assets.get('assets/explorer.css');
  if (!js || !css)
    throw new Error(
      `build-explorer: esbuild wrote ${[...assets.keys()].join(', ')}, not assets/explorer.js and assets/explorer.css.`,
    );
  const template = await readFile(join(sourceDir, 'index.html'), 'utf8');
  const html = template
    .replace('{{js}}', `assets/explorer.js?v=${shortHash(js)}`)
    .replace('{{css}}', `assets/explorer.css?v=${shortHash(css)}`);
  if (html.includes('{{'))
    throw new Error('build-explorer: explorer/index.html has a placeholder other than {{js}} and {{css}}.');
  const files = new Map([['index.html', Buffer.from(html)], ...assets]);
  for (const [name, bytes] of files) {
    const found = findExternalLoad(Buffer.from(bytes).toString('utf8'));
    if (found)
      throw new Error(`build-explorer: ${name} loads a remote resource (${found}); bundle it instead.`);
  }
  await rm(out, { recursive: true, force: true });
  await mkdir(join(out, 'assets'), { recursive: true });
  for (const [name, bytes] of files) await writeFile(join(out, name), bytes);
  return {
    outDir: out,
    files: [...files].map(([name, bytes]) => ({ name, bytes: bytes.length })),
  };
}

/** Type-check the explorer sources with the workspace's TypeScript. */
function typecheck() {
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  const run = spawnSync(process.execPath, [tsc, '-p', join(sourceDir, 'tsconfig.json')], {
    stdio: 'inherit',
  });
  if (run.status !== 0)
    throw new Error('build-explorer: the explorer sources do not type-check (see above).');
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  const args = process.argv.slice(2);
  try {
    if (!args.includes('--no-typecheck')) typecheck();
    const { outDir, files } = await buildExplorer(args.find((a) => !a.startsWith('--')));
    const sizes = files.map((f) => `${f.name} ${(f.bytes / 1024).toFixed(1)} KiB`).join(', ');
    const shown = relative(process.cwd(), outDir);
    console.log(`build-explorer: wrote ${shown.startsWith('..') ? outDir : shown || '.'} (${sizes})`);
  } catch (error) {
    console.error(error instanceof Error ? error.message : String(error));
    process.exitCode = 1;
  }
}
