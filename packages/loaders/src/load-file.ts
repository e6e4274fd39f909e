import { InputError, type LoadedFile, type Loader, type LoaderInput, type LoaderOptions } from '@grag/core';
import { textLoader } from '@grag/core/kit';
import { resolveLimits } from './limits.js';
import {
  checkSize,
  csvLoader,
  docxLoader,
  htmlLoader,
  isBuiltInLoader,
  jsonLoader,
  jsonlLoader,
  markdownLoader,
  pdfLoader,
} from './loaders.js';

/** Options of {@link loadFile}: the loader options, and loaders to try before the defaults. */
export interface LoadFileOptions extends LoaderOptions {
  /** Loaders tried before {@link defaultLoaders}, so they can add extensions or take over one. */
  loaders?: readonly Loader[];
}

/** Every loader of this package, and core's plain-text loader: Markdown, HTML, PDF, DOCX, CSV/TSV, JSON, JSONL, text. */
export function defaultLoaders(): Loader[] {
  return [markdownLoader, htmlLoader, pdfLoader, docxLoader, csvLoader, jsonLoader, jsonlLoader, textLoader];
}

/**
 * The loader that takes `path`: the first of `loaders`, then of {@link defaultLoaders}, with an
 * extension the file name ends with (case-insensitive). Undefined when none does.
 */
export function findLoader(path: string, loaders: readonly Loader[] = []): Loader | undefined {
  const name = lower(fileName(path));
  for (const loader of [...loaders, ...defaultLoaders()]) {
    if (loader.extensions.some((ext) => name.endsWith(lower(ext)) && name.length > ext.length)) return loader;
  }
  return undefined;
}

/**
 * Loads one file with the loader its extension selects ({@link findLoader}). Files over
 * `limits.maxBytes` are refused before parsing; this package's loaders also check that the content
 * is what the extension says (a `.pdf` that is a ZIP archive, a `.json` that is an image) and parse
 * in a worker thread bounded by `limits.timeoutMs` and `limits.maxMemoryBytes`. A custom loader
 * runs in this thread: the time-out rejects its promise but cannot stop its work.
 *
 * @throws InputError naming the file and the reason in one line: no loader for the extension, over
 * a limit, content of another kind, damaged, encrypted, no text.
 * @throws InvalidArgumentError for limits that are not positive numbers.
 */
export async function loadFile(input: LoaderInput, options: LoadFileOptions = {}): Promise<LoadedFile> {
  const { loaders = [], ...loaderOptions } = options;
  const loader = findLoader(input.path, loaders);
  if (!loader) throw noLoader(input.path, loaders);
  const limits = resolveLimits(loaderOptions);
  checkSize(input, limits);
  if (isBuiltInLoader(loader)) return loader.load(input, loaderOptions);
  return withTimeout(loader, input, loaderOptions, limits.timeoutMs);
}

async function withTimeout(
  loader: Loader,
  input: LoaderInput,
  options: LoaderOptions,
  timeoutMs: number,
): Promise<LoadedFile> {
  const { signal } = options;
  signal?.throwIfAborted();
  let timer: NodeJS.Timeout | undefined;
  let onAbort: (() => void) | undefined;
  const stop = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () =>
        reject(
          new InputError(
            input.path,
            `${input.path}: the ${loader.name} loader took longer than ${timeoutMs} ms (limits.timeoutMs); raise the limit or split the file`,
          ),
        ),
      timeoutMs,
    );
    onAbort = () => reject(signal!.reason);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
  try {
    return await Promise.race([loader.load(input, options), stop]);
  } finally {
    clearTimeout(timer);
    if (onAbort) signal?.removeEventListener('abort', onAbort);
  }
}

function noLoader(path: string, loaders: readonly Loader[]): InputError {
  const name = fileName(path);
  const dot = name.lastIndexOf('.');
  const ext = dot > 0 ? lower(name.slice(dot)) : undefined;
  const known = [...new Set([...loaders, ...defaultLoaders()].flatMap((l) => l.extensions))].join(' ');
  const what = ext ? `${ext} files` : 'files without an extension';
  return new InputError(
    path,
    `${path}: no loader for ${what}; the loaders read ${known} (pass { loaders: [yourLoader] } to loadFile for others)`,
  );
}

function fileName(path: string): string {
  return path.split(/[\\/]/).pop() ?? path;
}

function lower(text: string): string {
  return text.toLowerCase();
}
