import type { Dirent } from 'node:fs';
import { readdir, readFile, stat } from 'node:fs/promises';
import { basename, extname, join, relative } from 'node:path';
import { type Document, InputError } from '@grag/core';
import { decodeText, type TextEncodingName } from '@grag/core/internal';

/** A file or record that was not read, and why. */
export interface SkippedInput {
  path: string;
  reason: string;
}

/** A file that was read in an encoding other than UTF-8, and why that encoding was assumed. */
export interface DecodedInput {
  path: string;
  encoding: Exclude<TextEncodingName, 'utf-8'>;
  /** E.g. `not valid UTF-8`, `byte-order mark`. */
  reason: string;
}

export interface Corpus {
  documents: Document[];
  skipped: SkippedInput[];
  /** Files not in UTF-8, with the encoding they were decoded from (see `decodeText`). */
  decoded: DecodedInput[];
  /** Files read that gave documents (each file counted once: a skipped file is only in `skipped`). */
  files: number;
}

const TEXT_EXTENSIONS = new Set(['.txt', '.md', '.markdown']);

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

/**
 * The regular files under `root`, recursively. What is not read is pushed to `skipped` with the
 * reason: hidden entries and node_modules, unreadable directories, links to directories (not
 * followed, so a link cycle cannot loop), broken or looping links, and special files (a FIFO would
 * block the read forever).
 */
async function listFiles(root: string, skipped: SkippedInput[]): Promise<string[]> {
  const out: string[] = [];
  const walk = async (dir: string) => {
    let entries: Dirent[];
    try {
      entries = await readdir(dir, { withFileTypes: true });
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
      if (dir === root)
        throw new InputError(
          root,
          `Cannot read the corpus directory ${root} (${code}); check its permissions.`,
        );
      skipped.push({ path: dir, reason: `unreadable directory (${code})` });
      return;
    }
    entries.sort((a, b) => a.name.localeCompare(b.name));
    for (const entry of entries) {
      const path = join(dir, entry.name);
      if (entry.name.startsWith('.') || entry.name === 'node_modules') {
        skipped.push({
          path,
          reason: `${entry.name === 'node_modules' ? 'node_modules' : 'hidden'} (not read)`,
        });
        continue;
      }
      if (entry.isDirectory()) await walk(path);
      else if (entry.isFile()) out.push(path);
      else if (entry.isSymbolicLink()) {
        const target = await stat(path).catch((error: NodeJS.ErrnoException) => error);
        if (target instanceof Error)
          skipped.push({ path, reason: `broken link (${target.code ?? target.message})` });
        else if (target.isDirectory()) skipped.push({ path, reason: 'link to a directory (not followed)' });
        else if (target.isFile()) out.push(path);
        else skipped.push({ path, reason: `link to ${specialKind(target)}, not a regular file` });
      } else skipped.push({ path, reason: `${specialKind(entry)}, not a regular file` });
    }
  };
  await walk(root);
  return out;
}

/** Title of a markdown/text document: its first `# heading`, else the file name. */
function titleOf(text: string, path: string): string {
  const heading = /^#\s+(.+)$/m.exec(text.slice(0, 2000));
  return heading?.[1]?.trim() ?? basename(path, extname(path));
}

function parseJsonl(text: string, path: string, skipped: SkippedInput[]): Document[] {
  const docs: Document[] = [];
  const seen = new Set<string>();
  text.split(/\r?\n/).forEach((line, i) => {
    if (line.trim() === '') return;
    const where = `${path}:${i + 1}`;
    let record: unknown;
    try {
      record = JSON.parse(line);
    } catch {
      skipped.push({ path: where, reason: 'not valid JSON' });
      return;
    }
    const r = record as { id?: unknown; title?: unknown; text?: unknown };
    if (typeof r !== 'object' || r === null || typeof r.text !== 'string') {
      skipped.push({ path: where, reason: 'no "text" string field' });
      return;
    }
    if (r.text.trim() === '') {
      skipped.push({ path: where, reason: 'empty "text"' });
      return;
    }
    const id =
      typeof r.id === 'string' || typeof r.id === 'number' ? String(r.id) : `${basename(path)}:${i + 1}`;
    if (seen.has(id)) {
      skipped.push({ path: where, reason: `duplicate id "${id}"` });
      return;
    }
    seen.add(id);
    const doc: Document = { id, text: r.text };
    if (typeof r.title === 'string' && r.title.trim()) doc.title = r.title;
    docs.push(doc);
  });
  return docs;
}

/**
 * Read a corpus: one file or a directory (recursively) of .txt/.md files and .jsonl files
 * (`{id, title, text}` per line). Each file's encoding is detected by content with `decodeText`
 * (UTF-8, UTF-16, Windows-1252, Latin-1); files not in UTF-8 are listed in `decoded`. Unreadable,
 * binary and malformed inputs are skipped and reported in `skipped`, never silently dropped. Throws
 * {@link InputError} when the path does not exist, or when nothing usable is found unless
 * `allowEmpty` (then the caller decides, e.g. `grag add` over several paths).
 */
export async function readCorpus(path: string, options: { allowEmpty?: boolean } = {}): Promise<Corpus> {
  const info = await stat(path).catch((error: NodeJS.ErrnoException) => error);
  if (info instanceof Error)
    throw new InputError(
      path,
      info.code === 'ENOENT'
        ? `Corpus path ${path} does not exist. Pass a file or a directory of .txt/.md/.jsonl files.`
        : `Cannot read the corpus path ${path} (${info.code ?? info.message}). Pass a file or a directory of .txt/.md/.jsonl files.`,
    );
  const root = info.isDirectory() ? path : undefined;
  const skipped: SkippedInput[] = [];
  if (!root && !info.isFile())
    throw new InputError(
      path,
      `Corpus path ${path} is ${specialKind(info)}, not a file or directory; pass a file or a directory of .txt/.md/.jsonl files.`,
    );
  const files = root ? await listFiles(root, skipped) : [path];
  const documents: Document[] = [];
  const decoded: DecodedInput[] = [];
  let read = 0;
  const ids = new Set<string>();
  for (const file of files) {
    const ext = extname(file).toLowerCase();
    if (!TEXT_EXTENSIONS.has(ext) && ext !== '.jsonl') {
      if (!root)
        skipped.push({
          path: file,
          reason: `unsupported file type "${ext || 'none'}" (use .txt, .md or .jsonl)`,
        });
      else skipped.push({ path: file, reason: `not a .txt, .md or .jsonl file` });
      continue;
    }
    let bytes: Uint8Array;
    try {
      bytes = await readFile(file);
    } catch (error) {
      skipped.push({
        path: file,
        reason: `unreadable (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`,
      });
      continue;
    }
    const result = decodeText(bytes);
    if (result.binary) {
      skipped.push({ path: file, reason: 'binary content' });
      continue;
    }
    const { text, encoding } = result;
    if (text.trim() === '') {
      skipped.push({ path: file, reason: 'empty file' });
      continue;
    }
    read++;
    if (encoding !== 'utf-8') decoded.push({ path: file, encoding, reason: result.reason });
    const name = root ? relative(root, file) : basename(file);
    if (ext === '.jsonl') {
      for (const doc of parseJsonl(text, file, skipped)) {
        if (ids.has(doc.id)) {
          skipped.push({ path: file, reason: `duplicate id "${doc.id}"` });
          continue;
        }
        ids.add(doc.id);
        documents.push(doc);
      }
      continue;
    }
    ids.add(name);
    documents.push({ id: name, title: titleOf(text, file), text });
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
        : '';
    throw new InputError(
      path,
      `The corpus at ${path} has no usable documents${why}. Add .txt, .md or .jsonl files with text.`,
    );
  }
  return { documents, skipped, decoded, files: read };
}
