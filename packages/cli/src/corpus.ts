/**
 * Reading a corpus: files, folders (recursively) and globs, each file turned into documents by the
 * loader of its extension (the caller's loaders first, then the built-in ones: PDF, Word, HTML,
 * CSV/TSV, JSON, JSONL, Markdown, text). Whatever is not read is named with its reason.
 */
import type { Dirent } from 'node:fs';
import { existsSync } from 'node:fs';
import { readdir, readFile, stat } from 'node:fs/promises';
import { basename, extname, join, relative, resolve, sep } from 'node:path';
import {
  AbortError,
  type Document,
  InputError,
  InvalidArgumentError,
  type Loader,
  type LoaderOptions,
  type SkippedInput,
  type TextEncodingName,
} from '@grag/core';
import { decodeText } from '@grag/core/kit';
import { defaultLoaders, findLoader, loadFile } from '@grag/loaders';
import ignore, { type Ignore } from 'ignore';
import picomatch from 'picomatch';

/** A file or record that was not read, and why (the type is `@grag/core`'s, re-exported). */
export type { SkippedInput } from '@grag/core';

/** A file that was read in an encoding other than UTF-8, and why that encoding was assumed. */
export interface DecodedInput {
  path: string;
  encoding: Exclude<TextEncodingName, 'utf-8'>;
  /** E.g. `not valid UTF-8`, `byte-order mark`. */
  reason: string;
}

/** A skipped input and what it was: a whole file (or folder, link, special file) or one record of a file. */
export interface CorpusSkip extends SkippedInput {
  kind: 'file' | 'record';
}

export interface Corpus {
  documents: Document[];
  /** Every input not read, in the order met: files (and folders) first-hand, records of files read. */
  skipped: CorpusSkip[];
  /** Files not in UTF-8, with the encoding they were decoded from (see `decodeText`). */
  decoded: DecodedInput[];
  /** Files read that gave documents (each file counted once: a skipped file is only in `skipped`). */
  files: number;
  /** Files and folders left out on purpose: by `.gragignore`, `include` or `exclude` (not read, not skipped). */
  excluded: number;
}

/** One file being loaded, for progress: `start` before its loader runs, `end` after. */
export interface CorpusFileEvent {
  phase: 'start' | 'end';
  /** The file on disk. */
  path: string;
  /** Its place among the files to load, from 1. */
  index: number;
  total: number;
  bytes: number;
  /** Time its loader took (`end` only). */
  ms?: number;
}

/** Options of {@link readCorpus}. */
export interface ReadCorpusOptions extends LoaderOptions {
  /**
   * Your loaders, tried before the built-in ones: a file goes to the first loader that lists its
   * extension. A loader throws an `InputError` for a file it cannot read; that file is skipped.
   */
  loaders?: readonly Loader[];
  /** Globs (picomatch; a glob without `/` matches the file name at any depth): only matching files are read. */
  include?: readonly string[];
  /** Globs of files and folders to leave out (same syntax as `include`). */
  exclude?: readonly string[];
  /** Read `.gragignore` (gitignore syntax) at the root of each folder given. @default true */
  ignoreFile?: boolean;
  /** Return an empty corpus instead of throwing when nothing usable is found (e.g. `grag add` over several paths). */
  allowEmpty?: boolean;
  /** Called before and after each file's loader runs. */
  onFile?: (event: CorpusFileEvent) => void;
  /** The folder relative paths start from; messages keep them relative. @default process.cwd() */
  cwd?: string;
}

/** The file at the root of a corpus folder that lists what to leave out, in gitignore syntax. */
export const IGNORE_FILE = '.gragignore';

/** Largest file read when `limits.maxBytes` is not set (core's `LoaderLimits` default). */
const DEFAULT_MAX_BYTES = 100 * 1024 * 1024;

/** Every extension `loaders` and the built-in loaders of `@grag/loaders` take, sorted: `.csv`, `.docx`, … */
export function supportedExtensions(loaders: readonly Loader[] = []): string[] {
  return [
    ...new Set([...loaders, ...defaultLoaders()].flatMap((l) => l.extensions.map((e) => e.toLowerCase()))),
  ].sort();
}

/**
 * True when `bytes` are binary data rather than text in UTF-8, UTF-16, Windows-1252 or Latin-1:
 * NUL bytes outside UTF-16, or too many control characters (see `decodeText`).
 */
export function looksBinary(bytes: Uint8Array): boolean {
  return decodeText(bytes).binary === true;
}

/** The kind of a file that is neither a regular file nor a directory, for a skip reason. */
function specialKind(info: { isFIFO(): boolean; isSocket(): boolean }): string {
  return info.isFIFO() ? 'a named pipe (FIFO)' : info.isSocket() ? 'a socket' : 'a device';
}

/** What one corpus argument names: a file, a folder, or a glob over a folder. */
interface Source {
  arg: string;
  kind: 'file' | 'dir' | 'glob';
  /** The folder walked (`dir`, `glob`), or the file, resolved from the working directory. */
  at: string;
  /** The same as given (relative stays relative), for messages. */
  shown: string;
  /** Matches a path relative to `at` (`glob` only). */
  glob?: (rel: string) => boolean;
}

/** A file to load: where it is, and its name in citations and ids. */
interface Candidate {
  /** Its path for the file system. */
  disk: string;
  /** Its path as messages show it (under the path as given). */
  shown: string;
  name: string;
  size: number;
  source: Source;
}

/** Filters shared by every source: `--include`, `--exclude`. */
interface Filters {
  include?: (rel: string) => boolean;
  exclude?: (rel: string) => boolean;
}

const toPosix = (path: string) => (sep === '/' ? path : path.split(sep).join('/'));

function matcher(globs: readonly string[] | undefined, what: string): ((rel: string) => boolean) | undefined {
  if (!globs?.length) return undefined;
  for (const glob of globs) {
    if (glob.trim() === '')
      throw new InvalidArgumentError(
        what,
        `--${what} needs a glob, e.g. --${what} '*.pdf'; got an empty one.`,
      );
  }
  // A glob without a slash names a file or folder at any depth (as in .gitignore); picomatch's own
  // `basename` option would apply that to every glob, so the two kinds are matched apart.
  const names = globs.filter((g) => !g.replace(/\/+$/, '').includes('/'));
  const paths = globs.filter((g) => g.replace(/\/+$/, '').includes('/'));
  const byName = names.length
    ? picomatch(
        names.map((g) => g.replace(/\/+$/, '')),
        { dot: true },
      )
    : undefined;
  const byPath = paths.length ? picomatch(paths, { dot: true }) : undefined;
  return (rel) => (byPath?.(rel) ?? false) || (byName?.(rel.slice(rel.lastIndexOf('/') + 1)) ?? false);
}

/** The `.gragignore` of `root`, if it has one. */
async function readIgnoreFile(root: string): Promise<Ignore | undefined> {
  const text = await readFile(join(root, IGNORE_FILE), 'utf8').catch(() => undefined);
  return text === undefined ? undefined : ignore().add(text);
}

/** What an argument that does not exist as a path but is a glob matches: its folder and pattern. */
function asGlob(arg: string, cwd: string): { base: string; glob: string } | undefined {
  if (existsSync(resolve(cwd, arg))) return undefined;
  const scan = picomatch.scan(arg);
  if (!scan.isGlob) return undefined;
  return { base: scan.base === '' ? '.' : scan.base, glob: scan.glob };
}

/** The files and folders `paths` name: each path, or for a glob the folder it starts at. */
export function corpusRoots(paths: readonly string[], cwd = process.cwd()): string[] {
  return paths.map((path) => resolve(cwd, asGlob(path, cwd)?.base ?? path));
}

/**
 * The regular files under `source.at`, recursively. What is not read is pushed to `skipped` with
 * the reason: hidden entries and node_modules, unreadable directories, links to directories (not
 * followed, so a link cycle cannot loop), broken or looping links, and special files (a FIFO would
 * block the read forever). Entries that `.gragignore`, `exclude` or `include` leave out are counted,
 * not reported; under a glob, entries the glob does not match are neither.
 */
async function listFiles(
  source: Source,
  filters: Filters,
  ignoreFile: boolean,
  skipped: CorpusSkip[],
  out: Candidate[],
): Promise<number> {
  const root = source.at;
  const ig = ignoreFile ? await readIgnoreFile(root) : undefined;
  let excluded = 0;
  const shown = (path: string) => join(source.shown, relative(root, path));
  const skip = (path: string, reason: string) => skipped.push({ path: shown(path), reason, kind: 'file' });
  const walk = async (dir: string) => {
    let entries: Dirent[];
    try {
      entries = await readdir(dir, { withFileTypes: true });
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
      if (dir === root)
        throw new InputError(
          source.shown,
          `Cannot read the corpus directory ${source.shown} (${code}); check its permissions.`,
        );
      skip(dir, `unreadable directory (${code})`);
      return;
    }
    entries.sort((a, b) => a.name.localeCompare(b.name));
    for (const entry of entries) {
      const path = join(dir, entry.name);
      const rel = toPosix(relative(root, path));
      if (dir === root && entry.name === IGNORE_FILE && ig) continue;
      const isDir = entry.isDirectory();
      if (ig?.ignores(isDir ? `${rel}/` : rel) || filters.exclude?.(rel)) {
        excluded++;
        continue;
      }
      if (entry.name.startsWith('.') || entry.name === 'node_modules') {
        // Under a glob, what the glob does not name was not asked for.
        if (!source.glob)
          skip(path, `${entry.name === 'node_modules' ? 'node_modules' : 'hidden'} (not read)`);
        continue;
      }
      if (isDir) {
        await walk(path);
        continue;
      }
      if (source.glob && !source.glob(rel)) continue;
      if (filters.include && !filters.include(rel)) {
        excluded++;
        continue;
      }
      const name = rel;
      if (entry.isFile()) {
        const size = await stat(path).then(
          (s) => s.size,
          () => 0,
        );
        out.push({ disk: path, shown: shown(path), name, size, source });
      } else if (entry.isSymbolicLink()) {
        const target = await stat(path).catch((error: NodeJS.ErrnoException) => error);
        if (target instanceof Error) skip(path, `broken link (${target.code ?? target.message})`);
        else if (target.isDirectory()) skip(path, 'link to a directory (not followed)');
        else if (target.isFile())
          out.push({ disk: path, shown: shown(path), name, size: target.size, source });
        else skip(path, `link to ${specialKind(target)}, not a regular file`);
      } else skip(path, `${specialKind(entry)}, not a regular file`);
    }
  };
  await walk(root);
  return excluded;
}

/** How the paths were named, for messages: `a`, or `a, b and c`. */
function listed(paths: readonly string[]): string {
  return paths.length <= 1 ? (paths[0] ?? '') : `${paths.slice(0, -1).join(', ')} and ${paths.at(-1)}`;
}

/** The reason a loader gave, without the file name it starts with. */
function reasonOf(error: Error, name: string): string {
  let message = (error.message.split('\n')[0] ?? '').trim();
  for (const prefix of [`${name}: `, `${name} `]) {
    if (message.startsWith(prefix)) {
      message = message.slice(prefix.length);
      break;
    }
  }
  return message.replace(/\.$/, '') || error.name;
}

/** A record path of a loader (`name:3`, `name row 4`) on the file as it is on disk. */
function onDisk(path: string, name: string, disk: string): string {
  return path.startsWith(name) ? disk + path.slice(name.length) : `${disk}: ${path}`;
}

/** What the corpus argument `arg` names, checked: an existing file or folder, or a glob over a folder. */
async function resolveSource(arg: string, cwd: string, supported: string): Promise<Source> {
  const glob = asGlob(arg, cwd);
  const shown = glob?.base ?? arg;
  const at = resolve(cwd, shown);
  const info = await stat(at).catch((error: NodeJS.ErrnoException) => error);
  const pass = `Pass files, directories or globs of ${supported} files.`;
  if (info instanceof Error)
    throw new InputError(
      arg,
      info.code === 'ENOENT'
        ? `Corpus path ${shown} does not exist. ${pass}`
        : `Cannot read the corpus path ${shown} (${info.code ?? info.message}). ${pass}`,
    );
  if (glob && !info.isDirectory())
    throw new InputError(arg, `The glob ${arg} starts at ${shown}, which is not a directory.`);
  if (!info.isDirectory() && !info.isFile())
    throw new InputError(
      arg,
      `Corpus path ${arg} is ${specialKind(info)}, not a file or directory; ${pass[0]?.toLowerCase()}${pass.slice(1)}`,
    );
  return glob
    ? { arg, kind: 'glob', at, shown, glob: picomatch(glob.glob, { dot: false }) }
    : { arg, kind: info.isDirectory() ? 'dir' : 'file', at, shown };
}

/**
 * Read a corpus: files, folders (recursively) and globs (`'docs/**\/*.pdf'`, quoted so the shell
 * leaves it), each file read by the loader of its extension (see {@link ReadCorpusOptions.loaders}).
 * A folder's files are named by their path inside it, a file given on its own by its name; a
 * folder's `.gragignore` and the `include` / `exclude` globs leave files out. Hidden files,
 * node_modules, links to folders, special files, unsupported types, unreadable, damaged, binary,
 * empty files and files over a limit are skipped and reported in `skipped` (one entry each, with
 * the reason), as are the records a loader could not read and duplicate ids; never silently
 * dropped. Files not in UTF-8 are listed in `decoded`. Throws {@link InputError} when a path does
 * not exist or a glob matches nothing, and when nothing usable is found unless `allowEmpty`; an
 * {@link InvalidArgumentError} when two paths give the same document id.
 */
export async function readCorpus(
  paths: string | readonly string[],
  options: ReadCorpusOptions = {},
): Promise<Corpus> {
  const args = typeof paths === 'string' ? [paths] : [...paths];
  if (args.length === 0)
    throw new InvalidArgumentError('paths', 'readCorpus: no path given; pass files, folders or globs.');
  const supported = supportedExtensions(options.loaders).join(', ');
  const cwd = options.cwd ?? process.cwd();
  const sources: Source[] = [];
  for (const arg of args) sources.push(await resolveSource(arg, cwd, supported));
  const filters: Filters = {};
  const include = matcher(options.include, 'include');
  const exclude = matcher(options.exclude, 'exclude');
  if (include) filters.include = include;
  if (exclude) filters.exclude = exclude;
  const skipped: CorpusSkip[] = [];
  const candidates: Candidate[] = [];
  let excluded = 0;
  for (const source of sources) {
    if (source.kind === 'file') {
      const name = basename(source.at);
      if (filters.exclude?.(name) || (filters.include && !filters.include(name))) {
        excluded++;
        continue;
      }
      const size = (await stat(source.at)).size;
      candidates.push({ disk: source.at, shown: source.shown, name, size, source });
      continue;
    }
    const before = candidates.length + skipped.length;
    const left = await listFiles(source, filters, options.ignoreFile !== false, skipped, candidates);
    excluded += left;
    if (source.kind === 'glob' && candidates.length + skipped.length === before && left === 0)
      throw new InputError(
        source.arg,
        `No file matches ${source.arg}; check the pattern (quote it so the shell leaves it to grag).`,
      );
  }

  const {
    loaders,
    include: _i,
    exclude: _e,
    ignoreFile: _g,
    allowEmpty: _a,
    onFile,
    cwd: _c,
    ...loaderOptions
  } = options;
  const maxBytes = options.limits?.maxBytes ?? DEFAULT_MAX_BYTES;
  const documents: Document[] = [];
  const decoded: DecodedInput[] = [];
  let read = 0;
  /** Which argument each id came from: within one argument a repeat is skipped, across two it is refused. */
  const ids = new Map<string, Source>();
  const skip = (path: string, reason: string, kind: CorpusSkip['kind'] = 'file') =>
    skipped.push({ path, reason, kind });
  for (const [i, file] of candidates.entries()) {
    const ext = extname(file.name).toLowerCase();
    const loader = findLoader(file.name, loaders);
    if (!loader) {
      skip(file.shown, `unsupported file type "${ext || 'none'}" (supported: ${supported})`);
      continue;
    }
    if (file.size > maxBytes) {
      skip(
        file.shown,
        `too large (${(file.size / 2 ** 20).toFixed(1)} MiB; the limit is ${(maxBytes / 2 ** 20).toFixed(0)} MiB)`,
      );
      continue;
    }
    let bytes: Uint8Array;
    try {
      bytes = await readFile(file.disk);
    } catch (error) {
      skip(file.shown, `unreadable (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
      continue;
    }
    const event = { path: file.shown, index: i + 1, total: candidates.length, bytes: bytes.length };
    onFile?.({ phase: 'start', ...event });
    const started = performance.now();
    let loaded: Awaited<ReturnType<typeof loadFile>>;
    try {
      loaded = await loadFile(
        { path: file.name, bytes },
        { ...loaderOptions, ...(loaders ? { loaders: [...loaders] } : {}) },
      );
    } catch (error) {
      if (AbortError.isInstance(error)) throw error;
      if (options.signal?.aborted) throw new AbortError(undefined, { cause: options.signal.reason });
      const reason = InputError.isInstance(error)
        ? reasonOf(error, file.name)
        : `the ${loader.name} loader failed: ${reasonOf(error as Error, file.name)}`;
      skip(file.shown, reason);
      continue;
    } finally {
      onFile?.({ phase: 'end', ...event, ms: performance.now() - started });
    }
    for (const s of loaded.skipped) skip(onDisk(s.path, file.name, file.shown), s.reason, 'record');
    let kept = 0;
    for (const doc of loaded.documents) {
      const first = ids.get(doc.id);
      if (first !== undefined && first !== file.source) {
        throw new InvalidArgumentError(
          'path',
          `The document id ${JSON.stringify(doc.id)} comes from both ${first.arg} and ${file.source.arg}; rename one, leave one out (--exclude), or add them in separate commands.`,
        );
      }
      if (first !== undefined) {
        skip(file.shown, `duplicate id "${doc.id}"`, 'record');
        continue;
      }
      ids.set(doc.id, file.source);
      documents.push(doc);
      kept++;
    }
    if (loaded.decoded) decoded.push({ path: file.shown, ...loaded.decoded });
    if (loaded.documents.length === 0 && loaded.skipped.length === 0) skip(file.shown, 'no text');
    if (kept > 0) read++;
  }
  if (documents.length === 0 && !options.allowEmpty) {
    const shown = skipped
      .slice(0, 3)
      .map((s) => `${s.path}: ${s.reason}`)
      .join('; ');
    const more = skipped.length > 3 ? '; …' : '';
    const why =
      skipped.length > 0
        ? ` (${skipped.length} input${skipped.length === 1 ? '' : 's'} skipped: ${shown}${more})`
        : excluded > 0
          ? ` (${excluded} left out by ${IGNORE_FILE}, --include or --exclude)`
          : '';
    throw new InputError(
      args[0] ?? '',
      `The corpus at ${listed(args)} has no usable documents${why}. Add files with text (${supported}).`,
    );
  }
  return { documents, skipped, decoded, files: read, excluded };
}
