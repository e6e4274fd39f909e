import { readdir, readFile, stat } from 'node:fs/promises';
import { basename, extname, join, relative } from 'node:path';
import { type Document, InputError } from '@grag/core';

/** A file or record that was not read, and why. */
export interface SkippedInput {
  path: string;
  reason: string;
}

export interface Corpus {
  documents: Document[];
  skipped: SkippedInput[];
  /** Files read. */
  files: number;
}

const TEXT_EXTENSIONS = new Set(['.txt', '.md', '.markdown']);

/** True when `bytes` look like binary data: a NUL byte, or mostly invalid UTF-8, in the first 8 KiB. */
export function looksBinary(bytes: Uint8Array): boolean {
  const head = bytes.subarray(0, 8192);
  if (head.includes(0)) return true;
  const text = new TextDecoder('utf-8', { fatal: false }).decode(head);
  let bad = 0;
  for (const ch of text) if (ch === '\uFFFD') bad++;
  return bad > Math.max(8, text.length * 0.02);
}

async function listFiles(root: string): Promise<string[]> {
  const out: string[] = [];
  const walk = async (dir: string) => {
    const entries = await readdir(dir, { withFileTypes: true });
    entries.sort((a, b) => a.name.localeCompare(b.name));
    for (const entry of entries) {
      if (entry.name.startsWith('.') || entry.name === 'node_modules') continue;
      const path = join(dir, entry.name);
      if (entry.isDirectory()) await walk(path);
      else out.push(path);
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
 * (`{id, title, text}` per line). Unreadable, binary and malformed inputs are skipped and reported
 * in `skipped`, never silently dropped. Throws {@link InputError} when the path does not exist or
 * nothing usable is found.
 */
export async function readCorpus(path: string): Promise<Corpus> {
  const info = await stat(path).catch(() => undefined);
  if (!info)
    throw new InputError(
      path,
      `Corpus path ${path} does not exist. Pass a file or a directory of .txt/.md/.jsonl files.`,
    );
  const root = info.isDirectory() ? path : undefined;
  const files = root ? await listFiles(root) : [path];
  const documents: Document[] = [];
  const skipped: SkippedInput[] = [];
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
    if (looksBinary(bytes)) {
      skipped.push({ path: file, reason: 'binary content' });
      continue;
    }
    read++;
    const text = new TextDecoder().decode(bytes);
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
    if (text.trim() === '') {
      skipped.push({ path: file, reason: 'empty file' });
      continue;
    }
    ids.add(name);
    documents.push({ id: name, title: titleOf(text, file), text });
  }
  if (documents.length === 0) {
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
  return { documents, skipped, files: read };
}
