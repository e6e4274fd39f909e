/** Load any supported dataset from a path, recognising its layout. */
import { readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { InputError } from '@grag/core';
import { loadBookDataset, loadInfiniteBench, loadNovelQa, singleBookFile } from './longdoc.js';
import { loadMultihopQa } from './multihop.js';
import { loadGragDataset } from './qa.js';
import { pathKind } from './read.js';
import type { EvalDataset, LoadOptions } from './types.js';

/** The layouts {@link loadDataset} recognises. */
export type DatasetLayout =
  | 'grag-jsonl'
  | 'corpus-folder'
  | 'novelqa'
  | 'book'
  | 'infinitebench'
  | 'multihop'
  | 'user-jsonl';

function firstRecord(path: string): Record<string, unknown> | undefined {
  const head = readFileSync(path, 'utf8').slice(0, 1 << 20);
  const trimmed = head.trimStart();
  try {
    if (trimmed.startsWith('[')) {
      // First element of a JSON array: parse the whole file (needed anyway by the loader).
      const all = JSON.parse(readFileSync(path, 'utf8')) as unknown[];
      return all[0] as Record<string, unknown>;
    }
    const line = trimmed.split('\n')[0];
    return line ? (JSON.parse(line) as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * What layout `path` holds: a directory with `corpus.jsonl` + `questions.jsonl` (grag / the shared
 * slices), a `corpus/` folder of files + `questions.jsonl` (`corpus-folder`: see
 * {@link loadFolderDataset}), `Books/` + `Data/` (NovelQA), `book.txt` + `questions.jsonl` (one book); a JSONL file of
 * `{context, input}` lines (InfiniteBench); a JSON / JSONL file of MuSiQue `paragraphs` or
 * HotpotQA / 2Wiki `context` records. `undefined` when none fits.
 */
export function detectLayout(path: string): DatasetLayout | undefined {
  const kind = pathKind(path);
  if (kind === 'dir') {
    if (pathKind(join(path, 'corpus.jsonl')) === 'file' && pathKind(join(path, 'questions.jsonl')) === 'file')
      return 'grag-jsonl';
    if (pathKind(join(path, 'corpus')) === 'dir' && pathKind(join(path, 'questions.jsonl')) === 'file')
      return 'corpus-folder';
    if (pathKind(join(path, 'Books')) === 'dir' && pathKind(join(path, 'Data')) === 'dir') return 'novelqa';
    if (singleBookFile(path) && pathKind(join(path, 'questions.jsonl')) === 'file') return 'book';
    return undefined;
  }
  if (kind !== 'file') return undefined;
  const first = firstRecord(path);
  if (!first) return undefined;
  if (typeof first.context === 'string' && 'input' in first) return 'infinitebench';
  if (Array.isArray(first.paragraphs) || (first.context !== undefined && 'supporting_facts' in first))
    return 'multihop';
  return undefined;
}

/**
 * Load a dataset from a directory or file, recognising its layout (see {@link detectLayout}). A
 * `corpus/` folder of files needs a loader: use {@link loadFolderDataset} for that layout.
 * Throws an `InputError` naming the path when no layout fits, with what was expected; a knowledge
 * graph directory (`train.tsv`) is pointed to `loadKgTriples` / `generateErqa`.
 */
export function loadDataset(path: string, options: LoadOptions = {}): EvalDataset {
  const layout = detectLayout(path);
  switch (layout) {
    case 'grag-jsonl':
      return loadGragDataset(path, options);
    case 'novelqa':
      return loadNovelQa(path, options);
    case 'book':
      return loadBookDataset(path, options);
    case 'infinitebench':
      return loadInfiniteBench(path, options);
    case 'multihop':
      return loadMultihopQa(path, options);
    case 'corpus-folder':
      throw new InputError(
        path,
        `@grag/eval: ${path} keeps its corpus as a folder of files (corpus/), which a loader reads: read it ` +
          '(readCorpus of @grag/cli, or the loaders of @grag/loaders) and pass the documents to ' +
          'loadFolderDataset(dir, { documents }); grag eval does this itself.',
      );
    default: {
      const kind = pathKind(path);
      if (kind === 'missing') throw new InputError(path, `@grag/eval: dataset path ${path} does not exist.`);
      if (kind === 'dir' && pathKind(join(path, 'train.tsv')) === 'file')
        throw new InputError(
          path,
          `@grag/eval: ${path} is a knowledge graph (train.tsv), not a QA dataset. Generate questions with ` +
            'generateErqa(loadKgTriples(dir)) and writeErqaDataset(outDir, ...), then evaluate outDir.',
        );
      throw new InputError(
        path,
        `@grag/eval: cannot tell the layout of ${basename(path)}. Expected a directory with corpus.jsonl + ` +
          'questions.jsonl, a corpus/ folder of files + questions.jsonl, Books/ + Data/ (NovelQA), or book.txt + questions.jsonl; or a JSONL/JSON file of ' +
          'InfiniteBench, MuSiQue, HotpotQA or 2WikiMultihopQA records. For other files use loadUserDataset.',
      );
    }
  }
}
