/**
 * The grag command line of this repository as one prebuilt esbuild bundle, so `pnpm grag …` starts
 * in a fraction of a second instead of compiling the TypeScript sources on every run (tsx).
 *
 * The bundle holds the workspace's own sources (`@grag/*` resolved through the root tsconfig's
 * `paths`, as the type-check and vitest resolve them); every npm dependency stays outside it,
 * imported from where pnpm installed it for the package that imports it (an absolute file URL,
 * resolved at build time), and native addons are loaded by their packages as before. In each
 * source file `import.meta.url` (`dirname`, `filename`) is that file's own URL, so whatever a module
 * finds beside itself (the CLI's demo corpus and package.json, the explorer page of `@grag/server`,
 * the loaders' worker) is found as when the sources run under tsx. Code is split at each dynamic
 * `import()`, so a command loads only the modules it uses.
 *
 * The bundle lives in `packages/cli/node_modules/.cache/grag-cli/<build>/`; `current.json` names the
 * build and every file it was made from with its modification time and size. {@link currentBundle}
 * returns the build while all of them are unchanged; after any edit, a new source file imported by
 * an edited one, a reinstall (`node_modules/.modules.yaml`) or a change of this script,
 * {@link buildCliBundle} makes a new one (about a second). Builds are written aside and switched in
 * with a rename, so processes started at the same time never see half a build.
 */
import { randomBytes } from 'node:crypto';
import { mkdir, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, isAbsolute, join, relative, sep } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

/** The repository root. */
export const REPO_ROOT = fileURLToPath(new URL('..', import.meta.url));

/** Format of `current.json`; a change makes every older bundle stale. */
const FORMAT = 1;

/**
 * Builds other than the current one are kept this long, at most {@link KEEP_OLD_BUILDS} of them: a
 * process started from one may still load its chunks (a command's code is imported when it runs).
 */
const KEEP_OLD_BUILDS_MS = 60 * 60 * 1000;
const KEEP_OLD_BUILDS = 4;

/** Where the bundles of the repository at `root` are kept. */
export function bundleCacheDir(root = REPO_ROOT) {
  return join(root, 'packages', 'cli', 'node_modules', '.cache', 'grag-cli');
}

/** Files besides the bundled sources whose change makes a bundle stale (missing ones are skipped). */
function extraInputs(root) {
  return [
    relative(root, fileURLToPath(import.meta.url)),
    'tsconfig.json',
    'tsconfig.base.json',
    join('node_modules', '.modules.yaml'),
  ];
}

/** `[mtimeMs, size]` of a file, or `undefined` when it is not there. */
async function fileStamp(path) {
  try {
    const s = await stat(path);
    return [s.mtimeMs, s.size];
  } catch {
    return undefined;
  }
}

/**
 * The entry file of the current bundle, or `undefined` when there is none or any file it was built
 * from has changed since. Reads `current.json` and stats its inputs (a few milliseconds).
 */
export async function currentBundle(root = REPO_ROOT) {
  const cache = bundleCacheDir(root);
  let manifest;
  try {
    manifest = JSON.parse(await readFile(join(cache, 'current.json'), 'utf8'));
  } catch {
    return undefined;
  }
  if (manifest?.format !== FORMAT || typeof manifest.build !== 'string' || !manifest.inputs) return undefined;
  const entry = join(cache, manifest.build, 'bin.mjs');
  const checks = [
    fileStamp(entry),
    ...Object.entries(manifest.inputs).map(async ([file, stamp]) => {
      const now = await fileStamp(join(root, file));
      return now === undefined
        ? stamp === null
        : stamp !== null && now[0] === stamp[0] && now[1] === stamp[1];
    }),
  ];
  const [bundle, ...same] = await Promise.all(checks);
  return bundle !== undefined && same.every(Boolean) ? entry : undefined;
}

/** esbuild, a development dependency of the repository this script is in. */
async function loadEsbuild() {
  return import(pathToFileURL(createRequire(import.meta.url).resolve('esbuild')).href);
}

/** Whether `path` is a file of the workspace's sources (`packages/<name>/src/...`). */
function sourceOfWorkspace(root, path) {
  const rel = relative(join(root, 'packages'), path).split(sep);
  return rel.length > 2 && rel[0] !== '..' && rel[1] === 'src' && !rel.includes('node_modules');
}

const IMPORT_META = /\bimport\.meta\.(url|dirname|filename)\b/g;

/**
 * The esbuild plugin: workspace sources are bundled with their own `import.meta`; every other bare
 * import is external, as the absolute file URL it resolves to from the importing file (one it
 * cannot resolve stays as written and fails, as under tsx, only when it is loaded).
 */
function sourcesPlugin(root) {
  return {
    name: 'grag-sources',
    setup(build) {
      build.onResolve({ filter: /^[^./]/ }, async (args) => {
        if (args.pluginData?.inner || isAbsolute(args.path)) return undefined;
        if (args.path.startsWith('node:')) return { path: args.path, external: true };
        const found = await build.resolve(args.path, {
          kind: args.kind,
          importer: args.importer,
          resolveDir: args.resolveDir,
          pluginData: { inner: true },
        });
        if (args.path.startsWith('@grag/')) {
          if (found.errors.length === 0 && sourceOfWorkspace(root, found.path)) return { path: found.path };
          return {
            errors: [
              {
                text: `${args.path} does not resolve to a workspace source (packages/<name>/src) through the paths of tsconfig.json${found.path ? ` but to ${found.path}` : ''}`,
              },
            ],
          };
        }
        if (found.errors.length > 0 || !found.path) return { path: args.path, external: true };
        if (found.external || !isAbsolute(found.path)) return { path: found.path, external: true };
        return { path: pathToFileURL(found.path).href, external: true };
      });
      build.onLoad({ filter: /\.(?:[cm]?ts|tsx)$/ }, async (args) => {
        if (!sourceOfWorkspace(root, args.path)) return undefined;
        const text = await readFile(args.path, 'utf8');
        const url = pathToFileURL(args.path);
        const meta = { url: url.href, dirname: dirname(args.path), filename: args.path };
        return {
          contents: text.replace(IMPORT_META, (_, key) => JSON.stringify(meta[key])),
          loader: args.path.endsWith('x') ? 'tsx' : 'ts',
        };
      });
    },
  };
}

/**
 * Bundle `packages/cli/src/bin.ts` of the repository at `root` and make it the current build;
 * returns its entry file. Throws esbuild's error (with file and line) when the sources do not parse.
 */
export async function buildCliBundle(root = REPO_ROOT) {
  const started = Date.now();
  const esbuild = await loadEsbuild();
  const cache = bundleCacheDir(root);
  const id = `${started.toString(36)}-${randomBytes(4).toString('hex')}`;
  const out = join(cache, `${id}.tmp`);
  await mkdir(cache, { recursive: true });
  try {
    const result = await esbuild.build({
      absWorkingDir: root,
      entryPoints: { bin: join(root, 'packages', 'cli', 'src', 'bin.ts') },
      tsconfig: join(root, 'tsconfig.json'),
      bundle: true,
      splitting: true,
      format: 'esm',
      platform: 'node',
      target: 'node20',
      outdir: out,
      outExtension: { '.js': '.mjs' },
      chunkNames: 'chunks/[name]-[hash]',
      keepNames: true,
      sourcemap: 'linked',
      sourcesContent: false,
      metafile: true,
      logLevel: 'silent',
      plugins: [sourcesPlugin(root)],
    });
    const files = [...Object.keys(result.metafile.inputs), ...extraInputs(root)];
    const inputs = {};
    for (const file of files.sort()) {
      const stamp = await fileStamp(join(root, file));
      // A file changed while the build read it: record a stamp no file has, so the next run rebuilds.
      inputs[file.split(sep).join('/')] = stamp === undefined ? null : stamp[0] >= started ? [-1, -1] : stamp;
    }
    await rename(out, join(cache, id));
    const manifest = join(cache, `${id}.json.tmp`);
    await writeFile(manifest, `${JSON.stringify({ format: FORMAT, build: id, inputs })}\n`);
    await rename(manifest, join(cache, 'current.json'));
  } catch (error) {
    await rm(out, { recursive: true, force: true });
    throw error;
  }
  await removeOldBuilds(cache, id);
  return join(cache, id, 'bin.mjs');
}

/**
 * Remove the builds other than `keep` (and leftovers of failed ones) that are older than
 * {@link KEEP_OLD_BUILDS_MS} or beyond the {@link KEEP_OLD_BUILDS} newest.
 */
async function removeOldBuilds(cache, keep) {
  const now = Date.now();
  const builds = [];
  for (const name of await readdir(cache)) {
    const born = /^([0-9a-z]+)-[0-9a-f]+/.exec(name);
    if (born && !name.startsWith(keep)) builds.push({ name, born: Number.parseInt(born[1], 36) });
  }
  builds.sort((a, b) => b.born - a.born);
  for (const [i, { name, born }] of builds.entries()) {
    if (i >= KEEP_OLD_BUILDS || now - born > KEEP_OLD_BUILDS_MS)
      await rm(join(cache, name), { recursive: true, force: true });
  }
}

/** The current bundle's entry file, built first when there is none or it is stale. */
export async function ensureCliBundle(root = REPO_ROOT) {
  return (await currentBundle(root)) ?? (await buildCliBundle(root));
}
