/**
 * The explorer page's static files. The files are listed once, when the server is created: `/`
 * serves `index.html`, `/assets/<name>` serves a file of the `assets/` directory whose name was in
 * that listing. A request path is only ever compared with those names, never joined onto a path.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** A file ready to send. */
export interface StaticFile {
  body: Uint8Array;
  contentType: string;
}

/** The explorer's files, or why there are none. */
export interface ExplorerAssets {
  /** `index.html`, or `undefined` when the explorer is not built (or turned off). */
  readonly page: StaticFile | undefined;
  /** The files of `assets/`, by name. */
  asset(name: string): StaticFile | undefined;
  /** Where the files were looked for (`undefined` when the explorer is off). */
  readonly dir: string | undefined;
}

/** Where the explorer is by default: `dist/explorer` of this package, from `src/` and from `dist/` alike. */
export function defaultExplorerDir(): string {
  return fileURLToPath(new URL('../dist/explorer/', import.meta.url));
}

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.txt': 'text/plain; charset=utf-8',
};

function contentType(name: string): string {
  const dot = name.lastIndexOf('.');
  return (dot >= 0 ? TYPES[name.slice(dot).toLowerCase()] : undefined) ?? 'application/octet-stream';
}

/** A plain name of a file: no separator, no leading dot (so no `..`), no control character. */
const SAFE_NAME = /^[A-Za-z0-9_-][A-Za-z0-9._-]*$/;

/**
 * Read the explorer's files from `dir` (`false`: no explorer). Only regular files directly in
 * `dir/assets` with plain names (see {@link SAFE_NAME}) are kept, read into memory once.
 */
export function loadExplorerAssets(dir: string | URL | false): ExplorerAssets {
  if (dir === false) return { page: undefined, asset: () => undefined, dir: undefined };
  const root = dir instanceof URL ? fileURLToPath(dir) : dir;
  let page: StaticFile | undefined;
  try {
    page = { body: readFileSync(join(root, 'index.html')), contentType: contentType('index.html') };
  } catch {
    page = undefined;
  }
  const assets = new Map<string, StaticFile>();
  if (page) {
    let entries: import('node:fs').Dirent[] = [];
    try {
      entries = readdirSync(join(root, 'assets'), { withFileTypes: true });
    } catch {
      entries = [];
    }
    for (const entry of entries) {
      if (!entry.isFile() || !SAFE_NAME.test(entry.name)) continue;
      assets.set(entry.name, {
        body: readFileSync(join(root, 'assets', entry.name)),
        contentType: contentType(entry.name),
      });
    }
  }
  return { page, asset: (name) => assets.get(name), dir: root };
}

/**
 * The page `/` shows when the explorer's files are not there (it names no server path). The published
 * package ships them; in a clone `pnpm install` builds them, and the command it names rebuilds them
 * without building any other package.
 */
export const NOT_BUILT_PAGE = `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>grag serve</title></head>
<body style="font-family: system-ui, sans-serif; max-width: 40rem; margin: 3rem auto; line-height: 1.5">
<h1>grag serve</h1>
<p>The API is running (<code>POST /v1/query</code>, <code>GET /v1/indexes</code>, <code>GET /healthz</code>, described by <code>GET /openapi.json</code>), but the explorer page's assets are not built.</p>
<p>In a clone of the grag repository, build them with <code>npx -y pnpm@10 --filter @grag/server run build:explorer</code> (<code>npx -y pnpm@10 install</code> builds them too), then restart the server.</p>
</body>
</html>
`;
